import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createPat } from '../tokens/helpers.ts';
import { recordsWorld, type RecordsWorld } from './setup.ts';
import { suiteKernel } from '../../fixtures/suite-kernel.ts';

describe('records: watchers', () => {
  let w: RecordsWorld;
  const create = async (name: string) => (await w.t.request.post(w.url()).set(w.editor.auth).send({ values: { name } }).expect(201)).body as { id: string };
  const watch = (id: string, auth: Record<string, string>) => w.t.request.put(w.url(`/${id}/watch`)).set(auth);
  const unwatch = (id: string, auth: Record<string, string>) => w.t.request.delete(w.url(`/${id}/watch`)).set(auth);
  const watchers = (id: string, query = '', auth: Record<string, string> = w.member.auth) => w.t.request.get(w.url(`/${id}/watchers${query}`)).set(auth);
  const stored = (where: Record<string, string>) => w.t.db('record_watchers').where(where).orderBy('user_id').select('workspace_id', 'database_id', 'record_id', 'user_id');

  const kernel = suiteKernel();
  beforeEach(async () => {
    w = await recordsWorld(undefined, kernel());
  });

  it('starts watching with 201, answers 200 when already watching, and stores one row', async () => {
    const r = await create('Watched');
    const first = (await watch(r.id, w.member.auth).expect(201)).body;
    assert.deepEqual(Object.keys(first).sort(), ['name', 'user_id', 'watching_since']);
    assert.equal(first.user_id, w.member.id);
    assert.equal(first.name, 'Mia');
    assert.ok(!Number.isNaN(Date.parse(first.watching_since)));
    const again = (await watch(r.id, w.member.auth).expect(200)).body;
    assert.deepEqual(again, first);
    assert.deepEqual(await stored({ record_id: r.id }), [{ workspace_id: w.ws, database_id: w.db, record_id: r.id, user_id: w.member.id }]);
  });

  it('lists watchers longest-watching first, keyset paged', async () => {
    const r = await create('Popular');
    const other = await create('Other');
    const order = [w.editor, w.member, w.admin];
    for (const [i, u] of order.entries()) {
      await watch(r.id, u.auth).expect(201);
      // Distinct, known start times: the order must not depend on ids.
      await w.t.db('record_watchers').where({ record_id: r.id, user_id: u.id }).update({ created_at: `2026-01-0${i + 1}T00:00:00.123456Z` });
    }
    await watch(other.id, w.outsider.auth).expect(404);
    await watch(other.id, w.editor.auth).expect(201);
    const all = (await watchers(r.id).expect(200)).body;
    assert.deepEqual(all.data.map((x: { user_id: string }) => x.user_id), order.map((u) => u.id));
    assert.deepEqual(all.data[0], { user_id: w.editor.id, name: 'Eddie', watching_since: '2026-01-01T00:00:00.123Z' });
    assert.equal(all.next_cursor, null);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { data: Array<{ user_id: string }>; next_cursor: string | null } = (await watchers(r.id, `?limit=1${cursor ? `&cursor=${cursor}` : ''}`).expect(200)).body;
      assert.equal(page.data.length, 1);
      seen.push(page.data[0].user_id);
      cursor = page.next_cursor;
    } while (cursor);
    assert.deepEqual(seen, order.map((u) => u.id));
    await watchers(r.id, '?cursor=bm9wZQ').expect(422);
    assert.deepEqual((await watchers(other.id).expect(200)).body.data.map((x: { user_id: string }) => x.user_id), [w.editor.id]);
  });

  it('stops watching with 204, and answers 204 again when not watching', async () => {
    const r = await create('Unwatched');
    await watch(r.id, w.member.auth).expect(201);
    await watch(r.id, w.editor.auth).expect(201);
    await unwatch(r.id, w.member.auth).expect(204);
    assert.deepEqual((await stored({ record_id: r.id })).map((x) => x.user_id), [w.editor.id]);
    await unwatch(r.id, w.member.auth).expect(204);
    assert.deepEqual((await watchers(r.id).expect(200)).body.data.map((x: { user_id: string }) => x.user_id), [w.editor.id]);
    await watch(r.id, w.member.auth).expect(201);
  });

  it('answers 404 for an unknown or deleted record, and keeps the watches of a deleted one for its restore', async () => {
    const r = await create('Trashed');
    await watch(r.id, w.member.auth).expect(201);
    for (const id of [randomUUID(), r.id]) {
      if (id === r.id) await w.t.request.delete(w.url(`/${r.id}`)).set(w.editor.auth).expect(204);
      await watch(id, w.editor.auth).expect(404);
      await unwatch(id, w.member.auth).expect(404);
      await watchers(id).expect(404);
    }
    assert.equal((await stored({ record_id: r.id })).length, 1);
    await w.t.request.post(w.url('/restore')).set(w.editor.auth).send({ ids: [r.id] }).expect(200);
    assert.deepEqual((await watchers(r.id).expect(200)).body.data.map((x: { user_id: string }) => x.user_id), [w.member.id]);
  });

  it('lets anyone who reads the database watch, a token with the write scope too; a read token only lists; an outsider gets 404', async () => {
    const r = await create('Open');
    const pat = await createPat(w.t, w.member, { workspace_id: w.ws, scope: 'read' });
    await w.t.request.patch(w.url(`/${r.id}`)).set(pat.auth).send({ values: { name: 'no' } }).expect(403);
    await watch(r.id, pat.auth).expect(403);
    await watchers(r.id, '', pat.auth).expect(200);
    assert.deepEqual(await stored({ record_id: r.id }), []);
    const writer = await createPat(w.t, w.member, { workspace_id: w.ws, scope: 'write' });
    await watch(r.id, writer.auth).expect(201);
    await unwatch(r.id, pat.auth).expect(403);
    await unwatch(r.id, writer.auth).expect(204);
    await watch(r.id, w.outsider.auth).expect(404);
    await watchers(r.id, '', w.outsider.auth).expect(404);
    await w.t.request.put(w.url(`/${r.id}/watch`)).expect(401);
    assert.deepEqual(await stored({ record_id: r.id }), []);
  });

  it("forgets a member's watches when they leave the workspace", async () => {
    const [a, b] = [await create('A'), await create('B')];
    await watch(a.id, w.member.auth).expect(201);
    await watch(b.id, w.member.auth).expect(201);
    await watch(a.id, w.editor.auth).expect(201);
    await w.t.request.delete(`/api/v1/workspaces/${w.ws}/members/${w.member.id}`).set(w.admin.auth).expect(204);
    assert.deepEqual(await stored({ user_id: w.member.id }), []);
    assert.deepEqual((await watchers(a.id, '', w.editor.auth).expect(200)).body.data.map((x: { user_id: string }) => x.user_id), [w.editor.id]);
  });

  it('forgets the watches of a guest whose spaces no longer hold the database, and keeps the others', async () => {
    const space = (await w.t.db('databases').where({ id: w.db }).first('space_id')).space_id;
    const elsewhere = (await w.t.request.post(`/api/v1/workspaces/${w.ws}/spaces`).set(w.admin.auth).send({ name: 'Elsewhere' }).expect(201)).body.id;
    const member = `/api/v1/workspaces/${w.ws}/members/${w.member.id}`;
    await w.t.request.patch(member).set(w.admin.auth).send({ role: 'guest', space_ids: [space] }).expect(200);
    const r = await create('Seen by a guest');
    await watch(r.id, w.member.auth).expect(201);
    await watch(r.id, w.editor.auth).expect(201);
    // Still in the space: nothing changes.
    await w.t.request.patch(member).set(w.admin.auth).send({ space_ids: [space, elsewhere] }).expect(200);
    assert.equal((await stored({ user_id: w.member.id })).length, 1);
    await w.t.request.patch(member).set(w.admin.auth).send({ space_ids: [elsewhere] }).expect(200);
    assert.deepEqual(await stored({ user_id: w.member.id }), []);
    assert.deepEqual((await stored({ record_id: r.id })).map((x) => x.user_id), [w.editor.id]);
  });

  it("forgets a guest's watches in a database whose grant was revoked", async () => {
    const elsewhere = (await w.t.request.post(`/api/v1/workspaces/${w.ws}/spaces`).set(w.admin.auth).send({ name: 'Elsewhere' }).expect(201)).body.id;
    await w.t.request.patch(`/api/v1/workspaces/${w.ws}/members/${w.member.id}`).set(w.admin.auth).send({ role: 'guest', space_ids: [elsewhere] }).expect(200);
    const grant = (await w.t.request.put(`/api/v1/workspaces/${w.ws}/access`).set(w.admin.auth).send({ scope_type: 'database', scope_id: w.db, user_id: w.member.id, role: 'member' }).expect(201)).body;
    const r = await create('Granted');
    await watch(r.id, w.member.auth).expect(201);
    await w.t.request.delete(`/api/v1/workspaces/${w.ws}/access/${grant.id}`).set(w.admin.auth).expect(204);
    // Delivered after commit, as an event.
    for (let i = 0; i < 150 && (await stored({ user_id: w.member.id })).length > 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    assert.deepEqual(await stored({ user_id: w.member.id }), []);
    await watch(r.id, w.member.auth).expect(404);
  });

  it('purges the watchers of records purged from the trash, keeping the others', async () => {
    const [old, recent, live] = [await create('Old'), await create('Recent'), await create('Live')];
    for (const r of [old, recent, live]) await watch(r.id, w.member.auth).expect(201);
    await w.t.request.post(w.url('/delete')).set(w.editor.auth).send({ ids: [old.id, recent.id] }).expect(200);
    await w.t.db(w.table).where({ id: old.id }).update({ deleted_at: '2026-01-01T00:00:00Z' });
    await w.t.db(w.table).where({ id: recent.id }).update({ deleted_at: '2026-02-27T00:00:00Z' });
    const purged = await w.t.container.resolverFor('records')('records.trash').purge(new Date('2026-03-01T00:00:00Z'));
    assert.equal(purged, 1);
    assert.deepEqual((await stored({ user_id: w.member.id })).map((x) => x.record_id).sort(), [recent.id, live.id].sort());
  });

  it('goes with the database', async () => {
    const r = await create('Doomed');
    await watch(r.id, w.member.auth).expect(201);
    await w.t.request.delete(`/api/v1/workspaces/${w.ws}/databases/${w.db}`).set(w.admin.auth).send({ confirm: 'D' }).expect(204);
    assert.deepEqual(await stored({ database_id: w.db }), []);
  });
});
