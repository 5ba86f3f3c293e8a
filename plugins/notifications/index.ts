import { fileURLToPath } from 'node:url';
import { definePlugin } from '../../core/plugin.ts';
import { DigestService } from './digest.service.ts';
import { InboxService } from './inbox.service.ts';
import { NotificationService } from './notifications.service.ts';
import { NotificationProducers } from './producers.ts';
import { notificationRoutes } from './routes.ts';
import { Unsubscriber } from './unsubscribe.ts';
import { NotificationsOptionsSchema, type NotificationsOptions } from './options.ts';
import { tapGdpr } from './gdpr.ts';

declare module '../../core/container.ts' {
  interface ServiceMap {
    'notifications.service': NotificationService;
    'notifications.inbox': InboxService;
    'notifications.producers': NotificationProducers;
    'notifications.digest': DigestService;
    'notifications.unsubscriber': Unsubscriber;
  }
}

/**
 * Notifications: each member's inbox per workspace (unread/read, archived or not), filled through one door
 * (`notifications.service`) by every sender, and mailed as a digest with links that unsubscribe without signing in.
 */
export default definePlugin<NotificationsOptions>({
  id: 'notifications',
  version: '1.0.0',
  kernel: '^1.0.0',
  // Delivery comes from each user's preferences (users); watchers and records' titles from records; names from auth.
  dependsOn: { auth: '^1.0.0', users: '^1.0.0', workspaces: '^1.0.0', databases: '^1.0.0', records: '^1.0.0' },
  // Comments and mentions notify when they are on; mail carries the digests when it is on.
  optionalDependsOn: { comments: '^1.0.0', mentions: '^1.0.0', mail: '^1.0.0', gdpr: '^1.0.0' },
  optionsSchema: NotificationsOptionsSchema,
  migrations: fileURLToPath(new URL('./migrations', import.meta.url)),
  exports: ['notifications.service'],
  register(ctx) {
    if (ctx.has('gdpr')) tapGdpr(ctx);
    const mail = ctx.has('mail');
    ctx.provide('service', (r) => new NotificationService(r('users.preferences'), mail));
    ctx.provide('inbox', (r) => new InboxService(r('db'), r('database'), r('authz'), r('auth.users')));
    ctx.provide('producers', (r) => new NotificationProducers(r('notifications.service'), r('records.watchers'), r('records.service'), r('authz')));
    ctx.provide('unsubscriber', (r) => new Unsubscriber(r('db'), ctx.options.unsubscribeKey, r('auth.users'), r('users.preferences')));
    ctx.routes(notificationRoutes());

    const producers = () => ctx.resolve('notifications.producers');
    // A write that fails sends nothing: record changes are told once committed (from their events, so a crash loses
    // none), comments and mentions in their own write's transaction.
    ctx.hooksOf('records.committed').committed.tapPromise('notifications', (write) => producers().recordsCommitted(write));
    if (ctx.has('comments')) ctx.hooksOf('comments.changes').changed.tapPromise('notifications', (event) => producers().commentChanged(event));
    if (ctx.has('mentions')) ctx.hooksOf('mentions.recorded').recorded.tapPromise('notifications', (event) => producers().mentionsRecorded(event));

    // A member who leaves takes their notifications there along; records purged take what was sent about them.
    ctx.hooksOf('workspaces.lifecycle').memberRemoved.tapPromise('notifications', ({ trx, workspaceId, userId }) => ctx.resolve('notifications.inbox').forgetMember(trx, workspaceId, userId));
    ctx.hooksOf('workspaces.lifecycle').deleting.tapPromise('notifications', ({ trx, workspaceId }) => ctx.resolve('notifications.inbox').forgetWhere(trx, { workspace_id: workspaceId }));
    ctx.hooksOf('databases.databases').deleting.tapPromise('notifications', ({ trx, databaseId }) => ctx.resolve('notifications.inbox').forgetWhere(trx, { database_id: databaseId }));
    ctx.hooksOf('records.lifecycle').purged.tapPromise('notifications', ({ trx, databaseId, recordIds }) => ctx.resolve('notifications.inbox').forgetRecords(trx, databaseId, recordIds));

    if (mail) {
      ctx.provide('digest', (r) => new DigestService(r('db'), r('auth.users'), r('mail.sender'), r('notifications.unsubscriber'), ctx.options.emailDigestMinutes, () => r('host').publicUrl()));
      // pg-boss schedules by the minute: a digest leaves within a minute of its window opening.
      ctx.job({
        name: 'digest',
        schedule: '* * * * *',
        handler: async () => {
          const mailed = await ctx.resolve('notifications.digest').sendDue();
          if (mailed > 0) ctx.logger.debug({ mailed }, 'notification digests mailed');
        },
      });
    }
  },
});
