import assert from 'node:assert/strict';
import { afterRollback, inSavepoint, inTransaction } from '../../core/db.ts';
import { startTestKernel, type TestKernel } from '../../core/testing.ts';
import system from '../../plugins/system/index.ts';

/** What a transaction wrote outside the database (a blob) is undone when, and only when, it does not commit. */
describe('afterRollback', () => {
  let t: TestKernel;
  before(async () => {
    t = await startTestKernel({ plugins: [system] });
  });
  after(() => t.stop());

  const settle = () => new Promise((resolve) => setImmediate(resolve));

  it('runs once when the transaction rolls back, never when it commits', async () => {
    const calls: string[] = [];
    await inTransaction(t.db, async (trx) => {
      afterRollback(trx, () => calls.push('committed'));
      await trx.raw('select 1');
    });
    await assert.rejects(
      inTransaction(t.db, async (trx) => {
        afterRollback(trx, () => calls.push('rolled back'));
        throw new Error('no');
      }),
      /no/,
    );
    await settle();
    assert.deepEqual(calls, ['rolled back']);
  });

  it('runs once for a savepoint that rolls back, and for one released inside a transaction that then rolls back', async () => {
    const calls: string[] = [];
    await inTransaction(t.db, async (trx) => {
      await inSavepoint(trx, async (sp) => {
        afterRollback(sp, () => calls.push('savepoint undone'));
        throw new Error('part fails');
      }).catch(() => undefined);
      await inSavepoint(trx, async (sp) => afterRollback(sp, () => calls.push('kept part')));
    });
    await assert.rejects(
      inTransaction(t.db, async (trx) => {
        await inSavepoint(trx, async (sp) => afterRollback(sp, () => calls.push('released, then all undone')));
        throw new Error('dry run');
      }),
      /dry run/,
    );
    await settle();
    assert.deepEqual(calls, ['savepoint undone', 'released, then all undone']);
  });
});
