import { fileURLToPath } from 'node:url';
import { definePlugin } from '../../core/plugin.ts';
import { ReferralService } from './referrals.service.ts';
import { RewardService } from './rewards.service.ts';
import { referralRoutes } from './routes.ts';
import { tapGdpr } from './gdpr.ts';

export type { RewardGrant, RewardRow } from './rewards.service.ts';

declare module '../../core/container.ts' {
  interface ServiceMap {
    'referrals.service': ReferralService;
    'referrals.rewards': RewardService;
  }
}

export default definePlugin({
  id: 'referrals',
  version: '1.0.0',
  kernel: '^1.0.0',
  dependsOn: { auth: '^1.0.0' },
  optionalDependsOn: { gdpr: '^1.0.0' },
  migrations: fileURLToPath(new URL('./migrations', import.meta.url)),
  // Billing grants rewards through this, inside its own transaction.
  exports: ['referrals.rewards'],
  register(ctx) {
    // Personal data this plugin keeps is exported and erased through the gdpr plugin's hooks, when it is enabled.
    if (ctx.has('gdpr')) tapGdpr(ctx);
    ctx.provide('rewards', (r) => new RewardService(r('db')));
    ctx.provide('service', (r) => new ReferralService(r('db'), r('events'), r('referrals.rewards')));
    ctx.routes(referralRoutes());
  },
});
