import sharp from 'sharp';
import { createWorkspace, joinWorkspace, signUp, startTestKernel, type SignedUpUser, type TestKernel, type TestKernelOptions } from '../../../core/testing.ts';
import { waitUntil } from '../../fixtures/wait.ts';

/** A workspace with each kind of member, a guest of its space S, and an outsider who owns another workspace. */
export interface FilesWorld {
  t: TestKernel;
  admin: SignedUpUser;
  creator: SignedUpUser;
  editor: SignedUpUser;
  member: SignedUpUser;
  guest: SignedUpUser;
  outsider: SignedUpUser;
  ws: string;
  otherWs: string;
  space: string;
  /** `/api/v1/workspaces/{ws}/files` + path. */
  url: (path?: string, ws?: string) => string;
}

/** On `kernel` when given (a file's shared one: the world is a workspace of its own), else on a kernel started with `opts`. */
export async function filesWorld(opts: TestKernelOptions = {}, kernel?: TestKernel): Promise<FilesWorld> {
  const t = kernel ?? (await startTestKernel(opts));
  const [admin, creator, editor, member, guest, outsider] = [await signUp(t, { name: 'Ada' }), await signUp(t, { name: 'Cy' }), await signUp(t, { name: 'Eddie' }), await signUp(t, { name: 'Mia' }), await signUp(t, { name: 'Gus' }), await signUp(t, { name: 'Otto' })];
  const ws = (await createWorkspace(t, admin)).id;
  const otherWs = (await createWorkspace(t, outsider)).id;
  const space = (await t.request.post(`/api/v1/workspaces/${ws}/spaces`).set(admin.auth).send({ name: 'S' }).expect(201)).body.id as string;
  await joinWorkspace(t, admin, ws, creator, 'creator');
  await joinWorkspace(t, admin, ws, editor, 'editor');
  await joinWorkspace(t, admin, ws, member, 'member');
  await joinWorkspace(t, admin, ws, guest, 'guest', [space]);
  const url = (p = '', w = ws) => `/api/v1/workspaces/${w}/files${p}`;
  return { t, admin, creator, editor, member, guest, outsider, ws, otherWs, space, url };
}

/** A small image of each kind; the JPEG is stored 4×2 but turned a quarter by its EXIF orientation (shown 2×4). */
export const images = {
  png: () => sharp({ create: { width: 3, height: 2, channels: 4, background: '#ff0000' } }).png().toBuffer(),
  jpeg: () => sharp({ create: { width: 4, height: 2, channels: 3, background: '#00ff00' } }).jpeg().withMetadata({ orientation: 6 }).toBuffer(),
  webp: () => sharp({ create: { width: 5, height: 5, channels: 3, background: '#0000ff' } }).webp().toBuffer(),
  gif: () => sharp({ create: { width: 2, height: 7, channels: 3, background: '#000000' } }).gif().toBuffer(),
};

/** A 6×3 JPEG whose metadata (two 60 KB APP15 segments) puts its frame header past the first 64 KiB. */
export async function jpegWithBulkyMetadata(): Promise<Buffer> {
  const jpeg = await sharp({ create: { width: 6, height: 3, channels: 3, background: '#888888' } }).jpeg().toBuffer();
  const segment = () => {
    const marker = Buffer.from([0xff, 0xef, 0, 0]);
    marker.writeUInt16BE(60_000 + 2, 2);
    return Buffer.concat([marker, Buffer.alloc(60_000, 0x20)]);
  };
  return Buffer.concat([jpeg.subarray(0, 2), segment(), segment(), jpeg.subarray(2)]);
}

export const SVG = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>alert(1)</script></svg>');
export const HTML = Buffer.from('<!doctype html><html><body><script>alert(1)</script></body></html>');
export const PDF = Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n');

export { uploadedBlobs, blobsSince } from '../../fixtures/uploads.ts';

/** Waits until `check` holds: what is done after a commit (jobs, blob deletions) happens on its own time. */
export const eventually = (check: () => Promise<boolean>, what: string, ms = 8000) => waitUntil(what, check, ms).then(() => undefined);
