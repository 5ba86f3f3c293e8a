import type { Host } from '../../core/host.ts';
import type { Page } from '../../core/pagination.ts';
import type { PluginStatus } from './schemas.ts';

/** What the instance runs: every known plugin, whether it is on, and why it failed if it did. */
export class PluginsService {
  constructor(private readonly host: Host) {}

  list(): Page<PluginStatus> {
    // A handful of plugins: one page, no cursor.
    return { data: this.host.pluginStatuses(), next_cursor: null };
  }
}
