import { Type, type Static } from '../../core/schema.ts';
import { AppError } from '../../core/errors.ts';
import type { RecordService } from '../records/public.ts';
import { StepFailed, type ActionDefinition } from './actions.ts';

const Values = Type.Record(Type.String(), Type.Unknown(), { description: 'Cells by api_name; strings may hold `{{record.x}}` / `{{trigger.x}}` placeholders.' });
const UpdateRecord = Type.Object({ values: Values }, { additionalProperties: false });
const CreateRecord = Type.Object({ database_id: Type.String({ format: 'uuid' }), values: Values }, { additionalProperties: false });

/** A write's refusal as a step error: the records service's problem detail, with its pointers. */
function refusal(err: unknown): never {
  if (err instanceof AppError) throw new StepFailed(err.detail, err.errors ?? []);
  throw err;
}

/** `update_record` and `create_record`: writes as the automation's creator, with origin `{ type: 'automation', id }`. */
export function recordActions(records: () => RecordService): ActionDefinition[] {
  const updateRecord: ActionDefinition<Static<typeof UpdateRecord>> = {
    type: 'update_record',
    schema: UpdateRecord,
    retrySafe: false,
    async run(ctx) {
      if (!ctx.trigger.record_id) throw new StepFailed('No record triggered this run: update_record has nothing to update.');
      const record = await records().update(ctx.actor, ctx.workspaceId, ctx.databaseId, ctx.trigger.record_id, { values: ctx.config.values }, undefined, ctx.origin).catch(refusal);
      return { record_id: record.id, version: record.version };
    },
    dryRun: async (ctx) => ({ record_id: ctx.trigger.record_id, values: ctx.config.values }),
  };
  const createRecord: ActionDefinition<Static<typeof CreateRecord>> = {
    type: 'create_record',
    schema: CreateRecord,
    retrySafe: false,
    async check(req) {
      try {
        await records().open(req.db, req.workspaceId, req.config.database_id);
      } catch (err) {
        if (err instanceof AppError && err.status === 404) req.errors.push({ pointer: `${req.pointer}/database_id`, detail: 'No such database in this workspace.' });
        else throw err;
      }
    },
    async run(ctx) {
      const [record] = await records().create(ctx.actor, ctx.workspaceId, ctx.config.database_id, [ctx.config.values], ['/values'], undefined, ctx.origin).catch(refusal);
      return { record_id: record.id };
    },
    dryRun: async (ctx) => ({ database_id: ctx.config.database_id, values: ctx.config.values }),
    // The database it writes to travels by ref: an automation writing outside the pack stays home.
    pack: {
      out: (config, ref) => {
        const database = ref('database', config.database_id);
        return database === undefined ? undefined : { ...config, database_id: database };
      },
      in: (config, id, pointer) => ({ ...config, database_id: id('database', config.database_id, `${pointer}/database_id`) }),
    },
  };
  return [updateRecord, createRecord];
}
