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
 * Which migrations and job queues a kernel sets up: its plugin objects (by identity: the same
 * objects register the same jobs) and the configuration that enables, resolves or configures them.
 */
export function migrationsKey(plugins: readonly Plugin[], config: KernelConfig): string {
  const ids = plugins.map((p) => {
    if (!pluginIds.has(p)) pluginIds.set(p, nextPluginId++);
    return pluginIds.get(p);
  });
  return JSON.stringify([ids, config.plugins, config.baseDir]);
}

/**
 * Starting points for PGlite test kernels. Running every migration is a large part of a test kernel's
 * start: the second kernel of a key dumps its cluster once it has migrated, and later kernels of
 * that key start from the dump and find nothing left to migrate. A key seen once costs no dump.
 */
export class PgliteTemplates {
  private readonly sightings = new Map<string, number>();
  /** `null`: the dump was not taken (a plugin failed); kernels of the key migrate. */
  private readonly templates = new Map<string, Promise<Blob | null>>();

  async use(key: string): Promise<TemplateUse> {
    const template = this.templates.get(key);
    if (template) return { template: (await template) ?? undefined, done: () => {} };
    const seen = (this.sightings.get(key) ?? 0) + 1;
    this.sightings.set(key, seen);
    if (seen < 2) return { done: () => {} };
    let settle!: (t: Blob | null) => void;
    let captured = false;
    this.templates.set(key, new Promise((resolve) => (settle = resolve)));
    return {
      capture: async (database, statuses) => {
        captured = true;
        settle(statuses.some((s) => s.state === 'failed') || !database.dumpCluster ? null : await database.dumpCluster().catch(() => null));
      },
      done: () => {
        if (captured) return;
        this.templates.delete(key);
        settle(null);
      },
    };
  }
}
