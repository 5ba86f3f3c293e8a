import assert from 'node:assert/strict';
import { recordsWorld, type RecordsWorld } from './setup.ts';

/** The plugins that keep something about record writes: each must cost a write no round trip of its own. */
const WRITE_TAPS = ['activity', 'record-versions', 'search', 'notifications', 'webhooks', 'automations', 'documents', 'mentions'];

/** What a statement of a records write is, by its text. */
function kindOf(sql: string): string {
  const text = sql.replace(/\s+/g, ' ').trim();
  if (/^(BEGIN|COMMIT|ROLLBACK)\b/i.test(text)) return text.replace(/;$/, '').toUpperCase();
  if (text.startsWith('SELECT d.schema_version')) return 'hold the database';
  if (text.startsWith('SELECT user_id FROM workspace_members')) return 'hold the users named';
  if (/^SELECT position FROM "rec_/.test(text)) return 'last position';
  if (/^(INSERT INTO|UPDATE) "rec_/.test(text)) return 'write the records';
  if (/^select .* from "rec_\w+" .*for update/i.test(text)) return 'lock the records';
  if (text.startsWith('WITH w1 AS (')) return 'history and events';
  return text.slice(0, 120);
}

/**
 * The seam that keeps the write path short as plugins multiply: with every built-in plugin on, a records write's
 * transaction runs the statements of the records themselves and one more, in which every plugin's history and the
 * write's events travel together (`records.changes` `later`). Work that need not be atomic (the search index,
 * notifications, webhook deliveries) follows the commit. A plugin that adds a statement of its own to the write fails this.
 */
describe('records: the statements of a write with every plugin on', () => {
  let w: RecordsWorld;
  let id: string;
  let ids: string[];

  before(async () => {
    w = await recordsWorld();
    for (const plugin of WRITE_TAPS) assert.ok(w.t.kernel.isActive(plugin), `${plugin} is on`);
    // Named once before (user names are cached by the process): the writes below read no names.
    id = (await w.t.request.post(w.url()).set(w.editor.auth).send({ values: { name: 'Watched', owner: w.editor.id } }).expect(201)).body.id;
    await w.t.request.post(w.url()).set(w.editor.auth).send({ values: { name: 'Naming', owner: w.member.id } }).expect(201);
    ids = (await w.t.request.post(w.url()).set(w.editor.auth).send({ records: ['a', 'b', 'c'].map((name) => ({ values: { name } })) }).expect(201)).body.data.map((r: { id: string }) => r.id);
    // Someone to notify: the member watches every record written below.
    for (const watched of [id, ...ids]) await w.t.request.put(w.url(`/${watched}/watch`)).set(w.member.auth).expect(201);
    await w.t.kernel.events.settle();
  });
  after(() => w.t.stop());

  /** The statements of the transaction that wrote the records, by kind, in order. */
  async function statementsOf(write: () => Promise<unknown>): Promise<string[]> {
    const byTransaction = new Map<string, string[]>();
    const listen = (q: { sql: string; __knexTxId?: string }) => {
      if (q.__knexTxId) byTransaction.set(q.__knexTxId, [...(byTransaction.get(q.__knexTxId) ?? []), kindOf(q.sql)]);
    };
    w.t.db.on('query', listen);
    try {
      await write();
      await w.t.kernel.events.settle();
    } finally {
      w.t.db.off('query', listen);
    }
    const writing = [...byTransaction.values()].filter((kinds) => kinds.includes('write the records'));
    assert.equal(writing.length, 1, `one transaction wrote the records: ${JSON.stringify([...byTransaction.values()])}`);
    return writing[0];
  }

  it('patches one record in its own statements and one more', async () => {
    const kinds = await statementsOf(() => w.t.request.patch(w.url(`/${id}`)).set(w.editor.auth).send({ values: { name: 'Patched', score: 2, owner: w.member.id } }).expect(200));
    assert.deepEqual(kinds, ['BEGIN', 'hold the database', 'hold the users named', 'write the records', 'history and events', 'COMMIT']);
    const told = await w.t.db('notifications').where({ user_id: w.member.id, record_id: id }).pluck('type');
    assert.deepEqual(told.sort(), ['assigned'], 'the watcher assigned by the patch is told once, after the commit');
  });

  it('creates many records in their own statements and one more', async () => {
    const kinds = await statementsOf(() =>
      w.t.request.post(w.url()).set(w.editor.auth).send({ records: Array.from({ length: 20 }, (_, i) => ({ values: { name: `Bulk ${i}`, score: i, owner: w.member.id } })) }).expect(201),
    );
    assert.deepEqual(kinds, ['BEGIN', 'hold the database', 'hold the users named', 'last position', 'write the records', 'history and events', 'COMMIT']);
  });

  it('patches many records in their own statements and one more', async () => {
    const kinds = await statementsOf(() => w.t.request.patch(w.url()).set(w.editor.auth).send({ records: ids.map((r, k) => ({ id: r, values: { score: k + 10 } })) }).expect(200));
    assert.deepEqual(kinds, ['BEGIN', 'hold the database', 'lock the records', 'write the records', 'history and events', 'COMMIT']);
    assert.equal(await w.t.db('notifications').where({ user_id: w.member.id, type: 'record_updated' }).whereIn('record_id', ids).count({ n: '*' }).first().then((r) => Number(r?.n)), ids.length);
  });
});
