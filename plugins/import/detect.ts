import type { DetectedType } from './schemas.ts';

/** Values shown per column in a dry run. */
const SAMPLES = 5;
/** Longer than a text field takes: long_text. */
const TEXT_MAX = 10_000;

const NUMBER = /^[+-]?(?:(?:0|[1-9][0-9]*)(?:\.[0-9]+)?|\.[0-9]+|[1-9][0-9]{0,2}(?:,[0-9]{3})+(?:\.[0-9]+)?)$/;
const DATE = /^([0-9]{4})-([0-9]{2})-([0-9]{2})$/;
const DATETIME = /^[0-9]{4}-[0-9]{2}-[0-9]{2}[T ][0-9]{2}:[0-9]{2}(?::[0-9]{2}(?:\.[0-9]{1,6})?)?(?:Z|[+-][0-9]{2}:?[0-9]{2})?$/i;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const URL_TEXT = /^https?:\/\/[^\s/?#]+\S*$/i;
const CHECK_WORDS = new Set(['true', 'false', 'yes', 'no', 'y', 'n', 'checked', 'unchecked', 'x', 'on', 'off', '✓', '✔']);

/** A decimal a number field keeps digit for digit: no leading zeros (codes, ZIPs), below 10^15, at most 15 significant digits. */
function exactNumber(s: string): boolean {
  if (!NUMBER.test(s)) return false;
  const [int = '', frac = ''] = s.replace(/[+,-]/g, '').split('.');
  const whole = int.replace(/^0+/, '');
  if (whole.length > 15) return false;
  const fraction = frac.replace(/0+$/, '');
  return (whole.length > 0 ? whole.length + fraction.length : fraction.replace(/^0+/, '').length) <= 15;
}

function realDate(s: string): boolean {
  const m = DATE.exec(s);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const day = new Date(Date.UTC(y, mo - 1, d));
  return y >= 1 && day.getUTCMonth() === mo - 1 && day.getUTCDate() === d;
}

/**
 * What one column's values look like, value by value: each candidate type stays while every non-empty value
 * fits it. `number` only when each is an exact decimal without leading zeros; `checkbox` needs a word
 * (yes, true, x…), so a column of 0s and 1s is a number.
 */
export class ColumnDetector {
  readonly samples: string[] = [];
  private number = true;
  private date = true;
  private datetime = true;
  private checkbox = true;
  private checkWord = false;
  private email = true;
  private url = true;
  private long = false;
  private seen = false;

  see(text: string): void {
    const s = text.trim();
    if (s === '') return;
    this.seen = true;
    if (this.samples.length < SAMPLES) this.samples.push(text);
    if (this.number && !exactNumber(s)) this.number = false;
    if (this.date && !realDate(s)) this.date = false;
    if (this.datetime && !DATETIME.test(s)) this.datetime = false;
    if (this.checkbox) {
      const word = s.toLowerCase();
      if (CHECK_WORDS.has(word)) this.checkWord = true;
      else if (word !== '0' && word !== '1') this.checkbox = false;
    }
    if (this.email && !EMAIL.test(s)) this.email = false;
    if (this.url && !URL_TEXT.test(s)) this.url = false;
    if (!this.long && ([...text].length > TEXT_MAX || text.includes('\n'))) this.long = true;
  }

  get type(): DetectedType {
    if (!this.seen) return 'empty';
    if (this.checkbox && this.checkWord) return 'checkbox';
    if (this.number) return 'number';
    if (this.date) return 'date';
    if (this.datetime) return 'datetime';
    if (this.email) return 'email';
    if (this.url) return 'url';
    return this.long ? 'long_text' : 'text';
  }
}
