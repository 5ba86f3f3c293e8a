import type { PluginStatus } from './plugin-statuses.ts';

/** The instance as a plugin may see it (DI key `host`): read-only, unlike the kernel that runs it. */
export interface Host {
  /** Every known plugin, by id: whether it is on, and why it failed if it did. Copies: changing them changes nothing. */
  pluginStatuses(): PluginStatus[];
  /**
   * The origin of links made outside a request (mail, jobs), without a trailing slash: `publicUrl` when configured,
   * else the address the server listens on (core/public-url.ts). A request's own links use its origin instead.
   */
  publicUrl(): string;
  /**
   * Aborted when the instance begins to stop, before it waits for the requests in flight: a response that would
   * otherwise go on for ever (an event stream) ends then, so the shutdown does not wait for it.
   */
  readonly closing: AbortSignal;
}

export function hostOf(statuses: () => PluginStatus[], publicUrl: () => string, closing: AbortSignal): Host {
  return {
    pluginStatuses: () => statuses().map((s) => ({ ...s, failure: s.failure && { ...s.failure } })),
    publicUrl,
    closing,
  };
}
