import assert from 'node:assert/strict';
import { startTestKernel, signUp, createWorkspace } from '../../core/testing.ts';

describe('database pool: databasePoolSize', () => {
  it('keeps at most that many connections to PostgreSQL however many requests come at once', async function () {
    if (!process.env.DATABASE_URL) return this.skip(); // PGlite is one connection
    const t = await startTestKernel({ config: { databasePoolSize: 2 } });
    try {
      const user = await signUp(t, { name: 'Pool' });
      const ws = (await createWorkspace(t, user, 'Pool')).id;
      const statuses = await Promise.all(Array.from({ length: 12 }, (_, i) => t.request.post(`/api/v1/workspaces/${ws}/spaces`).set(user.auth).send({ name: `S${i}` }).then((r) => r.status)));
      assert.deepEqual(statuses, Array(12).fill(201));
      // The cache listener has a connection of its own, named after it; everything else comes from the pool.
      const { rows } = await t.db.raw(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name NOT LIKE 'tessera-cache%'`);
      assert.ok(rows[0].n <= 2, `${rows[0].n} pooled connections`);
      assert.ok(rows[0].n >= 1);
    } finally {
      await t.stop();
    }
  });
});
