import sharp from 'sharp';
import { recordsWorld, type RecordsWorld } from '../records/setup.ts';

/** The records world with an attachment field `files` on D, and a record to attach to. */
export interface AttachmentsWorld extends RecordsWorld {
  fieldId: string;
  record: string;
  /** `R/{record}/attachments` + path. */
  att: (path?: string, record?: string) => string;
  upload: (bytes: Buffer, filename: string, type?: string, opts?: { record?: string; field?: string; auth?: Record<string, string> }) => Promise<{ status: number; body: any }>;
}

export async function attachmentsWorld(): Promise<AttachmentsWorld> {
  const w = await recordsWorld();
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

/** Waits until `check` holds (jobs run after commit, on their own time). */
export async function eventually(check: () => Promise<boolean>, what: string, ms = 8000): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`Timed out waiting for ${what}`);
}

/** Reads a supertest answer's body as bytes, whatever its type. */
export const binary = (res: any, cb: (err: Error | null, body: Buffer) => void) => {
  const chunks: Buffer[] = [];
  res.on('data', (c: Buffer) => chunks.push(c));
  res.on('end', () => cb(null, Buffer.concat(chunks)));
};
