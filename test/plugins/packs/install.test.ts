import assert from 'node:assert/strict';
import { createWorkspace, joinWorkspace, signUp, startTestKernel, type SignedUpUser, type TestKernel } from '../../../core/testing.ts';

type Pack = { format: string; format_version: number; name: string; version: string; requires: Record<string, string>; resources: Record<string, Array<Record<string, any>>> };

/** A small pack written by hand, as a pack author would: a space, a database with a select field and two options, a view, a record. */
function samplePack(): Pack {
  return {
    format: 'tessera-pack',
    format_version: 1,
    name: 'Bug tracker',
    version: '1.0.0',
    requires: { spaces: '^1.0.0', databases: '^1.0.0', views: '^1.0.0', records: '^1.0.0' },
    resources: {
      space: [{ ref: 'space', name: 'Bugs' }],
      database: [{ ref: 'bugs', space: 'space', name: 'Bugs' }],
      field: [
        { ref: 'title', database: 'bugs', name: 'Summary', api_name: 'summary', type: 'text', is_title: true },
        { ref: 'severity', database: 'bugs', name: 'Severity', api_name: 'severity', type: 'single_select' },
      ],
      select_option: [
        { ref: 'low', field: 'severity', label: 'Low', color: 'green' },
        { ref: 'high', field: 'severity', label: 'High', color: 'red' },
      ],
      view: [{ ref: 'board', database: 'bugs', name: 'By severity', type: 'kanban', group_by: 'severity', is_default: true }],
      record: [{ ref: 'bug1', database: 'bugs', values: { summary: 'Crash on save', severity: 'High' } }],
    },
  };
}

/** The value at a JSON pointer (RFC 6901) in `doc`; undefined when nothing is there. */
function at(doc: unknown, pointer: string): unknown {
  const tokens = pointer.split('/').slice(1).map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
  return tokens.reduce<unknown>((node, token) => (node !== null && typeof node === 'object' ? (node as Record<string, unknown>)[token] : undefined), doc);
}

describe('packs: install, dry run and uninstall', function () {
  this.timeout(60_000);
  let t: TestKernel;
  let admin: SignedUpUser;
  let editor: SignedUpUser;
  let ws: string;
  let other: string;
  const api = (path: string, workspace = ws) => `/api/v1/workspaces/${workspace}${path}`;
  const install = (body: object, workspace = ws) => t.request.post(api('/packs/install', workspace)).set(admin.auth).send(body);
  /** What a failed install must leave exactly as it was. */
  const snapshot = async (workspace = ws) => ({
    spaces: await t.db('spaces').where({ workspace_id: workspace }).pluck('id'),
    databases: await t.db('databases').where({ workspace_id: workspace }).pluck('id'),
    fields: Number((await t.db('fields').where({ workspace_id: workspace }).count({ n: '*' }).first())!.n),
    views: Number((await t.db('database_views').where({ workspace_id: workspace }).count({ n: '*' }).first())!.n),
    installs: await t.db('pack_installs').where({ workspace_id: workspace }).pluck('id'),
  });

  before(async () => {
    t = await startTestKernel();
    admin = await signUp(t);
    editor = await signUp(t);
    ws = (await createWorkspace(t, admin)).id;
    other = (await createWorkspace(t, admin)).id;
    await joinWorkspace(t, admin, ws, editor, 'editor');
  });
  after(() => t.stop());

  it('installs a hand-written pack: names resolved, options by label, the pack\'s default view in place of the starter one', async () => {
    const res = await install({ pack: samplePack() }).expect(201);
    const db = res.body.created.database[0].id;
    const fields = (await t.request.get(api(`/databases/${db}/fields`)).set(admin.auth).expect(200)).body.data;
    assert.deepEqual(fields.map((f: { api_name: string }) => f.api_name), ['summary', 'severity']);
    const views = (await t.request.get(api(`/databases/${db}/views`)).set(admin.auth).expect(200)).body.data;
    assert.deepEqual(views.map((v: { name: string; is_default: boolean }) => [v.name, v.is_default]), [['By severity', true]]);
    const records = (await t.request.get(api(`/databases/${db}/records`)).set(admin.auth).expect(200)).body.data;
    assert.deepEqual(records.map((r: { values: { summary: string; severity: { label: string } } }) => [r.values.summary, r.values.severity.label]), [['Crash on save', 'High']]);
    assert.deepEqual(Object.keys(res.body.created).sort(), ['database', 'field', 'record', 'select_option', 'space', 'view']);
  });

  it('gives a colliding name a suffix instead of overwriting', async () => {
    const before = await t.db('spaces').where({ workspace_id: other }).pluck('name');
    await install({ pack: samplePack() }, other).expect(201);
    await install({ pack: samplePack() }, other).expect(201);
    const after = await t.db('spaces').where({ workspace_id: other }).pluck('name');
    assert.deepEqual(after.filter((n: string) => !before.includes(n)).sort(), ['Bugs', 'Bugs (2)']);
  });

  const refusals: Array<[string, (p: Pack) => void, string]> = [
    ['a ref to nothing', (p) => (p.resources.field[1].database = 'nowhere'), '/pack/resources/field/1/database'],
    ['an unknown kind', (p) => (p.resources.widget = [{ ref: 'w' }]), '/pack/resources/widget'],
    ['a plugin this instance does not have', (p) => (p.requires.telepathy = '^1.0.0'), '/pack/requires/telepathy'],
    ['a plugin of another major version', (p) => (p.requires.databases = '^2.0.0'), '/pack/requires/databases'],
    ['an unknown format_version', (p) => (p.format_version = 2), '/pack/format_version'],
    ['one invalid field among valid ones', (p) => (p.resources.field[1].type = 'hologram'), '/pack/resources/field/1/type'],
    ['a property its owner does not know', (p) => (p.resources.database[0].table_name = 'pg_authid'), '/pack/resources/database/0/table_name'],
    ['a secret', (p) => (p.resources.view[0].options = { webhook_secret: 'whsec_abc' }), '/pack/resources/view/0/options/webhook_secret'],
    ['a folder listed before its parent', (p) => (p.resources.folder = [{ ref: 'child', space: 'space', parent: 'parent', name: 'Child' }, { ref: 'parent', space: 'space', name: 'Parent' }]), '/pack/resources/folder/0/parent'],
    ['a ref used twice', (p) => (p.resources.select_option[1].ref = 'low'), '/pack/resources/select_option/1/ref'],
    ['a record cell its field refuses', (p) => (p.resources.record[0].values.severity = 'Critical'), '/pack/resources/record/0/values/severity'],
  ];
  for (const [what, spoil, pointer] of refusals) {
    it(`refuses ${what} with 422 at its pointer, creating nothing`, async () => {
      const pack = samplePack();
      spoil(pack);
      const before = await snapshot();
      const res = await install({ pack }).expect(422);
      assert.equal(res.body.code, 'validation_failed');
      assert.ok(res.body.errors.some((e: { pointer: string }) => e.pointer === pointer), JSON.stringify(res.body.errors));
      // Each pointer names a place in the body sent, `{ pack }`.
      for (const e of res.body.errors as Array<{ pointer: string }>) assert.notEqual(at({ pack }, e.pointer), undefined, e.pointer);
      assert.deepEqual(await snapshot(), before);
      // A dry run finds the same problem and writes nothing either.
      const dry = await install({ pack, dry_run: true }).expect(200);
      assert.ok(dry.body.problems.some((e: { pointer: string }) => e.pointer === pointer));
      assert.deepEqual(await snapshot(), before);
    });
  }

  it('never resolves an id of another workspace: a space id where a ref goes names nothing', async () => {
    const foreign = (await t.request.post(api('/spaces', other)).set(admin.auth).send({ name: 'Elsewhere' }).expect(201)).body.id;
    const pack = samplePack();
    delete (pack.resources as Record<string, unknown>).space;
    pack.resources.database[0].space = foreign;
    const before = await snapshot(other);
    const res = await install({ pack }).expect(422);
    assert.deepEqual(res.body.errors.map((e: { pointer: string }) => e.pointer), ['/pack/resources/database/0/space']);
    assert.deepEqual(await snapshot(other), before);
    // Nor does `space_id`: another workspace's space is not found.
    delete pack.resources.database[0].space;
    const target = await install({ pack, space_id: foreign }).expect(422);
    assert.deepEqual(target.body.errors.map((e: { pointer: string }) => e.pointer), ['/space_id']);
    assert.deepEqual(await snapshot(other), before);
  });

  it('dry-runs: the plan of what would be made and every problem, nothing written', async () => {
    const before = await snapshot();
    const ok = await install({ pack: samplePack(), dry_run: true }).expect(200);
    assert.deepEqual(ok.body.problems, []);
    assert.deepEqual(
      ok.body.plan.map((s: { kind: string; ref: string; action: string }) => `${s.kind}:${s.ref}:${s.action}`),
      ['space:space:create', 'database:bugs:create', 'field:title:create', 'field:severity:create', 'select_option:low:create', 'select_option:high:create', 'record:bug1:create', 'view:board:create'],
    );
    const pack = samplePack();
    pack.resources.field[0].type = 'hologram';
    pack.resources.view[0].group_by = 'nothing';
    const bad = await install({ pack, dry_run: true }).expect(200);
    // Every problem, each at its place; the record naming the field that cannot be made says so too.
    assert.deepEqual(bad.body.problems.map((p: { pointer: string }) => p.pointer), ['/pack/resources/field/0/type', '/pack/resources/record/0/values/summary', '/pack/resources/view/0/group_by']);
    assert.deepEqual(await snapshot(), before);
  });

  it('installs databases into an existing space with space_id; without one a pack needs a space of its own', async () => {
    const target = (await t.request.post(api('/spaces')).set(admin.auth).send({ name: 'Target' }).expect(201)).body.id;
    const pack = samplePack();
    delete (pack.resources as Record<string, unknown>).space;
    delete pack.resources.database[0].space;
    const refused = await install({ pack }).expect(422);
    assert.deepEqual(refused.body.errors.map((e: { pointer: string }) => e.pointer), ['/pack/resources/database/0/space']);
    const res = await install({ pack, space_id: target }).expect(201);
    assert.equal((await t.db('databases').where({ id: res.body.created.database[0].id }).first()).space_id, target);
  });

  it('refuses a pack over the size cap with 413 before reading it, creating nothing', async () => {
    const before = await snapshot();
    const res = await install({ pack: { ...samplePack(), description: 'x'.repeat(6 * 1024 * 1024) } }).expect(413);
    assert.equal(res.body.code, 'payload_too_large');
    assert.deepEqual(await snapshot(), before);
  });

  it('exports single databases without their space, which then install into the space named', async () => {
    const installed = await install({ pack: samplePack() }).expect(201);
    const db = installed.body.created.database[0].id;
    const pack = (await t.request.post(api('/packs/export')).set(admin.auth).send({ database_ids: [db], include_records: true }).expect(200)).body;
    assert.deepEqual(Object.keys(pack.resources), ['database', 'field', 'select_option', 'record', 'view']);
    assert.equal(pack.resources.database[0].space, undefined);
    assert.equal(pack.name, 'Bugs');
    const target = (await t.request.post(api('/spaces', other)).set(admin.auth).send({ name: 'Landing' }).expect(201)).body.id;
    const res = await install({ pack, space_id: target }, other).expect(201);
    assert.equal((await t.db('databases').where({ id: res.body.created.database[0].id }).first()).space_id, target);
    // An editor may not export (creator on what is exported); a database of another workspace is not found.
    await t.request.post(api('/packs/export')).set(editor.auth).send({ database_ids: [db] }).expect(403);
    await t.request.post(api('/packs/export', other)).set(admin.auth).send({ database_ids: [db] }).expect(404);
  });

  it('lets only creators install, and keeps other workspaces out', async () => {
    await t.request.post(api('/packs/install')).set(editor.auth).send({ pack: samplePack() }).expect(403);
    const stranger = await signUp(t);
    await t.request.post(api('/packs/install')).set(stranger.auth).send({ pack: samplePack() }).expect(404);
    await t.request.post(api('/packs/install')).send({ pack: samplePack() }).expect(401);
  });

  it('uninstalls what nobody changed, keeps a changed view with what holds it, and leaves the ledger', async () => {
    const pack = samplePack();
    pack.resources.database.push({ ref: 'notes', space: 'space', name: 'Notes' });
    pack.resources.field.push({ ref: 'note', database: 'notes', name: 'Note', api_name: 'note', type: 'text', is_title: true });
    pack.resources.view.push({ ref: 'notes-grid', database: 'notes', name: 'All notes', type: 'grid', is_default: true });
    const res = await install({ pack }).expect(201);
    const byRef = (kind: string, ref: string) => res.body.created[kind].find((c: { ref: string }) => c.ref === ref).id;
    const ledger = (await t.request.get(api('/packs/installs')).set(admin.auth).expect(200)).body.data;
    assert.equal(ledger[0].id, res.body.install_id);
    assert.deepEqual(ledger[0].created, res.body.created);

    await t.request.patch(api(`/databases/${byRef('database', 'bugs')}/views/${byRef('view', 'board')}`)).set(admin.auth).send({ name: 'My board' }).expect(200);
    const out = await t.request.delete(api(`/packs/installs/${res.body.install_id}`)).set(admin.auth).expect(200);
    const kept = Object.fromEntries(out.body.kept.map((k: { id: string; reason: string }) => [k.id, k.reason]));
    assert.equal(kept[byRef('view', 'board')], 'changed since the install');
    assert.equal(kept[byRef('database', 'bugs')], 'holds something kept');
    assert.equal(kept[byRef('space', 'space')], 'holds something kept');
    assert.equal(kept[byRef('field', 'severity')], 'part of something kept');
    assert.ok(out.body.removed.some((r: { id: string }) => r.id === byRef('database', 'notes')));
    assert.equal(await t.db('databases').where({ id: byRef('database', 'notes') }).first(), undefined);
    assert.equal((await t.db('database_views').where({ id: byRef('view', 'board') }).first()).name, 'My board');
    // The install leaves the ledger: asking again is a 404.
    await t.request.delete(api(`/packs/installs/${res.body.install_id}`)).set(admin.auth).expect(404);
  });

  it('uninstalls everything an untouched install made, and keeps what holds records added since', async () => {
    const clean = await install({ pack: samplePack() }).expect(201);
    const out = await t.request.delete(api(`/packs/installs/${clean.body.install_id}`)).set(admin.auth).expect(200);
    assert.deepEqual(out.body.kept, []);
    assert.equal(await t.db('spaces').where({ id: clean.body.created.space[0].id }).first(), undefined);

    const used = await install({ pack: samplePack() }).expect(201);
    const db = used.body.created.database[0].id;
    await t.request.post(api(`/databases/${db}/records`)).set(admin.auth).send({ values: { summary: 'Mine' } }).expect(201);
    const kept = (await t.request.delete(api(`/packs/installs/${used.body.install_id}`)).set(admin.auth).expect(200)).body.kept;
    assert.equal(kept.find((k: { id: string }) => k.id === db).reason, 'changed since the install');
    assert.equal((await t.request.get(api(`/databases/${db}/records`)).set(admin.auth).expect(200)).body.data.length, 2);
  });

  it('hides another workspace\'s installs', async () => {
    const res = await install({ pack: samplePack() }, other).expect(201);
    await t.request.delete(api(`/packs/installs/${res.body.install_id}`)).set(admin.auth).expect(404);
    const mine = (await t.request.get(api('/packs/installs')).set(admin.auth).expect(200)).body.data;
    assert.ok(!mine.some((i: { id: string }) => i.id === res.body.install_id));
  });
});

describe('packs: a pack needing a disabled plugin', () => {
  let t: TestKernel;
  after(() => t?.stop());

  it('is refused at its requires entry, creating nothing', async () => {
    t = await startTestKernel({ config: { plugins: { 'starter-packs': { enabled: false } } } });
    const admin = await signUp(t);
    const ws = (await createWorkspace(t, admin)).id;
    const pack = samplePack();
    pack.requires['starter-packs'] = '^1.0.0';
    const before = await t.db('spaces').where({ workspace_id: ws }).pluck('id');
    const res = await t.request.post(`/api/v1/workspaces/${ws}/packs/install`).set(admin.auth).send({ pack }).expect(422);
    const pointers = res.body.errors.map((e: { pointer: string }) => e.pointer);
    assert.deepEqual(pointers, ['/pack/requires/starter-packs']);
    assert.match(res.body.errors[0].detail, /disabled/);
    // Nor are its templates offered.
    assert.deepEqual((await t.request.get('/api/v1/templates').expect(200)).body.data, []);
    assert.deepEqual(await t.db('spaces').where({ workspace_id: ws }).pluck('id'), before);
  });
});
