/**
 * RFC 4180 (what csv-stringify wrote with CRLF records and `quoted_match: /[\r\n]/`): a cell holding a comma, a quote
 * or a line break (CR or LF, alone or not) is quoted, its quotes doubled. Done here rather than in SQL, where the
 * test and the quoting would each evaluate the cell's expression again.
 */
const NEEDS_QUOTES = /[",\r\n]/;

/** Raw: every cell as its text form, whatever it starts with (machine consumers, round trips through import). */
export function rawCell(text: string): string {
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** What a spreadsheet reads as the start of a formula (OWASP "CSV injection"): `=`, `+`, `-`, `@`, tab, CR. */
function startsLikeFormula(text: string): boolean {
  const c = text.charCodeAt(0);
  return c === 0x3d || c === 0x2b || c === 0x2d || c === 0x40 || c === 0x09 || c === 0x0d;
}

/** A plain number (`-0.01`, `+5`): a spreadsheet reads it as that number and runs nothing, so it stays a number. */
const PLAIN_NUMBER = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)$/;

/**
 * Neutralised (the default, the OWASP rule): a cell a spreadsheet would run as a formula gets a leading `'`, so it is
 * read as text, and is quoted. A cell holding `;` or a tab is quoted too, so a spreadsheet that splits on those
 * (semicolon locales, tab sniffing) cannot start a new, formula-like cell inside it.
 */
export function neutralisedCell(text: string): string {
  if (startsLikeFormula(text) && !PLAIN_NUMBER.test(text)) return `"'${text.replaceAll('"', '""')}"`;
  return NEEDS_QUOTES.test(text) || text.includes(';') || text.includes('\t') ? `"${text.replaceAll('"', '""')}"` : text;
}
