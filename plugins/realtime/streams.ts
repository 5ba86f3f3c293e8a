import type { Context } from 'koa';
import type { Authz } from '../../core/authz.ts';
import type { KernelHooks } from '../../core/hooks.ts';
import type { Logger } from '../../core/logger.ts';
import type { RealtimeHub } from './hub.ts';
import type { EventSight } from './sight.ts';
import { EventStream } from './stream.ts';
import type { Topics } from './topics.ts';

/** Makes event streams for requests, wired to the hub and to what each needs to check its reader. */
export class StreamFactory {
  constructor(private readonly deps: { hooks: KernelHooks; authz: Authz; sight: EventSight; hub: () => RealtimeHub; logger: Logger; heartbeatMs: number }) {}

  open(ctx: Context, token: string, workspaceId: string, topics: Topics, lastEventId: number | undefined): EventStream {
    return new EventStream(
      {
        ctx,
        token,
        hooks: this.deps.hooks,
        sight: this.deps.sight,
        member: async (reader) => (await this.deps.authz.workspaceAccess(reader, workspaceId)).role !== null,
        logger: this.deps.logger,
        heartbeatMs: this.deps.heartbeatMs,
        onEnd: (stream) => this.deps.hub().remove(stream),
      },
      workspaceId,
      topics,
      lastEventId,
    );
  }
}
