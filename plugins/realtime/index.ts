import { fileURLToPath } from 'node:url';
import { afterCommit } from '../../core/db.ts';
import { definePlugin } from '../../core/plugin.ts';
import { FeedStore } from './feed.ts';
import { RealtimeHub } from './hub.ts';
import { realtimeRoutes } from './routes.ts';
import { RealtimeOptions } from './schemas.ts';
import { EventSight } from './sight.ts';
import { StreamFactory } from './streams.ts';

declare module '../../core/container.ts' {
  interface ServiceMap {
    'realtime.feed': FeedStore;
    'realtime.hub': RealtimeHub;
    'realtime.sight': EventSight;
    'realtime.streams': StreamFactory;
  }
}

/** The events streams carry. */
const STREAMED = ['record.*', 'comment.*', 'field.*'];

export default definePlugin<RealtimeOptions>({
  id: 'realtime',
  version: '1.0.0',
  kernel: '^1.0.0',
  // Events are filtered as the records engine shows records and the databases plugin shows fields.
  dependsOn: { workspaces: '^1.0.0', databases: '^1.0.0', records: '^1.0.0' },
  optionsSchema: RealtimeOptions,
  migrations: fileURLToPath(new URL('./migrations', import.meta.url)),
  register(ctx) {
    const replayMinutes = ctx.options.replayMinutes ?? 10;
    ctx.provide('feed', (r) => new FeedStore(r('db')));
    ctx.provide('hub', (r) =>
      new RealtimeHub({ feed: r('realtime.feed'), pollMs: ctx.options.pollMilliseconds ?? 50, replayMinutes, logger: ctx.logger, multiProcess: r('database').kind === 'postgres' }),
    );
    ctx.provide('sight', (r) => new EventSight({ authz: r('authz'), records: () => r('records.service'), fieldSight: () => r('databases.fieldSight') }));
    ctx.provide('streams', (r) =>
      new StreamFactory({ hooks: ctx.hooks, authz: r('authz'), sight: r('realtime.sight'), hub: () => r('realtime.hub'), logger: ctx.logger, heartbeatMs: (ctx.options.heartbeatSeconds ?? 15) * 1000 }),
    );
    // Into the feed, in the order the fan-outs commit, only while some process has a stream open.
    ctx.tapFanOut({
      name: 'feed',
      events: STREAMED,
      active: () => ctx.resolve('realtime.hub').wanted(),
      handler: async (trx, events) => {
        if ((await ctx.resolve('realtime.feed').append(trx, events)) > 0) afterCommit(trx, () => ctx.resolve('realtime.hub').wake());
      },
    });
    ctx.job({
      name: 'prune',
      schedule: '*/10 * * * *',
      handler: async () => void (await ctx.resolve('realtime.feed').prune(new Date(Date.now() - (replayMinutes + 1) * 60_000))),
    });
    ctx.routes(realtimeRoutes());
  },
  boot(ctx) {
    const hub = ctx.resolve('realtime.hub');
    hub.start();
    // Streams end as the instance begins to stop, so that it does not wait for them.
    ctx.resolve('host').closing.addEventListener('abort', () => hub.stop(), { once: true });
  },
  shutdown(ctx) {
    ctx.resolve('realtime.hub').stop();
  },
});
