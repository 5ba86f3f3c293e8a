import { InvalidCell } from '../errors.ts';
import { sqlString, sqlTrim, trimText } from './sql.ts';

/**
 * What each text-like type accepts. One regex source serves JS and PostgreSQL (both read
 * `\t`, `\x3f`, `{0,1}` alike), so a conversion keeps exactly the values the API would accept.
 */
export interface TextRule {
  max: number;
  /** Surrounding whitespace is dropped (email, url, phone) rather than kept (text). */
  trim: boolean;
  pattern?: { source: string; ignoreCase?: boolean; message: string };
  /** Phone numbers need a digit somewhere. */
  needsDigit?: boolean;
}

const NOT_SPACE = '[^ \\t\\n\\r@]';

export const TEXT_RULES = {
  text: { max: 10_000, trim: false },
  long_text: { max: 100_000, trim: false },
  email: {
    max: 254,
    trim: true,
    pattern: { source: `^${NOT_SPACE}+@${NOT_SPACE}+\\.${NOT_SPACE}+$`, message: 'Must be an email address (name@example.com).' },
  },
  url: {
    max: 2048,
    trim: true,
    pattern: { source: '^(http|https)://[^ \\t\\n\\r/\\x3f#]+([/\\x3f#][^ \\t\\n\\r]*){0,1}$', ignoreCase: true, message: 'Must be an http:// or https:// URL.' },
  },
  phone: {
    max: 50,
    trim: true,
    pattern: { source: '^[0-9+(). -]+$', message: 'Must be a phone number: digits, spaces and + - ( ) . only.' },
    needsDigit: true,
  },
} satisfies Record<string, TextRule>;

const compiled = new Map<string, RegExp>();
function regexOf(pattern: NonNullable<TextRule['pattern']>): RegExp {
  let re = compiled.get(pattern.source);
  if (!re) compiled.set(pattern.source, (re = new RegExp(pattern.source, pattern.ignoreCase ? 'i' : '')));
  return re;
}

/** Code points, as PostgreSQL's char_length counts them. */
function lengthOf(text: string): number {
  return text.length - (text.match(/[\uD800-\uDBFF][\uDC00-\uDFFF]/g)?.length ?? 0);
}

/** An API string → the stored text, or null for an empty string. Throws InvalidCell. */
export function checkText(rule: TextRule, value: unknown): string | null {
  if (typeof value !== 'string') throw new InvalidCell('Must be a string.');
  const text = rule.trim ? trimText(value) : value;
  if (text === '') return null;
  if (text.includes('\u0000')) throw new InvalidCell('Must not contain NUL characters.');
  if (text.length > rule.max && lengthOf(text) > rule.max) throw new InvalidCell(`Must be at most ${rule.max} characters.`);
  if (rule.pattern && !regexOf(rule.pattern).test(text)) throw new InvalidCell(rule.pattern.message);
  if (rule.needsDigit && !/[0-9]/.test(text)) throw new InvalidCell(rule.pattern?.message ?? 'Must contain a digit.');
  return text;
}

/** SQL twin of `checkText`: the text of `expr` when the rule accepts it, else NULL. */
export function textSql(rule: TextRule, expr: string): string {
  const s = rule.trim ? sqlTrim(expr) : expr;
  const checks = [`${s} <> ''`, `char_length(${s}) <= ${rule.max}`];
  if (rule.pattern) checks.push(`${s} ${rule.pattern.ignoreCase ? '~*' : '~'} ${sqlString(rule.pattern.source)}`);
  if (rule.needsDigit) checks.push(`${s} ~ '[0-9]'`);
  return `CASE WHEN ${checks.join(' AND ')} THEN ${s} END`;
}
