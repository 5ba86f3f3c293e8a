import { defineRoute, type AnyRouteDef } from '../../core/routes.ts';
import { ButtonErrors } from './errors.ts';
import { PressParams, Pressed } from './schemas.ts';
import { UsageErrors } from '../../core/usage.ts';

export function buttonRoutes(): AnyRouteDef[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/workspaces/{ws}/databases/{db}/records/{id}/buttons/{field}/press',
      operationId: 'buttons.press',
      summary: "Press a record's button: its automation runs for the record",
      description:
        'Editors of the database (and above) press; a personal access token needs `allow_run_button` (403 otherwise). ' +
        'The run\'s trigger is `{ type: "button", record_id, field }` and its actions read the record as `{{record.<api_name>}}`. ' +
        'A disabled automation → 409 `automation_disabled`; one deleted since → 409 `automation_missing`. The loop guard and the workspace rate apply as to any run (a refused run is stored `canceled` with its reason).',
      tags: ['records'],
      auth: 'user',
      access: { role: 'editor', resource: { type: 'database', param: 'db' } },
      params: PressParams,
      status: 202,
      responses: { 202: { description: 'The run, queued', schema: Pressed } },
      errors: [UsageErrors.plan_limit_exceeded, ButtonErrors.automation_disabled, ButtonErrors.automation_missing],
      handler: ({ principal, params, resolve }) => resolve('buttons.presses').press(principal, params.ws, params.db, params.id, params.field),
    }),
  ];
}
