import type { TriggerData } from './actions.ts';

const WHOLE = /^\{\{\s*([a-z_]+(?:\.[A-Za-z0-9_]+)*)\s*\}\}$/;
const ANY = /\{\{\s*([a-z_]+(?:\.[A-Za-z0-9_]+)*)\s*\}\}/g;

/** What a placeholder path reads: `record.<api_name>` (the values after the write), `trigger.<path>` (before, after, body…). */
function lookup(path: string, trigger: TriggerData): unknown {
  const [root, ...rest] = path.split('.');
  let at: unknown = root === 'record' ? (trigger.after ?? trigger.before) : root === 'trigger' ? trigger : undefined;
  for (const key of rest) at = at !== null && typeof at === 'object' ? (at as Record<string, unknown>)[key] : undefined;
  return at;
}

function asText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/**
 * Fills `{{record.x}}` and `{{trigger.x}}` in every string of a config. A string that is one placeholder takes the
 * value as it is (a number stays a number, an unknown path is null); placeholders inside text become text.
 */
export function fill(value: unknown, trigger: TriggerData): unknown {
  if (typeof value === 'string') {
    const whole = WHOLE.exec(value);
    if (whole) return lookup(whole[1], trigger) ?? null;
    return value.replace(ANY, (_m, path: string) => asText(lookup(path, trigger)));
  }
  if (Array.isArray(value)) return value.map((v) => fill(v, trigger));
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fill(v, trigger)]));
  return value;
}
