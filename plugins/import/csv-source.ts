import { Transform, type Readable, type TransformCallback } from 'node:stream';
import { parse, CsvError } from 'csv-parse';

/**
 * CSV records streamed out of a blob: bytes → strict UTF-8 text (a BOM dropped) → `csv-parse`, a chunk's records
 * at a time, so memory holds a chunk and its records whatever the file's size.
 */

/** The longest record accepted, in characters: an unclosed quote would otherwise buffer the rest of the file. */
const MAX_RECORD_CHARS = 4 * 1024 * 1024;

/** The bytes are not UTF-8 text (the route answers 415). */
export class NotText extends Error {}

/** The text is not well-formed CSV (an unclosed quote, a record too long): a problem of the file, at a line. */
export class MalformedCsv extends Error {}

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
class Utf8Text extends Transform {
  private readonly decoder = new TextDecoder('utf-8', { fatal: true });
  private offset = 0;

  constructor() {
    super({ readableObjectMode: false, decodeStrings: true, encoding: 'utf8' });
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    let text: string;
    try {
      text = this.decoder.decode(chunk, { stream: true });
    } catch {
      return done(new NotText(`The file is not UTF-8 text (bytes that are not UTF-8 within bytes ${this.offset}–${this.offset + chunk.length}).`));
    }
    this.offset += chunk.length;
    if (text.includes('\u0000')) return done(new NotText('The file holds NUL characters: it is binary, not CSV text.'));
    done(null, text);
  }

  override _flush(done: TransformCallback): void {
    try {
      done(null, this.decoder.decode());
    } catch {
      done(new NotText('The file ends in the middle of a UTF-8 character.'));
    }
  }
}

/**
 * The records of the CSV read from `input` (the header row first), as arrays of strings, in batches: those the parser
 * has ready each time it is read (a chunk of the file's worth), so that the cost of waiting for them (promises, an
 * async step) is paid per batch and not per record — per record it was a tenth of an import's time.
 */
export async function* csvBatches(input: Readable): AsyncGenerator<string[][]> {
  const text = new Utf8Text();
  // Any line ending, even mixed in one file (spreadsheets write CRLF, a row pasted in later may end in LF).
  const parser = parse({ relax_column_count: true, skip_empty_lines: true, max_record_size: MAX_RECORD_CHARS, record_delimiter: ['\r\n', '\n', '\r'] });
  let failure: unknown;
  let ended = false;
  let wake: (() => void) | undefined;
  const signal = () => {
    wake?.();
    wake = undefined;
  };
  // Listened to from the start, not only while waiting: an error with no listener would end the process.
  parser.on('readable', signal);
  parser.on('end', () => {
    ended = true;
    signal();
  });
  parser.on('error', (err) => {
    failure ??= err;
    signal();
  });
  input.on('error', (err) => parser.destroy(err));
  text.on('error', (err) => parser.destroy(err));
  input.pipe(text).pipe(parser);
  try {
    for (;;) {
      if (failure) throw failure;
      const batch: string[][] = [];
      for (let record = parser.read() as string[] | null; record !== null; record = parser.read() as string[] | null) batch.push(record);
      if (batch.length > 0) yield batch;
      else if (ended) return;
      else await new Promise<void>((resolve) => (wake = resolve));
    }
  } catch (err) {
    if (err instanceof CsvError) throw new MalformedCsv(`The file is not valid CSV: ${err.message}`);
    throw err;
  } finally {
    input.destroy();
    text.destroy();
    parser.destroy();
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
 * bytes for line ends outside quotes, as `csvRecords` splits records (blank lines skipped), without parsing cells:
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
