import type { Logger } from 'pino';
import { StartupError } from './errors.ts';
import { KERNEL } from './container.ts';
import { dependantsOf, type LoadedPlugin, type PluginPlan } from './loader.ts';
import type { HookAttribution } from './hooks.ts';
import type { KernelConfig } from './config.ts';

export type PluginPhase = 'register' | 'migrate' | 'boot';

export interface PluginStatus {
  id: string;
  version: string;
  enabled: boolean;
  state: 'active' | 'disabled' | 'failed';
  failure: { phase: PluginPhase | 'dependency'; message: string } | null;
}

/** Each known plugin's state, and what a plugin failing in a phase takes down with it. */
export class PluginStatuses {
  readonly byId = new Map<string, PluginStatus>();

  constructor(
    private readonly attribution: HookAttribution,
    private readonly logger: Logger,
    private readonly onBootFailure: KernelConfig['onBootFailure'],
  ) {}

  record(plan: PluginPlan): void {
    for (const p of plan.disabled) this.byId.set(p.id, { id: p.id, version: p.version, enabled: false, state: 'disabled', failure: null });
    for (const lp of plan.ordered) {
      this.byId.set(lp.plugin.id, { id: lp.plugin.id, version: lp.plugin.version, enabled: true, state: 'active', failure: null });
    }
  }

  isActive(pluginId: string): boolean {
    return pluginId === KERNEL || this.byId.get(pluginId)?.state === 'active';
  }

  /** Aborts start-up, or (onBootFailure: continue) disables the plugin and every plugin that requires it. */
  fail(lp: LoadedPlugin, phase: PluginPhase, err: unknown, ordered: LoadedPlugin[]): void {
    const message = err instanceof Error ? err.message : String(err);
    const id = lp.plugin.id;
    if (this.onBootFailure !== 'continue') {
      throw new StartupError(`Plugin "${id}" failed during ${phase}: ${message}`, 'plugin_failed', [id]);
    }
    const dependants = dependantsOf(id, ordered).filter((d) => this.isActive(d));
    this.logger.error({ err, plugin: id, phase, disabled: dependants }, `plugin "${id}" failed during ${phase}; it and its dependants are disabled`);
    this.markFailed(id, { phase, message });
    for (const d of dependants) this.markFailed(d, { phase: 'dependency', message: `Depends on "${id}", which failed during ${phase}.` });
  }

  list(): PluginStatus[] {
    return [...this.byId.values()].sort((a, b) => a.id.localeCompare(b.id));
  }

  private markFailed(id: string, failure: NonNullable<PluginStatus['failure']>): void {
    const s = this.byId.get(id)!;
    s.state = 'failed';
    s.failure = failure;
    this.attribution.disabled.add(id);
  }
}
