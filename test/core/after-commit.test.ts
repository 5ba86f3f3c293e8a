import assert from 'node:assert/strict';
import { afterCommit, inSavepoint, inTransaction } from '../../core/db.ts';
import { startTestKernel, type TestKernel } from '../../core/testing.ts';

const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

describe('afterCommit', () => {
  let t: TestKernel;
  before(async () => (t = await startTestKernel({ plugins: [] })));
  after(() => t?.stop());

  it('runs what a savepoint asked for once the outer transaction commits, not when the savepoint is released', async () => {
    const ran: string[] = [];
    await inTransaction(t.db, async (trx) => {
      await inSavepoint(trx, async (sp) => afterCommit(sp, () => ran.push('savepoint')));
      await settle();
      assert.equal(ran.length, 0, 'released, but nothing is committed yet');
      afterCommit(trx, () => ran.push('outer'));
    });
    await settle();
    assert.deepEqual(ran.sort(), ['outer', 'savepoint']);
  });

  it('never runs it when the outer transaction, or the savepoint itself, rolls back', async () => {
    const ran: string[] = [];
    await assert.rejects(
      inTransaction(t.db, async (trx) => {
        await inSavepoint(trx, async (sp) => afterCommit(sp, () => ran.push('outer rolled back')));
        throw new Error('roll back');
      }),
      /roll back/,
    );
    await inTransaction(t.db, async (trx) => {
      await inSavepoint(trx, async (sp) => {
        afterCommit(sp, () => ran.push('savepoint rolled back'));
        throw new Error('undo the savepoint');
      }).catch(() => undefined);
    });
    await settle();
    assert.deepEqual(ran, []);
  });

  it('runs at once outside a transaction', () => {
    let ran = false;
    afterCommit(t.db, () => (ran = true));
    assert.equal(ran, true);
  });
});
