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
