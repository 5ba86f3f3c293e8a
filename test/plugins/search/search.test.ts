import assert from 'node:assert/strict';
import { recordedEvents } from '../../../core/testing.ts';
import type { RecordCommittedHooks } from '../../../plugins/records/public.ts';
import fc from 'fast-check';
import { waitUntil } from '../../fixtures/wait.ts';
import { searchWorld, type SearchWorld } from './world.ts';
import { suiteKernel } from '../../fixtures/suite-kernel.ts';
import { cases, SEED } from '../../fixtures/randomised.ts';

describe('search', () => {
  let w: SearchWorld;
  const ids = (hits: Array<{ id: string }>) => hits.map((h) => h.id).sort();

  const kernel = suiteKernel();
  beforeEach(async () => {
    w = await searchWorld(kernel());
  });

  it('finds a record by any text-like field the moment its write commits, with its title, a snippet, its database and space', async () => {
    const r = await w.create(w.db, { name: 'Acme renewal', notes: 'call the purchasing department', details: 'The customer wants a discount on the annual plan before signing.', stage: 'Negotiation', amount: 4242 });
    await w.create(w.db, { name: 'Other deal', notes: 'nothing to see' });

    for (const q of ['purchasing', 'discount annual', 'negotiation', 'ACME']) {
      const hits = await w.search(w.member, { q, types: 'records' });
      assert.deepEqual(ids(hits), [r.id], q);
    }
    const [hit] = await w.search(w.member, { q: 'discount' });
    assert.equal(hit.type, 'record');
    assert.equal(hit.title, 'Acme renewal');
    assert.equal(hit.database_id, w.db);
    assert.equal(hit.space_id, w.spaceS);
    assert.ok(hit.snippet.includes('discount'), hit.snippet);
    assert.ok(hit.score > 0);
    // Numbers are not text: the amount finds nothing.
    assert.deepEqual(await w.search(w.member, { q: '4242' }), []);
  });

  it('requires every word, matches the last as a prefix, and ranks a title above a body', async () => {
    const inTitle = await w.create(w.db, { name: 'Quarterly forecast', notes: 'numbers' });
    const inBody = await w.create(w.db, { name: 'Board meeting', notes: 'review the quarterly forecast slides' });
    await w.create(w.db, { name: 'Quarterly budget', notes: 'spend' });

    assert.deepEqual((await w.search(w.member, { q: 'quarterly forecast', types: 'records' })).map((h) => h.id), [inTitle.id, inBody.id]);
    assert.deepEqual(ids(await w.search(w.member, { q: 'quarterly fore', types: 'records' })), ids([inTitle, inBody]));
    // Only the last word is a prefix: "quart forecast" finds nothing.
    assert.deepEqual(await w.search(w.member, { q: 'quart forecast' }), []);
    // No word at all: nothing, not an error.
    assert.deepEqual(await w.search(w.member, { q: '!!! ???' }), []);
  });

  it('follows updates, deletes and restores', async () => {
    const r = await w.create(w.db, { name: 'Blue whale' });
    await w.t.request.patch(w.api(`/databases/${w.db}/records/${r.id}`)).set(w.admin.auth).send({ values: { name: 'Red panda' } }).expect(200);
    assert.deepEqual(await w.search(w.member, { q: 'whale' }), []);
    assert.deepEqual(ids(await w.search(w.member, { q: 'panda' })), [r.id]);

    await w.t.request.delete(w.api(`/databases/${w.db}/records/${r.id}`)).set(w.admin.auth).expect(204);
    assert.deepEqual(await w.search(w.member, { q: 'panda' }), []);
    await w.t.request.post(w.api(`/databases/${w.db}/records/restore`)).set(w.admin.auth).send({ ids: [r.id] }).expect(200);
    assert.deepEqual(ids(await w.search(w.member, { q: 'panda' })), [r.id]);
  });

  it('never puts back a record whose delete committed before its earlier write was fanned out (passes of several processes)', async () => {
    const r = await w.create(w.db, { name: 'Ghost orchid' });
    await w.t.kernel.events.settle();
    const [created] = await recordedEvents(w.t, { name: 'record.created', workspace_id: w.ws }).then((events) => events.filter((e) => e.payload.record.id === r.id));
    await w.t.request.delete(w.api(`/databases/${w.db}/records/${r.id}`)).set(w.admin.auth).expect(204);
    assert.deepEqual(await w.search(w.member, { q: 'orchid' }), []);
    // The create's events told late, as another process's pass would after the delete's: the record stays gone.
    const hooks = w.t.kernel.pluginHooks.get('records.committed')!.hooks as RecordCommittedHooks;
    const fields = (await w.t.container.resolverFor('search')('records.service').readTable(w.ws, w.db)).changedFields();
    await w.t.db.transaction((trx) =>
      hooks.committed.promise({ trx, workspaceId: w.ws, databaseId: w.db, actorId: w.admin.id, origin: null, fields, changes: [{ kind: 'created', recordId: r.id, before: null, after: created.payload.record, changed: [] }] }),
    );
    assert.deepEqual(await w.search(w.member, { q: 'orchid' }), []);
  });

  it('finds spaces, databases and documents, and forgets them when deleted', async () => {
    const doc = (await w.t.request.post(w.api('/documents')).set(w.admin.auth).send({ title: 'Onboarding handbook', space_id: w.spaceS }).expect(201)).body.id as string;
    await w.t.request
      .put(w.api(`/documents/${doc}/content`))
      .set(w.admin.auth)
      .send({ version: 0, content: { type: 'doc', content: [{ type: 'paragraph', content: [{ type: 'text', text: 'Badges are collected at reception.' }] }] } })
      .expect(200);
    // The content is indexed in its write; names arrive from events, shortly after.
    assert.deepEqual(ids(await w.search(w.member, { q: 'reception' })), [doc]);
    await waitUntil('the document, space and database names indexed', async () => (await w.search(w.member, { q: 'onboarding' })).length === 1 && (await w.search(w.member, { q: 'sales' })).length === 1 && (await w.search(w.member, { q: 'deals' })).length === 1);

    assert.deepEqual((await w.search(w.member, { q: 'sales' })).map((h) => [h.type, h.id, h.database_id]), [['space', w.spaceS, null]]);
    assert.deepEqual((await w.search(w.member, { q: 'deals' })).map((h) => [h.type, h.id, h.database_id, h.space_id]), [['database', w.db, w.db, w.spaceS]]);
    assert.deepEqual((await w.search(w.member, { q: 'onboarding', types: 'documents' })).map((h) => [h.type, h.id, h.snippet]), [['document', doc, 'Badges are collected at reception.']]);
    assert.deepEqual(await w.search(w.member, { q: 'onboarding', types: 'spaces,databases,records' }), []);

    await w.t.request.patch(w.api(`/databases/${w.db}`)).set(w.admin.auth).send({ name: 'Opportunities' }).expect(200);
    await waitUntil('the rename indexed', async () => (await w.search(w.member, { q: 'opportunities' })).length === 1);
    assert.deepEqual(await w.search(w.member, { q: 'deals' }), []);

    await w.t.request.delete(w.api(`/documents/${doc}`)).set(w.admin.auth).expect(204);
    assert.deepEqual(await w.search(w.member, { q: 'reception' }), []);
  });

  it('shows only what the caller may see: a guest its spaces, a grant its database, never another workspace', async () => {
    const open = await w.create(w.db, { name: 'Harbour contract' });
    const secret = await w.create(w.hidden, { name: 'Harbour salaries' });
    const theirDb = (await w.t.request.post(`/api/v1/workspaces/${w.otherWs}/spaces`).set(w.outsider.auth).send({ name: 'X' }).expect(201)).body.id as string;
    const foreignDb = (await w.t.request.post(`/api/v1/workspaces/${w.otherWs}/databases`).set(w.outsider.auth).send({ name: 'Y', space_id: theirDb }).expect(201)).body.id as string;
    const foreign = (await w.t.request.post(`/api/v1/workspaces/${w.otherWs}/databases/${foreignDb}/records`).set(w.outsider.auth).send({ values: { name: 'Harbour elsewhere' } }).expect(201)).body.id as string;

    assert.deepEqual(ids(await w.search(w.member, { q: 'harbour' })), ids([open, secret]));
    assert.deepEqual(ids(await w.search(w.guest, { q: 'harbour' })), [open.id]);
    assert.deepEqual(ids(await w.search(w.outsider, { q: 'harbour' }, w.otherWs)), [foreign]);
    await w.t.request.get(w.api('/search')).query({ q: 'harbour' }).set(w.outsider.auth).expect(404);

    // A grant on Payroll shows its records and itself to the guest, not the space Treasury around it.
    await w.t.request.put(w.api('/access')).set(w.admin.auth).send({ scope_type: 'database', scope_id: w.hidden, user_id: w.guest.id, role: 'member' }).expect(201);
    await waitUntil('the grant applied and the names indexed', async () => (await w.search(w.guest, { q: 'harbour' })).length === 2 && (await w.search(w.admin, { q: 'treasury' })).length === 1);
    assert.deepEqual(ids(await w.search(w.guest, { q: 'harbour' })), ids([open, secret]));
    assert.deepEqual(await w.search(w.guest, { q: 'treasury' }), []);
    await waitUntil('Payroll found by the guest', async () => (await w.search(w.guest, { q: 'payroll' })).length === 1);
  });

  it('pages by relevance with a cursor tied to its query', async () => {
    for (let i = 0; i < 5; i += 1) await w.create(w.db, { name: `Lighthouse ${i}`, notes: i % 2 ? 'lighthouse keeper' : 'coast' });
    await w.t.kernel.events.settle();
    const seen: string[] = [];
    let cursor: string | null = null;
    let scores: number[] = [];
    do {
      const query: Record<string, string | number> = { q: 'lighthouse', types: 'records', limit: 2 };
      if (cursor) query.cursor = cursor;
      const res = await w.t.request.get(w.api('/search')).query(query).set(w.member.auth).expect(200);
      assert.ok(res.body.data.length <= 2);
      seen.push(...res.body.data.map((h: { id: string }) => h.id));
      scores = scores.concat(res.body.data.map((h: { score: number }) => h.score));
      cursor = res.body.next_cursor;
    } while (cursor);
    assert.equal(new Set(seen).size, 5);
    assert.deepEqual(scores, [...scores].sort((a, b) => b - a));

    const first = await w.t.request.get(w.api('/search')).query({ q: 'lighthouse', limit: 2 }).set(w.member.auth).expect(200);
    const other = await w.t.request.get(w.api('/search')).query({ q: 'keeper', limit: 2, cursor: first.body.next_cursor }).set(w.member.auth).expect(422);
    assert.equal(other.body.code, 'validation_failed');
  });

  it('refuses a q that is empty or longer than 200 characters, an unknown type, a bad limit, and stores nothing', async () => {
    for (const query of [{ q: '' }, { q: 'x'.repeat(201) }, { q: 'a', types: 'records,people' }, { q: 'a', limit: 0 }, { q: 'a', limit: 201 }, {}]) {
      const res = await w.t.request.get(w.api('/search')).query(query).set(w.member.auth).expect(422);
      assert.equal(res.body.code, 'validation_failed');
      assert.ok(res.body.errors.length > 0);
    }
    await w.t.request.get(w.api('/search')).query({ q: 'x'.repeat(200) }).set(w.member.auth).expect(200);
  });

  it('takes any text as words, never as query syntax', async () => {
    const r = await w.create(w.db, { name: "O'Brien & Sons", notes: 'path C:\\temp\\x and a:b<->c! (draft) mail ops@acme.test' });
    for (const q of ["o'brien", 'sons & | ! ( ) : * <-> ', 'temp\\x', 'a:b<->c', '(draft)', 'ops@acme.test', "'''", '\\', '%_', 'ß 東京 🙂']) {
      const res = await w.t.request.get(w.api('/search')).query({ q }).set(w.member.auth);
      assert.equal(res.status, 200, `${q}: ${res.text}`);
    }
    assert.deepEqual(ids(await w.search(w.member, { q: "O'Brien sons" })), [r.id]);
    assert.deepEqual(ids(await w.search(w.member, { q: 'draft' })), [r.id]);
    assert.deepEqual(ids(await w.search(w.member, { q: 'ops@acme.test' })), [r.id]);
    // Whatever the characters (quotes, backslashes, operators, any script), a q of 1–200 of them is a search.
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: fc.oneof(fc.constantFrom("'", '\\', '&', '|', '!', ':', '*', '(', ')', '<', '>', '-', ' ', '@', '.', '%'), fc.string({ unit: 'binary', maxLength: 1 })), minLength: 1, maxLength: 60 }), async (q) => {
        fc.pre(q.length >= 1 && q.length <= 200 && !q.includes('\u0000'));
        const res = await w.t.request.get(w.api('/search')).query({ q }).set(w.member.auth);
        assert.equal(res.status, 200, `${JSON.stringify(q)}: ${res.text}`);
      }),
      { numRuns: cases(150), seed: SEED },
    );
    // The kernel's input guard refuses a NUL, as everywhere.
    await w.t.request.get(w.api('/search')).query({ q: 'a\u0000b' }).set(w.member.auth).expect(422);
  });

  it('reads a database again in the background when a field becomes text, and says so while it runs', async () => {
    const r = await w.create(w.db, { name: 'Invoice', amount: 777 });
    assert.deepEqual(await w.search(w.member, { q: '777' }), []);
    await w.t.request.post(w.api(`/databases/${w.db}/fields/amount/convert`)).set(w.admin.auth).send({ type: 'text' }).expect(200);
    await waitUntil('the converted values found', async () => (await w.search(w.member, { q: '777' })).length === 1);
    assert.deepEqual(ids(await w.search(w.member, { q: '777' })), [r.id]);
    const res = await waitUntil('no rebuild pending', async () => {
      const page = await w.t.request.get(w.api('/search')).query({ q: 'invoice' }).set(w.member.auth).expect(200);
      return page.headers['search-rebuilds-pending'] === '0' && page;
    });
    assert.equal(res.headers['search-rebuilds-since'], undefined);
    assert.deepEqual(ids(res.body.data), [r.id]);
  });

  it("finds an import's records once the background read that its commit queued has run, and nothing of a failed import", async () => {
    const upload = (csv: string) =>
      w.t.request.post(w.api(`/databases/${w.db}/import`)).set(w.admin.auth).attach('file', Buffer.from(csv), { filename: 'deals.csv', contentType: 'text/csv' }).field('mapping', '{"Name":"name","Notes":"notes"}').field('dry_run', 'false');
    await upload('Name,Notes\nQuokka deal,imported zeugma\nWombat deal,second row\n').expect(201);
    await waitUntil('the imported records found', async () => (await w.search(w.member, { q: 'zeugma' })).length === 1);
    assert.deepEqual((await w.search(w.member, { q: 'wombat' })).map((h) => h.title), ['Wombat deal']);
    // All or nothing: a refused import queues nothing and indexes nothing.
    await upload('Name,Notes\nNarwhal deal,refused\nBad,"unterminated\n').expect(422);
    await waitUntil('no rebuild pending', async () => {
      const page = await w.t.request.get(w.api('/search')).query({ q: 'narwhal' }).set(w.member.auth).expect(200);
      return page.headers['search-rebuilds-pending'] === '0';
    });
    assert.deepEqual(await w.search(w.member, { q: 'narwhal' }), []);
  });

  it('counts pending rebuilds only of databases the caller sees', async () => {
    // A rebuild waiting for Payroll (space T), as a field change there would leave it before its job runs.
    await w.t.db('search_rebuilds').insert({ database_id: w.hidden, workspace_id: w.ws });
    const pending = async (user = w.admin) => (await w.t.request.get(w.api('/search')).query({ q: 'anything' }).set(user.auth).expect(200)).headers;
    assert.equal((await pending(w.admin))['search-rebuilds-pending'], '1');
    assert.ok((await pending(w.admin))['search-rebuilds-since']);
    assert.equal((await pending(w.guest))['search-rebuilds-pending'], '0');
    assert.equal((await pending(w.guest))['search-rebuilds-since'], undefined);
  });

  it('never holds a member’s name (mentions read "@member", people cells are not indexed), so an erasure leaves none behind', async () => {
    await w.t.request.post(w.api(`/databases/${w.db}/fields`)).set(w.admin.auth).send({ name: 'Owner', type: 'user' }).expect(201);
    const r = await w.create(w.db, { name: 'Lease renewal', owner: w.member.id });
    const doc = (await w.t.request.post(w.api('/documents')).set(w.admin.auth).send({ title: 'Minutes', space_id: w.spaceS }).expect(201)).body.id as string;
    const content = { type: 'doc', content: [{ type: 'paragraph', content: [{ type: 'text', text: 'Agreed with ' }, { type: 'mention', attrs: { user_id: w.member.id } }] }] };
    await w.t.request.put(w.api(`/documents/${doc}/content`)).set(w.admin.auth).send({ version: 0, content }).expect(200);
    assert.deepEqual(ids(await w.search(w.admin, { q: 'agreed' })), [doc]);
    assert.deepEqual(ids(await w.search(w.admin, { q: 'lease' })), [r.id]);
    const stored = await w.t.db('search_entries').where({ id: doc }).first('body');
    assert.equal(stored.body, 'Agreed with @member');

    await w.t.request.post(w.api(`/members/${w.member.id}/erase`)).set(w.admin.auth).send({ confirm: w.member.email }).expect(200);
    for (const q of ['mia', 'member mia', 'Mia Member']) assert.deepEqual(await w.search(w.admin, { q }), [], q);
    const named = await w.t.db('search_entries').where({ workspace_id: w.ws }).where((q) => q.whereILike('title', '%Mia%').orWhereILike('body', '%Mia%')).count<{ count: string }[]>('* as count');
    assert.equal(Number(named[0].count), 0);
    assert.deepEqual(ids(await w.search(w.admin, { q: 'lease' })), [r.id]);
  });
});
