import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Db } from '../../core/db.ts';
import { AppError } from '../../core/errors.ts';
import type { DomainEvent } from '../../core/events.ts';
import type { IntegrationEventPayload } from '../integrations/public.ts';
import type { PushChannel, SourceKind } from './hooks.ts';
import type { SourceInputs } from './inputs.ts';
import type { SourceKinds } from './kinds.ts';
import type { SourceService } from './sources.service.ts';
import { SOURCES, type SourceRow } from './store.ts';

/** A channel ending within this long is replaced by a new one (Google's last about a week). */
const RENEW_BEFORE_MS = 24 * 60 * 60 * 1000;

export interface SourcePushDeps {
  db: Db;
  kinds: SourceKinds;
  inputs: SourceInputs;
  service: () => SourceService;
  logger: Logger;
}

/**
 * Push channels of the sources whose kind can be told of changes: opened when such a source is made, replaced before
 * they end, closed when the source goes; a delivery on a source's channel telling of changed rows starts an
 * incremental run. A channel that cannot be opened leaves the source to its schedule (and is tried again at the
 * next renewal), never failing what the user asked.
 */
export class SourcePush {
  constructor(private readonly deps: SourcePushDeps) {}

  /** Opens a channel for `source` when its kind pushes, replacing (then closing) the one it had. */
  async open(source: SourceRow): Promise<void> {
    const kind = this.pushing(source);
    if (!kind || !source.connection_id) return;
    const target = await this.deps.inputs.pushTarget(kind.provider!, source.connection_id);
    if (!target) return;
    try {
      const input = await this.deps.inputs.forConfig(kind.provider, source.connection_id, source.config);
      const channel = await kind.watch!({ ...input, ...target, channelId: randomUUID() });
      const [kept] = (await this.deps.db(SOURCES)
        .where({ id: source.id })
        .update({ push_channel: JSON.stringify({ ...channel, expiresAt: channel.expiresAt.toISOString() }) })
        .returning('id')) as Array<{ id: string }>;
      // The source was deleted meanwhile: its new channel goes too.
      if (!kept) await this.closeChannel(kind, source, channel);
      else if (source.push_channel) await this.closeChannel(kind, source, storedChannel(source.push_channel));
    } catch (err) {
      this.deps.logger.warn({ err, source: source.id }, 'push channel not opened; the source syncs on its schedule');
    }
  }

  /** Closes the source's channel, if it has one. */
  async close(source: SourceRow): Promise<void> {
    const kind = this.pushing(source);
    if (kind && source.push_channel) await this.closeChannel(kind, source, storedChannel(source.push_channel));
  }

  /** Replaces the channels that end within a day, and opens those that could not be opened before; how many were tried. */
  async renew(): Promise<number> {
    const kinds = this.deps.kinds.all().filter((k) => k.watch).map((k) => k.id);
    if (kinds.length === 0) return 0;
    const due = (await this.deps.db(SOURCES)
      .whereIn('kind', kinds)
      .whereNotNull('connection_id')
      .where((q) => q.whereNull('push_channel').orWhereRaw(`(push_channel->>'expiresAt')::timestamptz < ?`, [new Date(Date.now() + RENEW_BEFORE_MS)]))
      .limit(100)) as SourceRow[];
    for (const source of due) await this.open(source);
    return due.length;
  }

  /** In the fan-out of `integration.*` events: a delivery on a source's channel telling of changes starts an incremental run. */
  async pushed(trx: Db, events: DomainEvent[]): Promise<void> {
    for (const event of events) {
      const delivery = event.payload as IntegrationEventPayload | null;
      if (!delivery?.connection_id) continue;
      const sources = (await trx(SOURCES).where({ connection_id: delivery.connection_id }).whereNotNull('push_channel')) as SourceRow[];
      for (const source of sources) {
        const kind = this.pushing(source);
        if (!kind || kind.provider !== delivery.provider || kind.changedChannel?.({ event: delivery.event, payload: delivery.payload }) !== source.push_channel?.id) continue;
        if (source.status === 'paused') continue;
        try {
          await this.deps.service().enqueueRun(trx, source.id, false, 'push');
        } catch (err) {
          // A run under way reads the change too, or the next one will.
          if (!(err instanceof AppError)) throw err;
        }
      }
    }
  }

  private pushing(source: SourceRow): SourceKind | undefined {
    const kind = this.deps.kinds.find(source.kind);
    return kind?.watch && kind.provider ? kind : undefined;
  }

  private async closeChannel(kind: SourceKind, source: SourceRow, channel: PushChannel): Promise<void> {
    try {
      const input = await this.deps.inputs.forConfig(kind.provider, source.connection_id, source.config);
      await kind.unwatch?.({ ...input, channel });
    } catch (err) {
      this.deps.logger.warn({ err, source: source.id, channel: channel.id }, 'push channel not closed; it ends by itself');
    }
  }
}

function storedChannel(stored: NonNullable<SourceRow['push_channel']>): PushChannel {
  return { id: stored.id, resourceId: stored.resourceId, expiresAt: new Date(stored.expiresAt) };
}
