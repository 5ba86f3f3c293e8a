import { inTransaction, type Db } from '../../core/db.ts';
import type { EventBus } from '../../core/events.ts';
import type { UserPrincipal } from '../../core/principal.ts';
import { invalidField } from '../../core/errors.ts';
import { hashSecret, randomSecret } from '../../core/secrets.ts';
import type { RecordService } from '../records/public.ts';
import type { Publication, View } from './schemas.ts';
import { toView, type ViewRow } from './view-rows.ts';
import type { ViewService } from './views.service.ts';

/** A live publication: the form view behind a token, with its settings as the API shows them. */
export interface PublishedForm {
  workspaceId: string;
  databaseId: string;
  view: View;
}

/** Where public links point: `publicUrl` when configured, else the origin the request came to. */
export interface LinkBase {
  origin: string;
}

/**
 * Public links of form views. The token (32 base62 characters, ~190 bits) is shown once and
 * stored as a SHA-256 hash, for the public plugin to recognise; publishing again replaces it, so
 * the previous link stops working at once, and unpublishing removes it.
 */
export class PublicationService {
  constructor(
    private readonly db: Db,
    private readonly events: EventBus,
    private readonly views: ViewService,
    private readonly records: RecordService,
  ) {}

  /**
   * The form a public link names, or null when no live publication has this token (never was, replaced,
   * unpublished, or its view deleted). Read at every request, so unpublishing ends the link at once.
   */
  async resolve(token: string): Promise<PublishedForm | null> {
    const row = (await this.db('view_publications as p')
      .join('database_views as v', 'v.id', 'p.view_id')
      .where('p.token_hash', hashSecret(token))
      .first('v.id', 'v.workspace_id', 'v.database_id', 'v.name', 'v.type', 'v.is_default', 'v.position', 'v.config', 'v.created_by', 'v.created_at', 'v.updated_at', 'p.published_at')) as ViewRow | undefined;
    if (!row) return null;
    const table = await this.records.readTable(row.workspace_id, row.database_id);
    return { workspaceId: row.workspace_id, databaseId: row.database_id, view: toView(row, table) };
  }

  async publish(principal: UserPrincipal, workspaceId: string, databaseId: string, viewId: string, link: LinkBase): Promise<Publication> {
    return inTransaction(this.db, async (trx) => {
      const view = await this.views.find(trx, databaseId, viewId);
      if (view.type !== 'form') throw invalidField('', `Only form views can be published; this is a ${view.type} view.`);
      const token = randomSecret('', 32);
      await trx('view_publications')
        .insert({ view_id: viewId, workspace_id: workspaceId, token_hash: hashSecret(token), published_by: principal.user.id })
        .onConflict('view_id')
        .merge({ token_hash: hashSecret(token), published_by: principal.user.id, published_at: trx.fn.now() });
      await this.events.emit(trx, { name: 'view.published', workspaceId, actorId: principal.user.id, payload: { database_id: databaseId, view_id: viewId } });
      return { token, url: `${link.origin}/api/v1/public/forms/${token}` };
    });
  }

  /** Unpublishing a view that is not published changes nothing. */
  async unpublish(principal: UserPrincipal, workspaceId: string, databaseId: string, viewId: string): Promise<void> {
    await inTransaction(this.db, async (trx) => {
      await this.views.find(trx, databaseId, viewId);
      const removed = await trx('view_publications').where({ view_id: viewId }).delete();
      if (removed > 0) await this.events.emit(trx, { name: 'view.unpublished', workspaceId, actorId: principal.user.id, payload: { database_id: databaseId, view_id: viewId } });
    });
  }
}
