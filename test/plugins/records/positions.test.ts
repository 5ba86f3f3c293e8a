import assert from 'node:assert/strict';
import { generateKeyBetween } from 'fractional-indexing';
import { AppError } from '../../../core/errors.ts';
import { positionBetween, positionsAfter } from '../../../plugins/records/positions.ts';
import { recordsWorld, type RecordsWorld } from './setup.ts';
import { cases, SEED, seededRandom } from '../../fixtures/randomised.ts';

/** Byte order, as the `position text COLLATE "C"` column sorts. */
const byBytes = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

/** A key the library accepts as a bound is a valid fractional index (it validates both ends). */
function assertValid(key: string) {
  assert.doesNotThrow(() => generateKeyBetween(key, null), key);
  assert.doesNotThrow(() => generateKeyBetween(null, key), key);
  assert.doesNotMatch(key, /0$/, key);
}

describe('records: positions', () => {
  describe('keys', () => {
    it('lie strictly between their bounds, stay valid keys, and differ between writers with the same bounds', () => {
      const bounds: Array<[string | null, string | null]> = [
        [null, null],
        ['a0', null],
        [null, 'a0'],
        ['a0', 'a1'],
        ['a0', 'a01'],
        // The library's own key here is 'a1', a prefix of the upper bound: a suffix alone could pass it.
        ['a0', 'a1V'],
        ['a1', 'a1V'],
        ['a0z', 'a1'],
        ['Zz', 'a0'],
        ['a0V', 'a0V1'],
      ];
      for (const [before, after] of bounds) {
        const keys = Array.from({ length: 100 }, () => positionBetween(before, after));
        assert.equal(new Set(keys).size, keys.length, `${before}…${after}`);
        for (const key of keys) {
          if (before !== null) assert.ok(byBytes(before, key) < 0, `${before} < ${key}`);
          if (after !== null) assert.ok(byBytes(key, after) < 0, `${key} < ${after}`);
          assertValid(key);
        }
      }
    });

    it('keep a strict order through thousands of random insertions', () => {
      const list = positionsAfter(null, 50);
      const random = seededRandom();
      for (let n = 0; n < cases(3000); n++) {
        const i = Math.floor(random() * (list.length + 1));
        list.splice(i, 0, positionBetween(list[i - 1] ?? null, list[i] ?? null));
      }
      const sorted = [...list].sort(byBytes);
      assert.deepEqual(list, sorted, `TESSERA_SEED=${SEED} replays this`);
      assert.equal(new Set(list).size, list.length);
      list.forEach(assertValid);
      assert.ok(Math.max(...list.map((k) => k.length)) < 40);
    });

    it('append ascending keys after a position', () => {
      const keys = positionsAfter('a5', 100);
      assert.equal(keys.length, 100);
      assert.ok(byBytes('a5', keys[0]) < 0);
      assert.deepEqual([...keys].sort(byBytes), keys);
      assert.equal(new Set(keys).size, 100);
    });

    it('refuse equal bounds with 409 position_clash', () => {
      assert.throws(
        () => positionBetween('a5', 'a5'),
        (err: unknown) => err instanceof AppError && err.status === 409 && err.code === 'position_clash',
      );
    });
  });

  describe('concurrent creates', () => {
    let w: RecordsWorld;
    before(async () => {
      w = await recordsWorld();
    });
    after(() => w.t.stop());

    it('never share a position, and the list follows the positions', async () => {
      const one = (i: number) => w.t.request.post(w.url()).set(w.editor.auth).send({ values: { name: `C${i}` } });
      const many = (i: number) => w.t.request.post(w.url()).set(w.editor.auth).send({ records: [{ values: { name: `B${i}a` } }, { values: { name: `B${i}b` } }] });
      const responses = await Promise.all(Array.from({ length: 16 }, (_, i) => (i % 4 === 0 ? many(i) : one(i))));
      assert.deepEqual(responses.map((r) => r.status), responses.map(() => 201));
      const stored = (await w.t.db(w.table).select('id', 'position')) as Array<{ id: string; position: string }>;
      assert.equal(stored.length, 20);
      assert.equal(new Set(stored.map((r) => r.position)).size, 20);
      const listed = (await w.t.request.get(w.url('?limit=1000')).set(w.member.auth).expect(200)).body.data.map((r: { id: string }) => r.id);
      assert.deepEqual(listed, [...stored].sort((a, b) => byBytes(a.position, b.position)).map((r) => r.id));
    });
  });
});
