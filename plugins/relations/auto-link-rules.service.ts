import { randomUUID } from 'node:crypto';
import type { WorkspaceAccess } from '../../core/authz.ts';
import { inTransaction, type Db } from '../../core/db.ts';
import type { EventBus } from '../../core/events.ts';
import { invalidField, notFound } from '../../core/errors.ts';
import { RelationErrors } from './errors.ts';
import type { UserPrincipal } from '../../core/principal.ts';
import { findField, indexMatchKey, tableNameOf, type FieldTypeRegistry, type ManagedFields } from '../databases/public.ts';
import type { WorkspaceService } from '../workspaces/public.ts';
import { linkMatches, matchKeySql, releaseMatchIndexes } from './auto-link.ts';
import type { AutoLinkRule, LinkOptions } from './link-type.ts';
import { changeBothDatabases, type RelationRow, type RelationService } from './relations.service.ts';
import type { CreateAutoLinkRuleBody, CreatedAutoLinkRule } from './schemas.ts';

/** Enough for any sensible set of matching keys; each rule costs one statement per matching write. */
export const MAX_RULES_PER_RELATION = 10;

/**
 * Auto-link rules of a relation: kept in the options of both link fields (the records engine
 * reads them with the fields it caches, so a write never looks rules up), changed under a schema
 * change of both databases like the link fields themselves.
 */
export class AutoLinkRuleService {
  constructor(
    private readonly db: Db,
    private readonly events: EventBus,
    private readonly relations: RelationService,
    private readonly workspaces: WorkspaceService,
    private readonly types: FieldTypeRegistry,
    private readonly fields: ManagedFields,
  ) {}

  async list(principal: UserPrincipal, access: WorkspaceAccess, relationId: string): Promise<{ data: AutoLinkRule[] }> {
    const relation = await this.relations.findVisible(principal, access, relationId);
    const field = await this.fields.find<LinkOptions>(this.db, relation.from_field_id);
    return { data: field?.options.auto_link ?? [] };
  }

  /**
   * Adds a rule (`creator` on both databases); with `backfill` (the default) the records that
   * match now are linked in the same transaction.
   */
  async create(principal: UserPrincipal, access: WorkspaceAccess, relationId: string, body: CreateAutoLinkRuleBody, inTrx?: Db): Promise<CreatedAutoLinkRule> {
    const relation = await this.authorize(principal, access, relationId, inTrx);
    return inTransaction(this.db, async (trx) => {
      const fromLink = await this.lockRules(trx, access.workspaceId, relation);
      const rules = fromLink.auto_link ?? [];
      const from = await findField(trx, relation.from_database_id, body.from_field_id, { pointer: '/from_field_id', missing: `No field "${body.from_field_id}" in the \`from\` database.` });
      const to = await findField(trx, relation.to_database_id, body.to_field_id, { pointer: '/to_field_id', missing: `No field "${body.to_field_id}" in the \`to\` database.` });
      for (const [field, pointer] of [[from, '/from_field_id'], [to, '/to_field_id']] as const) {
        if (!matchKeySql(this.types, field, 'r')) throw invalidField(pointer, `A ${field.type} field has no text form to match on.`);
      }
      const same = rules.find((r) => r.from_field_id === from.id && r.to_field_id === to.id);
      if (same) throw RelationErrors.rule_exists(same.id);
      if (rules.length >= MAX_RULES_PER_RELATION) throw invalidField('', `A relation has ${MAX_RULES_PER_RELATION} auto-link rules at most.`);
      const rule: AutoLinkRule = { id: randomUUID(), from_field_id: from.id, to_field_id: to.id, created_by: principal.user.id, created_at: new Date().toISOString() };
      await this.saveRules(trx, relation, [...rules, rule]);
      // Each side looks the other up by its key: text columns get an index of it.
      for (const field of [from, to]) {
        if (this.types.get(field.type)?.column?.(field.options) === 'text') await indexMatchKey(trx, tableNameOf(field.database_id), field.column_name!);
      }
      const actor = { workspaceId: access.workspaceId, actorId: principal.user.id };
      await this.events.emit(trx, { name: 'auto_link_rule.created', ...actor, payload: { relation_id: relation.id, rule } });
      if (body.backfill === false) return { ...rule, linked: 0 };
      const links = await linkMatches(trx, this.types, fromLink, { databaseId: relation.from_database_id, field: from }, { databaseId: relation.to_database_id, field: to }, null);
      if (links.length > 0) await this.events.emit(trx, { name: 'links.added', ...actor, payload: { relation_id: relation.id, rule_id: rule.id, links } });
      return { ...rule, linked: links.length };
    }, inTrx);
  }

  /** Removes one rule, or every rule of the relation; the links they made stay. */
  async delete(principal: UserPrincipal, access: WorkspaceAccess, relationId: string, ruleId?: string): Promise<void> {
    const relation = await this.authorize(principal, access, relationId);
    await inTransaction(this.db, async (trx) => {
      const rules = (await this.lockRules(trx, access.workspaceId, relation)).auto_link ?? [];
      const removed = rules.filter((r) => ruleId === undefined || r.id === ruleId);
      if (ruleId !== undefined && removed.length === 0) throw notFound('No such auto-link rule in this relation.');
      if (removed.length === 0) return;
      await this.saveRules(trx, relation, rules.filter((r) => !removed.includes(r)));
      await releaseMatchIndexes(trx, this.fields, removed);
      await this.events.emit(trx, removed.map((rule) => ({ name: 'auto_link_rule.deleted', workspaceId: access.workspaceId, actorId: principal.user.id, payload: { relation_id: relation.id, rule } })));
    });
  }

  /** Rules change like relations do: the caller sees both databases (404) and is `creator` on both (403). */
  private async authorize(principal: UserPrincipal, access: WorkspaceAccess, relationId: string, trx?: Db): Promise<RelationRow> {
    const relation = await this.relations.findVisible(principal, access, relationId, trx);
    await this.relations.requireCreator(
      principal,
      access,
      [
        { id: relation.from_database_id, pointer: '' },
        { id: relation.to_database_id, pointer: '' },
      ],
      trx,
    );
    return relation;
  }

  /** Opens the schema change of both databases, then reads the `from` link field's options (with the rules) as they are under it. */
  private async lockRules(trx: Db, workspaceId: string, relation: RelationRow): Promise<LinkOptions> {
    await this.workspaces.hold(trx, workspaceId);
    await changeBothDatabases(trx, relation.from_database_id, relation.to_database_id);
    const field = await this.fields.find<LinkOptions>(trx, relation.from_field_id);
    if (!field) throw notFound('No such relation in this workspace.');
    return field.options;
  }

  private async saveRules(trx: Db, relation: RelationRow, rules: AutoLinkRule[]): Promise<void> {
    await this.fields.setOption(trx, [relation.from_field_id, relation.to_field_id], 'auto_link', rules);
  }
}
