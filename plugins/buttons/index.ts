import { definePlugin } from '../../core/plugin.ts';
import { buttonType } from './button-type.ts';
import { tapPacks } from './pack.ts';
import { ButtonPresses } from './press.service.ts';
import { buttonRoutes } from './routes.ts';

declare module '../../core/container.ts' {
  interface ServiceMap {
    'buttons.presses': ButtonPresses;
  }
}

/**
 * The `button` field type and its press route. A press starts a run of the automation the field names, through the
 * automations plugin's exported services: this plugin keeps no table of its own.
 */
export default definePlugin({
  id: 'buttons',
  version: '1.0.0',
  kernel: '^1.0.0',
  dependsOn: { databases: '^1.0.0', records: '^1.0.0', automations: '^1.0.0' },
  optionalDependsOn: { packs: '^1.0.0' },
  register(ctx) {
    ctx.hooksOf('databases.fieldTypes').register.tap('buttons', (registry) => registry.add(buttonType(() => ctx.resolve('automations.service'))));
    ctx.provide('presses', (r) => new ButtonPresses({ db: r('db'), records: () => r('records.service'), fields: () => r('databases.fields'), automations: () => r('automations.service'), runs: () => r('automations.runs'), triggers: () => r('automations.triggers') }));
    if (ctx.has('packs')) tapPacks(ctx.hooksOf('packs.kinds'), { fields: () => ctx.resolve('databases.fields'), managed: () => ctx.resolve('databases.managedFields') });
    ctx.routes(buttonRoutes());
  },
});
