import type { Knex } from 'knex';
import type { Database, Db } from '../../core/db.ts';
import type { Host } from '../../core/host.ts';
import type { Stats } from './schemas.ts';

/** Instance totals, each one cheap count: nothing here scans a tenant's content. */
export class StatsService {
  constructor(
    private readonly database: Database,
    private readonly host: Host,
    private readonly hasWorkspaces: () => boolean,
  ) {}

  private get db(): Db {
    return this.database.knex;
  }

  async get(): Promise<Stats> {
    const [users, sessions, tokens, workspaces] = await Promise.all([
      this.db('users')
        .first(
          this.db.raw('count(*)::int AS total'),
          this.db.raw('(count(*) FILTER (WHERE disabled_at IS NOT NULL))::int AS disabled'),
          this.db.raw('(count(*) FILTER (WHERE is_instance_admin AND disabled_at IS NULL))::int AS instance_admins'),
        ),
      this.count(this.db('sessions').where('expires_at', '>', this.db.fn.now())),
      this.count(this.db('personal_access_tokens')),
      this.hasWorkspaces() ? this.count(this.db('workspaces')) : null,
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

  private async count(q: Knex.QueryBuilder): Promise<number> {
    const row = (await q.first(this.db.raw('count(*)::int AS n'))) as { n: number };
    return row.n;
  }
}
