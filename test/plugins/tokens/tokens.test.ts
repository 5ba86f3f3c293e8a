import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { startTestKernel, type TestKernel, createWorkspace, signUp, type SignedUpUser } from '../../../core/testing.ts';
import { hashSecret, hasValidChecksum } from '../../../core/secrets.ts';
import { createPat } from './helpers.ts';

const LIST_FIELDS = ['allow_run_button', 'created_at', 'id', 'last_used_at', 'name', 'prefix', 'scope', 'workspace_id'];

describe('tokens: creating, listing and revoking personal access tokens', () => {
  let t: TestKernel;
  let alice: SignedUpUser;
  let bob: SignedUpUser;

  before(async () => {
    t = await startTestKernel();
    alice = await signUp(t);
    bob = await signUp(t);
  });
  after(() => t.stop());

  const countTokens = async (userId: string) =>
    Number(((await t.db('personal_access_tokens').where('user_id', userId).count({ n: '*' }).first()) as { n: number }).n);

  it('creates a token and returns its plaintext, with defaults read / no run button', async () => {
    const workspaceId = (await createWorkspace(t, alice)).id;
    const res = await t.request.post('/api/v1/me/tokens').set(alice.auth).send({ name: 'CI deploy', workspace_id: workspaceId }).expect(201);
    assert.deepEqual(Object.keys(res.body).sort(), [...LIST_FIELDS, 'token'].sort());
    assert.equal(res.body.name, 'CI deploy');
    assert.equal(res.body.workspace_id, workspaceId);
    assert.equal(res.body.scope, 'read');
    assert.equal(res.body.allow_run_button, false);
    assert.equal(res.body.last_used_at, null);
    assert.ok(!Number.isNaN(Date.parse(res.body.created_at)));
    assert.match(res.body.token, /^tpat_[0-9A-Za-z]{36}$/);
    assert.equal(res.body.prefix, res.body.token.slice(0, 12));
  });

  it('keeps the scope and run-button flag asked for', async () => {
    const pat = await createPat(t, alice, { scope: 'admin', allow_run_button: true });
    assert.equal(pat.scope, 'admin');
    assert.equal(pat.allow_run_button, true);
  });

  it('issues tokens with a valid CRC32 checksum that differ from each other and from sessions', async () => {
    const a = await createPat(t, alice);
    const b = await createPat(t, alice);
    assert.notEqual(a.token, b.token);
    assert.ok(hasValidChecksum(a.token, 'tpat_'));
    assert.ok(hasValidChecksum(b.token, 'tpat_'));
    assert.ok(!alice.token.startsWith('tpat_'), 'a session token is distinguishable from a PAT');
  });

  it('never stores the plaintext: no column of any row contains it, only its hash', async () => {
    const pat = await createPat(t, alice, { name: 'secret-scan' });
    const secretPart = pat.token.slice(12);
    const { rows } = (await t.db.raw('SELECT row_to_json(t)::text AS row FROM personal_access_tokens t')) as { rows: Array<{ row: string }> };
    assert.ok(rows.length >= 1);
    for (const { row } of rows) {
      assert.ok(!row.includes(pat.token), `a row contains the token: ${row}`);
      assert.ok(!row.includes(secretPart), `a row contains the secret part of the token: ${row}`);
    }
    const stored = await t.db('personal_access_tokens').where('id', pat.id).first();
    assert.equal(stored.token_hash, hashSecret(pat.token));
    assert.equal(stored.prefix, pat.token.slice(0, 12));
  });

  it('lists my tokens with a prefix only, newest first, never the token or its hash', async () => {
    const pat = await createPat(t, bob, { name: 'newest' });
    const res = await t.request.get('/api/v1/me/tokens').set(bob.auth).expect(200);
    assert.equal(res.body.next_cursor, null);
    assert.equal(res.body.data[0].id, pat.id);
    for (const item of res.body.data) assert.deepEqual(Object.keys(item).sort(), LIST_FIELDS);
    const text = JSON.stringify(res.body);
    assert.ok(!text.includes(pat.token));
    assert.ok(!text.includes(hashSecret(pat.token)));
    assert.equal(res.body.data[0].prefix, pat.token.slice(0, 12));
    const alices = await t.request.get('/api/v1/me/tokens').set(alice.auth).expect(200);
    assert.ok(!alices.body.data.some((d: { id: string }) => d.id === pat.id), "another user's token is not listed");
  });

  it('pages with ?limit and an opaque cursor, keeping order across equal timestamps', async () => {
    const carol = await signUp(t);
    const workspaceId = (await createWorkspace(t, carol)).id;
    const ids = [randomUUID(), randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    // Three rows share a microsecond-precise timestamp, so only the id tie-breaker orders them.
    const stamps = ['2026-01-01T00:00:00.123457Z', '2026-01-01T00:00:00.123456Z', '2026-01-01T00:00:00.123456Z', '2026-01-01T00:00:00.123456Z', '2026-01-01T00:00:00.123Z'];
    await t.db('personal_access_tokens').insert(
      ids.map((id, i) => ({ id, user_id: carol.id, workspace_id: workspaceId, name: `t${i}`, prefix: 'tpat_x', token_hash: `h-${id}`, created_at: stamps[i] })),
    );
    const expected = ids
      .map((id, i) => ({ id, at: stamps[i].replace('.123Z', '.123000Z') }))
      .sort((a, b) => (a.at === b.at ? (a.id < b.id ? 1 : -1) : a.at < b.at ? 1 : -1))
      .map((r) => r.id);

    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res: { body: { data: Array<{ id: string }>; next_cursor: string | null } } = await t.request
        .get('/api/v1/me/tokens')
        .set(carol.auth)
        .query({ limit: 2, ...(cursor ? { cursor } : {}) })
        .expect(200);
      assert.ok(res.body.data.length <= 2);
      seen.push(...res.body.data.map((d) => d.id));
      cursor = res.body.next_cursor;
    } while (cursor);
    assert.deepEqual(seen, expected);

    const all = await t.request.get('/api/v1/me/tokens').set(carol.auth).expect(200);
    assert.equal(all.body.data.length, 5, 'default limit covers a short list');
  });

  it('rejects a bad limit or a forged cursor with 422 and a pointer', async () => {
    for (const limit of ['0', '201', 'ten']) {
      const res = await t.request.get('/api/v1/me/tokens').set(alice.auth).query({ limit }).expect(422);
      assert.equal(res.body.errors[0].pointer, '/query/limit');
    }
    const forged = [
      'not-a-cursor',
      Buffer.from(JSON.stringify(['yesterday', randomUUID()])).toString('base64url'),
      Buffer.from(JSON.stringify(['2026-01-01 00:00:00+00'])).toString('base64url'),
    ];
    for (const cursor of forged) {
      const res = await t.request.get('/api/v1/me/tokens').set(alice.auth).query({ cursor }).expect(422);
      assert.equal(res.body.code, 'validation_failed');
      assert.equal(res.body.errors[0].pointer, '/query/cursor');
    }
  });

  it('rejects invalid creation bodies with 422 and pointers, storing nothing', async () => {
    const dave = await signUp(t);
    const ws = randomUUID();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ workspace_id: ws }, '/name'],
      [{ name: '', workspace_id: ws }, '/name'],
      [{ name: '   ', workspace_id: ws }, '/name'],
      [{ name: 'x'.repeat(201), workspace_id: ws }, '/name'],
      [{ name: 'n' }, '/workspace_id'],
      [{ name: 'n', workspace_id: 'not-a-uuid' }, '/workspace_id'],
      [{ name: 'n', workspace_id: ws, scope: 'owner' }, '/scope'],
      [{ name: 'n', workspace_id: ws, allow_run_button: 'true' }, '/allow_run_button'],
      [{ name: 'n', workspace_id: ws, user_id: alice.id }, '/user_id'],
      [{ name: 'n', workspace_id: ws, token: 'tpat_chosen' }, '/token'],
    ];
    for (const [body, pointer] of cases) {
      const res = await t.request.post('/api/v1/me/tokens').set(dave.auth).send(body).expect(422);
      assert.equal(res.headers['content-type'], 'application/problem+json');
      assert.equal(res.body.code, 'validation_failed');
      assert.ok(
        res.body.errors.some((e: { pointer: string }) => e.pointer === pointer),
        `${JSON.stringify(body)} → ${JSON.stringify(res.body.errors)}`,
      );
    }
    assert.equal(await countTokens(dave.id), 0);
  });

  it('refuses a token for a workspace the owner is not a member of (422), existing or not', async () => {
    const erin = await signUp(t);
    for (const workspaceId of [(await createWorkspace(t, alice)).id, randomUUID()]) {
      const res = await t.request.post('/api/v1/me/tokens').set(erin.auth).send({ name: 'n', workspace_id: workspaceId }).expect(422);
      assert.deepEqual(res.body.errors.map((e: { pointer: string }) => e.pointer), ['/workspace_id']);
    }
    assert.equal(await countTokens(erin.id), 0);
  });

  it("revokes my token (204) but answers 404 for someone else's, which keeps working", async () => {
    const mine = await createPat(t, alice);
    const bobs = await createPat(t, bob);
    const other = await t.request.delete(`/api/v1/me/tokens/${bobs.id}`).set(alice.auth).expect(404);
    assert.equal(other.body.code, 'not_found');
    await t.request.get('/api/v1/me').set(bobs.auth).expect(200);
    await t.request.delete(`/api/v1/me/tokens/${mine.id}`).set(alice.auth).expect(204);
    await t.request.delete(`/api/v1/me/tokens/${mine.id}`).set(alice.auth).expect(404);
    await t.request.delete(`/api/v1/me/tokens/${randomUUID()}`).set(alice.auth).expect(404);
    const list = await t.request.get('/api/v1/me/tokens').set(alice.auth).expect(200);
    assert.ok(!list.body.data.some((d: { id: string }) => d.id === mine.id));
  });

  it('answers 404 for a malformed token id, like any unknown id', async () => {
    const res = await t.request.delete('/api/v1/me/tokens/not-a-uuid').set(alice.auth).expect(404);
    assert.equal(res.body.code, 'not_found');
  });

  it('refuses a PAT on every token route (403) and anonymous callers (401)', async () => {
    const pat = await createPat(t, alice, { scope: 'admin' });
    const before = await countTokens(alice.id);
    const create = await t.request.post('/api/v1/me/tokens').set(pat.auth).send({ name: 'minted', workspace_id: randomUUID() }).expect(403);
    assert.equal(create.body.code, 'forbidden');
    await t.request.get('/api/v1/me/tokens').set(pat.auth).expect(403);
    await t.request.delete(`/api/v1/me/tokens/${pat.id}`).set(pat.auth).expect(403);
    assert.equal(await countTokens(alice.id), before, 'a PAT minted or revoked nothing');
    await t.request.get('/api/v1/me/tokens').expect(401);
    await t.request.post('/api/v1/me/tokens').send({ name: 'x', workspace_id: randomUUID() }).expect(401);
  });

  it('documents its routes in the OpenAPI document', async () => {
    const { body } = await t.request.get('/api/v1/openapi.json').expect(200);
    assert.ok(body.paths['/api/v1/me/tokens'].post);
    assert.ok(body.paths['/api/v1/me/tokens'].get);
    assert.ok(body.paths['/api/v1/me/tokens/{id}'].delete);
    assert.deepEqual(body.paths['/api/v1/me/tokens'].post.requestBody.content['application/json'].schema.required.sort(), ['name', 'workspace_id']);
  });
});
