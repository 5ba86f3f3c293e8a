import { definePlugin } from 'tessera/plugin';
import { Type } from 'tessera/schema';
import type { ActionDefinition } from 'tessera/plugins/automations';

const Echo = Type.Object({ text: Type.String({ minLength: 1, maxLength: 1000 }) }, { additionalProperties: false });

/** Writes nothing and sends nothing: safe to try again, and its dry run is what it would answer. */
const echo: ActionDefinition<{ text: string }> = {
  type: 'echo',
  schema: Echo,
  retrySafe: true,
  run: async (ctx) => ({ text: ctx.config.text }),
  dryRun: async (ctx) => ({ text: ctx.config.text }),
};

/**
 * Adds the `echo` automation action. An action joins the built-in ones (update_record, create_record, …) through the
 * automations plugin's `automations.actions` hook set, exactly as they do, before the first run.
 */
export default definePlugin({
  id: 'echo-action',
  version: '1.0.0',
  kernel: '^1.0.0',
  dependsOn: { automations: '^1.0.0' },
  register(ctx) {
    ctx.hooksOf('automations.actions').register.tap('echo-action', (actions) => [...actions, echo]);
  },
});
