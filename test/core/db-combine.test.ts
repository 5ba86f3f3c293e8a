import assert from 'node:assert/strict';
import { combineWrites, combineWritesWithinLimit, inTransaction, openDatabase, type Database } from '../../core/db.ts';

/** Writes gathered from several plugins run as one statement, each with its own values. */
describe('combineWrites', () => {
  let db: Database;
  before(async () => {
    db = await openDatabase({ url: process.env.DATABASE_URL, schema: `combine_${process.pid}_${Date.now()}` });
    await db.knex.raw('create table a (id int primary key, label text)');
    await db.knex.raw('create table b (id int primary key, tags jsonb)');
  });
  afterEach(async () => {
    await db.knex.raw('truncate a, b');
  });
  after(async () => {
    await db.knex.raw('drop schema ?? cascade', [db.schema]);
    await db.close();
  });

  const insertA = (id: number, label: string) => ({ sql: 'INSERT INTO a (id, label) VALUES ($1, $2)', bindings: [id, label] });

  it('runs every write with its own placeholders, whatever their numbers', async () => {
    const withCte = { sql: 'WITH t AS (SELECT $2::jsonb AS tags) INSERT INTO b (id, tags) SELECT $1, tags FROM t', bindings: [7, '["x","y"]'] };
    const statement = combineWrites([insertA(1, 'one'), withCte, insertA(2, 'two'), { sql: 'UPDATE a SET label = $1 WHERE id = $2', bindings: ['never', 99] }]);
    assert.deepEqual(statement.bindings, [1, 'one', 7, '["x","y"]', 2, 'two', 'never', 99]);
    await db.repeated(statement, 'test');
    assert.deepEqual(await db.knex('a').orderBy('id').select('id', 'label'), [{ id: 1, label: 'one' }, { id: 2, label: 'two' }]);
    assert.deepEqual(await db.knex('b').select('id', 'tags'), [{ id: 7, tags: ['x', 'y'] }]);
  });

  it('keeps one write as it is', () => {
    const one = insertA(3, 'three');
    assert.equal(combineWrites([one]), one);
  });

  it('splits writes into as few statements as the limit of 65,535 parameters allows, in their order', async () => {
    const wide = (id: number) => ({ sql: `INSERT INTO a (id, label) SELECT $1, $2 WHERE ${Array.from({ length: 29_998 }, (_, i) => `$${i + 3}::int IS NOT NULL`).join(' AND ')}`, bindings: [id, `w${id}`, ...Array.from({ length: 29_998 }, () => 0)] });
    const statements = combineWritesWithinLimit([wide(1), wide(2), insertA(3, 'three'), wide(4)]);
    assert.deepEqual(statements.map((s) => s.bindings.length), [60_002, 30_000]);
    for (const statement of statements) await db.repeated(statement, 'test');
    assert.deepEqual((await db.knex('a').orderBy('id').select('label')).map((r) => r.label), ['w1', 'w2', 'three', 'w4']);
  });

  it('writes nothing when one of the writes fails, and the error reaches the caller', async () => {
    await assert.rejects(inTransaction(db.knex, (trx) => db.repeated(combineWrites([insertA(4, 'four'), insertA(4, 'again')]), 'test', trx)));
    assert.equal((await db.knex('a').count({ n: '*' }).first())?.n, 0);
  });
});
