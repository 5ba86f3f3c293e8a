import type { Db } from '../../core/db.ts';
import { validationFailed, type ErrorDetail } from '../../core/errors.ts';
import type { PatchPreferencesBody, Preferences } from './schemas.ts';

export interface Delivery {
  inbox: boolean;
  email: boolean;
}

interface PreferencesRow {
  user_id: string;
  locale: string;
  timezone: string;
  notifications: Record<string, Delivery>;
  updated_at: Date;
}

const DEFAULT_LOCALE = 'en';
const DEFAULT_TIMEZONE = 'UTC';
/** What a notification type nobody configured gets: every channel. */
const DEFAULT_DELIVERY: Readonly<Delivery> = Object.freeze({ inbox: true, email: true });

/** The canonical form of a BCP 47 tag (`en-us` → `en-US`), or null if Intl rejects it. */
function canonicalLocale(tag: string): string | null {
  try {
    return Intl.getCanonicalLocales(tag)[0] ?? null;
  } catch {
    return null;
  }
}

/** Whether Intl knows the IANA zone (names and links, case-insensitively; no UTC offsets). */
function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

export class PreferencesService {
  constructor(private readonly db: Db) {}

  async get(userId: string): Promise<Preferences> {
    const row = await this.db<PreferencesRow>('users_preferences').where({ user_id: userId }).first();
    if (!row) return { locale: DEFAULT_LOCALE, timezone: DEFAULT_TIMEZONE, notifications: {} };
    return { locale: row.locale, timezone: row.timezone, notifications: row.notifications };
  }

  /** How a notification of `type` reaches the user; the seam notification senders ask. */
  async deliveryFor(userId: string, type: string): Promise<Delivery> {
    const { notifications } = await this.get(userId);
    return notifications[type] ?? { ...DEFAULT_DELIVERY };
  }

  /**
   * How a notification of `type` reaches each of `userIds` (every one of them in the map), in one statement: the
   * batch form of `deliveryFor` for senders notifying many people at once. `db`: the sender's transaction, if any.
   */
  async deliveriesFor(userIds: readonly string[], type: string, db: Db = this.db): Promise<Map<string, Delivery>> {
    const found = new Map<string, Delivery>(userIds.map((id) => [id, { ...DEFAULT_DELIVERY }]));
    if (userIds.length === 0) return found;
    const rows: Array<{ user_id: string; delivery: Delivery | null }> = await db('users_preferences')
      .whereIn('user_id', [...new Set(userIds)])
      .select('user_id', db.raw('notifications -> ? AS delivery', [type]));
    for (const row of rows) if (row.delivery) found.set(row.user_id, row.delivery);
    return found;
  }

  /**
   * Turns one channel of one type off, keeping the other channel as it was: for an unsubscribe link, which must not
   * need a read-then-write (two clicks at once, or a patch at the same time, lose nothing).
   */
  async turnOff(userId: string, type: string, channel: keyof Delivery): Promise<void> {
    const off = { [type]: { ...DEFAULT_DELIVERY, [channel]: false } };
    await this.db('users_preferences')
      .insert({ user_id: userId, notifications: JSON.stringify(off) })
      .onConflict('user_id')
      .merge({
        notifications: this.db.raw(
          "users_preferences.notifications || jsonb_build_object(?::text, coalesce(users_preferences.notifications -> ?::text, ?::jsonb) || jsonb_build_object(?::text, false))",
          [type, type, JSON.stringify(DEFAULT_DELIVERY), channel],
        ),
        updated_at: this.db.fn.now(),
      });
  }

  /**
   * Merges a patch: given scalars replace, each given notification type replaces that
   * type's delivery (an omitted channel is on), other types stay. One upsert, so
   * concurrent patches to different types do not lose each other.
   */
  async update(userId: string, patch: PatchPreferencesBody): Promise<Preferences> {
    const errors: ErrorDetail[] = [];
    const locale = patch.locale === undefined ? undefined : canonicalLocale(patch.locale);
    if (locale === null) errors.push({ pointer: '/locale', detail: `"${patch.locale}" is not a valid BCP 47 language tag.` });
    if (patch.timezone !== undefined && !isTimeZone(patch.timezone)) {
      errors.push({ pointer: '/timezone', detail: `"${patch.timezone}" is not an IANA time zone.` });
    }
    if (errors.length) throw validationFailed(errors);
    if (locale === undefined && patch.timezone === undefined && patch.notifications === undefined) return this.get(userId);

    const notifications: Record<string, Delivery> = {};
    for (const [type, d] of Object.entries(patch.notifications ?? {})) {
      notifications[type] = { inbox: d.inbox ?? DEFAULT_DELIVERY.inbox, email: d.email ?? DEFAULT_DELIVERY.email };
    }
    // jsonb goes in as JSON text; the typed builder would insist on the object.
    const [row]: PreferencesRow[] = await this.db('users_preferences')
      .insert({
        user_id: userId,
        locale: locale ?? DEFAULT_LOCALE,
        timezone: patch.timezone ?? DEFAULT_TIMEZONE,
        notifications: JSON.stringify(notifications),
      })
      .onConflict('user_id')
      .merge({
        ...(locale !== undefined ? { locale: this.db.raw('excluded.locale') } : {}),
        ...(patch.timezone !== undefined ? { timezone: this.db.raw('excluded.timezone') } : {}),
        notifications: this.db.raw('users_preferences.notifications || excluded.notifications'),
        updated_at: this.db.fn.now(),
      })
      .returning('*');
    return { locale: row.locale, timezone: row.timezone, notifications: row.notifications };
  }
}
