import assert from 'node:assert/strict';
import { createWorkspace, joinWorkspace, signUp, startTestKernel, type SignedUpUser, type TestKernel } from '../../../core/testing.ts';

type Pack = { name: string; version: string; resources: Record<string, Array<Record<string, any>>>; [k: string]: unknown };

describe('packs: templates, the marketplace and the public gallery', function () {
  this.timeout(60_000);
  let t: TestKernel;
  let admin: SignedUpUser;
  let creator: SignedUpUser;
  let reader: SignedUpUser;
  let ws: string;
  let other: string;
  const api = (path: string, workspace = ws) => `/api/v1/workspaces/${workspace}${path}`;

  before(async () => {
    t = await startTestKernel();
    admin = await signUp(t);
    creator = await signUp(t);
    reader = await signUp(t);
    ws = (await createWorkspace(t, admin, 'Acme')).id;
    other = (await createWorkspace(t, reader, 'Other')).id;
    await joinWorkspace(t, admin, ws, creator, 'creator');
  });
  after(() => t.stop());

  it('lists the three starter templates to anyone, and applies each with its views, relations and sample records', async () => {
    const list = (await t.request.get('/api/v1/templates').expect(200)).body;
    assert.deepEqual(list.data.map((x: { id: string }) => x.id), ['project-tracker', 'crm', 'content-calendar']);
    assert.deepEqual(Object.keys(list.data[0]).sort(), ['categories', 'description', 'id', 'name', 'pack_version', 'plugin']);
    for (const template of list.data) {
      const res = await t.request.post(api(`/templates/${template.id}/apply`)).set(creator.auth).send({}).expect(201);
      assert.ok(res.body.created.view.length >= 3, template.id);
      assert.ok(res.body.created.relation.length >= 1, template.id);
      assert.ok(res.body.created.record.length >= 3, template.id);
    }
    // The project tracker works once applied: its tasks are linked to their project, hours roll up.
    const tracker = (await t.request.get('/api/v1/templates/project-tracker').expect(200)).body;
    const applied = await t.request.post(api('/templates/project-tracker/apply')).set(creator.auth).send({}).expect(201);
    const projects = applied.body.created.database.find((d: { ref: string }) => d.ref === 'projects').id;
    const rows = (await t.request.get(api(`/databases/${projects}/records`)).set(creator.auth).expect(200)).body.data;
    const website = rows.find((r: { values: { project: string } }) => r.values.project === 'Website relaunch');
    assert.equal(website.values.task_count, 3);
    assert.equal(website.values.hours_planned, 23);
    assert.equal(tracker.pack.format, 'tessera-pack');
    // Applied twice, the second space gets a suffix.
    const names = await t.db('spaces').where({ workspace_id: ws }).pluck('name');
    assert.ok(names.includes('Projects') && names.includes('Projects (2)'));
  });

  it('dry-runs a template and answers 404 for one that does not exist', async () => {
    const dry = await t.request.post(api('/templates/crm/apply')).set(creator.auth).send({ dry_run: true }).expect(200);
    assert.deepEqual(dry.body.problems, []);
    assert.ok(dry.body.plan.length > 20);
    await t.request.post(api('/templates/nothing-here/apply')).set(creator.auth).send({}).expect(404);
    await t.request.get('/api/v1/templates/nothing-here').expect(404);
  });

  async function exportedPack(name: string, version: string): Promise<Pack> {
    const space = (await t.request.post(api('/spaces')).set(admin.auth).send({ name: `Source ${name} ${version}` }).expect(201)).body.id;
    await t.request.post(api('/databases')).set(admin.auth).send({ name: 'Inventory', space_id: space }).expect(201);
    return (await t.request.post(api('/packs/export')).set(admin.auth).send({ space_ids: [space], name, version, description: `The ${name} pack` }).expect(200)).body;
  }

  it('publishes a pack by name and version, refuses the same or a lower version and a name another workspace owns', async () => {
    const v1 = await exportedPack('Inventory kit', '1.0.0');
    const published = await t.request.post(api('/marketplace/packs')).set(admin.auth).send({ pack: v1 }).expect(201);
    assert.deepEqual(
      { ...published.body, id: undefined, created_at: undefined },
      { id: undefined, created_at: undefined, name: 'Inventory kit', version: '1.0.0', description: 'The Inventory kit pack', publisher: { workspace_id: ws, name: 'Acme' }, public: false, installs: 0 },
    );
    const same = await t.request.post(api('/marketplace/packs')).set(admin.auth).send({ pack: v1 }).expect(409);
    assert.equal(same.body.code, 'version_not_higher');
    const stolen = await t.request.post(api('/marketplace/packs', other)).set(reader.auth).send({ pack: { ...v1, version: '9.0.0' } }).expect(409);
    assert.equal(stolen.body.code, 'name_taken');
    // Only admins publish.
    await t.request.post(api('/marketplace/packs')).set(creator.auth).send({ pack: { ...v1, version: '1.1.0' } }).expect(403);
    // A pack that would not install is not published.
    const broken = await t.request.post(api('/marketplace/packs')).set(admin.auth).send({ pack: { ...v1, version: '1.2.0', resources: { widget: [{ ref: 'w' }] } } }).expect(422);
    assert.deepEqual(broken.body.errors.map((e: { pointer: string }) => e.pointer), ['/pack/resources/widget']);

    const v2 = await t.request.post(api('/marketplace/packs')).set(admin.auth).send({ pack: { ...v1, version: '1.10.0' }, public: true }).expect(201);
    const list = (await t.request.get('/api/v1/marketplace/packs?q=inventory').set(reader.auth).expect(200)).body.data;
    assert.deepEqual(list.map((p: { id: string; version: string }) => [p.id, p.version]), [[v2.body.id, '1.10.0']]);
    assert.deepEqual((await t.request.get('/api/v1/marketplace/packs?q=nothing-like-it').set(reader.auth).expect(200)).body.data, []);
    const detail = (await t.request.get(`/api/v1/marketplace/packs/${published.body.id}`).set(reader.auth).expect(200)).body;
    assert.equal(detail.pack.version, '1.0.0');
    await t.request.get('/api/v1/marketplace/packs').expect(401);
  });

  it('installs a published pack into another workspace and counts it; a dry run does not count', async () => {
    const pack = await exportedPack('Stock sheet', '2.0.0');
    const published = (await t.request.post(api('/marketplace/packs')).set(admin.auth).send({ pack, public: true }).expect(201)).body;
    await t.request.post(api(`/marketplace/packs/${published.id}/install`, other)).set(reader.auth).send({ dry_run: true }).expect(200);
    const res = await t.request.post(api(`/marketplace/packs/${published.id}/install`, other)).set(reader.auth).send({}).expect(201);
    assert.equal(res.body.created.database.length, 1);
    assert.equal((await t.request.get(`/api/v1/marketplace/packs/${published.id}`).set(reader.auth).expect(200)).body.installs, 1);
    const ledger = (await t.request.get(api('/packs/installs', other)).set(reader.auth).expect(200)).body.data;
    assert.deepEqual(ledger[0].source, { type: 'marketplace', id: published.id });
    await t.request.post(api(`/marketplace/packs/00000000-0000-4000-8000-000000000000/install`, other)).set(reader.auth).send({}).expect(404);
  });

  it('shows the templates and the public packs, and nothing private, to anyone in the gallery', async () => {
    const privatePack = await exportedPack('Private kit', '1.0.0');
    await t.request.post(api('/marketplace/packs')).set(admin.auth).send({ pack: privatePack }).expect(201);
    const gallery = (await t.request.get('/api/v1/public/gallery').expect(200)).body.data;
    const names = gallery.map((g: { type: string; name: string }) => `${g.type}:${g.name}`);
    assert.ok(names.includes('template:CRM'));
    assert.ok(names.includes('pack:Stock sheet'));
    assert.ok(!names.some((n: string) => n.includes('Private kit')));
  });
});
