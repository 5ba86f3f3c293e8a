/** The text is not well-formed CSV (an unclosed quote, a record too long): a problem of the file, at a line. */
export class MalformedCsv extends Error {}

const COMMA = 0x2c;
const QUOTE = 0x22;
const CR = 0x0d;
const LF = 0x0a;

/** Where the splitter is: between fields, in a field without quotes, inside quotes, or just after a quote inside quotes. */
const FIELD_START = 0;
const PLAIN = 1;
const QUOTED = 2;
const QUOTE_IN_QUOTED = 3;
type At = typeof FIELD_START | typeof PLAIN | typeof QUOTED | typeof QUOTE_IN_QUOTED;

/**
 * RFC 4180 records out of text given piece by piece (a file read chunk after chunk): fields separated by commas,
 * quoted fields holding commas, line breaks and doubled quotes. Any line ending ends a record (CRLF, LF, CR, mixed in
 * one file); lines with nothing on them are skipped, so the LF of a CRLF split between two pieces ends nothing more.
 * Records may have any number of fields (the import says which rows differ from the header). A quote inside a field
 * that does not start with one, text after a closing quote, an unclosed quote and a record of more than `maxChars`
 * characters are malformed CSV. Written here rather than taken from `csv-parse`, whose per-character machinery was
 * the largest part of reading an import's file: this scans for the next comma, quote or line break with `indexOf`
 * and `charCodeAt` and copies whole runs of text.
 */
export class CsvSplitter {
  private at: At = FIELD_START;
  private record: string[] = [];
  /** The current field's text so far (it may span pieces). */
  private field = '';
  /** Whether the last field of the current record was quoted: `""` alone on a line is a record of one empty field. */
  private quoted = false;
  /** Characters in the current record so far, its current field included. */
  private chars = 0;
  /** The line (1-based) the scan is on, for messages; a CR directly followed by LF is one line break. */
  private line = 1;
  private afterCr = false;

  constructor(private readonly maxChars: number) {}

  /** The records that `text` completes, in order. */
  push(text: string): string[][] {
    const out: string[][] = [];
    const n = text.length;
    let i = 0;
    while (i < n) {
      if (this.at === QUOTED) {
        const close = text.indexOf('"', i);
        const end = close === -1 ? n : close;
        this.countLines(text, i, end);
        this.append(text, i, end);
        if (close === -1) return out;
        this.afterCr = false;
        this.at = QUOTE_IN_QUOTED;
        i = close + 1;
      } else if (this.at === QUOTE_IN_QUOTED) {
        const c = text.charCodeAt(i);
        if (c === QUOTE) {
          this.append(text, i, i + 1);
          this.afterCr = false;
          this.at = QUOTED;
          i++;
        } else if (c === COMMA || c === CR || c === LF) {
          i = this.separator(c, i, out);
        } else {
          throw new MalformedCsv(`The file is not valid CSV: a quoted field is followed by "${text[i]}" on line ${this.line}, where a comma or a line break must come (a quote inside a quoted field is written twice).`);
        }
      } else if (this.at === FIELD_START && text.charCodeAt(i) === QUOTE) {
        this.at = QUOTED;
        this.quoted = true;
        this.afterCr = false;
        i++;
      } else {
        let j = i;
        let c = 0;
        for (; j < n; j++) {
          c = text.charCodeAt(j);
          if (c === COMMA || c === CR || c === LF || c === QUOTE) break;
        }
        if (j > i) {
          this.append(text, i, j);
          this.afterCr = false;
        }
        this.at = PLAIN;
        if (j === n) return out;
        if (c === QUOTE) throw new MalformedCsv(`The file is not valid CSV: a quote inside a field that does not start with one, on line ${this.line} (quote the whole field and write its quotes twice).`);
        i = this.separator(c, j, out);
      }
    }
    return out;
  }

  /** The last record, when the text does not end with a line break; an unclosed quote is malformed CSV. */
  end(): string[][] {
    if (this.at === QUOTED) throw new MalformedCsv(`The file is not valid CSV: a quote opened on or before line ${this.line} is never closed.`);
    if (this.record.length === 0 && this.field === '' && !this.quoted) return [];
    this.record.push(this.field);
    const last = this.record;
    this.reset();
    return [last];
  }

  /** A comma or a line break at `i` (outside quotes): ends the field, and the record on a line break; the index after it. */
  private separator(c: number, i: number, out: string[][]): number {
    if (c === COMMA) {
      this.record.push(this.field);
      this.field = '';
      this.quoted = false;
      this.at = FIELD_START;
      this.afterCr = false;
      return i + 1;
    }
    if (c === LF && this.afterCr) this.afterCr = false;
    else {
      this.line++;
      this.afterCr = c === CR;
    }
    // Nothing on the line (no field, no quotes): a blank line, or the LF of a CRLF.
    if (this.record.length > 0 || this.field !== '' || this.quoted) {
      this.record.push(this.field);
      out.push(this.record);
    }
    this.reset();
    return i + 1;
  }

  private reset(): void {
    this.record = [];
    this.field = '';
    this.quoted = false;
    this.chars = 0;
    this.at = FIELD_START;
  }

  private append(text: string, from: number, to: number): void {
    if (to === from) return;
    this.chars += to - from;
    if (this.chars > this.maxChars) throw new MalformedCsv(`The file is not valid CSV: the record on line ${this.line} is longer than ${this.maxChars} characters (an unclosed quote?).`);
    this.field = this.field === '' ? text.slice(from, to) : this.field + text.slice(from, to);
  }

  /** Counts the line breaks in `text` from `from` to `to` (inside quotes: part of a field, but lines all the same). */
  private countLines(text: string, from: number, to: number): void {
    for (let k = from; k < to; k++) {
      const c = text.charCodeAt(k);
      if (c === LF && this.afterCr) this.afterCr = false;
      else if (c === LF || c === CR) {
        this.line++;
        this.afterCr = c === CR;
      } else this.afterCr = false;
    }
  }
}
