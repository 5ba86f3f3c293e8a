/**
 * A PGlite cluster dump is a tar of its data directory, and a WAL segment in it is a 16 MiB file however little of it
 * matters: the migrated cluster's dump was 34 MB, half of it WAL that every test kernel loaded into memory. Taken
 * right after a checkpoint in a fresh segment, a dump needs only the segments from the checkpoint's redo point to the
 * current insert point, and of those only the pages written: PostgreSQL reads the WAL up to the first page it cannot
 * read, and a short segment ends there as a zeroed one does; it writes on past the end as into the zeros. Segments
 * before the redo point, and those the checkpoint recycled (renamed ahead, old records inside), are left out.
 */

const BLOCK = 512;
const WAL_PAGE = 8192;
const WAL_SEGMENT = /(?:^|\/)pg_wal\/([0-9A-F]{24})$/;

/** The WAL segments (file names) a dump needs: from the one holding the redo point to the one being written. */
export interface NeededWal {
  first: string;
  last: string;
}

/** The tar `dump` with only the `needed` WAL segments, each cut after its last page holding a non-zero byte. */
export function trimWal(dump: Uint8Array, needed: NeededWal): Uint8Array<ArrayBuffer> {
  const parts: Uint8Array[] = [];
  let at = 0;
  while (at + BLOCK <= dump.length) {
    const header = dump.subarray(at, at + BLOCK);
    if (header.every((b) => b === 0)) break;
    const size = parseInt(field(header, 124, 12) || '0', 8);
    const data = dump.subarray(at + BLOCK, at + BLOCK + size);
    const next = at + BLOCK + Math.ceil(size / BLOCK) * BLOCK;
    const segment = WAL_SEGMENT.exec(field(header, 0, 100))?.[1];
    at = next;
    if (segment && (segment < needed.first || segment > needed.last)) continue;
    const kept = segment ? data.subarray(0, writtenLength(data)) : data;
    parts.push(kept === data ? header : withSize(header, kept.length), kept, new Uint8Array((BLOCK - (kept.length % BLOCK)) % BLOCK));
  }
  parts.push(new Uint8Array(2 * BLOCK));
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const p of parts) {
    out.set(p, offset);
    offset += p.length;
  }
  return out;
}

function field(header: Uint8Array, offset: number, length: number): string {
  const bytes = header.subarray(offset, offset + length);
  const end = bytes.indexOf(0);
  return new TextDecoder().decode(end < 0 ? bytes : bytes.subarray(0, end)).trim();
}

/** Up to the end of the last WAL page holding a non-zero byte. */
function writtenLength(data: Uint8Array): number {
  let end = data.length;
  while (end > 0 && data[end - 1] === 0) end--;
  return Math.min(data.length, Math.ceil(end / WAL_PAGE) * WAL_PAGE);
}

/** A copy of a ustar header with another size, and its checksum computed again. */
function withSize(header: Uint8Array, size: number): Uint8Array {
  const copy = header.slice();
  copy.set(new TextEncoder().encode(`${size.toString(8).padStart(11, '0')}\0`), 124);
  copy.fill(0x20, 148, 156);
  const sum = copy.reduce((n, b) => n + b, 0);
  copy.set(new TextEncoder().encode(`${sum.toString(8).padStart(6, '0')}\0 `), 148);
  return copy;
}
