/** What a record's entry needs of one of its fields. */
export interface TextField {
  api_name: string;
  type: string;
  is_title: boolean;
}

/** Types whose cell is the user's own words; a select's are its chosen labels. */
const WORDS = new Set(['text', 'long_text', 'email', 'url', 'phone']);
const LABELS = new Set(['single_select', 'multi_select']);

/**
 * Characters of a body kept in the index: a long text up to 100,000 characters stays searchable by its beginning,
 * and no row's tsvector nears PostgreSQL's 1 MB limit.
 */
export const MAX_BODY = 20_000;

/**
 * Fields read into the index. Links, lookups and other fields reaching another database are left out: their text
 * belongs to records a reader of this database may not see. People cells are left out too: the index holds no
 * member's name, so an erased member's name is never in it.
 */
export function indexedField(field: TextField): boolean {
  return field.is_title || WORDS.has(field.type) || LABELS.has(field.type);
}

function cellText(type: string, value: unknown): string {
  if (value === null || value === undefined) return '';
  if (LABELS.has(type)) {
    const chosen = Array.isArray(value) ? value : [value];
    return chosen.map((c) => (c && typeof c === 'object' && typeof (c as { label?: unknown }).label === 'string' ? (c as { label: string }).label : '')).join(' ');
  }
  if (typeof value === 'string') return value;
  return typeof value === 'number' || typeof value === 'boolean' ? String(value) : '';
}

/** A record's title (its title field as text) and body (every other indexed cell, one per line). */
export function recordText(fields: TextField[], values: Record<string, unknown>): { title: string; body: string } {
  let title = '';
  const body: string[] = [];
  for (const field of fields) {
    if (!indexedField(field)) continue;
    const text = cellText(field.type, values[field.api_name]);
    if (field.is_title) title = text;
    else if (text !== '' && (WORDS.has(field.type) || LABELS.has(field.type))) body.push(text);
  }
  return { title, body: body.join('\n').slice(0, MAX_BODY) };
}
