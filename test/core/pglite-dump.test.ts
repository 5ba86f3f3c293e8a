import assert from 'node:assert/strict';
import { openDatabase, type Database } from '../../core/db.ts';
import { embeddedRunOnly } from '../fixtures/suite-runs.ts';

/** Test kernels start from cluster dumps that keep only the WAL they need (core/pglite-wal-trim.ts). */
describe('PGlite cluster dumps', () => {
  const opened: Database[] = [];
  let empty: Blob;
  const open = async (seed = empty) => {
    const db = await openDatabase({ seed, schema: 'dumped' });
    opened.push(db);
    return db;
  };
  before(async function () {
    embeddedRunOnly(this);
    const initialised = await openDatabase({ schema: 'dumped' });
    empty = await initialised.dumpCluster!();
    await initialised.close();
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((db) => db.close()));
  });

  it('start a cluster holding what was written, which takes new writes and can be dumped again', async () => {
    const first = await open();
    await first.knex.raw(`CREATE TABLE notes (id int PRIMARY KEY, body text)`);
    await first.knex.raw(`INSERT INTO notes SELECT n, repeat('x', 200) || n FROM generate_series(1, 5000) n`);

    const second = await open(await first.dumpCluster!());
    assert.deepEqual((await second.knex.raw(`SELECT count(*)::int AS n, max(body) AS last FROM notes`)).rows, [{ n: 5000, last: `${'x'.repeat(200)}999` }]);
    await second.knex.raw(`INSERT INTO notes SELECT n, 'later' FROM generate_series(5001, 20000) n`);
    await second.knex.raw(`UPDATE notes SET body = 'changed' WHERE id <= 10`);

    const third = await open(await second.dumpCluster!());
    assert.deepEqual((await third.knex.raw(`SELECT count(*)::int AS n, count(*) FILTER (WHERE body = 'changed')::int AS changed FROM notes`)).rows, [{ n: 20000, changed: 10 }]);
    await third.knex.raw(`INSERT INTO notes VALUES (20001, 'last')`);
    assert.equal((await third.knex.raw(`SELECT body FROM notes WHERE id = 20001`)).rows[0].body, 'last');
  });

  it('carry the pages written, not the WAL that wrote them', async () => {
    const db = await open();
    // Created first, so that the rows are written to the WAL (a table created by the statement filling it is not).
    await db.knex.raw(`CREATE TABLE bulk (n int, h text)`);
    await db.knex.raw(`INSERT INTO bulk SELECT n, md5(n::text) FROM generate_series(1, 250000) n`);
    const table = Number((await db.knex.raw(`SELECT pg_total_relation_size('bulk') AS bytes`)).rows[0].bytes);
    const grown = (await db.dumpCluster!()).size - empty.size;
    // Writing the table took more than a 16 MiB segment of WAL; a catalog page or two and a few WAL pages come on top.
    assert.ok(grown < table + 2 * 1024 * 1024, `the dump grew by ${grown} bytes for a table of ${table}`);
  });
});
