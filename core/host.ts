import type { PluginStatus } from './plugin-statuses.ts';

/** The instance as a plugin may see it (DI key `host`): read-only, unlike the kernel that runs it. */
export interface Host {
  /** Every known plugin, by id: whether it is on, and why it failed if it did. Copies: changing them changes nothing. */
  pluginStatuses(): PluginStatus[];
}

export function hostOf(statuses: () => PluginStatus[]): Host {
  return {
    pluginStatuses: () => statuses().map((s) => ({ ...s, failure: s.failure && { ...s.failure } })),
  };
}
