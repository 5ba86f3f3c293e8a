import assert from 'node:assert/strict';
import { openDatabase, type Database } from '../../core/db.ts';

/** The same knex calls must answer the same way on PGlite and PostgreSQL. */
describe('database dialect parity', () => {
  let db: Database;
  before(async () => {
    db = await openDatabase({ url: process.env.DATABASE_URL, schema: `dialect_${process.pid}_${Date.now()}` });
    await db.knex.raw('create table t (a int)');
    await db.knex('t').insert([{ a: 1 }, { a: 2 }, { a: 3 }]);
  });
  after(async () => {
    await db.knex.raw('drop schema ?? cascade', [db.schema]);
    await db.close();
  });

  it('delete() and update() return the number of affected rows', async () => {
    assert.equal(await db.knex('t').where('a', 1).delete(), 1);
    assert.equal(await db.knex('t').where('a', 42).delete(), 0);
    assert.equal(await db.knex('t').update({ a: 9 }), 2);
  });

  it('counts come back as numbers', async () => {
    const row = (await db.knex('t').count({ n: '*' }).first()) as { n: unknown };
    assert.equal(row.n, 2);
  });
});

describe('PostgreSQL sessions', () => {
  const jitOf = async (url: string) => {
    const db = await openDatabase({ url });
    try {
      return (await db.knex.raw('SHOW jit')).rows[0].jit;
    } finally {
      await db.close();
    }
  };

  it('run without JIT compilation, unless the connection string asks for it', async function () {
    if (!process.env.DATABASE_URL) return this.skip(); // PGlite has no JIT
    assert.equal(await jitOf(process.env.DATABASE_URL), 'off');
    const url = new URL(process.env.DATABASE_URL);
    url.searchParams.set('options', '-c jit=on');
    assert.equal(await jitOf(url.toString()), 'on');
  });
});
