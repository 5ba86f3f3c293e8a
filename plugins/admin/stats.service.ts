import type { Database } from '../../core/db.ts';
import type { Host } from '../../core/host.ts';
import type { SessionService, UserService } from '../auth/public.ts';
import type { TokenService } from '../tokens/public.ts';
import type { WorkspaceService } from '../workspaces/public.ts';
import type { Stats } from './schemas.ts';

/** Instance totals, each one cheap count asked of the plugin that owns it: nothing here scans a tenant's content. */
export class StatsService {
  constructor(
    private readonly database: Database,
    private readonly host: Host,
    private readonly users: UserService,
    private readonly sessions: SessionService,
    /** Live, as the plugins below may be off or fail after this one registered. */
    private readonly tokens: () => TokenService | null,
    private readonly workspaces: () => WorkspaceService | null,
  ) {}

  async get(): Promise<Stats> {
    const tokenService = this.tokens();
    const workspaceService = this.workspaces();
    const [users, sessions, tokens, workspaces] = await Promise.all([
      this.users.counts(),
      this.sessions.countActive(),
      tokenService ? tokenService.count() : 0,
      workspaceService ? workspaceService.count() : null,
    ]);
    const plugins = { active: 0, disabled: 0, failed: 0 };
    for (const p of this.host.pluginStatuses()) plugins[p.state]++;
    return {
      users: { total: users.total, disabled: users.disabled, instance_admins: users.instance_admins },
      sessions: { active: sessions },
      tokens: { total: tokens },
      workspaces: workspaces === null ? null : { total: workspaces },
      plugins,
      database: { kind: this.database.kind },
    };
  }
}
