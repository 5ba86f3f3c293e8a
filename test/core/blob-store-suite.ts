import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import type { BlobStore } from '../../core/blobs.ts';

/** A store under test, and how to throw it away. */
export interface StoreUnderTest {
  store: BlobStore;
  dispose(): Promise<void>;
}

const collect = async (stream: Readable | null): Promise<Buffer | null> => {
  if (!stream) return null;
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
};

/** `total` bytes of a known pattern, in 64 KiB chunks made as they are read; `failAfter` bytes in, the stream fails. */
function patterned(total: number, failAfter?: number): Readable {
  let sent = 0;
  return new Readable({
    read() {
      if (failAfter !== undefined && sent >= failAfter) return this.destroy(new Error('the client went away'));
      if (sent >= total) return this.push(null);
      const size = Math.min(64 * 1024, total - sent);
      const chunk = Buffer.alloc(size);
      for (let i = 0; i < size; i++) chunk[i] = (sent + i) % 251;
      sent += size;
      this.push(chunk);
    },
  });
}

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/**
 * What every blob store answers alike (core/blobs.ts `BlobStore`): run against the local disk store and each
 * store a plugin provides.
 */
export function blobStoreSuite(name: string, open: () => Promise<StoreUnderTest>): void {
  describe(`blob store conformance: ${name}`, function () {
    this.timeout(60_000);
    let s: StoreUnderTest;
    let store: BlobStore;
    beforeEach(async () => {
      s = await open();
      store = s.store;
    });
    afterEach(() => s.dispose());

    it('stores buffers and streams and reads them back whole', async () => {
      assert.deepEqual(await store.put('a/b.bin', Buffer.from('hello')), { key: 'a/b.bin', size: 5 });
      assert.deepEqual(await store.put('a/c.bin', Readable.from([Buffer.from('str'), Buffer.from('eam')]), { contentType: 'text/plain' }), { key: 'a/c.bin', size: 6 });
      assert.equal((await store.read('a/b.bin'))?.toString(), 'hello');
      assert.equal((await store.read('a/c.bin'))?.toString(), 'stream');
      assert.equal((await collect(await store.get('a/c.bin')))?.toString(), 'stream');
      assert.deepEqual(await store.stat('a/b.bin'), { size: 5 });
      assert.equal(await store.exists('a/b.bin'), true);
      assert.deepEqual(await store.put('empty', Buffer.alloc(0)), { key: 'empty', size: 0 });
      assert.deepEqual(await store.read('empty'), Buffer.alloc(0));
    });

    it('reads exactly the bytes of a range', async () => {
      const bytes = Buffer.from('0123456789abcdef');
      await store.put('r', bytes);
      assert.equal((await collect(await store.get('r', { start: 2, end: 5 })))?.toString(), '2345');
      assert.equal((await collect(await store.get('r', { start: 0, end: 0 })))?.toString(), '0');
      assert.equal((await collect(await store.get('r', { start: 15, end: 15 })))?.toString(), 'f');
      assert.deepEqual(await collect(await store.get('r', { start: 0, end: 15 })), bytes);
    });

    it('replaces, deletes, and answers a missing blob with null (delete of one is fine)', async () => {
      await store.put('x', Buffer.from('1'));
      await store.put('x', Buffer.from('22'));
      assert.equal((await store.read('x'))?.toString(), '22');
      await store.delete('x');
      assert.equal(await store.exists('x'), false);
      assert.equal(await store.read('x'), null);
      assert.equal(await store.get('x'), null);
      assert.equal(await store.get('x', { start: 0, end: 0 }), null);
      assert.equal(await store.stat('x'), null);
      await store.delete('x');
      await store.delete('never/was');
    });

    it('stores nothing from a stream that fails, and rejects', async () => {
      await assert.rejects(store.put('failed/small', patterned(1024 * 1024, 200 * 1024)), /went away/);
      assert.equal(await store.exists('failed/small'), false);
      // Past the first part of a multipart upload, for stores that make one.
      await assert.rejects(store.put('failed/large', patterned(12 * 1024 * 1024, 7 * 1024 * 1024)), /went away/);
      assert.equal(await store.exists('failed/large'), false);
      assert.equal(await store.read('failed/large'), null);
    });

    it('streams 10 MiB in and out, byte for byte', async () => {
      const total = 10 * 1024 * 1024;
      const expected = await collect(patterned(total));
      assert.deepEqual(await store.put('big/ten', patterned(total)), { key: 'big/ten', size: total });
      assert.deepEqual(await store.stat('big/ten'), { size: total });
      const back = (await collect(await store.get('big/ten')))!;
      assert.equal(back.length, total);
      assert.equal(sha(back), sha(expected!));
      const start = 5 * 1024 * 1024 - 3;
      assert.deepEqual(await collect(await store.get('big/ten', { start, end: start + 9 })), expected!.subarray(start, start + 10));
    });

    it('refuses keys that could escape its root or prefix, storing nothing', async () => {
      for (const key of ['../evil', 'a/../../evil', '/abs', 'a//b', '.hidden', 'a/./b', 'a/', '', 'sp ace', 'a\\b']) {
        await assert.rejects(store.put(key, Buffer.from('x')), /Invalid blob key/, key);
        await assert.rejects(store.get(key), /Invalid blob key/, key);
        await assert.rejects(store.delete(key), /Invalid blob key/, key);
      }
      assert.equal(await store.exists('evil'), false);
    });
  });
}
