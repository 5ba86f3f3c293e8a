import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { LocalDiskBlobStore } from '../../core/blobs.ts';
import { blobStoreSuite } from './blob-store-suite.ts';
import { storageIndependent } from '../fixtures/suite-runs.ts';

blobStoreSuite('local disk', async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'tessera-blobs-'));
  return { store: new LocalDiskBlobStore(root), dispose: async () => fs.rmSync(root, { recursive: true, force: true }) };
});

describe('local disk blob store', () => {
  storageIndependent();
  let root: string;
  let store: LocalDiskBlobStore;
  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'tessera-blobs-'));
    store = new LocalDiskBlobStore(root);
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  it('keeps blobs as files under its root, leaving no temp files behind', async () => {
    await store.put('a/b.bin', Buffer.from('hello'));
    await store.put('a/c.bin', Readable.from([Buffer.from('str'), Buffer.from('eam')]));
    await assert.rejects(store.put('a/d.bin', new Readable({ read() { this.destroy(new Error('gone')); } })), /gone/);
    assert.equal(fs.readFileSync(path.join(root, 'a', 'b.bin'), 'utf8'), 'hello');
    assert.deepEqual(fs.readdirSync(path.join(root, 'a')).sort(), ['b.bin', 'c.bin']);
    await assert.rejects(store.put('../evil', Buffer.from('x')), /Invalid blob key/);
    assert.equal(fs.existsSync(path.join(root, '..', 'evil')), false);
  });
});
