import { deflateSync } from 'node:zlib';
import sharp from 'sharp';
import type { ConfigInput } from '../../../core/config.ts';
import type { TestKernel } from '../../../core/testing.ts';
import { recordsWorld, type RecordsWorld } from '../records/setup.ts';
import { waitUntil } from '../../fixtures/wait.ts';

/** The records world with an attachment field `files` on D, and a record to attach to. */
export interface AttachmentsWorld extends RecordsWorld {
  fieldId: string;
  record: string;
  /** `R/{record}/attachments` + path. */
  att: (path?: string, record?: string) => string;
  upload: (bytes: Buffer, filename: string, type?: string, opts?: { record?: string; field?: string; auth?: Record<string, string> }) => Promise<{ status: number; body: any }>;
}

/**
 * `config`: the kernel's (e.g. jobs off, to see thumbnails made on demand; a small `maxBytes`); `kernel`: a file's
 * shared one instead, the world being a workspace of its own there.
 */
export async function attachmentsWorld(config?: ConfigInput, kernel?: TestKernel): Promise<AttachmentsWorld> {
  const w = await recordsWorld(config, kernel);
  const field = (await w.t.request.post(`/api/v1/workspaces/${w.ws}/databases/${w.db}/fields`).set(w.admin.auth).send({ name: 'Files', type: 'attachment' }).expect(201)).body;
  const record = (await w.t.request.post(w.url()).set(w.editor.auth).send({ values: { name: 'Task' } }).expect(201)).body.id;
  const att = (path = '', rec = record) => w.url(`/${rec}/attachments${path}`);
  const upload: AttachmentsWorld['upload'] = async (bytes, filename, type = 'application/octet-stream', opts = {}) => {
    let req = w.t.request.post(att('', opts.record ?? record)).set(opts.auth ?? w.editor.auth);
    if (opts.field) req = req.field('field', opts.field);
    const res = await req.attach('file', bytes, { filename, contentType: type });
    return { status: res.status, body: res.body };
  };
  return { ...w, fieldId: field.id, record, att, upload };
}

export const png = (width: number, height: number) => sharp({ create: { width, height, channels: 3, background: { r: 200, g: 40, b: 40 } } }).png().toBuffer();
export const jpeg = (width: number, height: number) => sharp({ create: { width, height, channels: 3, background: { r: 20, g: 90, b: 200 } } }).jpeg().toBuffer();

/** Waits until `check` holds: what is done after a commit (jobs, blob deletions) happens on its own time. */
export const eventually = (check: () => Promise<boolean>, what: string, ms = 8000) => waitUntil(what, check, ms).then(() => undefined);

export { binary } from '../../fixtures/uploads.ts';

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
const crc32 = (buf: Buffer) => {
  let c = 0xffffffff;
  for (const b of buf) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
};
const chunk = (type: string, data: Buffer) => {
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  body.copy(out, 4);
  out.writeUInt32BE(crc32(body), 8 + data.length);
  return out;
};

/** A small PNG whose header announces `width` × `height` pixels: a decompression bomb when those are huge. */
export function pngAnnouncing(width: number, height: number): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8);
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(Buffer.alloc(64 * 1024))), chunk('IEND', Buffer.alloc(0))]);
}
