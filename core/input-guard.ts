import type { ErrorDetail } from './errors.ts';

/**
 * How deep a request's JSON may nest. The deepest real bodies (filter trees inside views) stay far below;
 * past this, recursive code (schema checks, canonical JSON for idempotency) would risk the stack.
 */
export const MAX_INPUT_DEPTH = 64;

/** A high surrogate not followed by a low one, or a low one not preceded by a high one. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

const escapeToken = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');

function badText(text: string): string | null {
  if (text.includes('\u0000')) return 'must not contain the NUL character (U+0000).';
  if (LONE_SURROGATE.test(text)) return 'must not contain a lone UTF-16 surrogate (it is not valid Unicode).';
  return null;
}

/**
 * The first place in a parsed request value that no route may store: NUL characters and lone surrogates
 * (PostgreSQL text and jsonb cannot hold them) in strings or keys, and nesting past MAX_INPUT_DEPTH.
 * Walks with a stack of its own so a hostile depth cannot exhaust the call stack.
 */
export function findHostileInput(value: unknown, base = ''): ErrorDetail | null {
  const stack: Array<{ value: unknown; pointer: string; depth: number }> = [{ value, pointer: base, depth: 0 }];
  while (stack.length > 0) {
    const item = stack.pop()!;
    if (typeof item.value === 'string') {
      const problem = badText(item.value);
      if (problem) return { pointer: item.pointer, detail: `The text ${problem}` };
      continue;
    }
    if (item.value === null || typeof item.value !== 'object') continue;
    if (item.depth >= MAX_INPUT_DEPTH) return { pointer: item.pointer, detail: `The value nests deeper than ${MAX_INPUT_DEPTH} levels.` };
    const entries: Array<[string, unknown]> = Array.isArray(item.value) ? item.value.map((v, i) => [String(i), v]) : Object.entries(item.value);
    for (const [key, child] of entries) {
      const pointer = `${item.pointer}/${escapeToken(key)}`;
      const problem = badText(key);
      if (problem) return { pointer, detail: `The member name ${problem}` };
      stack.push({ value: child, pointer, depth: item.depth + 1 });
    }
  }
  return null;
}
