import assert from 'node:assert/strict';
import { checksummedSecret, hasValidChecksum, hashSecret, randomSecret, safeEqual } from '../../core/secrets.ts';
import { storageIndependent } from '../fixtures/suite-runs.ts';

describe('secrets', () => {
  storageIndependent();
  it('makes URL-safe random secrets of the asked length, never twice the same', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 1000; i++) {
      const s = randomSecret('inv_', 30);
      assert.match(s, /^inv_[0-9A-Za-z]{30}$/);
      seen.add(s);
    }
    assert.equal(seen.size, 1000);
  });

  it('checksummed tokens validate, and any single-character change breaks the checksum', () => {
    const token = checksummedSecret('tpat_');
    assert.match(token, /^tpat_[0-9A-Za-z]{36}$/);
    assert.equal(hasValidChecksum(token, 'tpat_'), true);
    assert.equal(hasValidChecksum(token, 'tss_'), false);
    const i = 10;
    const changed = token.slice(0, i) + (token[i] === 'a' ? 'b' : 'a') + token.slice(i + 1);
    assert.equal(hasValidChecksum(changed, 'tpat_'), false);
    assert.equal(hasValidChecksum('tpat_short', 'tpat_'), false);
  });

  it('hashes deterministically without containing the secret', () => {
    const s = randomSecret('tss_', 40);
    assert.equal(hashSecret(s), hashSecret(s));
    assert.notEqual(hashSecret(s), hashSecret(`${s}x`));
    assert.ok(!hashSecret(s).includes(s.slice(4, 12)));
    assert.equal(safeEqual('abc', 'abc'), true);
    assert.equal(safeEqual('abc', 'abd'), false);
    assert.equal(safeEqual('abc', 'abcd'), false);
  });
});
