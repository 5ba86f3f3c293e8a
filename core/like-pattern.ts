/** `text` for a LIKE/ILIKE pattern (with the default `\` escape): its own `%`, `_` and `\` taken literally. */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, '\\$&');
}

/** An ILIKE pattern matching `text` anywhere. */
export function containsPattern(text: string): string {
  return `%${escapeLike(text)}%`;
}
