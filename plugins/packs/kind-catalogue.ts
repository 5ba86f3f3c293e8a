import { StartupError } from '../../core/errors.ts';
import type { PackHooks, PackKind } from './hooks.ts';

/** The kinds the enabled plugins declared, in the order they install (a kind after every kind it names). */
export class KindCatalogue {
  private ordered: PackKind[] | undefined;

  constructor(private readonly hooks: PackHooks) {}

  /** Asked once every plugin has registered its taps. */
  all(): PackKind[] {
    return (this.ordered ??= orderKinds(this.hooks.kinds.call([])));
  }

  get(kind: string): PackKind | undefined {
    return this.all().find((k) => k.kind === kind);
  }
}

/**
 * Kahn's order: a kind once every kind it names is placed; among those ready, by name. The order does not depend on
 * which plugin registered first, so a pack lists its kinds the same way on every instance.
 */
function orderKinds(kinds: PackKind[]): PackKind[] {
  const byName = new Map<string, PackKind>();
  for (const k of kinds) {
    if (byName.has(k.kind)) throw new StartupError(`Pack kind "${k.kind}" is declared twice (by ${byName.get(k.kind)!.plugin} and ${k.plugin}).`, 'duplicate_hooks', [k.plugin]);
    byName.set(k.kind, k);
  }
  const out: PackKind[] = [];
  const placed = new Set<string>();
  const waiting = new Set(byName.keys());
  while (waiting.size > 0) {
    const ready = [...waiting].filter((name) => byName.get(name)!.after.every((dep) => placed.has(dep) || !byName.has(dep))).sort();
    if (ready.length === 0) {
      const stuck = [...waiting].sort()[0];
      throw new StartupError(`Pack kinds name each other in a cycle (at "${stuck}").`, 'duplicate_hooks', [byName.get(stuck)!.plugin]);
    }
    const next = ready[0];
    out.push(byName.get(next)!);
    placed.add(next);
    waiting.delete(next);
  }
  return out;
}
