import type { Readable } from 'node:stream';
import { CsvSplitter } from './csv-split.ts';

/**
 * CSV records streamed out of a blob: bytes → strict UTF-8 text (a BOM dropped) → records (csv-split.ts), a chunk's
 * records at a time, so memory holds a chunk and its records whatever the file's size.
 */

/** The longest record accepted, in characters: an unclosed quote would otherwise buffer the rest of the file. */
const MAX_RECORD_CHARS = 4 * 1024 * 1024;

/** The bytes are not UTF-8 text (the route answers 415). */
export class NotText extends Error {}

/**
 * Why the first bytes of an upload are not text, or undefined when they are: bytes that are not UTF-8 (an incomplete
 * character at the very end excepted: the head is cut anywhere) or NUL. Text is judged by this, not by `file-type`,
 * whose signatures match text too (a CSV whose first header is "BM" or "ID3" would read as an image or an MP3).
 */
export function notTextHead(head: Buffer, detected: { mime: string } | undefined): string | undefined {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(head, { stream: true });
  } catch {
    return `The file is ${detected ? detected.mime : 'binary'}, not UTF-8 text.`;
  }
  return text.includes('\u0000') ? `The file is ${detected ? detected.mime : 'binary'} (it holds NUL bytes), not CSV text.` : undefined;
}

/** Bytes → UTF-8 text, refusing bytes that are not UTF-8 and NUL characters; a leading BOM is dropped by the decoder. */
class Utf8Text {
  private readonly decoder = new TextDecoder('utf-8', { fatal: true });
  private offset = 0;

  /** The text of the next chunk (a character cut at its end waits for the next one). */
  next(chunk: Buffer): string {
    let text: string;
    try {
      text = this.decoder.decode(chunk, { stream: true });
    } catch {
      throw new NotText(`The file is not UTF-8 text (bytes that are not UTF-8 within bytes ${this.offset}–${this.offset + chunk.length}).`);
    }
    this.offset += chunk.length;
    if (text.includes('\u0000')) throw new NotText('The file holds NUL characters: it is binary, not CSV text.');
    return text;
  }

  /** What is left at the end: nothing, or a character cut short. */
  end(): string {
    try {
      return this.decoder.decode();
    } catch {
      throw new NotText('The file ends in the middle of a UTF-8 character.');
    }
  }
}

/**
 * The records of the CSV read from `input` (the header row first), as arrays of strings, in batches: those each chunk
 * of the file completes, so that the cost of waiting for them (promises, an async step) is paid per chunk and not per
 * record: per record, those promises and iterator steps allocated ~230 MB in an import of 100,000 rows.
 */
export async function* csvBatches(input: Readable): AsyncGenerator<string[][]> {
  const text = new Utf8Text();
  const records = new CsvSplitter(MAX_RECORD_CHARS);
  try {
    for await (const chunk of input as AsyncIterable<Buffer>) {
      const batch = records.push(text.next(chunk));
      if (batch.length > 0) yield batch;
    }
    const last = [...records.push(text.end()), ...records.end()];
    if (last.length > 0) yield last;
  } finally {
    input.destroy();
  }
}

/** The data records of `batches` (the CSV's records in batches): every record but the first, the header row. */
export async function* dataRecords(batches: AsyncIterable<string[][]>): AsyncGenerator<string[][]> {
  let header = true;
  for await (const batch of batches) {
    if (header && batch.length > 0) {
      header = false;
      if (batch.length > 1) yield batch.slice(1);
    } else if (batch.length > 0) yield batch;
  }
}

/** The header row of the CSV read from `input`; undefined when it has no record. */
export async function headerRow(input: Readable): Promise<string[] | undefined> {
  const batches = csvBatches(input);
  try {
    return (await batches.next()).value?.[0];
  } finally {
    await batches.return(undefined);
  }
}

const QUOTE = 0x22;
const LF = 0x0a;
const CR = 0x0d;

/**
 * How many data rows `input` has, counting no further than `limit` + 1 (enough to know it is more). A scan of the
 * bytes for line ends outside quotes, as csv-split.ts splits records (blank lines skipped), without parsing cells:
 * a hundredth of the time. Malformed CSV is left for the import's own read to report.
 */
export async function countRows(input: Readable, limit = Infinity): Promise<number> {
  let records = 0;
  let quoted = false;
  let content = false;
  try {
    for await (const chunk of input as AsyncIterable<Buffer>) {
      for (let i = 0; i < chunk.length; i++) {
        const byte = chunk[i];
        if (byte === QUOTE) {
          quoted = !quoted;
          content = true;
        } else if (!quoted && (byte === LF || byte === CR)) {
          if (content) records++;
          content = false;
        } else content = true;
      }
      if (records - 1 > limit) break;
    }
  } finally {
    input.destroy();
  }
  if (content) records++;
  return Math.max(records - 1, 0);
}
