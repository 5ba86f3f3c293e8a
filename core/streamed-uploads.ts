import { Transform, type TransformCallback, type Writable } from 'node:stream';
import { randomUUID } from 'node:crypto';
import { fileTypeFromBuffer } from 'file-type';
import type { Context } from 'koa';
import type { BlobStore } from './blobs.ts';
import { unsupportedMediaType, validationFailed } from './errors.ts';

/**
 * For `bodyType: 'upload'` routes: each file part of a multipart body streams into the blob store as it arrives,
 * under a fresh key, with at most one chunk in memory. The handler takes it with `streamedUpload` and calls `keep()`
 * once a committed row owns the key; the router deletes every blob not kept, whatever happened.
 */

/** Enough of the start of a file for `file-type` to recognise it and for image headers (dimensions, EXIF). */
export const HEAD_BYTES = 64 * 1024;

/** What the bytes say they are (`file-type`); undefined for text and formats without a signature. */
export interface DetectedType {
  mime: string;
  ext: string;
}

export interface Upload {
  /** Where the bytes are in the blob store. */
  key: string;
  /** The client's file name, made safe (see `safeFileName`). */
  name: string;
  size: number;
  /** The first `HEAD_BYTES` bytes (fewer for a smaller file). */
  head: Buffer;
  detected: DetectedType | undefined;
  /** A committed row now owns `key`: the router leaves the blob in place. */
  keep(): void;
}

/** Keeps the first bytes of what passes through, and counts them all. */
class HeadCapture extends Transform {
  private readonly chunks: Buffer[] = [];
  private captured = 0;
  size = 0;

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.size += chunk.length;
    if (this.captured < HEAD_BYTES) {
      const part = chunk.subarray(0, HEAD_BYTES - this.captured);
      this.chunks.push(Buffer.from(part));
      this.captured += part.length;
    }
    done(null, chunk);
  }

  get head(): Buffer {
    return Buffer.concat(this.chunks);
  }
}

interface Pending {
  key: string;
  originalName: string | null;
  capture: HeadCapture;
  stored: Promise<unknown>;
  kept: boolean;
}

interface UploadState {
  pending: Map<object, Pending>;
  uploads: Map<object, Upload>;
}

const STATE = Symbol('streamed uploads');
type WithUploads = Context & { [STATE]?: UploadState };

/** The blob key of a file being uploaded: random, so two uploads never meet, and under `uploads/` so strays are easy to find. */
const freshKey = () => `uploads/${randomUUID()}`;

/**
 * The `fileWriteStreamHandler` formidable calls for each file part of this request: the part's bytes go through a
 * head capture straight into `blobs.put`. Backpressure holds: formidable waits for each write, and the capture
 * waits for the store to read.
 */
export function uploadSink(ctx: Context, blobs: BlobStore) {
  const state: UploadState = ((ctx as WithUploads)[STATE] ??= { pending: new Map(), uploads: new Map() });
  // formidable's types omit the name its files carry.
  return (file?: object): Writable => {
    const capture = new HeadCapture();
    const key = freshKey();
    const stored = blobs.put(key, capture);
    // Read when the body is complete; a failed body rejects it, and the clean-up below still deletes the key.
    stored.catch(() => undefined);
    state.pending.set(file ?? capture, { key, originalName: (file as { originalFilename?: string | null } | undefined)?.originalFilename ?? null, capture, stored, kept: false });
    return capture;
  };
}

/** Once the body is read: waits for every file to be stored and learns what each one is. */
export async function settleUploads(ctx: Context): Promise<void> {
  const state = (ctx as WithUploads)[STATE];
  if (!state) return;
  for (const [file, p] of state.pending) {
    await p.stored;
    const head = p.capture.head;
    const detected = head.length > 0 ? await fileTypeFromBuffer(head) : undefined;
    state.uploads.set(file, {
      key: p.key,
      name: safeFileName(p.originalName),
      size: p.capture.size,
      head,
      detected: detected ? { mime: detected.mime, ext: detected.ext } : undefined,
      keep: () => void (p.kept = true),
    });
  }
}

/** Deletes every blob this request streamed that no row kept (the router calls it after the handler, or a failed body). */
export async function discardStreamedUploads(ctx: Context, blobs: BlobStore): Promise<void> {
  const state = (ctx as WithUploads)[STATE];
  if (!state) return;
  for (const p of state.pending.values()) {
    if (p.kept) continue;
    p.capture.destroy();
    await p.stored.catch(() => undefined);
    await blobs.delete(p.key);
  }
}

/** The one file a `bodyType: 'upload'` request sent in `field`. */
export function streamedUpload(ctx: Context, field: string): Upload {
  const file = ctx.request.files?.[field];
  if (Array.isArray(file)) throw validationFailed([{ pointer: `/${field}`, detail: 'Send exactly one file.' }]);
  const upload = file && (ctx as WithUploads)[STATE]?.uploads.get(file);
  if (upload) return upload;
  const fields = ctx.request.body as Record<string, unknown> | undefined;
  // A part without a Content-Type arrives as text: bytes, but not a file.
  if (fields && field in fields) throw unsupportedMediaType(`The "${field}" part is not a file; send it with a filename and a Content-Type.`);
  throw validationFailed([{ pointer: `/${field}`, detail: `The multipart field "${field}" is required.` }]);
}

const MAX_NAME_BYTES = 255;

/**
 * A client's file name as it may be stored and sent back in a Content-Disposition: no directories (either slash),
 * no control or bidirectional-override characters, no leading dots, at most 255 bytes of UTF-8 (cut on a character,
 * keeping the extension); `file` when nothing is left.
 */
export function safeFileName(name: string | null | undefined): string {
  const base = (name ?? '').split(/[/\\]/).pop() ?? '';
  const clean = base
    .normalize('NFC')
    .replace(/[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, '')
    .replace(/^[\s.]+/, '')
    .trim();
  if (!clean) return 'file';
  if (Buffer.byteLength(clean) <= MAX_NAME_BYTES) return clean;
  const dot = clean.lastIndexOf('.');
  const ext = dot > 0 && clean.length - dot <= 16 ? clean.slice(dot) : '';
  let stem = '';
  let bytes = Buffer.byteLength(ext);
  for (const char of clean.slice(0, ext ? dot : clean.length)) {
    bytes += Buffer.byteLength(char);
    if (bytes > MAX_NAME_BYTES) break;
    stem += char;
  }
  return stem + ext;
}
