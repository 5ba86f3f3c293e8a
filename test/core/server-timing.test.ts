import assert from 'node:assert/strict';
import { createWorkspace, signUp, startTestKernel, type TestKernel } from '../../core/testing.ts';
import { statementsOf } from '../fixtures/server-timing.ts';

/** `Server-Timing` on every answer: what a user can see of where a request's time went. */
describe('Server-Timing', () => {
  let t: TestKernel;
  before(async () => {
    t = await startTestKernel();
  });
  after(() => t.stop());

  const parse = (header: string) => Object.fromEntries(header.split(', ').map((part) => {
    const [name, dur] = part.split(';dur=');
    return [name, parseFloat(dur)];
  }));

  it('says the time spent in the database, turning the answer into JSON, and in all', async () => {
    const user = await signUp(t);
    const ws = (await createWorkspace(t, user)).id;
    const res = await t.request.get(`/api/v1/workspaces/${ws}/spaces`).set(user.auth).expect(200);
    const timing = parse(res.headers['server-timing']);
    assert.deepEqual(Object.keys(timing), ['db', 'serialise', 'total']);
    assert.ok(timing.db > 0, 'the spaces were read from the database');
    const statements = statementsOf(res.headers['server-timing']);
    assert.ok(statements >= 1 && statements < 20, res.headers['server-timing']);
    assert.ok(timing.serialise >= 0 && timing.total >= timing.db + timing.serialise, JSON.stringify(timing));
    // The body is the same JSON as ever.
    assert.equal(res.headers['content-type'], 'application/json; charset=utf-8');
    assert.deepEqual(res.body, { data: [], next_cursor: null });
  });

  it('is there on errors too, with their problem+json type kept', async () => {
    const res = await t.request.get('/api/v1/me').expect(401);
    assert.match(res.headers['server-timing'], /^db;dur=[\d.]+;desc="\d+ statements", serialise;dur=[\d.]+, total;dur=[\d.]+$/);
    assert.match(res.headers['content-type'], /^application\/problem\+json/);
    assert.equal(res.body.code, 'unauthenticated');
  });
});
