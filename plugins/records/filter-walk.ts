import type { FieldMeta } from '../databases/public.ts';

/**
 * A filter AST with each condition (a node naming a `field`) replaced by `map`'s answer; a condition it answers
 * `undefined` for is dropped, and so is a group left empty by that (an empty group sent as such stays).
 */
export function mapFilterConditions(node: unknown, map: (condition: Record<string, unknown> & { field: string }) => unknown): unknown {
  if (!node || typeof node !== 'object' || Array.isArray(node)) return node;
  const n = node as Record<string, unknown>;
  for (const joiner of ['and', 'or'] as const) {
    if (!Array.isArray(n[joiner])) continue;
    const children = n[joiner] as unknown[];
    const kept = children.map((c) => mapFilterConditions(c, map)).filter((c) => c !== undefined);
    return kept.length === 0 && children.length > 0 ? undefined : { ...n, [joiner]: kept };
  }
  if ('not' in n) {
    const inner = mapFilterConditions(n.not, map);
    return inner === undefined ? undefined : { ...n, not: inner };
  }
  return typeof n.field === 'string' ? map(n as Record<string, unknown> & { field: string }) : node;
}

const SELECT_TYPES = new Set(['single_select', 'multi_select']);

/**
 * A filter condition with the option ids of a select field said by their labels, as a pack carries them (the filter
 * compiler takes either); a condition on any other field, or without a value, as it is.
 */
export function withOptionLabels<C extends Record<string, unknown>>(condition: C, field: Pick<FieldMeta, 'type' | 'options'> | undefined): C {
  if (!field || !SELECT_TYPES.has(field.type) || condition.value === undefined) return condition;
  const choices = (field.options as { choices?: Array<{ id: string; label: string }> }).choices ?? [];
  const label = (v: unknown) => choices.find((choice) => choice.id === v)?.label ?? v;
  return { ...condition, value: Array.isArray(condition.value) ? condition.value.map(label) : label(condition.value) };
}
