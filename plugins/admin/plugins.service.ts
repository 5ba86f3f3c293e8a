import type { Kernel } from '../../core/kernel.ts';
import type { Page } from '../../core/pagination.ts';
import type { PluginStatus } from './schemas.ts';

/** What the instance runs: every known plugin, whether it is on, and why it failed if it did. */
export class PluginsService {
  constructor(private readonly kernel: Kernel) {}

  list(): Page<PluginStatus> {
    // A handful of plugins: one page, no cursor.
    return { data: this.kernel.pluginStatuses(), next_cursor: null };
  }
}
