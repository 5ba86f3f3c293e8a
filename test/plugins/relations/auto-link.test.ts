import assert from 'node:assert/strict';
import { pointers, recordsWorld, type RecordsWorld } from '../records/setup.ts';
import { suiteKernel } from '../../fixtures/suite-kernel.ts';

describe('relations: auto-link rules, drift and bulk link', () => {
  let w: RecordsWorld;
  let companies: string;
  const api = (path: string) => `/api/v1/workspaces/${w.ws}${path}`;
  const records = (db: string, path = '') => api(`/databases/${db}/records${path}`);
  const create = async (db: string, values: object) => (await w.t.request.post(records(db)).set(w.editor.auth).send({ values }).expect(201)).body;
  const get = async (db: string, id: string) => (await w.t.request.get(records(db, `/${id}`)).set(w.member.auth).expect(200)).body;
  const titles = (cell: Array<{ title: string }>) => cell.map((l) => l.title);
  const addField = (db: string, body: object) => w.t.request.post(api(`/databases/${db}/fields`)).set(w.admin.auth).send(body).expect(201);
  const relate = async (kind: string, toName = 'Company') =>
    (await w.t.request.post(api('/relations')).set(w.admin.auth).send({ from_database_id: companies, to_database_id: w.db, kind, from_field_name: 'People', to_field_name: toName }).expect(201)).body.id as string;

  const kernel = suiteKernel();
  beforeEach(async () => {
    w = await recordsWorld(undefined, kernel());
    const space = (await w.t.db('spaces').where({ workspace_id: w.ws }).first('id')).id;
    companies = (await w.t.request.post(api('/databases')).set(w.admin.auth).send({ name: 'Companies', space_id: space }).expect(201)).body.id;
  });

  it('links matching records on create and update, and once over the records there are (backfill)', async () => {
    await addField(w.db, { name: 'Employer', type: 'text' });
    const relation = await relate('one_to_many');
    const rules = api(`/relations/${relation}/auto-link-rules`);
    const acme = (await create(companies, { name: 'Acme' })).id;
    const ann = (await create(w.db, { name: 'Ann', employer: '  ACME ' })).id;
    const bob = (await create(w.db, { name: 'Bob', employer: 'Globex' })).id;
    const cy = (await create(w.db, { name: 'Cy' })).id;

    const rule = (await w.t.request.post(rules).set(w.admin.auth).send({ from_field_id: 'name', to_field_id: 'employer' }).expect(201)).body;
    assert.equal(rule.linked, 1);
    // Both text columns are indexed by their match key, so a write finds its matches by index.
    const matchIndexes = async () => (await w.t.db.raw(`SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() AND indexname LIKE '%\_match'`)).rows.length;
    assert.equal(await matchIndexes(), 2);
    assert.deepEqual(titles((await get(w.db, ann)).values.company), ['Acme']);
    assert.deepEqual((await get(w.db, cy)).values.company, []);
    const listed = (await w.t.request.get(rules).set(w.member.auth).expect(200)).body.data;
    assert.deepEqual(listed.map((r: any) => [r.id, r.from_field_id, r.to_field_id]), [[rule.id, rule.from_field_id, rule.to_field_id]]);

    // A company made later takes the people that name it (Bob), in the answer of its create.
    const globex = await create(companies, { name: 'globex' });
    assert.deepEqual(titles(globex.values.people), ['Bob']);
    const event = await w.t.db('kernel_events').where({ name: 'links.added', workspace_id: w.ws }).orderBy('id', 'desc').first('payload');
    assert.deepEqual([event.payload.rule_id, event.payload.links], [rule.id, [{ from_id: globex.id, to_id: bob }]]);

    // People written later: bulk create and a patch of the rule field; other cells do not react.
    const [dee, eve] = (await w.t.request.post(records(w.db)).set(w.editor.auth).send({ records: [{ values: { name: 'Dee', employer: 'acme' } }, { values: { name: 'Eve', employer: 'Nobody' } }] }).expect(201)).body.data;
    assert.deepEqual([titles(dee.values.company), titles(eve.values.company)], [['Acme'], []]);
    const patched = (await w.t.request.patch(records(w.db, `/${cy}`)).set(w.editor.auth).send({ values: { employer: 'Globex' } }).expect(200)).body;
    assert.deepEqual(titles(patched.values.company), ['globex']);
    // One-to-many: Ann has a company; naming another one adds nothing (rules never unlink).
    await w.t.request.patch(records(w.db, `/${ann}`)).set(w.editor.auth).send({ values: { employer: 'Globex' } }).expect(200);
    assert.deepEqual(titles((await get(w.db, ann)).values.company), ['Acme']);
    assert.deepEqual(titles((await get(companies, acme)).values.people), ['Ann', 'Dee']);

    // A rule field converted away from text loses its index, not its rule.
    await w.t.request.post(api(`/databases/${w.db}/fields/employer/convert`)).set(w.admin.auth).send({ type: 'long_text' }).expect(200);
    assert.equal(await matchIndexes(), 2);
    await w.t.request.post(api(`/databases/${w.db}/fields/employer/convert`)).set(w.admin.auth).send({ type: 'number' }).expect(200);
    assert.equal(await matchIndexes(), 1);
    await w.t.request.post(api(`/databases/${w.db}/fields/employer/convert`)).set(w.admin.auth).send({ type: 'text' }).expect(200);

    // Deleting the rule keeps its links and stops it.
    await w.t.request.delete(`${rules}/${rule.id}`).set(w.admin.auth).expect(204);
    assert.equal(await matchIndexes(), 0);
    assert.deepEqual((await w.t.request.get(rules).set(w.member.auth).expect(200)).body.data, []);
    assert.deepEqual((await create(w.db, { name: 'Fay', employer: 'Acme' })).values.company, []);
    assert.deepEqual(titles((await get(w.db, ann)).values.company), ['Acme']);
  });

  it('matches a select label with a title, many to many, and refuses bad rules', async () => {
    const relation = await relate('many_to_many', 'Companies');
    const rules = api(`/relations/${relation}/auto-link-rules`);
    const closed = (await create(companies, { name: 'Closed' })).id;
    const open = (await create(w.db, { name: 'Ann', stage: 'Open' })).id;
    const shut = (await create(w.db, { name: 'Bob', stage: 'Closed' })).id;

    const bad = await w.t.request.post(rules).set(w.admin.auth).send({ from_field_id: 'nope', to_field_id: 'owner' }).expect(422);
    assert.deepEqual(pointers(bad), ['/from_field_id']);
    assert.deepEqual(pointers(await w.t.request.post(rules).set(w.admin.auth).send({ from_field_id: 'name', to_field_id: 'owner' }).expect(422)), ['/to_field_id']);
    await w.t.request.post(rules).set(w.editor.auth).send({ from_field_id: 'name', to_field_id: 'stage' }).expect(403);
    assert.deepEqual((await w.t.request.get(rules).set(w.member.auth).expect(200)).body.data, []);

    const rule = (await w.t.request.post(rules).set(w.admin.auth).send({ from_field_id: 'name', to_field_id: 'stage', backfill: false }).expect(201)).body;
    assert.equal(rule.linked, 0);
    assert.deepEqual((await get(w.db, shut)).values.companies, []);
    const again = await w.t.request.post(rules).set(w.admin.auth).send({ from_field_id: 'name', to_field_id: 'stage' }).expect(409);
    assert.equal(again.body.rule_id, rule.id);
    assert.equal(again.body.code, 'rule_exists');

    // Both sides react: a company named like a label, and a record given that label.
    const opened = await create(companies, { name: 'open' });
    assert.deepEqual(opened.values.people.map((l: any) => l.id), [open]);
    await w.t.request.patch(records(w.db, `/${shut}`)).set(w.editor.auth).send({ values: { stage: 'Open' } }).expect(200);
    assert.deepEqual(titles((await get(w.db, shut)).values.companies), ['open']);
    assert.deepEqual((await get(companies, closed)).values.people, []);

    await w.t.request.delete(rules).set(w.admin.auth).expect(204);
    assert.deepEqual((await w.t.request.get(rules).set(w.member.auth).expect(200)).body.data, []);
    await w.t.request.delete(`${rules}/${rule.id}`).set(w.admin.auth).expect(404);
  });

  it('reports records whose select labels and links disagree, and links them in bulk', async () => {
    const relation = await relate('many_to_many', 'Companies');
    await addField(w.db, { name: 'Clients', type: 'multi_select', options: { choices: [{ label: 'Acme' }, { label: 'Globex' }, { label: 'Initech' }] } });
    const acme = (await create(companies, { name: 'acme' })).id;
    const globex = (await create(companies, { name: 'Globex' })).id;
    const both = (await create(w.db, { name: 'Both', clients: ['Acme', 'Globex'], companies: [acme] })).id;
    const none = (await create(w.db, { name: 'None', companies: [acme] })).id;
    const ghost = (await create(w.db, { name: 'Ghost', clients: ['Initech'] })).id;
    await create(w.db, { name: 'Fine', clients: ['Acme'], companies: [acme] });

    const drift = (await w.t.request.get(api(`/relations/${relation}/drift?field_id=clients`)).set(w.member.auth).expect(200)).body;
    assert.deepEqual(
      drift.data.map((d: any) => [d.record_id, d.labels, d.missing, titles(d.extra)]),
      [
        [both, ['Acme', 'Globex'], [{ label: 'Globex', record_id: globex }], []],
        [none, [], [], ['acme']],
        [ghost, ['Initech'], [{ label: 'Initech', record_id: null }], []],
      ],
    );
    assert.equal(drift.next_cursor, null);
    const first = (await w.t.request.get(api(`/relations/${relation}/drift?field_id=clients&limit=2`)).set(w.member.auth).expect(200)).body;
    const rest = (await w.t.request.get(api(`/relations/${relation}/drift?field_id=clients&limit=2&cursor=${first.next_cursor}`)).set(w.member.auth).expect(200)).body;
    assert.deepEqual([...first.data, ...rest.data].map((d: any) => d.record_id), [both, none, ghost]);
    assert.deepEqual(pointers(await w.t.request.get(api(`/relations/${relation}/drift?field_id=name`)).set(w.member.auth).expect(422)), ['/query/field_id']);

    const bulk = `/relations/${relation}/bulk-link`;
    await w.t.request.post(api(bulk)).set(w.member.auth).send({ field_id: 'clients' }).expect(403);
    const linked = (await w.t.request.post(api(bulk)).set(w.editor.auth).send({ field_id: 'clients' }).expect(200)).body;
    assert.deepEqual(linked, { linked: 1, unlinked: 0, skipped: [{ record_id: ghost, label: 'Initech', reason: 'no_match' }] });
    assert.deepEqual(titles((await get(w.db, both)).values.companies), ['acme', 'Globex']);
    const pruned = (await w.t.request.post(api(bulk)).set(w.editor.auth).send({ field_id: 'clients', unlink_extra: true, record_ids: [none] }).expect(200)).body;
    assert.deepEqual(pruned, { linked: 0, unlinked: 1, skipped: [] });
    const after = (await w.t.request.get(api(`/relations/${relation}/drift?field_id=clients`)).set(w.member.auth).expect(200)).body;
    assert.deepEqual(after.data.map((d: any) => d.record_id), [ghost]);
  });

  it('bulk link keeps one parent per record in a one-to-many relation unless told to replace it', async () => {
    const relation = await relate('one_to_many');
    await addField(w.db, { name: 'Employer', type: 'single_select', options: { choices: [{ label: 'Acme' }, { label: 'Globex' }] } });
    const acme = (await create(companies, { name: 'Acme' })).id;
    const globex = (await create(companies, { name: 'Globex' })).id;
    const ann = (await create(w.db, { name: 'Ann', employer: 'Globex', company: [acme] })).id;
    const bob = (await create(w.db, { name: 'Bob', employer: 'Globex' })).id;

    const kept = (await w.t.request.post(api(`/relations/${relation}/bulk-link`)).set(w.editor.auth).send({ field_id: 'employer' }).expect(200)).body;
    assert.deepEqual(kept, { linked: 1, unlinked: 0, skipped: [{ record_id: ann, label: 'Globex', reason: 'one_link' }] });
    assert.deepEqual(titles((await get(w.db, bob)).values.company), ['Globex']);
    const replaced = (await w.t.request.post(api(`/relations/${relation}/bulk-link`)).set(w.editor.auth).send({ field_id: 'employer', unlink_extra: true }).expect(200)).body;
    assert.deepEqual(replaced, { linked: 1, unlinked: 1, skipped: [] });
    assert.deepEqual((await get(companies, globex)).values.people.map((l: any) => l.id), [bob, ann]);
    assert.deepEqual((await get(companies, acme)).values.people, []);
  });
});
