/** `name`, or `name (2)`, `name (3)`… : the first not in `taken` (lower-cased names). A collision never overwrites. */
export function uniqueName(name: string, taken: Iterable<string>, maxLength = 200): string {
  const used = new Set([...taken].map((n) => n.toLowerCase()));
  if (!used.has(name.toLowerCase())) return name;
  for (let n = 2; ; n += 1) {
    const suffix = ` (${n})`;
    const candidate = `${name.slice(0, maxLength - suffix.length)}${suffix}`;
    if (!used.has(candidate.toLowerCase())) return candidate;
  }
}
