import assert from 'node:assert/strict';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { postgresProvider } from '../../../plugins/integration-postgres/provider.ts';
import type { Resolver } from '../../../plugins/integration-postgres/address.ts';
import { fakePostgres } from './fake-postgres.ts';
import { TEST_DATABASE_URL } from './fixture.ts';

const PASSWORD = 'S3cret-pass_w0rd!';

/** Resolves every name to 127.0.0.1, without asking any DNS: a name of a user's choice that lands on this machine. */
const toLoopback: Resolver = async () => [{ address: '127.0.0.1', family: 4 }];

/** A port on loopback that nothing listens on. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('integration-postgres: the provider', () => {
  const allowed = postgresProvider({ allowPrivateNetworks: true });
  const guarded = postgresProvider({ allowPrivateNetworks: false });

  it('declares itself as a database provider with one secret URL and the postgres.table source', () => {
    assert.equal(guarded.id, 'postgres');
    assert.equal(guarded.name, 'PostgreSQL');
    assert.deepEqual(guarded.categories, ['database']);
    assert.deepEqual(guarded.auth, {
      type: 'api_key',
      fields: [{ name: 'url', label: 'Connection URL (postgres://user:password@host:port/database)', secret: true }],
    });
    assert.deepEqual(guarded.sources, ['postgres.table']);
  });

  it('connects, and names the account as user@host/database', async () => {
    const outcome = await allowed.test({ url: TEST_DATABASE_URL });
    assert.equal(outcome.ok, true, outcome.detail);
    assert.deepEqual(outcome.account, { id: 'postgres@127.0.0.1/test', name: 'postgres@127.0.0.1/test' });
    assert.match(outcome.detail, /^Connected to test on 127\.0\.0\.1 as postgres \(PostgreSQL \d+\.\d+\)\.$/);
  });

  it('answers a role or database the server does not know with its reason, never the password', async () => {
    const user = await allowed.test({ url: `postgres://nobody_here:${encodeURIComponent(PASSWORD)}@127.0.0.1:5432/test` });
    assert.equal(user.ok, false);
    assert.match(user.detail, /refused the connection: role "nobody_here" does not exist/);
    assert.ok(!user.detail.includes(PASSWORD));
    const database = await allowed.test({ url: `postgres://postgres:${encodeURIComponent(PASSWORD)}@127.0.0.1:5432/no_such_db_here` });
    assert.equal(database.ok, false);
    assert.match(database.detail, /database "no_such_db_here" does not exist/);
    assert.ok(!database.detail.includes(PASSWORD));
  });

  describe('against a server that refuses the password', () => {
    let fake: Awaited<ReturnType<typeof fakePostgres>>;
    before(async () => {
      fake = await fakePostgres();
    });
    after(() => fake.close());

    it('says the password was refused, without it; sends the URL\'s password, a read-only session and its name', async () => {
      const outcome = await allowed.test({ url: `postgresql://alice:${encodeURIComponent(PASSWORD)}@127.0.0.1:${fake.port}/shop` });
      assert.equal(outcome.ok, false);
      assert.equal(outcome.detail, `PostgreSQL at 127.0.0.1:${fake.port} refused the connection: password authentication failed for user "alice".`);
      const login = fake.seen.at(-1)!;
      assert.equal(login.password, PASSWORD);
      assert.equal(login.startup.user, 'alice');
      assert.equal(login.startup.database, 'shop');
      assert.equal(login.startup.application_name, 'tessera-source');
      assert.equal(login.startup.statement_timeout, '60000');
      assert.match(login.startup.options, /-c default_transaction_read_only=on/);
    });

    it('tries TLS first by default and goes on without it when the server has none (sslmode=prefer)', async () => {
      const before = { logins: fake.seen.length, tls: fake.sslRequests() };
      await allowed.test({ url: `postgres://alice:pw@127.0.0.1:${fake.port}/shop` });
      // The SSLRequest was answered 'N' on the first connection, so the one login seen is the second, plain one.
      assert.equal(fake.sslRequests(), before.tls + 1);
      assert.equal(fake.seen.length, before.logins + 1);
      assert.equal(fake.seen.at(-1)!.sslRequested, false);
      const refused = await allowed.test({ url: `postgres://alice:pw@127.0.0.1:${fake.port}/shop?sslmode=require` });
      assert.equal(refused.ok, false);
      assert.match(refused.detail, /does not offer TLS, which sslmode=require requires/);
      assert.equal(fake.sslRequests(), before.tls + 2);
      assert.equal(fake.seen.length, before.logins + 1);
    });

    it('sends an empty password when the URL has none, not this server\'s PGPASSWORD', async () => {
      const previous = process.env.PGPASSWORD;
      process.env.PGPASSWORD = 'the-servers-own-password';
      try {
        await allowed.test({ url: `postgres://alice@127.0.0.1:${fake.port}/shop?sslmode=disable` });
      } finally {
        if (previous === undefined) delete process.env.PGPASSWORD;
        else process.env.PGPASSWORD = previous;
      }
      const login = fake.seen.at(-1)!;
      assert.equal(login.sslRequested, false);
      assert.equal(login.password, '');
    });
  });

  it('says a host that does not answer could not be reached', async () => {
    const port = await closedPort();
    const outcome = await allowed.test({ url: `postgres://postgres:${PASSWORD}@127.0.0.1:${port}/test` });
    assert.equal(outcome.ok, false);
    assert.equal(outcome.detail, `PostgreSQL at 127.0.0.1:${port} could not be reached (ECONNREFUSED).`);
  });

  it('refuses loopback, private and link-local hosts, written or resolved, and Unix sockets, unless allowed', async () => {
    const cases: Array<[string, RegExp]> = [
      [TEST_DATABASE_URL, /^127\.0\.0\.1 is a loopback, private, link-local/],
      ['postgres://u:p@10.1.2.3/db', /^10\.1\.2\.3 is a loopback/],
      ['postgres://u:p@169.254.169.254/db', /^169\.254\.169\.254 is a loopback/],
      ['postgres://u:p@[::1]:5432/db', /^::1 is a loopback/],
      ['postgres://u:p@[::ffff:127.0.0.1]/db', /is a loopback/],
      ['postgres://u:p@localhost/db', /^localhost resolves to (127\.0\.0\.1|::1)/],
      ['postgres://u:p@%2Fvar%2Frun%2Fpostgresql/db', /^\/var\/run\/postgresql is a Unix socket/],
      ['postgres://u:p@x/db?host=/tmp', /^\/tmp is a Unix socket/],
    ];
    for (const [url, why] of cases) {
      const outcome = await guarded.test({ url });
      assert.equal(outcome.ok, false, url);
      assert.match(outcome.detail, why, url);
    }
    const byName = await postgresProvider({ allowPrivateNetworks: false, resolver: toLoopback }).test({ url: 'postgres://postgres@db.example.test/test' });
    assert.equal(byName.detail, "db.example.test resolves to 127.0.0.1, a loopback, private, link-local or otherwise reserved address, which could reach this server's own databases: refused.");
  });

  it('connects to the address it checked, not to the name again', async () => {
    // db.example.test resolves nowhere on a real network: the session only works if the socket goes to the checked address.
    const outcome = await postgresProvider({ allowPrivateNetworks: true, resolver: toLoopback }).test({ url: 'postgres://postgres@db.example.test:5432/test?sslmode=disable' });
    assert.equal(outcome.ok, true, outcome.detail);
    assert.equal(outcome.account?.id, 'postgres@db.example.test/test');
  });

  it('refuses URLs it cannot use, saying why', async () => {
    const cases: Array<[string, RegExp]> = [
      ['not a url', /not a URL/],
      ['mysql://u:p@db.example.com/x', /must start with postgres:\/\//],
      ['postgres://db.example.com/x', /names no user/],
      ['postgres://u:p@db.example.com/x?port=0', /not a port number/],
      ['postgres://u:p@db.example.com/x?sslrootcert=/etc/shadow', /"sslrootcert" are not supported/],
      ['postgres://u:p@db.example.com/x?options=-c%20default_transaction_read_only%3Doff', /"options" are not supported/],
      ['postgres://u:p@db.example.com/x?sslmode=sometimes', /sslmode "sometimes" is not one of/],
      ['postgres://u:p@a.example.com,b.example.com/x', /several hosts/],
    ];
    for (const [url, why] of cases) {
      const outcome = await guarded.test({ url });
      assert.equal(outcome.ok, false, url);
      assert.match(outcome.detail, why, url);
    }
    assert.deepEqual(await guarded.test({}), { ok: false, detail: 'The connection has no URL.' });
  });
});
