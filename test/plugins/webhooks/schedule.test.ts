import assert from 'node:assert/strict';
import { MAX_ATTEMPTS, parseRetryAfter, retryDelayMs, RETRY_SCHEDULE_S } from '../../../plugins/webhooks/schedule.ts';
import { storageIndependent } from '../../fixtures/suite-runs.ts';

describe('webhooks: the retry schedule', () => {
  storageIndependent();
  it('follows 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h within ±10 % jitter, then stops after ten attempts', () => {
    assert.deepEqual([...RETRY_SCHEDULE_S], [5, 300, 1800, 7200, 18000, 36000, 50400, 72000, 86400]);
    assert.equal(MAX_ATTEMPTS, 10);
    RETRY_SCHEDULE_S.forEach((step, i) => {
      assert.equal(retryDelayMs(i + 1, 1, null, () => 0), Math.round(step * 900), `low end after attempt ${i + 1}`);
      assert.equal(retryDelayMs(i + 1, 1, null, () => 1), Math.round(step * 1100), `high end after attempt ${i + 1}`);
      assert.equal(retryDelayMs(i + 1, 1, null, () => 0.5), step * 1000);
    });
    assert.equal(retryDelayMs(10, 1, null), null);
    assert.equal(retryDelayMs(2, 0.001, null, () => 0.5), 300, 'scaled for tests');
  });

  it("waits for a longer Retry-After, never longer than a day, and ignores a shorter one", () => {
    assert.equal(retryDelayMs(1, 1, 60_000, () => 0.5), 60_000);
    assert.equal(retryDelayMs(2, 1, 1000, () => 0.5), 300_000);
    assert.equal(retryDelayMs(1, 1, 30 * 86_400_000, () => 0.5), 86_400_000);
    assert.equal(parseRetryAfter('120'), 120_000);
    assert.equal(parseRetryAfter(new Date(Date.UTC(2030, 0, 1, 0, 1)).toUTCString(), Date.UTC(2030, 0, 1)), 60_000);
    assert.equal(parseRetryAfter('soon'), null);
    assert.equal(parseRetryAfter(undefined), null);
  });
});
