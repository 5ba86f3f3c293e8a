/**
 * What a source's query may be: one SELECT (or WITH … SELECT) statement, which the plugin wraps as a subquery. This is
 * a courtesy that names the mistake; the guard against writes is the read-only session the query runs in.
 */

const IDENT = '[A-Za-z0-9_$\\u0080-\\uffff]';
const IDENT_CHAR = new RegExp(IDENT);
const DOLLAR_TAG = /\$([A-Za-z_\u0080-\uffff][A-Za-z0-9_\u0080-\uffff]*)?\$/y;
const PARAMETER = new RegExp(`(?<!${IDENT})\\$[0-9]`);
const LEADING_KEYWORD = new RegExp(`^[\\s(]*(select|with)(?!${IDENT})`, 'i');

class Unreadable extends Error {}

const isIdentChar = (c: string | undefined) => c !== undefined && IDENT_CHAR.test(c);

/** Where the quoted text opened at `start` ends (past its closing quote); `''`-style doubling escapes the quote. */
function closingQuote(sql: string, start: number, quote: string, backslashEscapes: boolean): number {
  for (let i = start + 1; i < sql.length; i++) {
    if (backslashEscapes && sql[i] === '\\') i++;
    else if (sql[i] === quote) {
      if (sql[i + 1] !== quote) return i + 1;
      i++;
    }
  }
  throw new Unreadable(quote === '"' ? 'a quoted identifier is not closed' : 'a string is not closed');
}

function closingComment(sql: string, start: number): number {
  let depth = 0;
  for (let i = start; i < sql.length - 1; i++) {
    if (sql.startsWith('/*', i)) {
      depth++;
      i++;
    } else if (sql.startsWith('*/', i)) {
      depth--;
      i++;
      if (depth === 0) return i + 1;
    }
  }
  throw new Unreadable('a /* comment is not closed');
}

/** Where the token starting at `i` ends, if it is a literal, a quoted identifier or a comment; else undefined. */
function skippable(sql: string, i: number): number | undefined {
  const c = sql[i];
  if (c === '-' && sql[i + 1] === '-') {
    const end = sql.indexOf('\n', i);
    return end === -1 ? sql.length : end;
  }
  if (c === '/' && sql[i + 1] === '*') return closingComment(sql, i);
  // E'…' takes backslash escapes; the E must start a token, not end an identifier.
  if (c === "'") return closingQuote(sql, i, "'", /[eE]/.test(sql[i - 1] ?? '') && !isIdentChar(sql[i - 2]));
  if (c === '"') return closingQuote(sql, i, '"', false);
  if (c === '$' && !isIdentChar(sql[i - 1])) {
    DOLLAR_TAG.lastIndex = i;
    const tag = DOLLAR_TAG.exec(sql)?.[0];
    if (tag) {
      const end = sql.indexOf(tag, i + tag.length);
      if (end === -1) throw new Unreadable(`a ${tag} string is not closed`);
      return end + tag.length;
    }
  }
  return undefined;
}

/** The query with its literals, quoted identifiers and comments blanked out, so what is left is its code. */
function codeOf(sql: string): string {
  let code = '';
  for (let i = 0; i < sql.length; ) {
    const end = skippable(sql, i);
    if (end === undefined) code += sql[i++];
    else {
      code += ' '.repeat(end - i);
      i = end;
    }
  }
  return code;
}

/** Why `query` cannot be a source's query, or undefined when it can. */
export function queryProblem(query: string): string | undefined {
  let code: string;
  try {
    code = codeOf(query);
  } catch (err) {
    if (err instanceof Unreadable) return `The query cannot be read: ${err.message}.`;
    throw err;
  }
  if (code.includes(';')) return 'The query must be one statement, without a semicolon (outside quotes).';
  if (PARAMETER.test(code)) return 'The query cannot have parameters ($1, $2, …).';
  let depth = 0;
  for (const c of code) {
    if (c === '(') depth++;
    else if (c === ')' && --depth < 0) return 'The query closes a parenthesis it did not open.';
  }
  if (depth !== 0) return 'The query leaves a parenthesis open.';
  if (!LEADING_KEYWORD.test(code)) return 'The query must be a SELECT (or WITH … SELECT) statement.';
  return undefined;
}
