import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { definePlugin } from '../../core/plugin.ts';
import { FormService } from './forms.service.ts';
import { publicRoutes } from './routes.ts';
import { PublicOptions } from './schemas.ts';
import { SubmissionLimiter } from './submission-limiter.ts';

declare module '../../core/container.ts' {
  interface ServiceMap {
    'public.forms': FormService;
  }
}

export default definePlugin<PublicOptions>({
  id: 'public',
  version: '1.0.0',
  kernel: '^1.0.0',
  // Forms are views' published form views (views), filled into records (records).
  dependsOn: { views: '^1.0.0', records: '^1.0.0' },
  optionsSchema: PublicOptions,
  migrations: path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations'),
  register(ctx) {
    const limiter = new SubmissionLimiter(ctx.db, ctx.options.submissionsPerMinute);
    ctx.provide('forms', (r) => new FormService(r('views.publications'), r('records.service'), limiter));
    ctx.routes(publicRoutes(ctx.options.maxBodyBytes));
  },
});
