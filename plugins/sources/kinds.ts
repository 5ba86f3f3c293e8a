import { StartupError } from '../../core/errors.ts';
import type { SourceKind, SourceKindHooks, SourceProperty } from './hooks.ts';

const KIND_ID = /^[a-z][a-z0-9_]*\.[a-z][a-z0-9_]*$/;

/** The kinds provider plugins add to `sources.kinds`, read once at boot: one declared wrongly stops the start. */
export class SourceKinds {
  private byId: Map<string, SourceKind> | null = null;

  constructor(private readonly hooks: SourceKindHooks) {}

  all(): SourceKind[] {
    return [...this.read().values()];
  }

  find(id: string): SourceKind | undefined {
    return this.read().get(id);
  }

  private read(): Map<string, SourceKind> {
    if (this.byId) return this.byId;
    const byId = new Map<string, SourceKind>();
    for (const kind of this.hooks.kinds.call([])) {
      if (!KIND_ID.test(kind.id)) throw new StartupError(`Source kind "${kind.id}" is not <provider>.<things> in lower case.`, 'plugin_invalid');
      if (byId.has(kind.id)) throw new StartupError(`Source kind "${kind.id}" is added twice.`, 'plugin_invalid');
      byId.set(kind.id, kind);
    }
    this.byId = byId;
    return byId;
  }
}

/** Why a kind's properties cannot make a database: no unique one or several, a key twice, a key no api_name can be. */
export function propertiesProblem(properties: SourceProperty[]): string | null {
  const unique = properties.filter((p) => p.unique);
  if (unique.length !== 1) return `A source's properties must have exactly one unique property; these have ${unique.length}.`;
  const keys = new Set<string>();
  for (const p of properties) {
    if (keys.has(p.key)) return `The property "${p.key}" is offered twice.`;
    keys.add(p.key);
  }
  return null;
}
