import type { Authz } from '../../core/authz.ts';
import type { Db } from '../../core/db.ts';
import { Type, type Static } from '../../core/schema.ts';
import type { NotificationService } from '../notifications/public.ts';
import type { RecordService } from '../records/public.ts';
import type { MemberService } from '../workspaces/public.ts';
import { StepFailed, type ActionDefinition } from './actions.ts';

const Notify = Type.Object(
  {
    user_ids: Type.Optional(Type.Array(Type.String({ format: 'uuid' }), { minItems: 1, maxItems: 100, uniqueItems: true, description: 'Members of the workspace.' })),
    field: Type.Optional(Type.String({ minLength: 1, maxLength: 128, description: "The api_name of a user field: the record's user is notified." })),
    text: Type.String({ minLength: 1, maxLength: 2000 }),
  },
  { additionalProperties: false },
);
type Notify = Static<typeof Notify>;

interface Deps {
  db: () => Db;
  authz: () => Authz;
  records: () => RecordService;
  members: () => MemberService;
  notifications: () => NotificationService;
}

/** A user cell as a record shows it (`{ id, name }`), an id, or a list of either: the ids in it. */
function userIdsIn(cell: unknown): string[] {
  const cells = Array.isArray(cell) ? cell : [cell];
  return cells.flatMap((c) => (typeof c === 'string' ? [c] : c !== null && typeof c === 'object' && typeof (c as { id?: unknown }).id === 'string' ? [(c as { id: string }).id] : []));
}

/**
 * `notify`: an `automation` notification to the named members, or to the user a user field of the record holds. Only
 * those who may read the automation's database get it; the step says how many did, never who was left out.
 */
export function notifyAction(deps: Deps): ActionDefinition<Notify> {
  return {
    type: 'notify',
    schema: Notify,
    retrySafe: false,
    async check(req) {
      const { user_ids, field } = req.config;
      if ((user_ids === undefined) === (field === undefined)) {
        req.errors.push({ pointer: req.pointer, detail: 'Give either user_ids or field, not both.' });
        return;
      }
      if (field !== undefined) {
        const table = await deps.records().open(req.db, req.workspaceId, req.databaseId);
        if (table.byApiName.get(field)?.type !== 'user') req.errors.push({ pointer: `${req.pointer}/field`, detail: `No user field "${field}" in this database.` });
        return;
      }
      const found = await Promise.all(user_ids!.map((id) => deps.members().get(req.workspaceId, id, req.db)));
      found.forEach((member, i) => member || req.errors.push({ pointer: `${req.pointer}/user_ids/${i}`, detail: 'Not a member of this workspace.' }));
    },
    async run(ctx) {
      const wanted = ctx.config.field !== undefined ? userIdsIn(ctx.trigger.after?.[ctx.config.field]) : (ctx.config.user_ids ?? []);
      const location = await deps.authz().locate('database', { workspaceId: ctx.workspaceId, id: ctx.databaseId });
      if (!location) throw new StepFailed('The database is gone.');
      // Membership may have changed since the save: a removed member or a guest without the space is skipped.
      const seeing = [];
      for (const userId of new Set(wanted)) if (await deps.authz().userCanSee(userId, ctx.workspaceId, location.path)) seeing.push(userId);
      const notified = await deps.notifications().notify(
        deps.db(),
        seeing.map((userId) => ({
          workspaceId: ctx.workspaceId,
          userId,
          type: 'automation',
          actorId: null,
          subject: { type: 'automation', id: ctx.automationId, title: null },
          recordId: ctx.trigger.record_id,
          databaseId: ctx.databaseId,
          data: { text: ctx.config.text },
        })),
      );
      return { notified };
    },
    dryRun: async (ctx) => ({ user_ids: ctx.config.user_ids, field: ctx.config.field, text: ctx.config.text }),
  };
}
