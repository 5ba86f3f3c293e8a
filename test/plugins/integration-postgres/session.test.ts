import assert from 'node:assert/strict';
import pg from 'pg';
import { systemResolver } from '../../../plugins/integration-postgres/address.ts';
import { Session, withSession } from '../../../plugins/integration-postgres/session.ts';
import { scratchSchema, TEST_DATABASE_URL, type Scratch } from './fixture.ts';

const options = { allowPrivateNetworks: true, resolver: systemResolver };

describe('integration-postgres: the read-only session', () => {
  let db: Scratch;
  before(async () => {
    db = await scratchSchema();
    await db.admin.query(`CREATE TABLE ${db.schema}.t (id integer PRIMARY KEY)`);
    await db.admin.query(`INSERT INTO ${db.schema}.t SELECT generate_series(1, 10)`);
  });
  after(() => db.drop());

  it('is read-only by default, bounded in time, in UTC, and named tessera-source', async () => {
    const settings = await withSession({ url: TEST_DATABASE_URL }, options, async (session) =>
      (
        await session.read(
          `SELECT current_setting('default_transaction_read_only') AS read_only, current_setting('transaction_read_only') AS now_read_only,
            current_setting('statement_timeout') AS timeout, current_setting('TimeZone') AS zone,
            current_setting('application_name') AS name`,
        )
      ).rows[0],
    );
    assert.deepEqual(settings, { read_only: 'on', now_read_only: 'on', timeout: '1min', zone: 'UTC', name: 'tessera-source' });
  });

  it('refuses a statement that writes, even one hidden in a WITH, and nothing changes', async () => {
    const failure = await withSession({ url: TEST_DATABASE_URL }, options, (session) =>
      session.read(`WITH d AS (DELETE FROM ${db.schema}.t RETURNING id) SELECT count(*) FROM d`).then(
        () => assert.fail('the delete ran'),
        (err: unknown) => err,
      ),
    );
    assert.ok(failure instanceof pg.DatabaseError);
    assert.equal(failure.code, '25006'); // read_only_sql_transaction
    assert.match(failure.message, /cannot execute \w+ in a read-only transaction/);
    assert.equal(Number((await db.admin.query(`SELECT count(*) AS n FROM ${db.schema}.t`)).rows[0].n), 10);
  });

  it('is closed when its signal aborts, ending the statement under way', async () => {
    const controller = new AbortController();
    const session = await Session.open({ url: TEST_DATABASE_URL }, { ...options, signal: controller.signal });
    setTimeout(() => controller.abort(), 100);
    const started = Date.now();
    const err = await session.read('SELECT pg_sleep(30)').then(() => undefined, (e: unknown) => e);
    assert.equal((err as Error).name, 'AbortError');
    assert.ok(Date.now() - started < 5000);
    await session.close();
  });
});
