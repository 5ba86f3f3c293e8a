import { countRows, inTransaction, type Db } from '../../core/db.ts';
import type { TokenScope } from '../../core/principal.ts';
import { checksummedSecret, hashSecret } from '../../core/secrets.ts';
import { keysetPage, type Page } from '../../core/pagination.ts';
import { PAT_PREFIX } from './pat.strategy.ts';
import type { TokenHooks } from './hooks.ts';
import type { CreatedToken, TokenView } from './schemas.ts';

/** How much of a token is kept to recognise it by: `tpat_` and 7 characters. */
const DISPLAY_LENGTH = 12;
const TABLE = 'personal_access_tokens';
const COLUMNS = ['id', 'name', 'workspace_id', 'scope', 'allow_run_button', 'prefix', 'created_at', 'last_used_at'];

interface TokenRow {
  id: string;
  name: string;
  workspace_id: string;
  scope: TokenScope;
  allow_run_button: boolean;
  prefix: string;
  created_at: Date;
  last_used_at: Date | null;
}

export interface NewToken {
  name: string;
  workspaceId: string;
  scope: TokenScope;
  allowRunButton: boolean;
}

function toView(row: TokenRow): TokenView {
  return {
    id: row.id,
    name: row.name,
    workspace_id: row.workspace_id,
    scope: row.scope,
    allow_run_button: row.allow_run_button,
    prefix: row.prefix,
    created_at: row.created_at.toISOString(),
    last_used_at: row.last_used_at ? row.last_used_at.toISOString() : null,
  };
}

/** A user's personal access tokens. Only a hash and a display prefix are stored; the token itself exists once, in `create`'s result. */
export class TokenService {
  constructor(private readonly db: Db, private readonly hooks: TokenHooks) {}

  async create(userId: string, input: NewToken): Promise<CreatedToken> {
    const token = checksummedSecret(PAT_PREFIX);
    // One transaction with the hook: a tap can hold what it checked (the membership) until the token exists.
    const row = await inTransaction(this.db, async (trx) => {
      await this.hooks.beforeCreate.promise({ userId, workspaceId: input.workspaceId, scope: input.scope, allowRunButton: input.allowRunButton, trx });
      const [inserted] = await trx(TABLE)
        .insert({
          user_id: userId,
          workspace_id: input.workspaceId,
          name: input.name.trim(),
          scope: input.scope,
          allow_run_button: input.allowRunButton,
          prefix: token.slice(0, DISPLAY_LENGTH),
          token_hash: hashSecret(token),
        })
        .returning(COLUMNS);
      return inserted as TokenRow;
    });
    return { ...toView(row), token };
  }

  /** Newest first. */
  async list(userId: string, page: { limit?: number; cursor?: string }): Promise<Page<TokenView>> {
    const query = this.db(TABLE).where('user_id', userId).select(COLUMNS);
    const result = await keysetPage<TokenRow>(
      this.db,
      query,
      { keys: [{ column: 'created_at', type: 'timestamptz' }, { column: 'id', type: 'uuid' }], direction: 'desc' },
      page,
    );
    return { data: result.data.map(toView), next_cursor: result.next_cursor };
  }

  /** Tokens on the whole instance, expired ones included. */
  count(): Promise<number> {
    return countRows(this.db(TABLE));
  }

  /** Deletes the caller's token; false when it does not exist or belongs to someone else. */
  async revoke(userId: string, tokenId: string): Promise<boolean> {
    // `returning` because knex-pglite reports a delete's row count as an object, not a number.
    const deleted = await this.db(TABLE).where({ id: tokenId, user_id: userId }).delete().returning('id');
    return deleted.length > 0;
  }

  /** Deletes a user's tokens bound to a workspace they left (the workspaces plugin calls it in the removal's transaction). */
  async revokeInWorkspace(trx: Db, workspaceId: string, userId: string): Promise<void> {
    await trx(TABLE).where({ workspace_id: workspaceId, user_id: userId }).delete();
  }
}
