import assert from 'node:assert/strict';
import { startTestKernel, type TestKernel } from '../../core/testing.ts';
import { definePlugin } from '../../core/plugin.ts';
import { sleep, waitUntil } from '../fixtures/wait.ts';

interface Run {
  key: string;
  retryCount: number;
}

describe('jobs', () => {
  let t: TestKernel;
  const runs: Run[] = [];
  let running = 0;
  let mostAtOnce = 0;
  const ran = (key: string) => runs.filter((r) => r.key === key);

  const probe = definePlugin({
    id: 'jobs-probe',
    version: '1.0.0',
    kernel: '^1.0.0',
    register(ctx) {
      ctx.job<{ key: string }>({
        name: 'once',
        handler: async ({ key }, job) => void runs.push({ key, retryCount: job.retryCount }),
      });
      ctx.job<{ key: string; failures: number }>({
        name: 'flaky',
        retryDelaySeconds: 1,
        handler: async ({ key, failures }, job) => {
          runs.push({ key, retryCount: job.retryCount });
          if (ran(key).length <= failures) throw new Error(`${key} failed`);
        },
      });
      ctx.job<{ key: string; fail: boolean }>({
        name: 'parallel',
        concurrency: 3,
        retryDelaySeconds: 1,
        handler: async ({ key, fail }, job) => {
          runs.push({ key, retryCount: job.retryCount });
          mostAtOnce = Math.max(mostAtOnce, ++running);
          await sleep(300);
          running--;
          if (fail && job.retryCount === 0) throw new Error(`${key} failed`);
        },
      });
    },
  });

  before(async () => {
    t = await startTestKernel({ plugins: [probe] });
  });
  after(() => t.stop());

  it('runs a job sent in a transaction only if that transaction commits', async () => {
    await t.db
      .transaction(async (trx) => {
        await t.kernel.jobs.send('jobs-probe.once', { key: 'rolled-back' }, trx);
        throw new Error('roll back');
      })
      .catch(() => {});
    await t.db.transaction((trx) => t.kernel.jobs.send('jobs-probe.once', { key: 'committed' }, trx));
    await waitUntil('the committed job', () => ran('committed').length === 1);
    await sleep(1000);
    assert.deepEqual(ran('rolled-back'), []);
    assert.deepEqual(ran('committed'), [{ key: 'committed', retryCount: 0 }]);
  });

  it('retries a failing job, telling the handler which retry it is', async function () {
    this.timeout(30000);
    await t.kernel.jobs.send('jobs-probe.flaky', { key: 'flaky', failures: 2 });
    await waitUntil('the third attempt', () => ran('flaky').length === 3, 25000);
    assert.deepEqual(ran('flaky').map((r) => r.retryCount), [0, 1, 2]);
  });

  it('works on up to `concurrency` jobs at once, and a failing one fails alone', async function () {
    this.timeout(30000);
    await t.kernel.jobs.insert([
      { name: 'jobs-probe.parallel', data: { key: 'p-ok-1', fail: false } },
      { name: 'jobs-probe.parallel', data: { key: 'p-fails', fail: true } },
      { name: 'jobs-probe.parallel', data: { key: 'p-ok-2', fail: false } },
    ]);
    await waitUntil('the failed job to be retried', () => ran('p-fails').length === 2, 25000);
    await sleep(1000);
    assert.equal(mostAtOnce, 3);
    assert.equal(ran('p-ok-1').length, 1, 'a finished neighbour is not re-run');
    assert.equal(ran('p-ok-2').length, 1, 'a finished neighbour is not re-run');
    assert.deepEqual(ran('p-fails').map((r) => r.retryCount), [0, 1]);
  });

  it('works through a queue of jobs one after another, not one per polling interval', async function () {
    this.timeout(30000);
    // Polling every 20 s: only a worker that fetches again after a full batch finishes five jobs before the first poll.
    const slow = await startTestKernel({ plugins: [probe], config: { jobs: { pollingIntervalSeconds: 20 } } });
    try {
      await slow.kernel.jobs.insert(['q-1', 'q-2', 'q-3', 'q-4', 'q-5'].map((key) => ({ name: 'jobs-probe.once', data: { key } })));
      slow.kernel.jobs.notifyWorker('jobs-probe.once');
      await waitUntil('the five queued jobs', () => runs.filter((r) => r.key.startsWith('q-')).length === 5, 10000);
      assert.deepEqual(runs.filter((r) => r.key.startsWith('q-')).map((r) => r.key).sort(), ['q-1', 'q-2', 'q-3', 'q-4', 'q-5']);
    } finally {
      await slow.stop();
    }
  });
});
