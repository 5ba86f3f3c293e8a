import assert from 'node:assert/strict';
import fs from 'node:fs';
import { newTestStorage, startTestKernel } from '../../core/testing.ts';

/** Several instances (WORKERS, or machines behind a load balancer) may start at once on a new database. */
describe('instances starting together on one PostgreSQL', () => {
  (process.env.DATABASE_URL ? it : it.skip)('all start: migrations and job queues are set up once, one after another', async () => {
    const storage = newTestStorage();
    const results = await Promise.allSettled([1, 2, 3].map(() => startTestKernel({ storage })));
    const started = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    try {
      assert.deepEqual(
        results.map((r) => (r.status === 'rejected' ? String((r.reason as Error).message) : 'started')),
        ['started', 'started', 'started'],
      );
      for (const t of started) await t.request.get('/api/v1/health').expect(200);
      const applied = await started[0].db('knex_migrations_kernel').count({ n: '*' }).first();
      const files = fs.readdirSync(new URL('../../migrations/', import.meta.url)).filter((f) => f.endsWith('.ts'));
      assert.equal(Number(applied?.n), files.length, 'each kernel migration ran exactly once');
    } finally {
      for (const [i, t] of started.entries()) await t.stop({ keep: i < started.length - 1 });
    }
  });
});
