import type { Plugin } from './plugin.ts';
import type { KernelConfig } from './config.ts';
import type { Database } from './db.ts';
import type { PluginStatus } from './kernel.ts';

/** What a test kernel does about templates: start from one, copy its own database after migrating, or neither. */
export interface TemplateUse {
  /** A PGlite cluster dump as a kernel of the same key left it right after migrating. */
  template?: Blob;
  /** The kernel's `onMigrated`. */
  capture?: (database: Database, statuses: readonly PluginStatus[]) => Promise<void>;
  /** Once the kernel started or failed: a kernel that failed before capturing leaves the copy to the next one. */
  done(): void;
}

const pluginIds = new WeakMap<Plugin, number>();
let nextPluginId = 1;

/**
 * Which migrations and job queues a kernel sets up: its plugin objects (by identity: the same objects register the
 * same jobs) and the configuration that enables or resolves them. Options are left out: migrations do not read them,
 * so kernels that differ only in options share a template. Options can make a plugin fail to register, though, and
 * a failed plugin does not migrate: a kernel started from a template that then finds a plugin failed is started
 * again without one (`TemplateMismatch`).
 */
export function migrationsKey(plugins: readonly Plugin[], config: KernelConfig): string {
  const ids = plugins.map((p) => {
    if (!pluginIds.has(p)) pluginIds.set(p, nextPluginId++);
    return pluginIds.get(p);
  });
  const wiring = Object.entries(config.plugins)
    .filter(([, c]) => c.enabled !== undefined || c.resolve !== undefined)
    .map(([id, c]) => [id, c.enabled, c.resolve])
    .sort();
  return JSON.stringify([ids, wiring, config.baseDir]);
}

/** A kernel started from a template had a plugin fail: the template holds what that plugin would not have migrated. */
export class TemplateMismatch extends Error {
  constructor() {
    super('a plugin of a kernel started from a migrated template failed: it is started again without the template');
  }
}

/** Every plugin of the kernel came through migration: a copy of its database is what any kernel of its key starts from. */
export function allMigrated(statuses: readonly PluginStatus[]): boolean {
  return !statuses.some((s) => s.state === 'failed');
}

/**
 * Starting points for PGlite test kernels. Running every migration is a large part of a test kernel's
 * start: the second kernel of a key (the first, for a common one) dumps its cluster once it has migrated, and later
 * kernels of that key start from the dump and find nothing left to migrate. A key seen once costs no dump.
 */
export class PgliteTemplates {
  private readonly sightings = new Map<string, number>();
  /** `null`: no dump was taken; the kernels that waited for it migrate. */
  private readonly templates = new Map<string, Promise<Blob | null>>();

  /** `common`: a key most kernels share (the default plugins), dumped by its first kernel rather than its second. */
  async use(key: string, common = false): Promise<TemplateUse> {
    const template = this.templates.get(key);
    if (template) return { template: (await template) ?? undefined, done: () => {} };
    const seen = (this.sightings.get(key) ?? 0) + 1;
    this.sightings.set(key, seen);
    if (seen < 2 && !common) return { done: () => {} };
    let settle!: (t: Blob | null) => void;
    let captured = false;
    this.templates.set(key, new Promise((resolve) => (settle = resolve)));
    return {
      capture: async (database, statuses) => {
        captured = true;
        // A kernel whose options failed a plugin leaves the copy to the next kernel of its key.
        if (!allMigrated(statuses)) this.release(key);
        settle(!allMigrated(statuses) || !database.dumpCluster ? null : await database.dumpCluster().catch(() => null));
      },
      done: () => {
        if (captured) return;
        this.templates.delete(key);
        settle(null);
      },
    };
  }

  private release(key: string): void {
    this.templates.delete(key);
    this.sightings.set(key, 1);
  }
}
