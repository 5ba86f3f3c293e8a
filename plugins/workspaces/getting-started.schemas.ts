import { Type, type Static } from '../../core/schema.ts';
import { STEPS, type StepKey } from './getting-started.steps.ts';

const StepKeySchema = Type.Unsafe<StepKey>({ type: 'string', enum: STEPS.map((s) => s.key) });

export const GettingStarted = Type.Object({
  steps: Type.Array(Type.Object({ key: StepKeySchema, title: Type.String(), completed: Type.Boolean() }), { description: 'Every step, in display order.' }),
  completed_count: Type.Integer({ minimum: 0 }),
  total: Type.Integer({ minimum: 0 }),
  dismissed: Type.Boolean({ description: 'The user closed the checklist; steps still complete underneath.' }),
});
export type GettingStarted = Static<typeof GettingStarted>;

export const PatchGettingStartedBody = Type.Object(
  {
    completed: Type.Optional(
      Type.Object(Object.fromEntries(STEPS.map((s) => [s.key, Type.Optional(Type.Boolean())])), {
        additionalProperties: false,
        description: 'Steps to tick (`true`) or untick (`false`); steps not named keep their state.',
      }),
    ),
    dismissed: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type PatchGettingStartedBody = { completed?: Partial<Record<StepKey, boolean>>; dismissed?: boolean };
