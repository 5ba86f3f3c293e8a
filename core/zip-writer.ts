import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { PassThrough, type Readable } from 'node:stream';
import { Zip, ZipDeflate, ZipPassThrough, type ZipInputFile } from 'fflate';
import type { BlobStore } from './blobs.ts';

/** An entry written: its path in the zip, its size before compression and the SHA-256 of those bytes (hex). */
export interface ZipEntryInfo {
  path: string;
  size: number;
  sha256: string;
}

export type ZipEntryData = string | Buffer | Readable;

/** Without ZIP64 (fflate writes none), offsets and sizes are 32-bit and entries at most 65,535. */
const MAX_ZIP_BYTES = 0xffff_ffff;
const MAX_ZIP_ENTRIES = 0xffff;

/** Thrown when what is added would not fit a zip without ZIP64: the zip is abandoned rather than written corrupt. */
export class ZipLimitError extends Error {}

/**
 * One path segment as a zip may hold it, from any name (a database's, a file's): no separators, no `.`/`..`, no control
 * characters, at most 120 characters, never empty.
 */
export function safeSegment(name: string): string {
  const cleaned = name.normalize('NFC').replace(/[\u0000-\u001f\u007f/\\:*?"<>|]/g, '_').trim().slice(0, 120);
  return cleaned === '' || /^\.+$/.test(cleaned) ? '_' : cleaned;
}

/**
 * A zip written as a stream (fflate `Zip`, entries deflated one at a time, or stored as they are): `output` is read by
 * whoever keeps the bytes, and `add` waits while it is full, so memory holds one chunk per entry whatever the sizes.
 * Paths are made safe segment by segment and unique (`a.json`, `a (2).json`); each entry's size and SHA-256 are
 * kept for a manifest.
 */
export class ZipWriter {
  readonly output = new PassThrough();
  private readonly zip: Zip;
  private readonly written: ZipEntryInfo[] = [];
  private readonly taken = new Set<string>();
  private bytes = 0;
  private failure: Error | undefined;

  constructor() {
    // A failure is thrown to whoever adds entries; the store reading `output` sees it through its own listener, and may
    // not have attached one yet.
    this.output.on('error', () => undefined);
    this.zip = new Zip((err, chunk, final) => {
      if (err) return void this.fail(err);
      this.bytes += chunk.length;
      if (this.bytes > MAX_ZIP_BYTES) return void this.fail(new ZipLimitError('The zip would pass 4 GiB, which needs ZIP64.'));
      this.output.write(chunk);
      if (final) this.output.end();
    });
  }

  /** The entries written so far, in order. */
  get entries(): readonly ZipEntryInfo[] {
    return this.written;
  }

  /** Adds an entry (`compress: false` for bytes that are compressed already: images, archives) and waits until it is written. */
  async add(path: string, data: ZipEntryData, opts: { compress?: boolean } = {}): Promise<ZipEntryInfo> {
    this.check();
    if (this.written.length >= MAX_ZIP_ENTRIES) throw new ZipLimitError('A zip without ZIP64 holds at most 65,535 entries.');
    const name = this.unique(path);
    const file: ZipInputFile & { push(chunk: Uint8Array, final?: boolean): void } = opts.compress === false ? new ZipPassThrough(name) : new ZipDeflate(name, { level: 6 });
    this.zip.add(file);
    const hash = createHash('sha256');
    let size = 0;
    const push = async (chunk: Buffer, final: boolean) => {
      hash.update(chunk);
      size += chunk.length;
      file.push(chunk, final);
      this.check();
      if (this.output.writableNeedDrain) await this.drained();
    };
    if (typeof data === 'string' || Buffer.isBuffer(data)) {
      await push(typeof data === 'string' ? Buffer.from(data, 'utf8') : data, true);
    } else {
      for await (const chunk of data) await push(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : (chunk as Buffer), false);
      await push(Buffer.alloc(0), true);
    }
    const info = { path: name, size, sha256: hash.digest('hex') };
    this.written.push(info);
    return info;
  }

  /** Writes the central directory; `output` ends once it is read. */
  finish(): void {
    this.check();
    this.zip.end();
  }

  /** Abandons the zip: `output` errors, so a store reading it keeps nothing, and later `add`s throw. */
  fail(err: Error): void {
    if (this.failure) return;
    this.failure = err;
    this.zip.terminate();
    this.output.destroy(err);
  }

  private check(): void {
    if (this.failure) throw this.failure;
  }

  private async drained(): Promise<void> {
    // `once` rejects when the stream errors; a stream destroyed without one closes instead.
    await Promise.race([once(this.output, 'drain'), once(this.output, 'close').then(() => this.check())]);
    this.check();
  }

  private unique(path: string): string {
    const segments = path.split('/').filter((s) => s !== '').map(safeSegment);
    const joined = segments.length > 0 ? segments.join('/') : '_';
    let name = joined;
    const dot = joined.lastIndexOf('.');
    const slash = joined.lastIndexOf('/');
    const [stem, ext] = dot > slash + 1 ? [joined.slice(0, dot), joined.slice(dot)] : [joined, ''];
    for (let n = 2; this.taken.has(name.toLowerCase()); n++) name = `${stem} (${n})${ext}`;
    this.taken.add(name.toLowerCase());
    return name;
  }
}

/**
 * Writes a zip straight into the blob store under `key`: `build` adds the entries while the store reads the bytes.
 * If `build` or the store fails, nothing is kept under the key and the error is thrown.
 */
export async function writeZipBlob(blobs: BlobStore, key: string, build: (zip: ZipWriter) => Promise<void>): Promise<{ size: number; entries: readonly ZipEntryInfo[] }> {
  const zip = new ZipWriter();
  const stored = blobs.put(key, zip.output, { contentType: 'application/zip' });
  // The store may fail first (a full disk): the writer stops waiting for a reader that has gone.
  stored.catch((err: unknown) => zip.fail(err instanceof Error ? err : new Error(String(err))));
  try {
    await build(zip);
    zip.finish();
  } catch (err) {
    zip.fail(err instanceof Error ? err : new Error(String(err)));
    await stored.catch(() => undefined);
    throw err;
  }
  const { size } = await stored;
  return { size, entries: zip.entries };
}
