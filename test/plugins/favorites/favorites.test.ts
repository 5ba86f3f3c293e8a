import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createWorkspace, type SignedUpUser } from '../../../core/testing.ts';
import { recordsWorld, type RecordsWorld } from '../records/setup.ts';
import { createPat } from '../tokens/helpers.ts';
import { eventsNamed } from '../workspaces/fixtures.ts';
import { suiteKernel } from '../../fixtures/suite-kernel.ts';
import { statementsOf } from '../../fixtures/server-timing.ts';

type Auth = Record<string, string>;
interface Favorite {
  id: string;
  workspace_id: string;
  target_type: string;
  target_id: string;
  database_id: string;
  title: string | null;
  created_at: string;
}

describe('favorites', () => {
  let w: RecordsWorld;
  const api = (path: string) => `/api/v1/workspaces/${w.ws}${path}`;
  const star = (auth: Auth, target_type: string, target_id: string, ws = w.ws) =>
    w.t.request.put(`/api/v1/workspaces/${ws}/favorites`).set(auth).send({ target_type, target_id });
  const list = (auth: Auth, query = '') => w.t.request.get(api(`/favorites${query}`)).set(auth);
  const targets = async (auth: Auth, query = '') => ((await list(auth, query).expect(200)).body.data as Favorite[]).map((f) => f.target_id);
  const createRecord = async (values: Record<string, unknown>) => (await w.t.request.post(w.url()).set(w.editor.auth).send({ values }).expect(201)).body.id as string;
  const spaceOfD = async () => (await w.t.db('databases').where({ id: w.db }).first('space_id')).space_id as string;
  const newSpace = async (name: string) => (await w.t.request.post(api('/spaces')).set(w.admin.auth).send({ name }).expect(201)).body.id as string;
  const makeGuest = (user: SignedUpUser, spaceIds: string[]) =>
    w.t.request.patch(api(`/members/${user.id}`)).set(w.admin.auth).send({ role: 'guest', space_ids: spaceIds }).expect(200);

  const kernel = suiteKernel();
  beforeEach(async () => {
    w = await recordsWorld(undefined, kernel());
  });

  it('stars a record and a database: 201 with the favorite, then 200 with the same one', async () => {
    const r = await createRecord({ name: 'Alpha' });
    const first = (await star(w.member.auth, 'record', r).expect(201)).body as Favorite;
    assert.deepEqual(Object.keys(first).sort(), ['created_at', 'database_id', 'id', 'target_id', 'target_type', 'title', 'workspace_id']);
    assert.deepEqual({ ...first, id: undefined, created_at: undefined }, {
      id: undefined, created_at: undefined, workspace_id: w.ws, target_type: 'record', target_id: r, database_id: w.db, title: 'Alpha',
    });
    assert.ok(!Number.isNaN(Date.parse(first.created_at)));
    assert.deepEqual((await star(w.member.auth, 'record', r).expect(200)).body, first);

    const database = (await star(w.member.auth, 'database', w.db).expect(201)).body as Favorite;
    assert.deepEqual([database.target_type, database.target_id, database.database_id, database.title], ['database', w.db, w.db, 'D']);
    assert.deepEqual((await star(w.member.auth, 'database', w.db).expect(200)).body, database);
    assert.equal((await w.t.db('favorites').where({ user_id: w.member.id })).length, 2);
  });

  it('titles a record by its title cell as plain text, as its type writes it, null when empty', async () => {
    const untitled = await createRecord({});
    assert.equal((await star(w.member.auth, 'record', untitled).expect(201)).body.title, null);
    const numbered = await createRecord({ name: '12.5' });
    const convert = `/api/v1/workspaces/${w.ws}/databases/${w.db}/fields/name/convert`;
    await w.t.request.post(convert).set(w.admin.auth).send({ type: 'number', options: { precision: 2 } }).expect(200);
    const favorite = (await star(w.member.auth, 'record', numbered).expect(201)).body;
    assert.equal(favorite.title, '12.50');
    const listed = (await list(w.member.auth).expect(200)).body.data as Favorite[];
    assert.deepEqual(listed.map((f) => f.title), ['12.50', null]);
  });

  it("lists the caller's own favorites newest first, keyset paged, narrowed by target_type", async () => {
    const [a, b] = [await createRecord({ name: 'A' }), await createRecord({ name: 'B' })];
    const starred = [(await star(w.member.auth, 'record', a).expect(201)).body, (await star(w.member.auth, 'database', w.db).expect(201)).body, (await star(w.member.auth, 'record', b).expect(201)).body];
    await star(w.editor.auth, 'record', a).expect(201);
    // Known, distinct times (out of starring order): the order must come from them, not from ids or insertion.
    const times = ['2026-01-02T00:00:00.000001Z', '2026-01-03T00:00:00.000002Z', '2026-01-01T00:00:00.000003Z'];
    for (const [i, f] of starred.entries()) await w.t.db('favorites').where({ id: f.id }).update({ created_at: times[i] });

    assert.deepEqual(await targets(w.member.auth), [w.db, a, b]);
    assert.deepEqual(await targets(w.editor.auth), [a]);
    assert.deepEqual(await targets(w.admin.auth), []);
    assert.deepEqual(await targets(w.member.auth, '?target_type=record'), [a, b]);
    assert.deepEqual(await targets(w.member.auth, '?target_type=database'), [w.db]);
    const page = (await list(w.member.auth).expect(200)).body;
    assert.equal(page.next_cursor, null);
    assert.deepEqual(page.data[0], { ...starred[1], created_at: '2026-01-03T00:00:00.000Z' });

    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const next: { data: Favorite[]; next_cursor: string | null } = (await list(w.member.auth, `?limit=1${cursor ? `&cursor=${cursor}` : ''}`).expect(200)).body;
      assert.equal(next.data.length, 1);
      seen.push(next.data[0].target_id);
      cursor = next.next_cursor;
    } while (cursor);
    assert.deepEqual(seen, [w.db, a, b]);
    await list(w.member.auth, '?target_type=space').expect(422);
    await list(w.member.auth, '?limit=201').expect(422);
    await list(w.member.auth, '?cursor=bm9wZQ').expect(422);
  });

  it("answers one favorite of the caller's, and 404 for anyone else's", async () => {
    const r = await createRecord({ name: 'Mine' });
    const mine = (await star(w.member.auth, 'record', r).expect(201)).body;
    assert.deepEqual((await w.t.request.get(api(`/favorites/${mine.id}`)).set(w.member.auth).expect(200)).body, mine);
    await w.t.request.get(api(`/favorites/${mine.id}`)).set(w.editor.auth).expect(404);
    await w.t.request.get(api(`/favorites/${randomUUID()}`)).set(w.member.auth).expect(404);
    await w.t.request.get(api('/favorites/not-a-uuid')).set(w.member.auth).expect(404);
    await w.t.request.get(api(`/favorites/${mine.id}`)).set(w.outsider.auth).expect(404);
  });

  it('answers 404 for a record or database that does not exist or belongs to another workspace, and stores nothing', async () => {
    await star(w.member.auth, 'record', randomUUID()).expect(404);
    await star(w.member.auth, 'database', randomUUID()).expect(404);
    // The admin is admin of both workspaces too: a target of the other one is still no target here.
    const other = (await createWorkspace(w.t, w.admin)).id;
    const space = (await w.t.request.post(`/api/v1/workspaces/${other}/spaces`).set(w.admin.auth).send({ name: 'O' }).expect(201)).body.id;
    const database = (await w.t.request.post(`/api/v1/workspaces/${other}/databases`).set(w.admin.auth).send({ name: 'O', space_id: space }).expect(201)).body.id;
    const record = (await w.t.request.post(`/api/v1/workspaces/${other}/databases/${database}/records`).set(w.admin.auth).send({ values: { name: 'Theirs' } }).expect(201)).body.id;
    const res = await star(w.admin.auth, 'record', record).expect(404);
    assert.equal(res.body.code, 'not_found');
    await star(w.admin.auth, 'database', database).expect(404);
    // A database id is not a record id, nor the other way round.
    await star(w.admin.auth, 'record', w.db).expect(404);
    await star(w.admin.auth, 'database', await createRecord({ name: 'Rec' })).expect(404);
    assert.equal((await w.t.db('favorites').whereIn('user_id', [w.admin.id, w.editor.id, w.member.id, w.outsider.id])).length, 0);
    await star(w.admin.auth, 'record', record, other).expect(201);
    await star(w.admin.auth, 'database', database, other).expect(201);
    await star(w.outsider.auth, 'database', w.db).expect(404);
  });

  it('lets a guest star only inside its spaces (404 elsewhere), and hides what it no longer sees', async () => {
    const r = await createRecord({ name: 'Guarded' });
    const elsewhere = await newSpace('Elsewhere');
    await makeGuest(w.member, [elsewhere]);
    await star(w.member.auth, 'record', r).expect(404);
    await star(w.member.auth, 'database', w.db).expect(404);
    assert.equal((await w.t.db('favorites').whereIn('user_id', [w.admin.id, w.editor.id, w.member.id, w.outsider.id])).length, 0);

    await makeGuest(w.member, [await spaceOfD()]);
    const favorite = (await star(w.member.auth, 'record', r).expect(201)).body;
    await star(w.member.auth, 'database', w.db).expect(201);
    assert.deepEqual((await targets(w.member.auth)).sort(), [r, w.db].sort());

    await makeGuest(w.member, [elsewhere]);
    assert.deepEqual(await targets(w.member.auth), []);
    await w.t.request.get(api(`/favorites/${favorite.id}`)).set(w.member.auth).expect(404);
    await makeGuest(w.member, [await spaceOfD()]);
    assert.deepEqual((await targets(w.member.auth)).sort(), [r, w.db].sort());
  });

  it('refuses a bad body with 422 and pointers, storing nothing', async () => {
    const r = await createRecord({ name: 'Body' });
    const put = (body: unknown) => w.t.request.put(api('/favorites')).set(w.member.auth).send(body as object).expect(422);
    const pointers = (res: { body: { errors?: Array<{ pointer: string }> } }) => (res.body.errors ?? []).map((e) => e.pointer);
    const extra = await put({ target_type: 'record', target_id: r, user_id: w.editor.id });
    assert.equal(extra.body.code, 'validation_failed');
    assert.deepEqual(pointers(extra), ['/user_id']);
    assert.deepEqual(pointers(await put({ target_type: 'space', target_id: r })), ['/target_type']);
    assert.deepEqual(pointers(await put({ target_type: 'record', target_id: 'nope' })), ['/target_id']);
    assert.deepEqual(pointers(await put({ target_type: 'record' })), ['/target_id']);
    assert.equal((await w.t.db('favorites').whereIn('user_id', [w.admin.id, w.editor.id, w.member.id, w.outsider.id])).length, 0);
  });

  it('hides the favorite of a record in the trash, refuses to star it, and shows it again on restore', async () => {
    const [gone, kept] = [await createRecord({ name: 'Gone' }), await createRecord({ name: 'Kept' })];
    const favorite = (await star(w.member.auth, 'record', gone).expect(201)).body;
    await star(w.member.auth, 'record', kept).expect(201);
    await w.t.request.delete(w.url(`/${gone}`)).set(w.editor.auth).expect(204);
    assert.deepEqual(await targets(w.member.auth), [kept]);
    await w.t.request.get(api(`/favorites/${favorite.id}`)).set(w.member.auth).expect(404);
    await star(w.member.auth, 'record', gone).expect(404);
    await star(w.editor.auth, 'record', gone).expect(404);
    await w.t.request.post(w.url('/restore')).set(w.editor.auth).send({ ids: [gone] }).expect(200);
    assert.deepEqual(await targets(w.member.auth), [kept, gone]);
    assert.deepEqual((await star(w.member.auth, 'record', gone).expect(200)).body, favorite);
  });

  it("deletes a database's favorites, of it and of its records, with it", async () => {
    const r = await createRecord({ name: 'Doomed' });
    await star(w.member.auth, 'record', r).expect(201);
    await star(w.member.auth, 'database', w.db).expect(201);
    await w.t.request.delete(`/api/v1/workspaces/${w.ws}/databases/${w.db}`).set(w.admin.auth).send({ confirm: 'D' }).expect(204);
    assert.deepEqual(await targets(w.member.auth), []);
    assert.deepEqual(await w.t.db('favorites').where({ database_id: w.db }), []);
  });

  it("unstars with 204, then 404; someone else's favorite is 404 and stays", async () => {
    const r = await createRecord({ name: 'Unstar' });
    const mine = (await star(w.member.auth, 'record', r).expect(201)).body;
    const theirs = (await star(w.editor.auth, 'record', r).expect(201)).body;
    await w.t.request.delete(api(`/favorites/${theirs.id}`)).set(w.member.auth).expect(404);
    await w.t.request.delete(api(`/favorites/${mine.id}`)).set(w.member.auth).expect(204);
    await w.t.request.delete(api(`/favorites/${mine.id}`)).set(w.member.auth).expect(404);
    assert.deepEqual(await targets(w.member.auth), []);
    assert.deepEqual(await targets(w.editor.auth), [r]);
    await star(w.member.auth, 'record', r).expect(201);
  });

  it('lets a read-scoped token list but not star or unstar (403); a write token may', async () => {
    const r = await createRecord({ name: 'Scoped' });
    const favorite = (await star(w.member.auth, 'record', r).expect(201)).body;
    const read = await createPat(w.t, w.member, { workspace_id: w.ws, scope: 'read' });
    assert.deepEqual(await targets(read.auth), [r]);
    const refused = await star(read.auth, 'database', w.db).expect(403);
    assert.equal(refused.body.code, 'forbidden');
    await w.t.request.delete(api(`/favorites/${favorite.id}`)).set(read.auth).expect(403);
    assert.equal((await w.t.db('favorites').where({ user_id: w.member.id })).length, 1);
    const write = await createPat(w.t, w.member, { workspace_id: w.ws, scope: 'write' });
    await star(write.auth, 'database', w.db).expect(201);
    await w.t.request.delete(api(`/favorites/${favorite.id}`)).set(write.auth).expect(204);
    await w.t.request.put(api('/favorites')).send({ target_type: 'database', target_id: w.db }).expect(401);
  });

  it('emits favorite.added when a target is starred (not on repeats) and favorite.removed when unstarred', async () => {
    const r = await createRecord({ name: 'Evented' });
    const favorite = (await star(w.member.auth, 'record', r).expect(201)).body;
    await star(w.member.auth, 'record', r).expect(200);
    const stored = { id: favorite.id, workspace_id: w.ws, target_type: 'record', target_id: r, database_id: w.db, created_at: favorite.created_at };
    assert.deepEqual(await eventsNamed(w.t, 'favorite.added', w.ws), [{ name: 'favorite.added', actor_id: w.member.id, payload: { favorite: stored } }]);
    await w.t.request.delete(api(`/favorites/${favorite.id}`)).set(w.member.auth).expect(204);
    assert.deepEqual(await eventsNamed(w.t, 'favorite.removed', w.ws), [{ name: 'favorite.removed', actor_id: w.member.id, payload: { favorite: stored } }]);
  });

  it("forgets a member's favorites when they leave the workspace", async () => {
    const r = await createRecord({ name: 'Left behind' });
    await star(w.member.auth, 'record', r).expect(201);
    await star(w.editor.auth, 'record', r).expect(201);
    await w.t.request.delete(api(`/members/${w.member.id}`)).set(w.admin.auth).expect(204);
    assert.deepEqual(await w.t.db('favorites').where({ user_id: w.member.id }), []);
    assert.deepEqual(await targets(w.editor.auth), [r]);
  });

  it('forgets the favorites of records purged from the trash in the purge itself, keeping the others', async () => {
    const [old, recent, live] = [await createRecord({ name: 'Old' }), await createRecord({ name: 'Recent' }), await createRecord({ name: 'Live' })];
    for (const r of [old, recent, live]) await star(w.member.auth, 'record', r).expect(201);
    await star(w.member.auth, 'database', w.db).expect(201);
    await w.t.request.post(w.url('/delete')).set(w.editor.auth).send({ ids: [old, recent] }).expect(200);
    await w.t.db(w.table).where({ id: old }).update({ deleted_at: '2026-01-01T00:00:00Z' });
    assert.equal(await w.t.container.resolverFor('records')('records.trash').purge(new Date('2026-03-01T00:00:00Z')), 1);
    assert.deepEqual((await w.t.db('favorites').where({ user_id: w.member.id }).pluck('target_id')).sort(), [recent, live, w.db].sort());
  });

  it('lists in a number of queries that does not grow with the favorites', async () => {
    const space = await spaceOfD();
    const second = (await w.t.request.post(api('/databases')).set(w.admin.auth).send({ name: 'E', space_id: space }).expect(201)).body.id;
    const starMany = async (n: number) => {
      for (let i = 0; i < n; i++) {
        await star(w.member.auth, 'record', await createRecord({ name: `D${i}` })).expect(201);
        const res = await w.t.request.post(`/api/v1/workspaces/${w.ws}/databases/${second}/records`).set(w.admin.auth).send({ values: { name: `E${i}` } }).expect(201);
        await star(w.member.auth, 'record', res.body.id).expect(201);
      }
    };
    /** The statements one list sends, as its Server-Timing says (background work running meanwhile is not counted). */
    const queriesOfList = async () => {
      await list(w.member.auth).expect(200); // warms the process caches
      const res = await list(w.member.auth).expect(200);
      const n = statementsOf(res.headers['server-timing']);
      return { n, titles: (res.body as { data: Favorite[] }).data.map((f) => f.title) };
    };
    await starMany(2);
    const few = await queriesOfList();
    await starMany(8);
    const many = await queriesOfList();
    assert.equal(many.titles.length, 20);
    assert.deepEqual(many.titles.slice(0, 2), ['E7', 'D7']);
    assert.ok(few.n > 0);
    assert.equal(many.n, few.n);
  });
});
