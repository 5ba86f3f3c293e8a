import type { Knex } from 'knex';
import type { Authz, WorkspaceAccess } from '../../core/authz.ts';
import { decodeCursor, encodeCursor, queryFingerprint } from '../../core/cursor.ts';
import type { Db } from '../../core/db.ts';
import type { Page } from '../../core/pagination.ts';
import type { UserPrincipal } from '../../core/principal.ts';
import { ENTRIES, type EntryType, type SearchIndex } from './search-index.ts';
import type { SearchHit, SearchQuery } from './schemas.ts';

/** `types` as the query names them → the entries' `type`. */
export const TYPE_NAMES: Record<string, EntryType> = { records: 'record', databases: 'database', spaces: 'space', documents: 'document' };

const CURSOR_KEYS = [{ type: 'numeric' }, { type: 'uuid' }];

/**
 * The words of `q` as PostgreSQL's own parser splits them (`simple`: no stemming, no stop words; an email or a URL
 * stays one word), each required; the last one also as a prefix when it has `minPrefix` characters or more, as a
 * search box is typed. No word at all (only punctuation) leaves the query NULL: nothing matches.
 */
const QUERY = `words AS (SELECT lexeme, positions[array_length(positions, 1)] AS at FROM unnest(to_tsvector('simple'::regconfig, ?::text))),
q AS (SELECT (SELECT string_agg('''' || replace(replace(lexeme, '\\', '\\\\'), '''', '''''') || ''''
  || CASE WHEN at = (SELECT max(at) FROM words) AND length(lexeme) >= ? THEN ':*' ELSE '' END, ' & ') FROM words)::tsquery AS query)`;

export interface SearchLimits {
  /** Matches ranked per search at most: a word found in 100,000 records ranks this many, not all of them. */
  candidates: number;
  minPrefix: number;
}

const hex = (id: string) => id.replace(/-/g, '');

/**
 * The scope lexemes (see the migration) of what the caller sees: its workspace, and there all, or its spaces and
 * databases. A caller seeing nothing gets a lexeme no row has.
 */
function scopeQuery(workspaceId: string, scopes: 'all' | { spaces: string[]; databases: string[] }): string {
  const workspace = `w${hex(workspaceId)}`;
  if (scopes === 'all') return workspace;
  const seen = [...scopes.spaces.map((id) => `s${hex(id)}`), ...scopes.databases.map((id) => `d${hex(id)}`)];
  return `${workspace} & (${seen.length > 0 ? seen.join(' | ') : 'snothing'})`;
}

/**
 * Searches the index as the caller may see it: the visible spaces and databases are a condition of the statement,
 * never a filter over its page, so a page is full and its timing says nothing of what is hidden.
 */
export class SearchService {
  constructor(
    private readonly db: Db,
    private readonly authz: Authz,
    private readonly index: SearchIndex,
    private readonly limits: SearchLimits,
  ) {}

  async search(principal: UserPrincipal, access: WorkspaceAccess, query: SearchQuery): Promise<Page<SearchHit> & { pending: { count: number; since: Date | null } }> {
    const types = query.types ? [...new Set(query.types.split(','))].map((t) => TYPE_NAMES[t]) : Object.values(TYPE_NAMES);
    const limit = query.limit ?? 50;
    const fingerprint = queryFingerprint({ q: query.q, types: [...types].sort() });
    const after = query.cursor ? decodeCursor(query.cursor, CURSOR_KEYS, { fingerprint }) : null;
    const scopes = this.authz.visibleScopes(principal, access);
    const bindings: Knex.RawBinding[] = [query.q, this.limits.minPrefix, scopeQuery(access.workspaceId, scopes), access.workspaceId, types];
    let visible = '';
    if (scopes !== 'all') {
      // The scope lexemes narrow the index scan; these conditions decide (text typed into a cell can forge a lexeme).
      visible = `AND (e.space_id = ANY(?::uuid[]) OR (e.type <> 'space' AND e.database_id = ANY(?::uuid[])))`;
      bindings.push(scopes.spaces, scopes.databases);
    }
    bindings.push(this.limits.candidates);
    let page = '';
    if (after) {
      page = 'WHERE (r.score, r.id) < (?::numeric, ?::uuid)';
      bindings.push(after[0], after[1]);
    }
    bindings.push(limit + 1);
    const { rows } = (await this.db.raw(
      `WITH ${QUERY},
       hits AS (SELECT e.id, e.type, e.title, e.body, e.database_id, e.space_id, e.words FROM ${ENTRIES} e, q
                 WHERE e.words @@ (q.query && ?::tsquery) AND e.workspace_id = ?::uuid AND e.type = ANY(?::text[]) ${visible} LIMIT ?),
       ranked AS (SELECT h.*, round(ts_rank('{0.1, 0.2, 0.4, 1.0}', h.words, q.query)::numeric, 6) AS score FROM hits h, q)
       SELECT r.id, r.type, r.title, r.database_id, r.space_id, r.score::text AS score,
              ts_headline('simple'::regconfig, CASE WHEN r.body = '' THEN r.title ELSE r.body END, q.query,
                          'MaxWords=24, MinWords=8, ShortWord=0, MaxFragments=1, StartSel="", StopSel=""') AS snippet
         FROM (SELECT * FROM ranked r ${page} ORDER BY r.score DESC, r.id DESC LIMIT ?) r, q
        ORDER BY r.score DESC, r.id DESC`,
      bindings,
    )) as { rows: Array<Omit<SearchHit, 'score'> & { score: string }> };
    const more = rows.length > limit;
    if (more) rows.length = limit;
    const last = rows[rows.length - 1];
    return {
      data: rows.map((r) => ({ type: r.type, id: r.id, title: r.title, snippet: r.snippet, database_id: r.database_id, space_id: r.space_id, score: Number(r.score) })),
      next_cursor: more && last ? encodeCursor([last.score, last.id], fingerprint) : null,
      pending: await this.index.pending(access.workspaceId, scopes),
    };
  }
}
