import { definePlugin } from '../../core/plugin.ts';
import { projectTracker } from './project-tracker.ts';
import { crm } from './crm.ts';
import { contentCalendar } from './content-calendar.ts';

/** Starter templates: three packs (a project tracker, a CRM, a content calendar) offered through `packs.templates`. */
export default definePlugin({
  id: 'starter-packs',
  version: '1.0.0',
  kernel: '^1.0.0',
  // Templates are packs: the packs plugin lists and installs them.
  dependsOn: { packs: '^1.0.0' },
  register(ctx) {
    ctx.hooksOf('packs.templates').templates.tap('starter-packs', (templates) => [...templates, projectTracker(), crm(), contentCalendar()]);
  },
});
