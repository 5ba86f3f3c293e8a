import assert from 'node:assert/strict';
import { createWorkspace, joinWorkspace, signUp, startTestKernel, type SignedUpUser, type TestKernel } from '../../../core/testing.ts';
import { finished, unzipJson } from './helpers.ts';

describe('gdpr: data exports', () => {
  let t: TestKernel;
  let adminA: SignedUpUser;
  let adminB: SignedUpUser;
  let person: SignedUpUser;
  let wsA: string;
  let wsB: string;

  /** The zip's bytes: supertest collects a binary body only when asked to. */
  const download = (path: string, auth: Record<string, string>) =>
    t.request.get(path).set(auth).buffer(true).parse((res, cb) => {
      const parts: Buffer[] = [];
      res.on('data', (c: Buffer) => parts.push(c));
      res.on('end', () => cb(null, Buffer.concat(parts)));
    });

  before(async () => {
    t = await startTestKernel();
    await signUp(t, { name: 'Root Admin' });
    adminA = await signUp(t, { name: 'Alice Admin' });
    adminB = await signUp(t, { name: 'Bob Admin' });
    person = await signUp(t, { name: 'Petra Person' });
    wsA = (await createWorkspace(t, adminA, 'Alpha')).id;
    wsB = (await createWorkspace(t, adminB, 'Beta')).id;
    await joinWorkspace(t, adminA, wsA, person, 'member');
    await joinWorkspace(t, adminB, wsB, person, 'editor');
    await t.request.post('/api/v1/me/tokens').set(person.auth).send({ name: 'token in A', workspace_id: wsA }).expect(201);
    await t.request.post('/api/v1/me/tokens').set(person.auth).send({ name: 'token in B', workspace_id: wsB }).expect(201);
    await t.request.patch('/api/v1/me/preferences').set(person.auth).send({ timezone: 'Europe/Paris' }).expect(200);
  });
  after(() => t.stop());

  it('exports all of my data as a zip of one JSON file per kind, downloadable by me for 24 hours', async () => {
    const queued = await t.request.post('/api/v1/me/data-export').set(person.auth).expect(202);
    assert.deepEqual(Object.keys(queued.body).sort(), ['id', 'status']);
    assert.equal(queued.body.status, 'queued');
    const done = await finished(t, `/api/v1/me/data-exports/${queued.body.id}`, person.auth);
    assert.equal(done.status, 'ready');
    assert.equal(done.download_url, `/api/v1/me/data-exports/${queued.body.id}/download`);
    const hours = (Date.parse(done.expires_at!) - Date.now()) / 3_600_000;
    assert.ok(hours > 23.9 && hours <= 24, `expires in ${hours} h`);

    const res = await download(done.download_url!, person.auth).expect(200);
    assert.equal(res.headers['content-type'], 'application/zip');
    const files = unzipJson(res.body as Buffer);
    assert.deepEqual((files['account.json'] as Array<{ email: string; name: string }>).map((a) => [a.email, a.name]), [[person.email, 'Petra Person']]);
    assert.deepEqual((files['memberships.json'] as Array<{ workspace_id: string; role: string }>).map((m) => [m.workspace_id, m.role]).sort(), [[wsA, 'member'], [wsB, 'editor']].sort());
    assert.deepEqual((files['tokens.json'] as Array<{ name: string }>).map((x) => x.name).sort(), ['token in A', 'token in B']);
    assert.equal((files['preferences.json'] as Array<{ timezone: string }>)[0]!.timezone, 'Europe/Paris');
    assert.ok(!JSON.stringify(files['tokens.json']).includes('token_hash'), 'never a token\'s secret or hash');
    assert.ok(files['sessions.json']!.length >= 1);
  });

  it('lets a workspace admin export a member\'s data of that workspace only', async () => {
    const queued = await t.request.post(`/api/v1/workspaces/${wsA}/members/${person.id}/data-export`).set(adminA.auth).expect(202);
    const done = await finished(t, `/api/v1/workspaces/${wsA}/data-exports/${queued.body.id}`, adminA.auth);
    assert.equal(done.status, 'ready');
    assert.equal(done.download_url, `/api/v1/workspaces/${wsA}/data-exports/${queued.body.id}/download`);
    const files = unzipJson((await download(done.download_url!, adminA.auth).expect(200)).body as Buffer);
    assert.deepEqual((files['memberships.json'] as Array<{ workspace_id: string }>).map((m) => m.workspace_id), [wsA]);
    assert.deepEqual((files['tokens.json'] as Array<{ name: string }>).map((x) => x.name), ['token in A']);
    assert.ok(!JSON.stringify(files).includes(wsB), 'nothing of another workspace');
    assert.equal(files['account.json'], undefined, 'the account is not the workspace\'s');
    assert.equal(files['preferences.json'], undefined);
  });

  it('answers 404 for another user\'s export, for another workspace\'s, and for a non-member', async () => {
    const mine = (await t.request.post('/api/v1/me/data-export').set(person.auth).expect(202)).body.id;
    await t.request.get(`/api/v1/me/data-exports/${mine}`).set(adminA.auth).expect(404);
    await t.request.get(`/api/v1/me/data-exports/${mine}/download`).set(adminA.auth).expect(404);
    const ofA = (await t.request.post(`/api/v1/workspaces/${wsA}/members/${person.id}/data-export`).set(adminA.auth).expect(202)).body.id;
    // Not under /me, not for another admin of the same workspace, not named under another workspace.
    await t.request.get(`/api/v1/me/data-exports/${ofA}`).set(adminA.auth).expect(404);
    const secondAdmin = await signUp(t, { name: 'Second Admin' });
    await joinWorkspace(t, adminA, wsA, secondAdmin, 'admin');
    await t.request.get(`/api/v1/workspaces/${wsA}/data-exports/${ofA}`).set(secondAdmin.auth).expect(404);
    await t.request.get(`/api/v1/workspaces/${wsB}/data-exports/${ofA}`).set(adminB.auth).expect(404);
    // A member of B who is not one of A is no member for A's admin to export.
    await t.request.post(`/api/v1/workspaces/${wsA}/members/${adminB.id}/data-export`).set(adminA.auth).expect(404);
    assert.equal((await t.db('gdpr_exports').where({ user_id: adminB.id })).length, 0);
    await finished(t, `/api/v1/me/data-exports/${mine}`, person.auth);
  });

  it('refuses personal access tokens where a session is needed', async () => {
    const token = (await t.request.post('/api/v1/me/tokens').set(person.auth).send({ name: 'pat', workspace_id: wsA, scope: 'admin' }).expect(201)).body.token;
    await t.request.post('/api/v1/me/data-export').set({ Authorization: `Bearer ${token}` }).expect(403);
  });

  it('answers 409 before the file is ready and 410 once it expired, when the scheduled job deleted the file', async () => {
    const id = (await t.request.post('/api/v1/me/data-export').set(person.auth).expect(202)).body.id;
    const done = await finished(t, `/api/v1/me/data-exports/${id}`, person.auth);
    const row = await t.db('gdpr_exports').where({ id }).first('blob_key');
    assert.ok(await t.kernel.blobs.exists(row.blob_key));
    await t.db('gdpr_exports').where({ id }).update({ status: 'queued' });
    const early = await t.request.get(`${done.download_url}`).set(person.auth).expect(409);
    assert.equal(early.body.code, 'export_not_ready');
    await t.db('gdpr_exports').where({ id }).update({ status: 'ready', expires_at: new Date(Date.now() - 1000) });
    assert.equal(await t.container.resolverFor('gdpr')('gdpr.exports').expire(), 1);
    assert.equal(await t.kernel.blobs.exists(row.blob_key), false);
    const after = await t.request.get(`/api/v1/me/data-exports/${id}`).set(person.auth).expect(200);
    assert.deepEqual([after.body.status, after.body.download_url], ['expired', null]);
    const gone = await t.request.get(`${done.download_url}`).set(person.auth).expect(410);
    assert.equal(gone.body.code, 'export_expired');
  });
});
