import { AppError, invalidField } from '../../core/errors.ts';

/**
 * Refs handed out while a pack is exported: each exported resource gets `<kind>_<n>` in the order the owners
 * list them, so exporting the same content twice gives the same pack.
 */
export class ExportRefs {
  private readonly byKind = new Map<string, Map<string, string>>();
  private readonly counters = new Map<string, number>();

  /** The ref of a resource being exported (given on first ask). */
  ref(kind: string, id: string): string {
    let refs = this.byKind.get(kind);
    if (!refs) this.byKind.set(kind, (refs = new Map()));
    let ref = refs.get(id);
    if (!ref) {
      const n = (this.counters.get(kind) ?? 0) + 1;
      this.counters.set(kind, n);
      refs.set(id, (ref = `${kind}_${n}`));
    }
    return ref;
  }

  /** The ref of a resource exported already; undefined when it is outside the pack. */
  find(kind: string, id: string): string | undefined {
    return this.byKind.get(kind)?.get(id);
  }

  /** Takes a resource back out of the pack (a tap dropping what cannot travel: a lookup through a link that stays home). */
  forget(kind: string, id: string): void {
    this.byKind.get(kind)?.delete(id);
  }

  /** The id behind a ref handed out (for a tap reworking what an earlier tap exported). */
  idOf(kind: string, ref: string): string | undefined {
    for (const [id, r] of this.byKind.get(kind) ?? []) if (r === ref) return id;
    return undefined;
  }

  /** The ids of the resources of a kind in the pack, in export order. */
  ids(kind: string): string[] {
    return [...(this.byKind.get(kind)?.keys() ?? [])];
  }
}

/**
 * Thrown by `InstallRefs.id` when a resource names one that could not be installed: it is skipped, not reported twice
 * (the problem is the other one's). An AppError, so that it passes through the hooks as it is.
 */
export class DependsOnFailed extends AppError {
  constructor(kind: string, ref: string) {
    super({ status: 422, code: 'validation_failed', title: 'Unprocessable Content', detail: `Depends on ${kind} ${JSON.stringify(ref)}, which cannot be installed.` });
  }
}

/** Refs of the pack being installed and the ids they became. */
export class InstallRefs {
  private readonly ids = new Map<string, string>();
  private readonly failed = new Set<string>();

  constructor(private readonly declared: Set<string>) {}

  static key(kind: string, ref: string): string {
    return `${kind}\u0000${ref}`;
  }

  /**
   * The id a ref became. `pointer` (inside the resource) locates the reference in the problem reported when the pack
   * has no such resource.
   */
  id(kind: string, ref: unknown, pointer: string): string {
    const key = InstallRefs.key(kind, String(ref));
    const id = typeof ref === 'string' ? this.ids.get(key) : undefined;
    if (id) return id;
    if (typeof ref === 'string' && this.failed.has(key)) throw new DependsOnFailed(kind, ref);
    // Not made yet: it comes later in the pack (a child listed before its parent, or a cycle).
    if (typeof ref === 'string' && this.declared.has(key)) throw invalidField(pointer, `The ${kind} ${JSON.stringify(ref)} comes later in the pack: list it before what names it.`);
    throw invalidField(pointer, `No ${kind} with ref ${JSON.stringify(ref)} in the pack.`);
  }

  /** The id, or undefined when the ref names nothing installed (for optional references). */
  find(kind: string, ref: string): string | undefined {
    return this.ids.get(InstallRefs.key(kind, ref));
  }

  set(kind: string, ref: string, id: string): void {
    this.ids.set(InstallRefs.key(kind, ref), id);
  }

  fail(kind: string, ref: string): void {
    this.failed.add(InstallRefs.key(kind, ref));
  }
}
