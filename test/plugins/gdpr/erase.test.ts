import assert from 'node:assert/strict';
import { createHmac, createHash } from 'node:crypto';
import { createWorkspace, joinWorkspace, signUp, startTestKernel, type SignedUpUser, type TestKernel } from '../../../core/testing.ts';
import { definePlugin } from '../../../core/plugin.ts';
import { builtinPlugins } from '../../../plugins/index.ts';
import { SignInLimiter } from '../../../plugins/auth/sign-in-limiter.ts';
import { finished, traces } from './helpers.ts';

/**
 * A plugin of the test's own that taps `erase` between the others and the membership's removal, and `export`,
 * and fails in both when told.
 */
let failNext = false;
/** Fails the erasure of this workspace only. */
let failIn: string | undefined;
const failing = definePlugin({
  id: 'gdpr-test-failing',
  version: '1.0.0',
  kernel: '^1.0.0',
  optionalDependsOn: { gdpr: '^1.0.0' },
  register(ctx) {
    ctx.hooksOf('gdpr.personalData').erase.tapPromise({ name: 'failing', stage: 50 }, async (reports, { workspaceId }) => {
      if (failNext || (failIn && workspaceId === failIn)) throw new Error('this tap fails half-way');
      return reports;
    });
    ctx.hooksOf('gdpr.personalData').export.tapPromise('failing', async (sections) => {
      if (failNext) throw new Error('this export tap fails');
      return sections;
    });
  },
});

describe('gdpr: erasure', () => {
  let t: TestKernel;
  let root: SignedUpUser;
  let owner: SignedUpUser;
  let wsA: string;
  let db: string;
  let table: string;
  let ownerColumn: string;
  let seq = 0;

  const erase = (ws: string, user: SignedUpUser, confirm: string, by: SignedUpUser = owner) => t.request.post(`/api/v1/workspaces/${ws}/members/${user.id}/erase`).set(by.auth).send({ confirm });
  const records = (path = '') => `/api/v1/workspaces/${wsA}/databases/${db}/records${path}`;

  /** A member of A who left traces there: a record naming them, a watch, a favorite, a token for A. */
  async function activeMember(name: string): Promise<{ user: SignedUpUser; record: string }> {
    const user = await signUp(t, { name, email: `${name.toLowerCase().replace(/\W+/g, '.')}.${seq++}@Example.test` });
    await joinWorkspace(t, owner, wsA, user, 'editor');
    const record = (await t.request.post(records()).set(user.auth).send({ values: { name: `Task of ${seq}`, owner: user.id } }).expect(201)).body.id;
    await t.request.put(records(`/${record}/watch`)).set(user.auth).expect(201);
    await t.request.put(`/api/v1/workspaces/${wsA}/favorites`).set(user.auth).send({ target_type: 'record', target_id: record }).expect(201);
    await t.request.post('/api/v1/me/tokens').set(user.auth).send({ name: 'ci', workspace_id: wsA, scope: 'write' }).expect(201);
    return { user, record };
  }

  /** Everything of `user` in A that an erasure would change, to compare before and after a refused one. */
  async function stateOf(user: SignedUpUser, record: string) {
    return {
      member: await t.db('workspace_members').where({ workspace_id: wsA, user_id: user.id }).select('role'),
      cells: await t.db(table).where({ id: record }).select(ownerColumn, 'created_by', 'updated_by'),
      watches: await t.db('record_watchers').where({ user_id: user.id }).select('record_id'),
      favorites: await t.db('favorites').where({ user_id: user.id }).select('target_id'),
      tokens: await t.db('personal_access_tokens').where({ user_id: user.id }).select('id'),
      receipts: await t.db('gdpr_erasures').count({ n: '*' }),
      account: await t.db('users').where({ id: user.id }).select('email', 'name'),
    };
  }

  before(async () => {
    t = await startTestKernel({ plugins: [...builtinPlugins, failing] });
    root = await signUp(t, { name: 'Root Admin' });
    owner = await signUp(t, { name: 'Owner Person' });
    wsA = (await createWorkspace(t, owner, 'Alpha')).id;
    const space = (await t.request.post(`/api/v1/workspaces/${wsA}/spaces`).set(owner.auth).send({ name: 'S' }).expect(201)).body.id;
    db = (await t.request.post(`/api/v1/workspaces/${wsA}/databases`).set(owner.auth).send({ name: 'Tasks', space_id: space }).expect(201)).body.id;
    await t.request.post(`/api/v1/workspaces/${wsA}/databases/${db}/fields`).set(owner.auth).send({ name: 'Owner', type: 'user' }).expect(201);
    table = (await t.db('databases').where({ id: db }).first('table_name')).table_name;
    ownerColumn = (await t.db('fields').where({ database_id: db, api_name: 'owner' }).first('column_name')).column_name;
  });
  after(() => t.stop());

  it('erases a member from a workspace: cells naming them become null, their watches, favorites and tokens there go, they are removed, and the receipt holds no personal data', async () => {
    const { user, record } = await activeMember('Wanda Erasewell');
    const exported = (await t.request.post(`/api/v1/workspaces/${wsA}/members/${user.id}/data-export`).set(owner.auth).expect(202)).body.id;
    await finished(t, `/api/v1/workspaces/${wsA}/data-exports/${exported}`, owner.auth);
    const file = (await t.db('gdpr_exports').where({ id: exported }).first('blob_key')).blob_key;
    assert.ok(await t.kernel.blobs.exists(file));
    const res = await erase(wsA, user, user.email.toUpperCase()).expect(200);
    assert.deepEqual(Object.keys(res.body).sort(), ['created_at', 'erased_by', 'id', 'reports', 'user_hash', 'workspace_id']);
    assert.equal(res.body.workspace_id, wsA);
    assert.equal(res.body.erased_by, owner.id);
    assert.match(res.body.user_hash, /^[0-9a-f]{64}$/);
    assert.notEqual(res.body.user_hash, createHash('sha256').update(user.email.toLowerCase()).digest('hex'), 'a bare hash of the email could be matched by guessing');
    const receiptText = JSON.stringify(res.body).toLowerCase();
    assert.ok(!receiptText.includes(user.email.toLowerCase()) && !receiptText.includes('wanda'));
    const byKind = Object.fromEntries(res.body.reports.map((r: { kind: string }) => [r.kind, r]));
    assert.equal(byKind.records.pseudonymised, 3, 'owner cell, created_by and updated_by');
    assert.equal(byKind.watches.deleted, 1);
    assert.equal(byKind.favorites.deleted, 1);
    assert.equal(byKind.tokens.deleted, 1);
    assert.equal(byKind.membership.deleted, 1);
    assert.equal(byKind.data_exports.deleted, 1);
    assert.ok(res.body.reports.every((r: { workspace_id: string }) => r.workspace_id === wsA));
    const [kept] = byKind.kernel.retained;
    const days = (Date.parse(kept.until) - Date.now()) / 86_400_000;
    assert.ok(byKind.kernel.pseudonymised > 0 && days > 6.9 && days <= 7, 'the workspace\'s events naming them are kept, rewritten, for the events\' retention (7 days)');
    assert.ok(byKind.records.retained[0].reason);

    const [cells] = await t.db(table).where({ id: record }).select(ownerColumn, 'created_by', 'updated_by');
    assert.deepEqual(cells, { [ownerColumn]: null, created_by: null, updated_by: null }, 'the record stays, without the person');
    assert.deepEqual(await t.db('workspace_members').where({ workspace_id: wsA, user_id: user.id }), []);
    assert.deepEqual(await t.db('record_watchers').where({ user_id: user.id }), []);
    assert.deepEqual(await t.db('favorites').where({ user_id: user.id }), []);
    assert.deepEqual(await t.db('personal_access_tokens').where({ user_id: user.id }), []);
    await t.request.get(`/api/v1/workspaces/${wsA}/data-exports/${exported}`).set(owner.auth).expect(404);
    assert.equal(await t.kernel.blobs.exists(file), false, 'the export of the member, a copy of their data, goes too');
    // The account stays: only the instance admin erases it.
    await t.request.get('/api/v1/me').set(user.auth).expect(200);
    await t.request.get(`/api/v1/workspaces/${wsA}`).set(user.auth).expect(404);
    // The workspace's events no longer carry their email or name.
    const events = await t.db('kernel_events').where({ workspace_id: wsA }).whereRaw('payload::text ILIKE ?', [`%${user.email}%`]);
    assert.deepEqual(events, []);

    const listed = await t.request.get('/api/v1/admin/erasures').set(root.auth).expect(200);
    assert.deepEqual(listed.body.data[0], res.body);
  });

  it('refuses a confirmation that is not the member\'s email with 422 at /confirm, changing nothing', async () => {
    const { user, record } = await activeMember('Carl Confirm');
    const before = await stateOf(user, record);
    const res = await erase(wsA, user, 'someone.else@example.test').expect(422);
    assert.deepEqual(res.body.errors.map((e: { pointer: string }) => e.pointer), ['/confirm']);
    await erase(wsA, user, '').expect(422);
    assert.deepEqual(await stateOf(user, record), before);
  });

  it('answers 404 for a user who is not a member of the workspace, and for an unknown user', async () => {
    const stranger = await signUp(t, { name: 'Stan Stranger' });
    await erase(wsA, stranger, stranger.email).expect(404);
    await t.request.post(`/api/v1/workspaces/${wsA}/members/00000000-0000-4000-8000-000000000000/erase`).set(owner.auth).send({ confirm: 'x@example.test' }).expect(404);
    await t.request.post('/api/v1/admin/users/00000000-0000-4000-8000-000000000000/erase').set(root.auth).send({ confirm: 'x@example.test' }).expect(404);
  });

  it('does not let an instance admin erase their own account (409 self_erasure), so the instance keeps one', async () => {
    const res = await t.request.post(`/api/v1/admin/users/${root.id}/erase`).set(root.auth).send({ confirm: root.email }).expect(409);
    assert.equal(res.body.code, 'self_erasure');
    await t.request.get('/api/v1/me').set(root.auth).expect(200);
  });

  it('refuses to erase the last admin (409 last_admin) and leaves everything as it was; once another admin exists it works', async () => {
    const solo = await signUp(t, { name: 'Solo Admin' });
    await joinWorkspace(t, owner, wsA, solo, 'member');
    const ws = (await createWorkspace(t, solo, 'Solo')).id;
    const members = () => t.db('workspace_members').where({ workspace_id: ws }).orderBy('user_id').select('user_id', 'role');
    const before = { members: await members(), receipts: await t.db('gdpr_erasures').count({ n: '*' }) };
    const res = await erase(ws, solo, solo.email, solo).expect(409);
    assert.equal(res.body.code, 'last_admin');
    const everywhere = await t.request.post(`/api/v1/admin/users/${solo.id}/erase`).set(root.auth).send({ confirm: solo.email }).expect(409);
    assert.equal(everywhere.body.code, 'last_admin');
    assert.deepEqual({ members: await members(), receipts: await t.db('gdpr_erasures').count({ n: '*' }) }, before);
    assert.equal((await t.db('users').where({ id: solo.id })).length, 1);
    // The erasure everywhere did none of its workspaces, not only the one that refused.
    assert.deepEqual(await t.db('workspace_members').where({ workspace_id: wsA, user_id: solo.id }).pluck('role'), ['member']);

    const second = await signUp(t, { name: 'Second Admin' });
    await joinWorkspace(t, solo, ws, second, 'admin');
    await erase(ws, solo, solo.email, solo).expect(200);
    assert.deepEqual(await t.db('workspace_members').where({ workspace_id: ws }).pluck('user_id'), [second.id]);
  });

  it('is one transaction per workspace: a tap that fails half-way leaves that workspace untouched', async () => {
    const { user, record } = await activeMember('Tina Transaction');
    const before = await stateOf(user, record);
    failNext = true;
    try {
      await erase(wsA, user, user.email).expect(500);
      await t.request.post(`/api/v1/admin/users/${user.id}/erase`).set(root.auth).send({ confirm: user.email }).expect(500);
    } finally {
      failNext = false;
    }
    assert.deepEqual(await stateOf(user, record), before);
  });

  it('erases everywhere all workspaces or none: a refusal in the last one leaves the first ones as they were', async () => {
    const { user, record } = await activeMember('Vera Everywhere');
    const other = (await createWorkspace(t, owner, 'Other')).id;
    await joinWorkspace(t, owner, other, user, 'member');
    const before = { a: await stateOf(user, record), other: await t.db('workspace_members').where({ workspace_id: other, user_id: user.id }).pluck('role') };
    // The erasure goes through the workspaces in id order: the last one refuses.
    failIn = [wsA, other].sort().at(-1);
    try {
      await t.request.post(`/api/v1/admin/users/${user.id}/erase`).set(root.auth).send({ confirm: user.email }).expect(500);
    } finally {
      failIn = undefined;
    }
    assert.deepEqual({ a: await stateOf(user, record), other: await t.db('workspace_members').where({ workspace_id: other, user_id: user.id }).pluck('role') }, before);
  });

  it('marks an export failed when a tap fails, with no file', async () => {
    const user = await signUp(t, { name: 'Failing Export' });
    failNext = true;
    try {
      const id = (await t.request.post('/api/v1/me/data-export').set(user.auth).expect(202)).body.id;
      const done = await finished(t, `/api/v1/me/data-exports/${id}`, user.auth);
      assert.deepEqual([done.status, done.download_url], ['failed', null]);
      const res = await t.request.get(`/api/v1/me/data-exports/${id}/download`).set(user.auth).expect(409);
      assert.equal(res.body.code, 'export_not_ready');
    } finally {
      failNext = false;
    }
  });

  it('erases a user everywhere, leaving no trace of their email or name in any column of any table', async function () {
    // It reads every text column of every table twice: 6 s on PostgreSQL, past a minute on PGlite under CI's load.
    this.timeout(180_000);
    const name = 'Quincy Zyxwvut';
    const { user } = await activeMember(name);
    // Their own workspace, shared with another admin they invited (the invite mail names them).
    const colleague = await signUp(t, { name: 'Colleague Person' });
    const own = (await createWorkspace(t, user, 'Quincy Co')).id;
    await joinWorkspace(t, user, own, colleague, 'admin');
    // A pending invite elsewhere, sent with an Idempotency-Key (its replay shows the email).
    const elsewhere = (await createWorkspace(t, colleague, 'Elsewhere')).id;
    await t.request.post(`/api/v1/workspaces/${elsewhere}/invites`).set(colleague.auth).set('Idempotency-Key', `k-${seq++}`).send({ email: user.email, role: 'member' }).expect(201);
    await t.request.patch('/api/v1/me/preferences').set(user.auth).send({ locale: 'fr' }).expect(200);
    // A template they applied: its records were made by them, the install is in the ledger under their id.
    await t.request.post(`/api/v1/workspaces/${own}/templates/crm/apply`).set(user.auth).send({}).expect(201);
    await t.request.post('/api/v1/auth/password-reset').send({ email: user.email }).expect(202);
    await t.request.post('/api/v1/auth/sign-in').send({ email: user.email, password: 'not the password' }).expect(401);
    const failures = () => t.db('auth_sign_in_failures').where({ account_key: SignInLimiter.emailKey(user.email) });
    assert.equal((await failures()).length, 2, 'the email from this address, and the email from anywhere');
    await t.request.post('/api/v1/me/data-export').set(user.auth).expect(202);
    // The mails were delivered to the outbox (the job ran), so nothing is in flight.
    for (let i = 0; i < 100 && (await t.db('mail_outbox').whereRaw('lower("to") = lower(?)', [user.email])).length < 2; i++) await new Promise((r) => setTimeout(r, 100));
    assert.ok((await traces(t, [user.email, name])).length > 5, 'the scan sees the traces before');

    const res = await t.request.post(`/api/v1/admin/users/${user.id}/erase`).set(root.auth).send({ confirm: user.email }).expect(200);
    assert.equal(res.body.workspace_id, null);
    assert.equal(res.body.erased_by, root.id);
    const kinds = new Set(res.body.reports.map((r: { kind: string }) => r.kind));
    for (const kind of ['account', 'sessions', 'tokens', 'preferences', 'membership', 'records', 'mail', 'invites', 'data_exports', 'packs', 'kernel']) assert.ok(kinds.has(kind), kind);
    const account = res.body.reports.find((r: { kind: string; workspace_id?: string }) => r.kind === 'data_exports' && !r.workspace_id);
    assert.equal(account.deleted, 1, 'their own export, with its file');
    const key = (await t.db('gdpr_keys').first('secret')).secret as string;
    assert.equal(res.body.user_hash, createHmac('sha256', key).update(user.email.toLowerCase()).digest('hex'));

    assert.deepEqual(await traces(t, [user.email, name]), []);
    assert.deepEqual(await failures(), [], 'the sign-in counters about their email (hashed) go too');
    assert.deepEqual(await t.db('auth_password_resets').where({ user_id: user.id }), []);
    assert.deepEqual(await t.db('pack_installs').where({ workspace_id: own }).pluck('installed_by'), [null]);
    await t.request.get('/api/v1/me').set(user.auth).expect(401);
    assert.deepEqual(await t.db('workspace_members').where({ workspace_id: own }).pluck('user_id'), [colleague.id]);
    const listed = await t.request.get('/api/v1/admin/erasures').set(root.auth).expect(200);
    assert.equal(listed.body.data[0].id, res.body.id);
  });

  it('replaces a short name only where it stands as a word: others\' text that merely contains it stays', async () => {
    const ann = await signUp(t, { name: 'Ann' });
    const colleague = await signUp(t, { name: 'Colleague Two' });
    const annex = (await createWorkspace(t, colleague, 'Annex Planning')).id;
    await joinWorkspace(t, colleague, annex, ann, 'member');
    const annexEvents = () => t.db('kernel_events').whereRaw('payload::text LIKE ?', ['%Annex Planning%']).count({ n: '*' });
    const before = await annexEvents();
    assert.ok(Number(before[0]!.n) > 0);
    await t.request.post(`/api/v1/admin/users/${ann.id}/erase`).set(root.auth).send({ confirm: ann.email }).expect(200);
    assert.deepEqual(await annexEvents(), before);
    const added = await t.db('kernel_events').where({ workspace_id: annex, name: 'member.added' }).select('payload');
    assert.ok(added.length > 0 && added.every((e) => !JSON.stringify(e.payload).includes('"Ann"')), 'the member\'s name is gone from the events naming them');
    assert.ok(added.some((e) => JSON.stringify(e.payload).includes('Former member')));
  });
});
