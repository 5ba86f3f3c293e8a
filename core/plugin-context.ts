import { StartupError } from './errors.ts';
import type { Kernel } from './kernel.ts';
import type { LoadedPlugin } from './loader.ts';
import type { PluginContext } from './plugin.ts';
import type { PluginHookMap } from './hooks.ts';

/** The context object handed to one plugin's register/boot/shutdown. */
export function createPluginContext(kernel: Kernel, lp: LoadedPlugin): PluginContext<any> {
  const id = lp.plugin.id;
  const exported = new Set(lp.plugin.exports ?? []);
  const qualify = (name: string) => (name.startsWith(`${id}.`) ? name : `${id}.${name}`);
  return {
    id,
    options: lp.options,
    config: kernel.config,
    logger: kernel.logger.child({ plugin: id }),
    hooks: kernel.hooks,
    db: kernel.db,
    databaseKind: kernel.database.kind,
    blobs: kernel.blobs,
    provideBlobStore(store) {
      try {
        kernel.blobs.use(store, id);
      } catch (err) {
        throw new StartupError(`Plugin "${id}" cannot provide the blob store: ${(err as Error).message}`, 'duplicate_blob_store', [id, kernel.blobs.provider!]);
      }
    },
    provide(name, factory, opts) {
      const key = qualify(name);
      kernel.container.provide(id, key, factory, exported.has(key), opts?.scoped);
    },
    resolve: kernel.container.resolverFor(id),
    has: (pluginId) => lp.deps.includes(pluginId) && kernel.isActive(pluginId),
    routes(defs) {
      for (const def of defs) kernel.routes.push({ pluginId: id, def });
    },
    defineHooks: (name, hooks) => kernel.pluginHooks.define(id, name, hooks),
    hooksOf<K extends keyof PluginHookMap & string>(key: K): PluginHookMap[K] {
      const set = kernel.pluginHooks.get(key);
      if (!set) throw new StartupError(`Plugin "${id}" asked for hook set "${key}", which no enabled plugin defines.`, 'unknown_hooks', [id]);
      if (set.owner !== id && !lp.deps.includes(set.owner)) {
        throw new StartupError(`Plugin "${id}" taps "${key}" without declaring a dependency on "${set.owner}".`, 'undeclared_dependency', [id, set.owner]);
      }
      return set.hooks as PluginHookMap[K];
    },
    subscribe: (sub) => kernel.events.subscribe(id, sub),
    tapFanOut: (tap) => kernel.events.tapFanOut(id, tap),
    emit: (trx, events) => kernel.events.emit(trx, events),
    job: (def) => kernel.jobs.define(id, def),
    sendJob: (name, data, trx) => kernel.jobs.send(qualify(name), data, trx),
  };
}
