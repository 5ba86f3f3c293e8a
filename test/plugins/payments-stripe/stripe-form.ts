/** A JSON object as Stripe sends and receives them; tests read into them freely. */
export type StripeObject = Record<string, any>;

/** Object trees whose keys are exactly 0..n-1 were arrays before encoding (`line_items[0][price]`). */
function restoreArrays(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value as StripeObject).map(([key, inner]) => [key, restoreArrays(inner)] as const);
  const isList = entries.length > 0 && entries.every(([key], index) => key === String(index));
  return isList ? entries.map(([, inner]) => inner) : Object.fromEntries(entries);
}

/**
 * A form body (or query) as the Stripe client encodes it, read back as Stripe's API does: `a[b][0][c]=v` nests, brackets
 * may be plain or percent-encoded, an empty `[]` appends, and every value stays a string (`confirm=true`, `amount=500`).
 */
export function parseStripeForm(text: string): StripeObject {
  const root: StripeObject = {};
  for (const [key, value] of new URLSearchParams(text)) {
    const [head, ...rest] = key.split('[');
    const path = [head, ...rest.map((segment) => segment.replace(/\]$/, ''))];
    let parent = root;
    path.forEach((segment, index) => {
      const name = segment === '' ? String(Object.keys(parent).length) : segment;
      if (index === path.length - 1) parent[name] = value;
      else parent = parent[name] = typeof parent[name] === 'object' ? parent[name] : {};
    });
  }
  return restoreArrays(root) as StripeObject;
}
