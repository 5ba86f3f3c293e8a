import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { LINGER_BYTES } from '../../../core/linger.ts';
import { streamedFetch } from '../../fixtures/streamed-fetch.ts';
import { attachmentsWorld, eventually, type AttachmentsWorld } from './setup.ts';

const MB = 1024 * 1024;
const BOUNDARY = 'attachments-test-boundary';
const FILE_PART = Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`);

describe('attachments: the upload cap (maxBytes)', () => {
  let w: AttachmentsWorld;
  const uploadsDir = () => path.join(w.t.kernel.config.dataDir, 'blobs', 'uploads');
  const strays = () => (fs.existsSync(uploadsDir()) ? fs.readdirSync(uploadsDir()) : []);

  before(async () => {
    w = await attachmentsWorld({ plugins: { attachments: { options: { maxBytes: MB } } } });
  });
  after(() => w.t.stop());

  it('takes a file of exactly maxBytes, refuses one byte more with 413 and stores nothing', async () => {
    assert.equal((await w.upload(Buffer.alloc(MB, 1), 'exact.bin')).status, 201);
    const over = await w.upload(Buffer.alloc(MB + 1, 1), 'over.bin');
    assert.equal(over.status, 413);
    assert.equal(over.body.code, 'payload_too_large');
    assert.equal(Number((await w.t.db('attachments').count({ n: '*' }))[0].n), 1);
    await eventually(async () => strays().length === 1, 'the refused upload to be removed from the store');
  });

  it('answers 413 to a client still streaming a file past the cap, which reads it instead of a reset', async () => {
    const before = Number((await w.t.db('attachments').count({ n: '*' }))[0].n);
    const read = new Promise<number>((resolve) => w.t.kernel.server!.once('connection', (s) => s.once('close', () => resolve(s.bytesRead))));
    const res = await streamedFetch(`${w.t.url}${w.att()}`, {
      method: 'POST',
      headers: { ...w.editor.auth, 'Content-Type': `multipart/form-data; boundary=${BOUNDARY}` },
      head: FILE_PART,
      total: 64 * MB,
    });
    assert.equal(res.status, 413);
    assert.equal(res.headers.get('content-type'), 'application/problem+json');
    assert.equal(res.body.code, 'payload_too_large');
    assert.equal(res.finishedSending, false, 'answered while the client was still sending');
    const bytes = await read;
    assert.ok(bytes <= MB + 16 * 1024 + LINGER_BYTES + 256 * 1024, `the server read ${bytes} bytes of the 64 MiB`);
    assert.equal(Number((await w.t.db('attachments').count({ n: '*' }))[0].n), before);
    await eventually(async () => strays().length === 1, 'the partial upload to be removed from the store');
  });
});
