import assert from 'node:assert/strict';
import { startTestKernel, type TestKernel } from 'tessera/testing';
import plugin from '../index.ts';

/** The plugin booted with only what it needs (its dependencies come along): a real kernel, real storage, real HTTP. */
describe('hello plugin', () => {
  let t: TestKernel;
  let caller: Record<string, string>;

  before(async () => {
    t = await startTestKernel({ plugins: [plugin] });
    const res = await t.request.post('/api/v1/auth/sign-up').send({ email: 'ada@example.test', name: 'Ada', password: 'correct horse battery' }).expect(201);
    caller = { Authorization: `Bearer ${res.body.token}` };
  });
  after(() => t.stop());

  it('stores a greeting for the caller and lists it', async () => {
    const created = await t.request.post('/api/v1/hello/greetings').set(caller).send({ name: 'Ada' }).expect(201);
    assert.equal(created.body.message, 'Hello, Ada!');
    const list = await t.request.get('/api/v1/hello/greetings').set(caller).expect(200);
    assert.deepEqual(list.body.data.map((g: { id: string }) => g.id), [created.body.id]);
  });

  it('refuses a body its schema does not allow, storing nothing', async () => {
    const before = await t.db('hello_greetings').count({ n: '*' }).first();
    const res = await t.request.post('/api/v1/hello/greetings').set(caller).send({ name: '' }).expect(422);
    assert.equal(res.body.code, 'validation_failed');
    assert.equal(res.body.errors[0].pointer, '/name');
    assert.deepEqual(await t.db('hello_greetings').count({ n: '*' }).first(), before);
  });

  it('answers 401 without a credential', async () => {
    await t.request.get('/api/v1/hello/greetings').expect(401);
  });
});
