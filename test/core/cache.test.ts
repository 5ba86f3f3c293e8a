import assert from 'node:assert/strict';
import pg from 'pg';
import { listenerName, LocalCache } from '../../core/cache.ts';
import { recordsWorld, type RecordsWorld } from '../plugins/records/setup.ts';

describe('process caches: LocalCache', () => {
  const make = (enabled = true, maxGroups?: number) => new LocalCache<string>('test', { topics: { t: 'group' }, maxGroups }, () => enabled);

  it('loads once, then answers from memory until its group is dropped', async () => {
    const cache = make();
    let loads = 0;
    const load = async () => `v${++loads}`;
    assert.equal(await cache.get('g', 'k', load), 'v1');
    assert.equal(await cache.get('g', 'k', load), 'v1');
    cache.drop('other');
    assert.equal(await cache.get('g', 'k', load), 'v1');
    cache.drop('g');
    assert.equal(await cache.get('g', 'k', load), 'v2');
    cache.drop();
    assert.equal(await cache.get('g', 'k', load), 'v3');
  });

  it('does not keep what a load read before a drop that happened while it ran', async () => {
    const cache = make();
    let release!: () => void;
    const slow = cache.get('g', 'k', () => new Promise<string>((resolve) => (release = () => resolve('stale'))));
    cache.drop('g');
    release();
    assert.equal(await slow, 'stale');
    assert.equal(await cache.get('g', 'k', async () => 'fresh'), 'fresh');
  });

  it('keeps nothing while disabled (no listener), and undefined never', async () => {
    const off = make(false);
    let loads = 0;
    await off.get('g', 'k', async () => `v${++loads}`);
    await off.get('g', 'k', async () => `v${++loads}`);
    assert.equal(loads, 2);
    const on = new LocalCache<string | undefined>('test', { topics: {} }, () => true);
    let misses = 0;
    await on.get('g', 'k', async () => (misses++, undefined));
    await on.get('g', 'k', async () => (misses++, undefined));
    assert.equal(misses, 2);
  });

  it('forgets the oldest group past maxGroups', async () => {
    const cache = make(true, 2);
    for (const g of ['a', 'b', 'c']) await cache.get(g, '', async () => g);
    assert.equal(cache.peek('a', ''), undefined);
    assert.equal(cache.peek('c', ''), 'c');
  });
});

describe('process caches: kept true by the database', () => {
  let w: RecordsWorld;
  before(async () => {
    w = await recordsWorld();
  });
  after(() => w.t.stop());

  /** Another process's write: a connection of its own on PostgreSQL; PGlite has only one. */
  async function fromElsewhere(sql: string, values: unknown[]): Promise<void> {
    if (!process.env.DATABASE_URL) {
      await w.t.db.raw(sql.replace(/\$\d+/g, '?'), values as never[]);
      return;
    }
    const client = new pg.Client({ connectionString: w.t.storage.databaseUrl ?? process.env.DATABASE_URL });
    await client.connect();
    try {
      await client.query(`SET search_path = "${w.t.kernel.database.schema}"`);
      await client.query(sql, values);
    } finally {
      await client.end();
    }
  }

  async function eventually(check: () => Promise<boolean>): Promise<void> {
    for (let i = 0; i < 100; i++) {
      if (await check()) return;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.fail('the change was never seen');
  }

  it('drops a membership changed by another process (the trigger notifies every listener)', async () => {
    await w.t.request.post(w.url()).set(w.editor.auth).send({ values: { name: 'before' } }).expect(201);
    await fromElsewhere('UPDATE workspace_members SET role = $1 WHERE workspace_id = $2 AND user_id = $3', ['member', w.ws, w.editor.id]);
    await eventually(async () => (await w.t.request.post(w.url()).set(w.editor.auth).send({ values: { name: 'after' } })).status === 403);
    await fromElsewhere('UPDATE workspace_members SET role = $1 WHERE workspace_id = $2 AND user_id = $3', ['editor', w.ws, w.editor.id]);
    await eventually(async () => (await w.t.request.post(w.url()).set(w.editor.auth).send({ values: { name: 'again' } })).status === 201);
  });

  it('shows a user renamed by another process under the new name', async () => {
    const record = (await w.t.request.post(w.url()).set(w.editor.auth).send({ values: { name: 'named', owner: w.member.id } }).expect(201)).body;
    assert.equal(record.values.owner.name, 'Mia');
    await fromElsewhere('UPDATE users SET name = $1 WHERE id = $2', ['Mia Renamed', w.member.id]);
    await eventually(async () => (await w.t.request.get(w.url(`/${record.id}`)).set(w.editor.auth)).body.values.owner.name === 'Mia Renamed');
  });

  it('refuses a token deleted by another process', async () => {
    const token = (await w.t.request.post('/api/v1/me/tokens').set(w.editor.auth).send({ name: 'cached', workspace_id: w.ws, scope: 'read' }).expect(201)).body;
    const auth = { Authorization: `Bearer ${token.token}` };
    await w.t.request.get(w.url()).set(auth).expect(200);
    await fromElsewhere('DELETE FROM personal_access_tokens WHERE id = $1', [token.id]);
    await eventually(async () => (await w.t.request.get(w.url()).set(auth)).status === 401);
  });

  (process.env.DATABASE_URL ? it : it.skip)('reconnects its listening connection when PostgreSQL drops it, and keeps answering meanwhile', async () => {
    // Only this kernel's listener: the kernels of test files running beside this one keep theirs (a cloned database's
    // kernel has the same schema name as every other clone's, so its database tells it apart).
    const name = listenerName(w.t.storage.schema!);
    const listeners = async (): Promise<number[]> =>
      (await w.t.db.raw('SELECT pid FROM pg_stat_activity WHERE application_name = ? AND datname = current_database() AND backend_start IS NOT NULL', [name])).rows.map((r: { pid: number }) => r.pid);
    const before = await listeners();
    assert.equal(before.length, 1);
    await w.t.db.raw('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = ? AND datname = current_database()', [name]);
    await w.t.request.get(w.url()).set(w.editor.auth).expect(200);
    await eventually(async () => (await listeners()).some((pid: number) => !before.includes(pid)));
    await fromElsewhere('UPDATE users SET name = $1 WHERE id = $2', ['Mia Again', w.member.id]);
    const record = (await w.t.request.post(w.url()).set(w.editor.auth).send({ values: { name: 'after reconnect', owner: w.member.id } }).expect(201)).body;
    assert.equal(record.values.owner.name, 'Mia Again');
  });

  it('answers with the new fields right after a conversion, in the writing process at once', async () => {
    const created = (await w.t.request.post(w.url()).set(w.editor.auth).send({ values: { name: 'converted', score: 4 } }).expect(201)).body;
    // Pages without conditions are prepared statements once repeated.
    for (let i = 0; i < 3; i++) await w.t.request.get(w.url()).set(w.editor.auth).expect(200);
    await w.t.request.post(`/api/v1/workspaces/${w.ws}/databases/${w.db}/fields/score/convert`).set(w.admin.auth).send({ type: 'text' }).expect(200);
    const page = (await w.t.request.get(w.url('?limit=1000')).set(w.editor.auth).expect(200)).body;
    assert.equal(page.data.find((r: { id: string }) => r.id === created.id).values.score, '4.0');
    const patched = (await w.t.request.patch(w.url(`/${created.id}`)).set(w.editor.auth).send({ values: { score: 'four' } }).expect(200)).body;
    assert.equal(patched.values.score, 'four');
  });
});
