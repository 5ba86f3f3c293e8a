import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { strFromU8, unzipSync } from 'fflate';
import { LocalDiskBlobStore } from '../../../core/blobs.ts';
import { safeSegment, writeZipBlob } from '../../../core/zip-writer.ts';
import { storageIndependent } from '../../fixtures/suite-runs.ts';

describe('core/zip-writer: one streaming zip writer for workspace and GDPR exports', () => {
  storageIndependent();
  let dir: string;
  let blobs: LocalDiskBlobStore;

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tessera-zip-'));
    blobs = new LocalDiskBlobStore(dir);
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('writes strings, buffers and streams into the blob store, each entry with its size and SHA-256', async () => {
    const big = Buffer.alloc(3 * 1024 * 1024, 'abc');
    const chunks = Array.from({ length: 50 }, (_, i) => Buffer.from(`line ${i}\n`));
    const { size, entries } = await writeZipBlob(blobs, 'z/one.zip', async (zip) => {
      await zip.add('a.json', '{"é":1}');
      await zip.add('big.bin', big, { compress: false });
      await zip.add('dir/lines.txt', Readable.from(chunks));
    });
    const bytes = (await blobs.read('z/one.zip'))!;
    assert.equal(bytes.length, size);
    const files = unzipSync(new Uint8Array(bytes));
    assert.equal(strFromU8(files['a.json']), '{"é":1}');
    assert.ok(Buffer.from(files['big.bin']).equals(big));
    assert.equal(strFromU8(files['dir/lines.txt']), Buffer.concat(chunks).toString());
    assert.deepEqual(entries.map((e) => [e.path, e.size]), [['a.json', Buffer.byteLength('{"é":1}')], ['big.bin', big.length], ['dir/lines.txt', Buffer.concat(chunks).length]]);
    for (const e of entries) assert.equal(e.sha256, createHash('sha256').update(files[e.path]).digest('hex'));
  });

  it('makes paths safe segment by segment and unique, whatever names it is given', async () => {
    const { entries } = await writeZipBlob(blobs, 'z/names.zip', async (zip) => {
      for (const name of ['../../etc/passwd', 'a/./b', 'Deals.csv', 'deals.csv', 'Deals.csv', 'con:tr\u0000ol?.txt', '/abs', '..', '']) await zip.add(name, 'x');
    });
    assert.deepEqual(entries.map((e) => e.path), ['_/_/etc/passwd', 'a/_/b', 'Deals.csv', 'deals (2).csv', 'Deals (3).csv', 'con_tr_ol_.txt', 'abs', '_', '_ (2)']);
    const files = unzipSync(new Uint8Array((await blobs.read('z/names.zip'))!));
    assert.deepEqual(Object.keys(files).sort(), entries.map((e) => e.path).sort());
    assert.equal(safeSegment('x'.repeat(300)).length, 120);
  });

  it('keeps nothing under the key when an entry fails half-way, and throws its error', async () => {
    const failing = new Readable({
      read() {
        this.push(Buffer.alloc(64 * 1024, 1));
        this.destroy(new Error('the source broke'));
      },
    });
    await assert.rejects(
      writeZipBlob(blobs, 'z/broken.zip', async (zip) => {
        await zip.add('ok.txt', 'fine');
        await zip.add('broken.bin', failing);
      }),
      /the source broke/,
    );
    assert.equal(await blobs.exists('z/broken.zip'), false);
    assert.deepEqual(fs.readdirSync(path.join(dir, 'z')), [], 'no temporary file left either');
  });
});
