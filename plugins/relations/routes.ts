import { Type } from '../../core/schema.ts';
import { defineRoute, type AnyRouteDef } from '../../core/routes.ts';
import { pageOf } from '../../core/pagination.ts';
import { ApiRecord, RecordErrors } from '../records/public.ts';
import { MAX_RULES_PER_RELATION } from './auto-link-rules.service.ts';
import {
  AddLinksBody, AutoLinkRuleList, BulkLinkBody, BulkLinkResult, CreateAutoLinkRuleBody, CreatedAutoLinkRule, CreateRelationBody, DeleteAutoLinkRulesQuery,
  DeleteRelationBody, Drift, DriftQuery, LinkParams, LinkTargetParams, Relation, RelationListQuery, RelationParams, RuleParams, WorkspaceParams,
} from './schemas.ts';
import { RelationErrors } from './errors.ts';

const tags = ['relations'];
const member = { role: 'guest' as const };
const recordWrite = { role: 'editor' as const, resource: { type: 'database', param: 'db' } };
const R = '/workspaces/{ws}/databases/{db}/records';
const RULES = '/workspaces/{ws}/relations/{id}/auto-link-rules';

export function relationRoutes(): AnyRouteDef[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/workspaces/{ws}/relations',
      operationId: 'relations.create',
      example: { from_database_id: '0190c7a2-5b7e-7000-8000-000000000004', to_database_id: '0190c7a2-5b7e-7000-8000-000000000005', kind: 'one_to_many', from_field_name: 'Contacts', to_field_name: 'Company' },
      summary: 'Relate two databases: a link field on each side, one junction table',
      description: 'Needs `creator` on both databases (403 otherwise); an unknown or invisible database → 422 at its pointer; a database holding `maxFields` fields already (databases plugin option) → 422 `limit_exceeded`. The two databases may be the same one.',
      tags,
      auth: 'user',
      access: member,
      params: WorkspaceParams,
      body: CreateRelationBody,
      status: 201,
      responses: { 201: { description: 'The relation with its two link fields', schema: Relation }, 403: { description: 'Not creator on both databases' } },
      handler: ({ principal, access, body, resolve }) => resolve('relations.service').create(principal, access.access, body),
    }),
    defineRoute({
      method: 'GET',
      path: '/workspaces/{ws}/relations',
      operationId: 'relations.list',
      summary: 'List relations between databases you can see, oldest first',
      tags,
      auth: 'user',
      access: member,
      params: WorkspaceParams,
      query: RelationListQuery,
      responses: { 200: { description: 'A page of relations', schema: pageOf(Relation) } },
      handler: ({ principal, access, query, resolve }) => resolve('relations.service').list(principal, access.access, query),
    }),
    defineRoute({
      method: 'GET',
      path: '/workspaces/{ws}/relations/{id}',
      operationId: 'relations.get',
      summary: 'Get a relation',
      tags,
      auth: 'user',
      access: member,
      params: RelationParams,
      responses: { 200: { description: 'The relation', schema: Relation } },
      handler: ({ principal, access, params, resolve }) => resolve('relations.service').getVisible(principal, access.access, params.id),
    }),
    defineRoute({
      method: 'DELETE',
      path: '/workspaces/{ws}/relations/{id}',
      operationId: 'relations.delete',
      example: { confirm: true },
      summary: 'Delete a relation, its two link fields and every link',
      description: 'Body `{ "confirm": true }`, else 422. Needs `creator` on both databases.',
      tags,
      auth: 'user',
      access: member,
      params: RelationParams,
      body: DeleteRelationBody,
      responses: { 204: { description: 'Deleted' }, 422: { description: '`confirm` is not `true`' } },
      handler: ({ principal, access, params, body, resolve }) => resolve('relations.service').delete(principal, access.access, params.id, body.confirm),
    }),
    defineRoute({
      method: 'POST',
      path: RULES,
      operationId: 'relations.autoLinkRules.create',
      example: { from_field_id: 'domain', to_field_id: 'email_domain', backfill: true },
      summary: 'Add an auto-link rule: link records whose two fields match',
      description:
        '`{ from_field_id, to_field_id, backfill? }`: from then on, a record created (or whose rule field is written) on either side is linked to the records of ' +
        'the other side whose field reads alike — as text, trimmed, ignoring case; empty cells never match. Links are only added, never removed. `backfill` ' +
        '(default true) links the records that match now, in this request (`linked` counts them). One-to-many: a `to` record that has a link keeps it, ' +
        'and one matched by several `from` records goes to the oldest. Needs `creator` on both databases; at most ' + `${MAX_RULES_PER_RELATION}` + ' rules per relation.',
      tags,
      auth: 'user',
      access: member,
      params: RelationParams,
      body: CreateAutoLinkRuleBody,
      status: 201,
      responses: { 201: { description: 'The rule, and how many links the backfill added', schema: CreatedAutoLinkRule }, 409: { description: 'The same rule exists (`rule_id`)', extensions: { rule_id: Type.String({ format: 'uuid' }) } } },
      errors: [RelationErrors.rule_exists],
      handler: ({ principal, access, params, body, resolve }) => resolve('relations.autoLinkRules').create(principal, access.access, params.id, body),
    }),
    defineRoute({
      method: 'GET',
      path: RULES,
      operationId: 'relations.autoLinkRules.list',
      summary: "List a relation's auto-link rules, oldest first",
      tags,
      auth: 'user',
      access: member,
      params: RelationParams,
      responses: { 200: { description: 'The rules', schema: AutoLinkRuleList } },
      handler: ({ principal, access, params, resolve }) => resolve('relations.autoLinkRules').list(principal, access.access, params.id),
    }),
    defineRoute({
      method: 'DELETE',
      path: RULES,
      operationId: 'relations.autoLinkRules.deleteAll',
      summary: "Delete a relation's auto-link rules (or one, with `?rule_id=`)",
      description: 'The links the rules made stay. Needs `creator` on both databases.',
      tags,
      auth: 'user',
      access: member,
      params: RelationParams,
      query: DeleteAutoLinkRulesQuery,
      responses: { 204: { description: 'Deleted' } },
      handler: ({ principal, access, params, query, resolve }) => resolve('relations.autoLinkRules').delete(principal, access.access, params.id, query.rule_id),
    }),
    defineRoute({
      method: 'DELETE',
      path: `${RULES}/{rule}`,
      operationId: 'relations.autoLinkRules.delete',
      summary: 'Delete one auto-link rule',
      description: 'The links it made stay. Needs `creator` on both databases.',
      tags,
      auth: 'user',
      access: member,
      params: RuleParams,
      responses: { 204: { description: 'Deleted' } },
      handler: ({ principal, access, params, resolve }) => resolve('relations.autoLinkRules').delete(principal, access.access, params.id, params.rule),
    }),
    defineRoute({
      method: 'GET',
      path: '/workspaces/{ws}/relations/{id}/drift',
      operationId: 'relations.drift',
      summary: "Records whose select labels disagree with their links",
      description:
        '`?field_id=`: a single or multiple select field of either database. A record drifts when the set of its labels differs from the set of the titles ' +
        'of the live records it is linked to (both trimmed, ignoring case). Each item says which labels have no link (`missing`, with the record whose ' +
        'title the label is, if any) and which links have no label (`extra`). Record number order, keyset paged.',
      tags,
      auth: 'user',
      access: member,
      params: RelationParams,
      query: DriftQuery,
      responses: { 200: { description: 'A page of drifting records', schema: Drift } },
      handler: ({ principal, access, params, query, resolve }) => resolve('relations.drift').drift(principal, access.access, params.id, query),
    }),
    defineRoute({
      method: 'POST',
      path: '/workspaces/{ws}/relations/{id}/bulk-link',
      operationId: 'relations.bulkLink',
      example: { field_id: 'company_name' },
      summary: 'Link records to the records their select labels name',
      description:
        '`{ field_id, record_ids?, unlink_extra? }`: every drifting record (or those of `record_ids`) is linked to the record each label names (the oldest ' +
        'of several with that title); `unlink_extra` also unlinks linked records no label names. One transaction; what cannot be linked is listed in ' +
        '`skipped` (`no_match`, `one_link`, `conflict` with `linked_record_id`). Needs `editor` on the select field’s database.',
      tags,
      auth: 'user',
      access: member,
      params: RelationParams,
      body: BulkLinkBody,
      responses: { 200: { description: 'What was linked, unlinked and skipped', schema: BulkLinkResult }, 403: { description: 'Not editor on the select field’s database' } },
      handler: ({ principal, access, params, body, resolve }) => resolve('relations.drift').bulkLink(principal, access.access, params.id, body),
    }),
    defineRoute({
      method: 'POST',
      path: `${R}/{id}/links/{field}`,
      operationId: 'records.links.add',
      example: { record_ids: ['0190c7a2-5b7e-7000-8000-000000000012'] },
      summary: 'Link a record to records of the linked database',
      description:
        '`{ record_ids }`: live records of the other database; already linked ones stay. One-to-many: a record already linked to another one → 409 naming it ' +
        '(`linked_record_id`); the one side takes one record at most (422). Unknown, deleted or invisible records → 422 at `/record_ids/<i>`.',
      tags,
      auth: 'user',
      access: recordWrite,
      params: LinkParams,
      body: AddLinksBody,
      responses: { 200: { description: 'The record, with its links', schema: ApiRecord }, 409: { description: 'One-to-many: already linked elsewhere (`linked_record_id`: the record it is linked to)', extensions: { linked_record_id: Type.String({ format: 'uuid' }) } } },
      errors: [RecordErrors.link_conflict],
      handler: ({ principal, access, params, body, resolve }) => resolve('relations.links').add(principal, access.access, params.db, params.id, params.field, body.record_ids),
    }),
    defineRoute({
      method: 'DELETE',
      path: `${R}/{id}/links/{field}/{target_id}`,
      operationId: 'records.links.remove',
      summary: 'Unlink a record from one linked record',
      tags,
      auth: 'user',
      access: recordWrite,
      params: LinkTargetParams,
      responses: { 204: { description: 'Not linked (any more)' } },
      handler: ({ principal, access, params, resolve }) => resolve('relations.links').remove(principal, access.access, params.db, params.id, params.field, params.target_id),
    }),
  ];
}
