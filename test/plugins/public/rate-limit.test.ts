import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { startTestKernel, type TestKernel } from '../../../core/testing.ts';
import { traces } from '../gdpr/helpers.ts';
import { formWorld, type FormWorld } from './setup.ts';

const config = { http: { trustProxy: true }, plugins: { public: { options: { submissionsPerMinute: 3 } } } };

describe('public: submissions limited per address', () => {
  let w: FormWorld;
  const ada = { name: 'Ada', email: 'ada@example.com' };
  const submit = (ip: string, body: object = { values: ada }, on: TestKernel = w.t, token = w.token) =>
    on.request.post(`/api/v1/public/forms/${token}`).set('X-Forwarded-For', ip).send(body);
  const count = async () => (await w.t.request.get(w.url()).set(w.admin.auth).expect(200)).body.data.length as number;

  beforeEach(async () => {
    w = await formWorld(config);
  });
  afterEach(() => w.t.stop());

  it('counts every attempt of an address, honeypot, refusals and dead links included; 429 with Retry-After past the limit', async () => {
    await submit('203.0.113.5', { values: {}, hp: 'bot' }).expect(201);
    await submit('203.0.113.5', { values: { ghost: 1 } }).expect(422);
    await submit('203.0.113.5', { values: ada }, w.t, 'B'.repeat(32)).expect(404);
    const res = await submit('203.0.113.5').expect(429);
    assert.equal(res.body.code, 'rate_limited');
    const retryAfter = Number(res.headers['retry-after']);
    assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60, `Retry-After ${res.headers['retry-after']}`);
    assert.equal(await count(), 0);

    // Another address is not affected.
    await submit('198.51.100.7').expect(201);
    assert.equal(await count(), 1);
  });

  it('keeps the address nowhere, and in its counters not even a plain hash of it', async () => {
    await submit('203.0.113.9').expect(201);
    assert.deepEqual(await traces(w.t, ['203.0.113.9']), []);
    const keys = (await w.t.db('public_rate_counters').pluck('key')) as string[];
    assert.equal(keys.length, 1);
    const plain = ['203.0.113.9', 'form-submit:203.0.113.9'].map((s) => createHash('sha256').update(s).digest('hex'));
    assert.ok(/^[0-9a-f]{64}$/.test(keys[0]) && !plain.includes(keys[0]), keys[0]);
  });

  it('shares counters between instances on one PostgreSQL', async function () {
    if (!process.env.DATABASE_URL) this.skip(); // PGlite is one process by design
    const second = await startTestKernel({ config, storage: w.t.storage });
    try {
      for (let i = 0; i < 3; i++) await submit('192.0.2.1').expect(201);
      await submit('192.0.2.1', { values: ada }, second).expect(429);
      await submit('192.0.2.2', { values: ada }, second).expect(201);
    } finally {
      await second.stop({ keep: true });
    }
  });
});
