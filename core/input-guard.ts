import type { ErrorDetail } from './errors.ts';

/**
 * How deep a request's JSON may nest. The deepest real bodies (filter trees inside views) stay far below;
 * past this, recursive code (schema checks, canonical JSON for idempotency) would risk the stack.
 */
export const MAX_INPUT_DEPTH = 64;

/** A high surrogate not followed by a low one, or a low one not preceded by a high one. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

const escapeToken = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');

/** NUL or any surrogate: one scan rules out almost every string, the exact checks run on the rest. */
const SUSPECT = /[\u0000\uD800-\uDFFF]/;

function badText(text: string): string | null {
  if (!SUSPECT.test(text)) return null;
  if (text.includes('\u0000')) return 'must not contain the NUL character (U+0000).';
  if (LONE_SURROGATE.test(text)) return 'must not contain a lone UTF-16 surrogate (it is not valid Unicode).';
  return null;
}

/** A place in the value being walked; its pointer is spelled out only when something is wrong there. */
interface Place {
  value: unknown;
  parent: Place | null;
  key: string;
  depth: number;
}

function pointerOf(place: Place, base: string): string {
  const keys: string[] = [];
  for (let p: Place | null = place; p && p.parent; p = p.parent) keys.push(escapeToken(p.key));
  return base + keys.reverse().map((k) => `/${k}`).join('');
}

/**
 * The first place in a parsed request value that no route may store: NUL characters and lone surrogates
 * (PostgreSQL text and jsonb cannot hold them) in strings or keys, and nesting past MAX_INPUT_DEPTH.
 * Walks with a stack of its own so a hostile depth cannot exhaust the call stack. It runs on every
 * request body, so it allocates one small record per container and per string, and no pointer text
 * until it finds a fault (bench/input-guard.ts measures it).
 */
export function findHostileInput(value: unknown, base = ''): ErrorDetail | null {
  const stack: Place[] = [{ value, parent: null, key: '', depth: 0 }];
  while (stack.length > 0) {
    const place = stack.pop()!;
    const v = place.value;
    if (typeof v === 'string') {
      const problem = badText(v);
      if (problem) return { pointer: pointerOf(place, base), detail: `The text ${problem}` };
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    if (place.depth >= MAX_INPUT_DEPTH) return { pointer: pointerOf(place, base), detail: `The value nests deeper than ${MAX_INPUT_DEPTH} levels.` };
    const depth = place.depth + 1;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i += 1) if (typeof v[i] === 'string' || (v[i] !== null && typeof v[i] === 'object')) stack.push({ value: v[i], parent: place, key: String(i), depth });
      continue;
    }
    for (const key in v) {
      if (!Object.prototype.hasOwnProperty.call(v, key)) continue;
      const problem = badText(key);
      if (problem) return { pointer: pointerOf({ value: undefined, parent: place, key, depth }, base), detail: `The member name ${problem}` };
      const child = (v as Record<string, unknown>)[key];
      if (typeof child === 'string' || (child !== null && typeof child === 'object')) stack.push({ value: child, parent: place, key, depth });
    }
  }
  return null;
}
