import { createHmac, timingSafeEqual } from 'node:crypto';
import { type Credentials, EVENT_PATTERN, headerOf, type InboundDelivery, type IntegrationProvider, type ReadDelivery, refusal, type Refusal, type TestOutcome } from '../integrations/public.ts';
import { errorsOf, normalizeShop, ShopifyClient, ShopifyUnreachable, UnusableCredentials, withoutToken, type ShopifyAnswer } from './shopify-client.ts';
import { DEFAULT_API_VERSION } from './schemas.ts';

export interface ShopifyProviderOptions {
  /** A root replacing `https://{shop}` for every connection (a proxy, a test server). Unset: each shop's own domain. */
  apiUrl?: string;
  /** Admin API version (default `2025-07`). */
  apiVersion?: string;
  /** How long a call to Shopify may take (default 10 s); tests shorten it. */
  timeoutMs?: number;
}

/**
 * The topics people most often hook automations to, as events (`orders/create` → `orders.create`); Shopify has many
 * more, and every one is read the same way.
 */
export const SHOPIFY_EVENTS = [
  'orders.create',
  'orders.updated',
  'orders.paid',
  'orders.fulfilled',
  'orders.partially_fulfilled',
  'orders.cancelled',
  'orders.delete',
  'refunds.create',
  'fulfillments.create',
  'fulfillments.update',
  'products.create',
  'products.update',
  'products.delete',
  'inventory_levels.update',
  'customers.create',
  'customers.update',
  'customers.delete',
  'checkouts.create',
  'checkouts.update',
  'carts.create',
  'carts.update',
  'shop.update',
  'app.uninstalled',
  'customers.data_request',
  'customers.redact',
  'shop.redact',
];

/** An HMAC-SHA256 digest (32 bytes) in base64, as Shopify writes it: 43 characters and one `=`. */
const HMAC_BASE64 = /^[A-Za-z0-9+/]{43}=$/;

/**
 * Checks Shopify's signature: `X-Shopify-Hmac-Sha256: <base64 HMAC-SHA256 of the raw body, keyed by the app's client
 * secret>`. The header is decoded (strict base64 of exactly 32 bytes, in its one canonical spelling) and the bytes are
 * compared in constant time with the digest computed over the bytes as they arrived.
 */
function checkSignature(delivery: InboundDelivery): Refusal | null {
  if (!delivery.secret) return refusal('This connection has no webhook secret, so Shopify deliveries cannot be checked.');
  const given = headerOf(delivery.headers, 'x-shopify-hmac-sha256')?.trim();
  if (!given) return refusal('The delivery has no X-Shopify-Hmac-Sha256 header.');
  const actual = HMAC_BASE64.test(given) ? Buffer.from(given, 'base64') : null;
  if (!actual || actual.length !== 32 || actual.toString('base64') !== given)
    return refusal('The X-Shopify-Hmac-Sha256 header is malformed: expected the base64 of a 32-byte HMAC-SHA256 digest.');
  const expected = createHmac('sha256', delivery.secret).update(delivery.rawBody).digest();
  if (!timingSafeEqual(actual, expected))
    return refusal('The X-Shopify-Hmac-Sha256 signature does not match the body: this connection\'s webhook secret is not the app\'s client secret (or the store\'s webhook signing key), or the body was altered.');
  return null;
}

/**
 * A webhook topic as an event name: `orders/create` → `orders.create`, `inventory_levels/update` →
 * `inventory_levels.update` (`/` becomes `.`, `-` becomes `_`, lower case); null when the result is not an event name.
 */
export function eventOfTopic(topic: string): string | null {
  const event = topic.trim().toLowerCase().replace(/\//g, '.').replace(/-/g, '_');
  return EVENT_PATTERN.test(event) ? event : null;
}

/**
 * Reads a Shopify delivery once its signature checked out. Shopify's deliveries carry no signed timestamp (`now` is
 * unused): retries are caught by their `X-Shopify-Webhook-Id`.
 */
export function readShopifyDelivery(delivery: InboundDelivery): Refusal | ReadDelivery {
  const bad = checkSignature(delivery);
  if (bad) return bad;
  const topic = headerOf(delivery.headers, 'x-shopify-topic')?.trim();
  if (!topic) return refusal('The delivery has no X-Shopify-Topic header.');
  const event = eventOfTopic(topic);
  if (!event) return refusal('The X-Shopify-Topic header is not a topic (words of lower-case letters, digits and underscores, separated by /).');
  let payload: unknown;
  try {
    payload = JSON.parse(delivery.rawBody.toString('utf8'));
  } catch {
    return refusal('The delivery\'s body is not JSON: create the webhook with the JSON format on Shopify.');
  }
  const id = headerOf(delivery.headers, 'x-shopify-webhook-id')?.trim();
  return { deliveryId: id ? id : null, event, payload };
}

/** Tests a shop and token with `GET /admin/api/{version}/shop.json`. Never throws; no detail names the token. */
async function testConnection(client: ShopifyClient, credentials: Credentials): Promise<TestOutcome> {
  const shop = typeof credentials.shop === 'string' ? credentials.shop : '';
  const token = typeof credentials.access_token === 'string' ? credentials.access_token : '';
  let answer: ShopifyAnswer;
  try {
    answer = await client.request(shop, token, 'GET', '/shop.json');
  } catch (err) {
    if (err instanceof UnusableCredentials || err instanceof ShopifyUnreachable) return { ok: false, detail: withoutToken(err.message, token) };
    return { ok: false, detail: withoutToken(`Shopify could not be reached: ${err instanceof Error ? err.message : String(err)}`, token) };
  }
  const said = errorsOf(answer.body);
  const outcome = ((): TestOutcome => {
    if (answer.status === 200) {
      const found = (answer.body as { shop?: { id?: unknown; name?: unknown; myshopify_domain?: unknown } } | undefined)?.shop;
      if (found && (typeof found.id === 'number' || typeof found.id === 'string') && typeof found.name === 'string' && found.name) {
        const domain = typeof found.myshopify_domain === 'string' && found.myshopify_domain ? found.myshopify_domain : normalizeShop(shop);
        return { ok: true, detail: `Connected to ${found.name} (${domain})`, account: { id: String(found.id), name: found.name } };
      }
      return { ok: false, detail: `${answer.url} answered without a shop: check the shop domain${client.apiUrl ? ' and apiUrl' : ''}.` };
    }
    if (answer.status === 401) return { ok: false, detail: said ?? 'Shopify refused the access token: it is wrong, or the app was uninstalled.' };
    if (answer.status === 403) return { ok: false, detail: said ?? 'Shopify refused this access token access to the shop (403).' };
    if (answer.status >= 300 && answer.status < 400)
      return { ok: false, detail: `${answer.url} answered with a redirect (${answer.status}), which is not followed: check the shop domain${client.apiUrl ? ' and apiUrl' : ''}.` };
    if (answer.status === 404)
      return { ok: false, detail: `${answer.url} was not found (404): check the shop domain${client.apiUrl ? ' and apiUrl' : ''}.` };
    return { ok: false, detail: said ? `Shopify answered ${answer.status}: ${said}` : `Shopify answered ${answer.status}.` };
  })();
  return { ...outcome, detail: withoutToken(outcome.detail, token) };
}

/** The Shopify provider, as the plugin adds it to `integrations.providers`; tests call it directly. */
export function shopifyProvider(options: ShopifyProviderOptions = {}): IntegrationProvider {
  const client = new ShopifyClient({ apiUrl: options.apiUrl, apiVersion: options.apiVersion ?? DEFAULT_API_VERSION, timeoutMs: options.timeoutMs });
  return {
    id: 'shopify',
    name: 'Shopify',
    categories: ['ecommerce'],
    auth: {
      type: 'api_key',
      fields: [
        { name: 'shop', label: 'Shop domain (name.myshopify.com)', secret: false },
        { name: 'access_token', label: 'Admin API access token', secret: true },
      ],
    },
    signsWithSharedSecret: true,
    test: (credentials) => testConnection(client, credentials),
    verifyWebhook: readShopifyDelivery,
    events: [...SHOPIFY_EVENTS],
  };
}
