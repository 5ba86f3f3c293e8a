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

function orderKinds(kinds: PackKind[]): PackKind[] {
  const byName = new Map<string, PackKind>();
  for (const k of kinds) {
    if (byName.has(k.kind)) throw new StartupError(`Pack kind "${k.kind}" is declared twice (by ${byName.get(k.kind)!.plugin} and ${k.plugin}).`, 'duplicate_hooks', [k.plugin]);
    byName.set(k.kind, k);
  }
  const out: PackKind[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (k: PackKind) => {
    if (state.get(k.kind) === 'done') return;
    if (state.get(k.kind) === 'visiting') throw new StartupError(`Pack kinds name each other in a cycle (at "${k.kind}").`, 'duplicate_hooks', [k.plugin]);
    state.set(k.kind, 'visiting');
    for (const dep of k.after) {
      const before = byName.get(dep);
      if (before) visit(before);
    }
    state.set(k.kind, 'done');
    out.push(k);
  };
  for (const k of kinds) visit(k);
  return out;
}
