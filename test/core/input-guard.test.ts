import assert from 'node:assert/strict';
import { startTestKernel, type TestKernel, createWorkspace, signUp, type SignedUpUser } from '../../core/testing.ts';
import { findHostileInput, MAX_INPUT_DEPTH } from '../../core/input-guard.ts';

/** `{"a":{"a":…{"a":1}…}}` written as text, so building it needs no recursion. */
function nestedJson(levels: number): string {
  return `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;
}

describe('hostile input is refused at the edge, for every route', () => {
  let t: TestKernel;
  let ada: SignedUpUser;
  let ws: string;
  let db: string;

  before(async () => {
    t = await startTestKernel();
    ada = await signUp(t);
    ws = (await createWorkspace(t, ada)).id;
    const space = (await t.request.post(`/api/v1/workspaces/${ws}/spaces`).set(ada.auth).send({ name: 'S' }).expect(201)).body.id;
    db = (await t.request.post(`/api/v1/workspaces/${ws}/databases`).set(ada.auth).send({ name: 'D', space_id: space }).expect(201)).body.id;
  });
  after(() => t.stop());

  const workspaceNames = async () => (await t.db('workspaces').select('name')).map((r: { name: string }) => r.name);

  it('answers 422 at the pointer for a NUL character in a body string, storing nothing', async () => {
    const before = await workspaceNames();
    const res = await t.request.post('/api/v1/workspaces').set(ada.auth).send({ name: 'a\u0000b' }).expect(422);
    assert.equal(res.body.code, 'validation_failed');
    assert.deepEqual(res.body.errors.map((e: { pointer: string }) => e.pointer), ['/name']);
    assert.match(res.body.errors[0].detail, /NUL/);
    assert.deepEqual(await workspaceNames(), before);
  });

  it('answers 422 for a lone surrogate in a string and for a NUL in a member name', async () => {
    const lone = await t.request.post('/api/v1/workspaces').set(ada.auth).set('Content-Type', 'application/json').send('{"name":"x\\ud800y"}').expect(422);
    assert.deepEqual(lone.body.errors.map((e: { pointer: string }) => e.pointer), ['/name']);
    assert.match(lone.body.errors[0].detail, /surrogate/);
    const key = await t.request.post(`/api/v1/workspaces/${ws}/databases/${db}/records/query`).set(ada.auth).send({ filter: { and: [{ ['fi\u0000eld']: 'name', op: 'eq', value: 'x' }] } }).expect(422);
    assert.deepEqual(key.body.errors.map((e: { pointer: string }) => e.pointer), ['/filter/and/0/fi\u0000eld']);
  });

  it('keeps valid Unicode, surrogate pairs included', async () => {
    const res = await t.request.post('/api/v1/workspaces').set(ada.auth).send({ name: 'Équipe 🚀 数据' }).expect(201);
    assert.equal(res.body.name, 'Équipe 🚀 数据');
  });

  it('refuses a NUL in a filter value and in the query string', async () => {
    const body = await t.request.post(`/api/v1/workspaces/${ws}/databases/${db}/records/query`).set(ada.auth).send({ filter: { field: 'name', op: 'contains', value: 'a\u0000' } }).expect(422);
    assert.deepEqual(body.body.errors.map((e: { pointer: string }) => e.pointer), ['/filter/value']);
    const query = await t.request.get(`/api/v1/workspaces/${ws}/databases/${db}/records?q=a%00b`).set(ada.auth).expect(422);
    assert.deepEqual(query.body.errors.map((e: { pointer: string }) => e.pointer), ['/query/q']);
  });

  it('answers 404 for a NUL in a path segment that names a resource', async () => {
    const res = await t.request.get(`/api/v1/workspaces/${ws}/databases/${db}/fields/na%00me`).set(ada.auth).expect(404);
    assert.equal(res.body.code, 'not_found');
  });

  it(`refuses bodies nested deeper than ${MAX_INPUT_DEPTH} levels with 422, with or without an Idempotency-Key`, async () => {
    const fields = `/api/v1/workspaces/${ws}/databases/${db}/fields`;
    const deep = `{"name":"Deep","type":"json","options":${nestedJson(5000)}}`;
    const plain = await t.request.post(fields).set(ada.auth).set('Content-Type', 'application/json').send(deep).expect(422);
    assert.equal(plain.body.code, 'validation_failed');
    assert.match(plain.body.errors[0].detail, /deeper than 64/);
    assert.ok(plain.body.errors[0].pointer.startsWith('/options/a/a/'));
    const keyed = await t.request.post('/api/v1/workspaces').set(ada.auth).set('Idempotency-Key', 'deep-1').set('Content-Type', 'application/json').send(`{"name":"Deep","x":${nestedJson(8000)}}`).expect(422);
    assert.equal(keyed.body.code, 'validation_failed');
  });

  it('finds problems at any depth without recursion, escaping pointer tokens', () => {
    assert.equal(findHostileInput({ a: [1, { 'b/c~': 'ok' }] }), null);
    assert.deepEqual(findHostileInput({ a: [1, { 'b/c~': 'x\u0000' }] }), { pointer: '/a/1/b~1c~0', detail: 'The text must not contain the NUL character (U+0000).' });
    assert.equal(findHostileInput('\udc00x')?.pointer, '');
    assert.equal(findHostileInput('\ud83d\ude80'), null);
    let value: unknown = 1;
    for (let i = 0; i < 100_000; i++) value = [value];
    assert.match(findHostileInput(value)!.detail, /deeper than 64/);
  });
});

describe('a write that takes no body refuses one', () => {
  let t: TestKernel;
  let ada: SignedUpUser;
  let records: string;

  before(async () => {
    t = await startTestKernel();
    ada = await signUp(t);
    const ws = (await createWorkspace(t, ada)).id;
    const space = (await t.request.post(`/api/v1/workspaces/${ws}/spaces`).set(ada.auth).send({ name: 'S' }).expect(201)).body.id;
    const db = (await t.request.post(`/api/v1/workspaces/${ws}/databases`).set(ada.auth).send({ name: 'D', space_id: space }).expect(201)).body.id;
    records = `/api/v1/workspaces/${ws}/databases/${db}/records`;
  });
  after(() => t.stop());

  it('answers 422 at the member it does not take, copying nothing', async () => {
    const record = (await t.request.post(records).set(ada.auth).send({ values: { name: 'One' } }).expect(201)).body;
    const res = await t.request.post(`${records}/${record.id}/duplicate`).set(ada.auth).send({ copies: 3 }).expect(422);
    assert.equal(res.body.code, 'validation_failed');
    assert.deepEqual(res.body.errors.map((e: { pointer: string }) => e.pointer), ['/copies']);
    const list = await t.request.get(records).set(ada.auth).expect(200);
    assert.equal(list.body.data.length, 1);
  });

  it('accepts no body and an empty object', async () => {
    const record = (await t.request.post(records).set(ada.auth).send({ values: { name: 'Two' } }).expect(201)).body;
    await t.request.post(`${records}/${record.id}/duplicate`).set(ada.auth).expect(201);
    await t.request.post(`${records}/${record.id}/duplicate`).set(ada.auth).send({}).expect(201);
  });
});
