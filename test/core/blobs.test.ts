import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { LocalDiskBlobStore } from '../../core/blobs.ts';

describe('local disk blob store', () => {
  let root: string;
  let store: LocalDiskBlobStore;
  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'tessera-blobs-'));
    store = new LocalDiskBlobStore(root);
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  it('stores buffers and streams under the root and reads them back', async () => {
    assert.deepEqual(await store.put('a/b.bin', Buffer.from('hello')), { key: 'a/b.bin', size: 5 });
    await store.put('a/c.bin', Readable.from([Buffer.from('str'), Buffer.from('eam')]));
    assert.equal((await store.read('a/b.bin'))?.toString(), 'hello');
    assert.equal((await store.read('a/c.bin'))?.toString(), 'stream');
    assert.ok(fs.existsSync(path.join(root, 'a', 'b.bin')));
    assert.deepEqual(fs.readdirSync(path.join(root, 'a')).sort(), ['b.bin', 'c.bin'], 'no temp files are left behind');
  });

  it('replaces, deletes and reports missing blobs as null', async () => {
    await store.put('x', Buffer.from('1'));
    await store.put('x', Buffer.from('22'));
    assert.equal((await store.read('x'))?.toString(), '22');
    await store.delete('x');
    assert.equal(await store.exists('x'), false);
    assert.equal(await store.read('x'), null);
    assert.equal(await store.get('x'), null);
    await store.delete('x');
  });

  it('refuses keys that would escape the root', async () => {
    for (const key of ['../evil', 'a/../../evil', '/abs', 'a//b', '.hidden', '']) {
      await assert.rejects(store.put(key, Buffer.from('x')), /Invalid blob key/, key);
    }
    assert.equal(fs.existsSync(path.join(root, '..', 'evil')), false);
  });
});
