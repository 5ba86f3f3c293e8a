import type { Db } from '../../core/db.ts';
import type { DomainEvent } from '../../core/events.ts';
import type { UserService } from '../auth/public.ts';
import type { IntegrationEventPayload } from '../integrations/public.ts';
import { SENDGRID_EVENTS, SES_BOUNCE, SES_COMPLAINT, type SendgridBatch, type SesMailEvent } from './payloads.ts';

/**
 * Marks the accounts whose addresses a delivery names, in the fan-out of its event: a permanent bounce `bouncing`, a
 * complaint `complained` (the auth plugin keeps the stronger of the two). A transient bounce marks nothing: the next
 * mail may well arrive.
 */
export async function markAddresses(trx: Db, users: UserService, events: DomainEvent[]): Promise<void> {
  const bouncing: string[] = [];
  const complained: string[] = [];
  for (const e of events) {
    const told = e.payload as IntegrationEventPayload;
    if (told.event === SES_BOUNCE && (told.payload as SesMailEvent).permanent) bouncing.push(...(told.payload as SesMailEvent).addresses);
    if (told.event === SES_COMPLAINT) complained.push(...(told.payload as SesMailEvent).addresses);
    if (told.event === SENDGRID_EVENTS) {
      bouncing.push(...(told.payload as SendgridBatch).bounces);
      complained.push(...(told.payload as SendgridBatch).complaints);
    }
  }
  await users.markEmails(complained, 'complained', trx);
  await users.markEmails(bouncing, 'bouncing', trx);
}
