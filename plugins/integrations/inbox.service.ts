import type { IncomingHttpHeaders } from 'node:http';
import { inTransaction, type Db } from '../../core/db.ts';
import { notFound } from '../../core/errors.ts';
import { SealBroken } from '../../core/secret-box.ts';
import type { DomainEvent, EventBus } from '../../core/events.ts';
import { keysetPage, type Page } from '../../core/pagination.ts';
import { UNREADABLE, type ConnectionService } from './connections.service.ts';
import { IntegrationErrors } from './errors.ts';
import { EVENT_PATTERN, refused, type ReadDelivery, type Refusal } from './hooks.ts';
import type { ProviderRegistry } from './providers.ts';
import type { Delivery } from './schemas.ts';

export const DELIVERIES = 'integration_deliveries';
const COLUMNS = ['id', 'provider', 'delivery_id', 'event', 'status', 'error', 'received_at'];

/** The event a delivery becomes: event names take no hyphen, so `google-calendar` is told as `google_calendar`. */
export function eventName(providerId: string, event: string): string {
  return `integration.${providerId.replace(/-/g, '_')}.${event}`;
}

interface DeliveryRow {
  id: string;
  provider: string;
  delivery_id: string | null;
  event: string;
  status: Delivery['status'];
  error: string | null;
  received_at: Date;
}

/** What `integration.<provider>.<event>` events carry. */
export interface IntegrationEventPayload {
  provider: string;
  connection_id: string;
  /** The inbox row the event came from. */
  delivery: string;
  delivery_id: string | null;
  event: string;
  payload: unknown;
}

/** What a receiver answers: the stored delivery (202), the first one of a duplicate (200), or the provider's own reply. */
export type Receipt = { status: 200 | 202; body: { id: string; status: string } } | { status: number; body: unknown };

function present(row: DeliveryRow): Delivery {
  return { id: row.id, provider: row.provider, delivery_id: row.delivery_id, event: row.event, status: row.status, error: row.error, received_at: row.received_at.toISOString() };
}

/**
 * The receivers' inbox: a delivery is verified by its provider over its raw bytes before anything is read or stored,
 * stored once per provider delivery id, and told as the event `integration.<provider>.<event>` in the same transaction
 * (automations trigger on it, outbound webhooks forward it). It reads `processed` once the event has been fanned out.
 */
export class InboxService {
  constructor(
    private readonly db: Db,
    private readonly providers: ProviderRegistry,
    private readonly connections: ConnectionService,
    private readonly events: EventBus,
  ) {}

  async receive(providerId: string, connectionId: string, rawBody: Buffer, headers: IncomingHttpHeaders): Promise<Receipt> {
    const provider = this.providers.find(providerId);
    if (!provider?.verifyWebhook) throw notFound();
    const connection = await this.connections.forReceiver(providerId, connectionId).catch((err: unknown) => {
      if (err instanceof SealBroken) throw IntegrationErrors.bad_signature(UNREADABLE);
      throw err;
    });
    if (!connection) throw notFound();
    let read: Refusal | ReadDelivery;
    try {
      read = await provider.verifyWebhook({ rawBody, headers, secret: connection.secret, now: Date.now() });
    } catch {
      read = { refused: `The ${provider.name} delivery could not be read.` };
    }
    if (refused(read)) throw IntegrationErrors.bad_signature(read.refused);
    if (read.reply) return read.reply;
    const receipt = await this.store(provider.id, connectionId, connection.workspaceId, read);
    return read.ack ? { status: read.ack.status, body: read.ack.body } : receipt;
  }

  async list(workspaceId: string, connectionId: string, page: { limit?: number; cursor?: string }): Promise<Page<Delivery>> {
    await this.connections.get(workspaceId, connectionId);
    const q = this.db(DELIVERIES).where({ connection_id: connectionId }).select(COLUMNS);
    const rows = await keysetPage<DeliveryRow>(this.db, q, { keys: [{ column: 'received_at', type: 'timestamptz' }, { column: 'id', type: 'uuid' }], direction: 'desc' }, page);
    return { data: rows.data.map(present), next_cursor: rows.next_cursor };
  }

  /** Tells a stored delivery's event again, as it was received; it reads `received` until that is fanned out. */
  async replay(workspaceId: string, connectionId: string, id: string): Promise<{ id: string; status: string }> {
    await this.connections.get(workspaceId, connectionId);
    return inTransaction(this.db, async (trx) => {
      const row = await trx(DELIVERIES).where({ id, connection_id: connectionId }).forUpdate().first('id', 'provider', 'delivery_id', 'event', 'payload');
      if (!row) throw notFound();
      await trx(DELIVERIES).where({ id }).update({ status: 'received', error: null, processed_at: null });
      await this.tell(trx, workspaceId, { provider: row.provider, connection_id: connectionId, delivery: row.id, delivery_id: row.delivery_id, event: row.event, payload: row.payload });
      return { id: row.id, status: 'received' };
    });
  }

  /** Marks the deliveries whose events were fanned out (in the fan-out's transaction). */
  async processed(trx: Db, events: DomainEvent[]): Promise<void> {
    const ids = events.map((e) => (e.payload as IntegrationEventPayload | null)?.delivery).filter((id): id is string => typeof id === 'string');
    if (ids.length === 0) return;
    await trx(DELIVERIES).whereIn('id', ids).where({ status: 'received' }).update({ status: 'processed', processed_at: new Date() });
  }

  /** Deletes deliveries received more than `days` ago. */
  async purge(days: number): Promise<number> {
    return this.db(DELIVERIES).where('received_at', '<', new Date(Date.now() - days * 86_400_000)).delete();
  }

  private async store(providerId: string, connectionId: string, workspaceId: string, read: ReadDelivery): Promise<Receipt> {
    const event = read.event.toLowerCase();
    if (!EVENT_PATTERN.test(event)) throw IntegrationErrors.bad_signature(`The delivery names an event "${read.event.slice(0, 64)}" that is not one.`);
    return inTransaction(this.db, async (trx) => {
      const { rows } = await trx.raw(
        `INSERT INTO ${DELIVERIES} (connection_id, workspace_id, provider, delivery_id, event, payload, status)
         VALUES (?, ?, ?, ?, ?, ?::json, 'received')
         ON CONFLICT (connection_id, delivery_id) WHERE delivery_id IS NOT NULL DO NOTHING RETURNING id`,
        [connectionId, workspaceId, providerId, read.deliveryId, event, JSON.stringify(read.payload ?? null)],
      );
      if (rows.length === 0) {
        const first = await trx(DELIVERIES).where({ connection_id: connectionId, delivery_id: read.deliveryId }).first('id', 'status');
        return { status: 200, body: { id: first.id, status: first.status } };
      }
      const id = rows[0].id as string;
      await this.tell(trx, workspaceId, { provider: providerId, connection_id: connectionId, delivery: id, delivery_id: read.deliveryId, event, payload: read.payload ?? null });
      return { status: 202, body: { id, status: 'received' } };
    });
  }

  private tell(trx: Db, workspaceId: string, payload: IntegrationEventPayload): Promise<void> {
    return this.events.emit(trx, { name: eventName(payload.provider, payload.event), workspaceId, actorId: null, payload });
  }
}
