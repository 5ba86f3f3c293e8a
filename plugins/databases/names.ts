/** Physical names: derived from ids, never from what users type, so DDL never quotes user text. */
export function tableNameOf(databaseId: string): string {
  return `rec_${databaseId.replace(/-/g, '')}`;
}

export function columnNameOf(fieldId: string): string {
  return `f_${fieldId.replace(/-/g, '')}`;
}

const MAX_API_NAME = 63;

/**
 * `Due date (UTC)` → `due_date_utc`: lower-case ASCII letters, digits and underscores,
 * starting with a letter; `taken` decides the `_2`, `_3`… suffix.
 */
export function deriveApiName(name: string, taken: (candidate: string) => boolean): string {
  let base = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
  if (!base) base = 'field';
  if (!/^[a-z]/.test(base)) base = `f_${base}`;
  base = base.slice(0, MAX_API_NAME);
  if (!taken(base)) return base;
  for (let n = 2; ; n++) {
    const suffix = `_${n}`;
    const candidate = `${base.slice(0, MAX_API_NAME - suffix.length)}${suffix}`;
    if (!taken(candidate)) return candidate;
  }
}

/** An `api_name` a client may choose: the same alphabet as derived ones. */
export const API_NAME_PATTERN = '^[a-z][a-z0-9_]{0,62}$';
