import { defineRoute, type AnyRouteDef } from '../../core/routes.ts';
import { MoveRecordBody } from './move.schemas.ts';
import { ApiRecord, RecordParams } from './schemas.ts';
import { RecordErrors } from './errors.ts';
import { UsageErrors } from '../../core/usage.ts';

const tags = ['records'];
const write = { role: 'editor' as const, resource: { type: 'database', param: 'db' } };
const R = '/workspaces/{ws}/databases/{db}/records';

/** Duplicate and move: writes on one record that create or reposition. */
export function actionRoutes(): AnyRouteDef[] {
  return [
    defineRoute({
      method: 'POST',
      path: `${R}/{id}/duplicate`,
      operationId: 'records.duplicate',
      summary: 'Duplicate a record, right after it',
      description:
        'A new record with the cells of every writable field copied; its number, `version` (1), `created_*` and `updated_*` are its own. ' +
        'It goes between the source and the next record in manual order. Emits `record.created` with `duplicated_from`. Honours `Idempotency-Key`.',
      tags,
      auth: 'user',
      access: write,
      params: RecordParams,
      status: 201,
      responses: {
        201: { description: 'The new record', schema: ApiRecord },
        404: { description: 'No live record with this id in the database' },
        409: { description: 'The source and the next record share a position; try again' },
      },
      errors: [UsageErrors.plan_limit_exceeded, RecordErrors.position_clash],
      handler: ({ principal, params, resolve }) => resolve('records.duplicate').duplicate(principal, params.ws, params.db, params.id),
    }),
    defineRoute({
      method: 'POST',
      path: `${R}/{id}/move`,
      operationId: 'records.move',
      example: { after_id: '0190c7a2-5b7e-7000-8000-000000000011' },
      summary: 'Move a record in manual order, optionally changing cells at once',
      description:
        '`before_id` or `after_id` (not both) names a live record of this database to place it next to; neither moves it to the end. ' +
        '`values` are applied in the same transaction with the rules and errors of PATCH. Bumps `version`.',
      tags,
      auth: 'user',
      access: write,
      params: RecordParams,
      body: MoveRecordBody,
      responses: {
        200: { description: 'The record', schema: ApiRecord },
        404: { description: 'No live record with this id in the database' },
        409: { description: 'Two neighbouring records share a position; try again' },
        422: { description: 'Both anchors, an anchor that is not another live record of the database (`/before_id`, `/after_id`), or invalid cells' },
      },
      errors: [RecordErrors.position_clash, RecordErrors.link_conflict],
      handler: ({ principal, params, body, resolve }) => resolve('records.move').move(principal, params.ws, params.db, params.id, body),
    }),
  ];
}
