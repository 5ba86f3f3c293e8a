import assert from 'node:assert/strict';
import { parse } from 'csv-parse/sync';
import { CsvSplitter, MalformedCsv } from '../../../plugins/import/csv-split.ts';
import { storageIndependent } from '../../fixtures/suite-runs.ts';

/** The records of `text` given to the splitter in pieces cut at `cuts`, or the malformed-CSV message. */
function split(text: string, cuts: number[], maxChars = 1000): string[][] | string {
  const splitter = new CsvSplitter(maxChars);
  const out: string[][] = [];
  try {
    let from = 0;
    for (const cut of [...cuts, text.length]) {
      out.push(...splitter.push(text.slice(from, cut)));
      from = cut;
    }
    out.push(...splitter.end());
    return out;
  } catch (err) {
    if (err instanceof MalformedCsv) return err.message;
    throw err;
  }
}

/** What csv-parse made of the same text with the options the import used before (the reference), or 'malformed'. */
function reference(text: string): string[][] | 'malformed' {
  try {
    return parse(text, { relax_column_count: true, skip_empty_lines: true, record_delimiter: ['\r\n', '\n', '\r'] }) as string[][];
  } catch {
    return 'malformed';
  }
}

/** A deterministic pseudo-random generator (a failing case can be replayed from its seed). */
function lcg(seed: number): () => number {
  let x = seed;
  return () => {
    x = (x * 1103515245 + 12345) % 2147483648;
    return x / 2147483648;
  };
}

describe('import: the CSV splitter', function () {
  storageIndependent();
  it('reads quoted fields with commas, doubled quotes and line breaks, any line ending, and skips blank lines', () => {
    const text = 'Name,Code\r\n"Line one\nline two","a ""quoted"", b"\r\n\r\nplain,x\rlast,"",\n\n"",\n""';
    assert.deepEqual(split(text, []), [['Name', 'Code'], ['Line one\nline two', 'a "quoted", b'], ['plain', 'x'], ['last', '', ''], ['', ''], ['']]);
  });

  it('gives the same records however the text is cut into pieces, a CRLF or a doubled quote split included', () => {
    const text = 'a,"b""c"\r\n"d\r\ne",f\r\ng,h';
    const whole = split(text, []);
    for (let cut = 0; cut <= text.length; cut++) assert.deepEqual(split(text, [cut]), whole, `cut at ${cut}`);
  });

  it('refuses an unclosed quote, a quote inside an unquoted field, text after a closing quote and a record too long', () => {
    assert.match(split('Name\n"unclosed\n', []) as string, /never closed/);
    assert.match(split('a,b"c\n', []) as string, /quote inside a field that does not start with one, on line 1/);
    assert.match(split('a\n"b"c\n', []) as string, /followed by "c" on line 2/);
    assert.match(split(`${'x'.repeat(30)},${'y'.repeat(30)}\n`, [], 50) as string, /longer than 50 characters/);
    assert.deepEqual(split(`${'x'.repeat(20)},${'y'.repeat(20)}\n`, [], 50), [['x'.repeat(20), 'y'.repeat(20)]]);
  });

  it('splits 5,000 random texts as csv-parse did, in random pieces, and refuses the same malformed ones', () => {
    const random = lcg(18);
    const alphabet = ['a', 'b', ',', '"', '""', '\r', '\n', '\r\n', ' ', 'é'];
    for (let n = 0; n < 5000; n++) {
      const parts = Array.from({ length: Math.floor(random() * 24) }, () => alphabet[Math.floor(random() * alphabet.length)]);
      const text = parts.join('');
      const cuts = Array.from({ length: 3 }, () => Math.floor(random() * (text.length + 1))).sort((a, b) => a - b);
      const expected = reference(text);
      const got = split(text, cuts);
      if (expected === 'malformed') assert.equal(typeof got, 'string', `${JSON.stringify(text)} is malformed CSV, the splitter read ${JSON.stringify(got)}`);
      else assert.deepEqual(got, expected, JSON.stringify(text));
    }
  });
});
