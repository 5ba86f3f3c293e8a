import assert from 'node:assert/strict';
import { createWorkspace, joinWorkspace, signUp, startTestKernel, type SignedUpUser, type TestKernel } from '../../../core/testing.ts';
import { openStream } from './sse-client.ts';

describe('realtime: the event stream', function () {
  this.timeout(60_000);
  let t: TestKernel;
  let admin: SignedUpUser;
  let ws: string;
  let spaceS: string;
  let spaceT: string;
  let dbD: string;
  let dbE: string;
  const api = (path: string) => `/api/v1/workspaces/${ws}${path}`;
  const post = async (path: string, body: object, who = admin) => (await t.request.post(api(path)).set(who.auth).send(body).expect((r) => assert.ok(r.status < 300, JSON.stringify(r.body)))).body;

  before(async () => {
    t = await startTestKernel({ config: { jobs: { pollingIntervalSeconds: 0.5 }, plugins: { realtime: { options: { heartbeatSeconds: 0.5 } } } } });
    admin = await signUp(t);
    ws = (await createWorkspace(t, admin)).id;
    spaceS = (await post('/spaces', { name: 'S' })).id;
    spaceT = (await post('/spaces', { name: 'T' })).id;
    dbD = (await post('/databases', { name: 'D', space_id: spaceS })).id;
    dbE = (await post('/databases', { name: 'E', space_id: spaceT })).id;
  });
  after(() => t.stop());

  it('streams record changes of a database as text/event-stream, with ids, and comment lines between', async () => {
    const stream = await openStream(t, admin.token, ws, { topics: `database:${dbD}` });
    assert.equal(stream.status, 200);
    assert.match(String(stream.headers['content-type']), /^text\/event-stream/);
    assert.equal(stream.headers['cache-control'], 'no-cache, no-transform');
    const record = await post(`/databases/${dbD}/records`, { values: { name: 'First' } });
    const created = await stream.next((e) => e.event === 'record.created');
    assert.deepEqual([created.data.name, created.data.workspace_id, created.data.actor_id, created.data.payload.record.id, created.data.payload.record.values.name], ['record.created', ws, admin.id, record.id, 'First']);
    await t.request.patch(api(`/databases/${dbD}/records/${record.id}`)).set(admin.auth).send({ values: { name: 'Renamed' } }).expect(200);
    const updated = await stream.next((e) => e.event === 'record.updated');
    assert.equal(updated.data.payload.after.values.name, 'Renamed');
    await t.request.delete(api(`/databases/${dbD}/records/${record.id}`)).set(admin.auth).expect(204);
    await stream.next((e) => e.event === 'record.deleted');
    assert.ok(Number(updated.id) > Number(created.id));
    await new Promise((r) => setTimeout(r, 700));
    assert.ok(stream.comments > 0, 'a comment line keeps the stream open');
    stream.close();
  });

  it('gives only the topics asked for: another database stays silent, a record topic hears its record and its comments', async () => {
    const first = await post(`/databases/${dbD}/records`, { values: { name: 'Watched' } });
    const other = await post(`/databases/${dbD}/records`, { values: { name: 'Not watched' } });
    const stream = await openStream(t, admin.token, ws, { topics: `record:${first.id}` });
    await post(`/databases/${dbE}/records`, { values: { name: 'Elsewhere' } });
    await t.request.patch(api(`/databases/${dbD}/records/${other.id}`)).set(admin.auth).send({ values: { name: 'Still not' } }).expect(200);
    await post(`/databases/${dbD}/records/${first.id}/comments`, { content: { type: 'doc', content: [{ type: 'paragraph', content: [{ type: 'text', text: 'Looks good' }] }] } });
    const comment = await stream.next((e) => e.event === 'comment.created');
    assert.equal(comment.data.payload.record_id, first.id);
    await t.request.patch(api(`/databases/${dbD}/records/${first.id}`)).set(admin.auth).send({ values: { name: 'Watched, changed' } }).expect(200);
    await stream.next((e) => e.event === 'record.updated');
    assert.deepEqual(stream.events.map((e) => e.event), ['comment.created', 'record.updated']);
    stream.close();
  });

  it('shows a guest only what it reads: its space’s databases, never another’s, and 404 for a topic it cannot see', async () => {
    const guest = await signUp(t);
    await joinWorkspace(t, admin, ws, guest, 'guest', [spaceS]);
    const refused = await openStream(t, guest.token, ws, { topics: `database:${dbE}` });
    assert.equal(refused.status, 404);
    const stream = await openStream(t, guest.token, ws);
    await post(`/databases/${dbE}/records`, { values: { name: 'Secret' } });
    await post(`/databases/${dbE}/fields`, { name: 'Hidden note', type: 'text' });
    await post(`/databases/${dbD}/records`, { values: { name: 'Shared' } });
    const shared = await stream.next((e) => e.event === 'record.created');
    assert.equal(shared.data.payload.record.values.name, 'Shared');
    await post(`/databases/${dbD}/fields`, { name: 'Visible note', type: 'text' });
    await stream.next((e) => e.event === 'field.created');
    assert.ok(!JSON.stringify(stream.events).includes('Secret') && !JSON.stringify(stream.events).includes('Hidden note'), JSON.stringify(stream.events));
    stream.close();
  });

  it('replays what a reconnecting stream missed after its Last-Event-ID, and nothing before', async () => {
    const stream = await openStream(t, admin.token, ws, { topics: `database:${dbD}` });
    await post(`/databases/${dbD}/records`, { values: { name: 'Seen' } });
    const seen = await stream.next((e) => e.event === 'record.created');
    stream.close();
    await post(`/databases/${dbD}/records`, { values: { name: 'Missed one' } });
    await post(`/databases/${dbD}/records`, { values: { name: 'Missed two' } });
    await new Promise((r) => setTimeout(r, 500));
    const again = await openStream(t, admin.token, ws, { topics: `database:${dbD}`, lastEventId: seen.id! });
    await again.next((e) => e.data.payload.record?.values.name === 'Missed two');
    await post(`/databases/${dbD}/records`, { values: { name: 'Live' } });
    await again.next((e) => e.data.payload.record?.values.name === 'Live');
    assert.deepEqual(again.events.map((e) => e.data.payload.record.values.name), ['Missed one', 'Missed two', 'Live']);
    again.close();
  });

  it('ends the stream when its token is revoked, and when its caller leaves the workspace', async () => {
    const token = await t.request.post('/api/v1/me/tokens').set(admin.auth).send({ name: 'stream', workspace_id: ws, scope: 'read' }).expect(201);
    const byToken = await openStream(t, token.body.token, ws);
    assert.equal(byToken.status, 200);
    await t.request.delete(`/api/v1/me/tokens/${token.body.id}`).set(admin.auth).expect(204);
    await Promise.race([byToken.ended, new Promise((_, reject) => setTimeout(() => reject(new Error('the revoked token’s stream is still open')), 5000))]);

    const member = await signUp(t);
    await joinWorkspace(t, admin, ws, member, 'member');
    const byMember = await openStream(t, member.token, ws);
    await t.request.delete(api(`/members/${member.id}`)).set(admin.auth).expect(204);
    await Promise.race([byMember.ended, new Promise((_, reject) => setTimeout(() => reject(new Error('the removed member’s stream is still open')), 5000))]);
  });

  it('refuses a malformed topic with 422 at /query/topics, and needs a credential', async () => {
    const bad = await openStream(t, admin.token, ws, { topics: 'table:123' });
    assert.equal(bad.status, 422);
    assert.equal(JSON.parse(bad.body).errors[0].pointer, '/query/topics');
    await t.request.get(api('/events')).expect(401);
    // The header as the kernel reads it, blanks after the token included.
    const spaced = await openStream(t, `${admin.token} `, ws, { topics: `database:${dbD}` });
    assert.equal(spaced.status, 200);
    spaced.close();
  });
});
