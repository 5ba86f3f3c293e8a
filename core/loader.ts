import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import semver from 'semver';
import { StartupError, type StartupCode } from './errors.ts';
import { compile, toErrorDetails } from './schema.ts';
import { isPlugin, type Plugin } from './plugin.ts';
import type { KernelConfig } from './config.ts';
import { KERNEL_VERSION } from './version.ts';

/** What a plugin id must look like: kebab-case, starting with a letter. */
export const PLUGIN_ID = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;

export interface LoadedPlugin {
  plugin: Plugin;
  options: Record<string, unknown>;
  /** Ids of enabled plugins it depends on (required and optional). */
  deps: string[];
  /** The subset of `deps` it cannot run without. */
  required: string[];
}

export interface PluginPlan {
  /** Enabled plugins in dependency order. */
  ordered: LoadedPlugin[];
  /** Known but disabled by configuration. */
  disabled: Plugin[];
}

/**
 * Imports the plugin that config key `id` names by `resolve`: a package name, or a path
 * relative to the config file (to a module, or to a package directory with a `main`).
 */
export async function importPlugin(id: string, spec: string, baseDir: string): Promise<Plugin> {
  const isPath = spec.startsWith('.') || path.isAbsolute(spec);
  const fail = (why: string, code: StartupCode) => new StartupError(`Plugin "${id}" (resolve "${spec}") ${why}`, code, [id]);
  let mod: Record<string, unknown>;
  try {
    const local = path.resolve(baseDir, spec);
    const file = isPath && !fs.statSync(local, { throwIfNoEntry: false })?.isDirectory()
      ? local
      : createRequire(path.join(baseDir, 'noop.js')).resolve(isPath ? local : spec);
    mod = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  } catch (err) {
    throw fail(`cannot be loaded: ${(err as Error).message}`, 'plugin_unresolvable');
  }
  const candidate = mod.default ?? mod.plugin;
  if (!isPlugin(candidate)) throw fail('does not export a plugin made with definePlugin() as its default export.', 'plugin_invalid');
  return candidate;
}

function checkManifest(p: Plugin): void {
  const fail = (why: string) => {
    throw new StartupError(`Plugin "${p.id}" has an invalid manifest: ${why}`, 'plugin_invalid', [p.id]);
  };
  if (typeof p.id !== 'string' || !PLUGIN_ID.test(p.id)) fail(`id must be kebab-case (got ${JSON.stringify(p.id)}).`);
  if (!semver.valid(p.version)) fail(`version "${p.version}" is not semver.`);
  if (!semver.validRange(p.kernel)) fail(`kernel range "${p.kernel}" is not a semver range.`);
  for (const [dep, range] of Object.entries({ ...p.dependsOn, ...p.optionalDependsOn })) {
    if (!semver.validRange(range)) fail(`range "${range}" for "${dep}" is not a semver range.`);
  }
  for (const key of p.exports ?? []) if (!key.startsWith(`${p.id}.`)) fail(`export "${key}" must start with "${p.id}.".`);
  if (!semver.satisfies(KERNEL_VERSION, p.kernel)) {
    throw new StartupError(
      `Plugin "${p.id}" requires kernel ${p.kernel}, but this kernel is ${KERNEL_VERSION}.`,
      'kernel_version_mismatch',
      [p.id],
    );
  }
}

function validateOptions(p: Plugin, raw: unknown): Record<string, unknown> {
  const options = structuredClone(raw ?? {}) as Record<string, unknown>;
  if (!p.optionsSchema) return options;
  const validate = compile(p.optionsSchema);
  if (!validate(options)) {
    const first = toErrorDetails(validate.errors)[0];
    throw new StartupError(
      `Invalid options for plugin "${p.id}" at "plugins/${p.id}/options${first.pointer}": ${first.detail}`,
      'plugin_options_invalid',
      [p.id],
    );
  }
  return options;
}

/** Orders plugins so each comes after its dependencies; names the cycle if there is one. */
function topoSort(plugins: Map<string, LoadedPlugin>): LoadedPlugin[] {
  const out: LoadedPlugin[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (id: string, trail: string[]) => {
    const s = state.get(id);
    if (s === 'done') return;
    if (s === 'visiting') {
      const cycle = [...trail.slice(trail.indexOf(id)), id];
      throw new StartupError(`Plugin dependency cycle: ${cycle.join(' -> ')}.`, 'plugin_cycle', cycle.slice(0, -1));
    }
    state.set(id, 'visiting');
    const lp = plugins.get(id)!;
    for (const dep of [...lp.deps].sort()) visit(dep, [...trail, id]);
    state.set(id, 'done');
    out.push(lp);
  };
  for (const id of [...plugins.keys()].sort()) visit(id, []);
  return out;
}

/**
 * Decides which plugins run and in what order. Every problem here — an unknown plugin,
 * a bad manifest or options, a missing or mismatched dependency, a cycle — stops start-up.
 */
export async function planPlugins(builtins: Plugin[], config: KernelConfig): Promise<PluginPlan> {
  const known = new Map<string, { plugin: Plugin; enabled: boolean }>();
  for (const p of builtins) {
    checkManifest(p);
    if (known.has(p.id)) throw new StartupError(`Two plugins have the id "${p.id}".`, 'plugin_duplicate', [p.id]);
    known.set(p.id, { plugin: p, enabled: p.enabledByDefault ?? true });
  }
  for (const [id, entry] of Object.entries(config.plugins)) {
    if (entry.resolve) {
      const p = await importPlugin(id, entry.resolve, config.baseDir);
      checkManifest(p);
      if (p.id !== id) {
        throw new StartupError(`Config key "plugins/${id}" resolves to a plugin whose id is "${p.id}".`, 'plugin_invalid', [id, p.id]);
      }
      if (known.has(id)) throw new StartupError(`Plugin id "${id}" is already taken by a built-in plugin.`, 'plugin_duplicate', [id]);
      known.set(id, { plugin: p, enabled: entry.enabled ?? true });
    } else if (!known.has(id)) {
      throw new StartupError(`Config key "plugins/${id}" names no known plugin; add "resolve" to load it.`, 'plugin_unknown', [id]);
    } else if (entry.enabled !== undefined) {
      known.get(id)!.enabled = entry.enabled;
    }
  }

  const enabled = new Map<string, LoadedPlugin>();
  const disabled: Plugin[] = [];
  for (const { plugin, enabled: on } of known.values()) {
    if (!on) {
      disabled.push(plugin);
      continue;
    }
    enabled.set(plugin.id, { plugin, options: validateOptions(plugin, config.plugins[plugin.id]?.options), deps: [], required: [] });
  }

  for (const lp of enabled.values()) {
    const p = lp.plugin;
    const check = (dep: string, range: string, optional: boolean) => {
      const target = enabled.get(dep);
      if (!target) {
        if (optional) return;
        const why = known.has(dep) ? 'which is disabled' : 'which is not installed';
        throw new StartupError(`Plugin "${p.id}" depends on "${dep}", ${why}.`, 'plugin_dependency_missing', [p.id, dep]);
      }
      if (!semver.satisfies(target.plugin.version, range)) {
        throw new StartupError(
          `Plugin "${p.id}" requires "${dep}" ${range}, but version ${target.plugin.version} is installed.`,
          'plugin_version_mismatch',
          [p.id, dep],
        );
      }
      lp.deps.push(dep);
      if (!optional) lp.required.push(dep);
    };
    for (const [dep, range] of Object.entries(p.dependsOn ?? {})) check(dep, range, false);
    for (const [dep, range] of Object.entries(p.optionalDependsOn ?? {})) check(dep, range, true);
  }

  return { ordered: topoSort(enabled), disabled };
}

/** The plugins that (transitively) require `failed`, in plan order. */
export function dependantsOf(failed: string, ordered: LoadedPlugin[]): string[] {
  const out = new Set<string>([failed]);
  for (const lp of ordered) if (lp.required.some((d) => out.has(d))) out.add(lp.plugin.id);
  out.delete(failed);
  return [...out];
}
