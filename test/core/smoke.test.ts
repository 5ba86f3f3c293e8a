import assert from 'node:assert/strict';
import { startTestKernel, type TestKernel } from '../../core/testing.ts';

describe('kernel smoke', () => {
  let t: TestKernel;
  before(async () => {
    t = await startTestKernel();
  });
  after(() => t.stop());

  it('answers /health', async () => {
    const res = await t.request.get('/api/v1/health').expect(200);
    assert.deepEqual(res.body, { status: 'ok', database: 'ok' });
    assert.ok(res.headers['x-request-id']);
  });
  it('problem+json on unknown route', async () => {
    const res = await t.request.get('/api/v1/nope').expect(404);
    assert.equal(res.headers['content-type'], 'application/problem+json');
    assert.equal(res.body.code, 'not_found');
  });
});

describe('auth smoke', () => {
  let t: TestKernel;
  before(async () => {
    t = await startTestKernel();
  });
  after(() => t.stop());
  it('signs up and reads /me', async () => {
    const { signUp } = await import('../helpers.ts');
    const u = await signUp(t);
    const me = await t.request.get('/api/v1/me').set(u.auth).expect(200);
    assert.equal(me.body.id, u.id);
    await t.request.post('/api/v1/auth/sign-out').set(u.auth).expect(204);
    await t.request.get('/api/v1/me').set(u.auth).expect(401);
  });
});
