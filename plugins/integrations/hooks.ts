import type { IncomingHttpHeaders } from 'node:http';
import { SyncWaterfallHook } from '../../core/hooks.ts';
import type { TSchema } from '../../core/schema.ts';

/** What a provider does for people, as `GET /integrations` lists it. */
export const CATEGORIES = ['code_hosting', 'issue_tracking', 'chat', 'ecommerce', 'mail', 'calendar', 'video', 'database'] as const;
export type ProviderCategory = (typeof CATEGORIES)[number];

/** A credential a provider asks for when it is connected with an API key (`secret`: shown as a password, never echoed). */
export interface CredentialField {
  name: string;
  label: string;
  secret: boolean;
}

/** How a provider is connected: OAuth 2 (authorization code with PKCE), an API key's fields, or nothing. */
export type ProviderAuth =
  | {
      type: 'oauth2';
      authorizeUrl: string;
      tokenUrl: string;
      scopes: string[];
      /** From the provider plugin's options; without both the provider is not `configured`. */
      clientId?: string;
      clientSecret?: string;
      /** Parameters the provider wants on its authorize URL besides OAuth's own (Google: `access_type: offline`). */
      authorizeParams?: Record<string, string>;
      /**
       * The authorization server's issuer, when it is not the token endpoint's origin: an ID token in a token answer is
       * checked against it (Google's are issued by `https://accounts.google.com`).
       */
      issuer?: string;
      /** Its token revocation endpoint (RFC 7009), where deleting a connection revokes the grant. */
      revokeUrl?: string;
    }
  | { type: 'api_key'; fields: CredentialField[] }
  | { type: 'none' };

/** A connection's credentials, opened: the `api_key` fields as given, or the OAuth tokens. */
export type Credentials = Record<string, string>;

/** What testing a connection found: whether the provider took the credentials, why not, and whose account they are. */
export interface TestOutcome {
  ok: boolean;
  detail: string;
  account?: { id: string; name: string } | null;
}

/** An inbound delivery as the receiver got it: the bytes, untouched, and the headers (names in lower case). */
export interface InboundDelivery {
  rawBody: Buffer;
  headers: IncomingHttpHeaders;
  /** The connection's signing secret (null when the provider signs with none of ours). */
  secret: string | null;
  /** Milliseconds since the epoch, for timestamp windows. */
  now: number;
}

/** A delivery that checked out, read: its provider id (for duplicates), its event name and what it says. */
export interface ReadDelivery {
  /** The provider's id of the delivery (`X-GitHub-Delivery`, `X-Shopify-Webhook-Id`…); null when it sends none. */
  deliveryId: string | null;
  /** Lower-case event name matching `EVENT_PATTERN`: it becomes `integration.<provider>.<event>`. */
  event: string;
  payload: unknown;
  /**
   * An answer the provider expects instead of 202 (a URL validation challenge): sent as is, and the delivery is not
   * stored.
   */
  reply?: { status: number; body: unknown };
  /**
   * The answer the provider expects once the delivery is stored, instead of 202 with the inbox entry (Slack's slash
   * commands: 200 with an empty body). A duplicate is answered the same.
   */
  ack?: { status: number; body?: unknown };
}

/** Why a delivery is refused (401): a missing or wrong signature, or a timestamp outside the provider's window. */
export interface Refusal {
  refused: string;
}

/**
 * One provider, as its plugin adds it to `integrations.providers`. The integrations plugin knows none itself: it
 * stores connections, receives deliveries and lists what the providers declare.
 */
export interface IntegrationProvider {
  /** `github`, `slack`, … (the plugin is `integration-<id>`). */
  id: string;
  name: string;
  categories: ProviderCategory[];
  auth: ProviderAuth;
  /**
   * Only instance admins may connect it: its deliveries act on the whole instance, not one workspace (mail bounces mark
   * accounts' addresses).
   */
  instanceAdminsOnly?: boolean;
  /** Whether its deliveries are signed with a secret shared with us (`webhook_secret`, shown once at creation). */
  signsWithSharedSecret?: boolean;
  /** Checks credentials against the provider's API; never throws for a refusal (answers `ok: false`). */
  test(credentials: Credentials): Promise<TestOutcome>;
  /**
   * Checks an inbound delivery's signature over its raw bytes before anything is parsed, then reads it; may be async
   * (a provider whose signing certificate is fetched). Absent: the provider takes no deliveries (404).
   */
  verifyWebhook?(delivery: InboundDelivery): Refusal | ReadDelivery | Promise<Refusal | ReadDelivery>;
  /** What its deliveries become (`issues`, `push`, …), for the automation trigger's documentation. */
  events?: string[];
  /** Kinds of data a source can sync from it (the sources plugin). */
  sources?: string[];
  /** Automation actions it adds: the automations plugin offers them with a `connection_id` to act through. */
  actions?: ProviderAction[];
}

/** What an event name a provider reads may be: dot-separated lower-case words (`issues.opened`). */
export const EVENT_PATTERN = /^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)*$/;

/**
 * Something a provider does for an automation (create an issue, post a message). The automations plugin offers it as
 * the action `type`, its config `schema` plus `connection_id` (one of the workspace's connections to this provider),
 * and hands `run` that connection's credentials (an OAuth connection's live access token as `access_token`).
 */
export interface ProviderAction<C = any> {
  /** `<provider>_<verb>`, e.g. `github_create_issue`. */
  type: string;
  summary: string;
  /** The config without `connection_id`: checked at save, placeholders filled before `run`. */
  schema: TSchema;
  /** Whether a failed attempt may be made again (a message posted twice is not, an idempotent update is). */
  retrySafe: boolean;
  /**
   * Does it; answers what the step shows (the created issue's number and URL). Throws `ActionFailed` for the provider's
   * refusal, `TokenRejected` for its 401 on an OAuth token (refreshed, then tried once more).
   */
  run(input: { credentials: Credentials; config: C }): Promise<unknown>;
}

/** The provider refused an action or could not be reached: the automation's step fails with this message. */
export class ActionFailed extends Error {}

export function refused(delivery: Refusal | ReadDelivery): delivery is Refusal {
  return 'refused' in delivery;
}

/** The hook set providers tap: each tap adds its provider to the list. */
export function createProviderHooks() {
  return {
    providers: new SyncWaterfallHook<[IntegrationProvider[]]>(['providers']),
  };
}

export type ProviderHooks = ReturnType<typeof createProviderHooks>;

declare module '../../core/hooks.ts' {
  interface PluginHookMap {
    'integrations.providers': ProviderHooks;
  }
}
