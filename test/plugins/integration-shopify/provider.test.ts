import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { EVENT_PATTERN, refused, type InboundDelivery, type ReadDelivery, type Refusal, type TestOutcome } from '../../../plugins/integrations/public.ts';
import { eventOfTopic, readShopifyDelivery, shopifyProvider } from '../../../plugins/integration-shopify/provider.ts';
import { ShopifyClient } from '../../../plugins/integration-shopify/shopify-client.ts';
import { storageIndependent } from '../../fixtures/suite-runs.ts';

/** The app's client secret (API secret key): what Shopify signs deliveries with, given as the connection's webhook_secret. */
const SECRET = 'shpss_0123456789abcdef0123456789abcdef';
const TOKEN = 'shpat_S3cretAdminToken0123456789abcdef';
const SHOP = 'tessera-test.myshopify.com';
const INVALID_TOKEN = '[API] Invalid API key or access token (unrecognized login or wrong password)';

/**
 * A delivery signed by something other than our code: the body, secret and `X-Shopify-Hmac-Sha256` below were computed
 * with `openssl dgst -sha256 -hmac <secret> -binary | base64` (and checked with Python's hmac), so the check cannot
 * agree with itself only.
 */
const VECTOR = {
  body: '{"id":820982911946154508,"email":"jon@example.com","name":"#9999","total_price":"403.00"}',
  hmac: 'qyGct2p9deshMTnkZArLFGTitG5ECGDKzfDvNAYCFuI=',
};

/** Every detail a test() answered, checked at the end for the token. */
const details: string[] = [];

/** A delivery as Shopify sends one: base64 HMAC-SHA256 of the exact bytes, keyed by the client secret, and its headers. */
function shopifyDelivery(topic: string, body: string | object, opts: { secret?: string; id?: string } = {}): InboundDelivery {
  const raw = Buffer.from(typeof body === 'string' ? body : JSON.stringify(body), 'utf8');
  return {
    rawBody: raw,
    headers: {
      'content-type': 'application/json',
      'user-agent': 'Shopify-Captain-Hook',
      'x-shopify-topic': topic,
      'x-shopify-hmac-sha256': createHmac('sha256', opts.secret ?? SECRET).update(raw).digest('base64'),
      'x-shopify-shop-domain': SHOP,
      'x-shopify-api-version': '2025-07',
      'x-shopify-webhook-id': opts.id ?? 'b54557e4-bdd9-4b37-8a5f-bf7d70bcd043',
      'x-shopify-event-id': '98880550-7158-44d4-b7cd-2c97c8a091b5',
      'x-shopify-triggered-at': '2026-11-29T10:00:00.000000000Z',
    },
    secret: SECRET,
    now: Date.now(),
  };
}

function read(delivery: InboundDelivery): ReadDelivery {
  const outcome = readShopifyDelivery(delivery);
  if (refused(outcome)) assert.fail(`refused: ${outcome.refused}`);
  return outcome;
}

function refusal(delivery: InboundDelivery): string {
  const outcome = readShopifyDelivery(delivery);
  assert.ok(refused(outcome), `expected a refusal, got ${JSON.stringify(outcome)}`);
  const text = (outcome as Refusal).refused;
  assert.equal(typeof text, 'string');
  assert.ok(text.length > 10, text);
  assert.ok(!text.includes(SECRET) && (!delivery.secret || !text.includes(delivery.secret)), 'a refusal never carries the secret');
  return text;
}

async function tested(outcome: Promise<TestOutcome>): Promise<TestOutcome> {
  const got = await outcome;
  details.push(got.detail);
  assert.ok(!got.detail.includes(TOKEN), `the detail carries the token: ${got.detail}`);
  return got;
}

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
}

/**
 * A loopback server speaking the Admin REST API's `GET /admin/api/{version}/shop.json` under `prefix`: the token in
 * `X-Shopify-Access-Token`, Shopify's 401 answer otherwise. It records each request, and each TCP connection (a
 * request that never got as far as HTTP, a TLS handshake for instance, still counts).
 */
async function fakeShopify(prefix = '', version = '2025-07') {
  const seen: Seen[] = [];
  let connections = 0;
  let handler: http.RequestListener = (req, res) => {
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
      res.end(JSON.stringify(body));
    };
    if (req.method !== 'GET' || req.url !== `${prefix}/admin/api/${version}/shop.json`) return json(404, { errors: 'Not Found' });
    if (req.headers['x-shopify-access-token'] !== TOKEN) return json(401, { errors: INVALID_TOKEN });
    return json(200, {
      shop: { id: 548380009, name: 'Tessera Test Store', email: 'owner@example.com', domain: 'shop.example.com', myshopify_domain: SHOP, currency: 'EUR', plan_name: 'basic' },
    });
  };
  const server = http.createServer((req, res) => {
    seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
    handler(req, res);
  });
  server.on('connection', () => void connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    url: `http://127.0.0.1:${port}${prefix}`,
    seen,
    connections: () => connections,
    respond: (h: http.RequestListener) => void (handler = h),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe('integration-shopify provider', () => {
  storageIndependent();

  it('declares Shopify: id, name, category, a shop and a token field, signatures with a shared secret, its events', () => {
    const provider = shopifyProvider();
    assert.equal(provider.id, 'shopify');
    assert.equal(provider.name, 'Shopify');
    assert.deepEqual(provider.categories, ['ecommerce']);
    assert.deepEqual(provider.auth, {
      type: 'api_key',
      fields: [
        { name: 'shop', label: 'Shop domain (name.myshopify.com)', secret: false },
        { name: 'access_token', label: 'Admin API access token', secret: true },
      ],
    });
    assert.equal(provider.signsWithSharedSecret, true);
    assert.equal(typeof provider.verifyWebhook, 'function');
    for (const event of ['orders.create', 'orders.paid', 'products.update', 'app.uninstalled', 'inventory_levels.update']) assert.ok(provider.events?.includes(event), event);
    for (const event of provider.events ?? []) assert.match(event, EVENT_PATTERN);
  });

  describe('verifyWebhook', () => {
    it('reads a delivery signed outside our code (an openssl vector): event, delivery id, payload', async () => {
      const delivery: InboundDelivery = {
        rawBody: Buffer.from(VECTOR.body),
        headers: { 'content-type': 'application/json', 'x-shopify-topic': 'orders/create', 'x-shopify-hmac-sha256': VECTOR.hmac, 'x-shopify-webhook-id': 'wh-1' },
        secret: SECRET,
        now: Date.now(),
      };
      const got = await shopifyProvider().verifyWebhook!(delivery);
      assert.ok(!refused(got), JSON.stringify(got));
      assert.deepEqual(got, { deliveryId: 'wh-1', event: 'orders.create', payload: JSON.parse(VECTOR.body) });
      // The vector is what the check is held to: one character of the signature off and it is refused.
      const off = VECTOR.hmac.replace(/^q/, 'r');
      assert.match(refusal({ ...delivery, headers: { ...delivery.headers, 'x-shopify-hmac-sha256': off } }), /does not match/);
    });

    it('reads a delivery as Shopify builds one: the topic as an event, X-Shopify-Webhook-Id, the JSON body as sent', () => {
      const payload = { id: 450789469, name: '#1001', note: 'Ünïcødé and emoji 🛒 survive', line_items: [{ sku: 'IPOD2008PINK', quantity: 1, price: '199.00' }] };
      const got = read(shopifyDelivery('orders/create', payload, { id: '7e2b4a1c-0d9f-4c3e-9a51-3b6f2d8e4c10' }));
      assert.equal(got.event, 'orders.create');
      assert.equal(got.deliveryId, '7e2b4a1c-0d9f-4c3e-9a51-3b6f2d8e4c10');
      assert.deepEqual(got.payload, payload);
      assert.equal(got.reply, undefined);
    });

    it('maps topics to events: / to a dot, - to an underscore', () => {
      assert.equal(read(shopifyDelivery('app/uninstalled', { id: 1 })).event, 'app.uninstalled');
      assert.equal(read(shopifyDelivery('inventory_levels/update', { inventory_item_id: 2 })).event, 'inventory_levels.update');
      assert.equal(read(shopifyDelivery('customers/data_request', { shop_id: 3 })).event, 'customers.data_request');
      assert.equal(read(shopifyDelivery('selling-plan_groups/create', { id: 4 })).event, 'selling_plan_groups.create');
      assert.equal(eventOfTopic('orders/partially_fulfilled'), 'orders.partially_fulfilled');
    });

    it('gives a null delivery id when Shopify sent no X-Shopify-Webhook-Id', () => {
      const delivery = shopifyDelivery('orders/paid', { id: 5 });
      delete delivery.headers['x-shopify-webhook-id'];
      assert.equal(read(delivery).deliveryId, null);
    });

    it('refuses a delivery signed with another secret', () => {
      assert.match(refusal(shopifyDelivery('orders/create', { id: 1 }, { secret: 'shpss_someone-elses-secret' })), /does not match/);
    });

    it('refuses a delivery whose body changed by one byte, or lost one, after signing', () => {
      const delivery = shopifyDelivery('orders/create', { id: 1, total_price: '10.00' });
      const changed = Buffer.from(delivery.rawBody);
      changed[changed.indexOf('1'.charCodeAt(0))] = '2'.charCodeAt(0);
      assert.notDeepEqual(changed, delivery.rawBody);
      assert.match(refusal({ ...delivery, rawBody: changed }), /does not match/);
      assert.match(refusal({ ...delivery, rawBody: delivery.rawBody.subarray(0, delivery.rawBody.length - 1) }), /does not match/);
      assert.match(refusal({ ...delivery, rawBody: Buffer.concat([delivery.rawBody, Buffer.from(' ')]) }), /does not match/);
    });

    it('refuses a delivery without X-Shopify-Hmac-Sha256', () => {
      const delivery = shopifyDelivery('orders/create', { id: 1 });
      delete delivery.headers['x-shopify-hmac-sha256'];
      assert.match(refusal(delivery), /no X-Shopify-Hmac-Sha256/);
      assert.match(refusal({ ...delivery, headers: { ...delivery.headers, 'x-shopify-hmac-sha256': '  ' } }), /no X-Shopify-Hmac-Sha256/);
    });

    it('refuses a malformed signature header: hex, unpadded, base64url, another length, a non-canonical spelling, garbage', () => {
      const delivery = shopifyDelivery('orders/create', { id: 1, title: 'x' });
      const digest = createHmac('sha256', SECRET).update(delivery.rawBody).digest();
      const base64 = digest.toString('base64');
      // The last of the 43 characters carries 2 unused bits: flipping one spells the same 32 bytes another way.
      const last = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
      const noncanonical = base64.slice(0, 42) + last[last.indexOf(base64[42]) ^ 1] + '=';
      assert.deepEqual(Buffer.from(noncanonical, 'base64'), digest, 'the non-canonical spelling decodes to the right digest');
      const bad = [
        digest.toString('hex'),
        `sha256=${base64}`,
        base64.slice(0, -1),
        digest.toString('base64url'),
        createHmac('sha1', SECRET).update(delivery.rawBody).digest('base64'),
        Buffer.concat([digest, Buffer.from([0])]).toString('base64'),
        noncanonical,
        'garbage',
        `${base64}, ${base64}`,
      ];
      for (const value of bad) assert.match(refusal({ ...delivery, headers: { ...delivery.headers, 'x-shopify-hmac-sha256': value } }), /malformed/, value);
      // A repeated header arrives as a list: not one signature either.
      assert.match(refusal({ ...delivery, headers: { ...delivery.headers, 'x-shopify-hmac-sha256': [base64, base64] as unknown as string } }), /malformed/);
      // Sanity: the right value, with spaces around it, passes.
      assert.equal(read({ ...delivery, headers: { ...delivery.headers, 'x-shopify-hmac-sha256': ` ${base64} ` } }).event, 'orders.create');
    });

    it('refuses every delivery of a connection without a secret', () => {
      const delivery = shopifyDelivery('orders/create', { id: 1 });
      assert.match(refusal({ ...delivery, secret: null }), /no webhook secret/);
      assert.match(refusal({ ...delivery, secret: '' }), /no webhook secret/);
    });

    it('refuses a signed delivery without X-Shopify-Topic, or with a topic that is no event name once mapped', () => {
      const delivery = shopifyDelivery('orders/create', { id: 1 });
      delete delivery.headers['x-shopify-topic'];
      assert.match(refusal(delivery), /no X-Shopify-Topic/);
      for (const bad of ['orders create', '../orders', 'orders//create', 'orders/', '/create', '1orders/create', 'orders.create!', 'orders/créate']) {
        assert.match(refusal(shopifyDelivery(bad, { id: 1 })), /X-Shopify-Topic header is not a topic/, bad);
        assert.equal(eventOfTopic(bad), null, bad);
      }
    });

    it('refuses a signed body that is not JSON, and checks the signature before reading the body', () => {
      assert.match(refusal(shopifyDelivery('orders/create', 'id=1&name=%231001')), /not JSON/);
      const unsigned = shopifyDelivery('orders/create', 'not json', { secret: 'another-secret' });
      assert.match(refusal(unsigned), /does not match/);
    });
  });

  describe('test(credentials)', () => {
    let shopify: Awaited<ReturnType<typeof fakeShopify>>;
    afterEach(async () => {
      await shopify?.close();
    });

    it('reads the shop through GET /admin/api/{version}/shop.json with X-Shopify-Access-Token', async () => {
      shopify = await fakeShopify();
      const outcome = await tested(shopifyProvider({ apiUrl: shopify.url }).test({ shop: SHOP, access_token: TOKEN }));
      assert.deepEqual(outcome, { ok: true, detail: `Connected to Tessera Test Store (${SHOP})`, account: { id: '548380009', name: 'Tessera Test Store' } });
      assert.equal(shopify.seen.length, 1);
      const [request] = shopify.seen;
      assert.equal(request.method, 'GET');
      assert.equal(request.url, '/admin/api/2025-07/shop.json');
      assert.equal(request.headers['x-shopify-access-token'], TOKEN);
      assert.equal(request.headers.authorization, undefined, 'the token goes in X-Shopify-Access-Token only');
    });

    it('asks the configured API version, under an apiUrl with a path, with or without a trailing slash', async () => {
      shopify = await fakeShopify('/proxy/shopify', '2025-10');
      for (const apiUrl of [shopify.url, `${shopify.url}/`]) {
        const outcome = await tested(shopifyProvider({ apiUrl, apiVersion: '2025-10' }).test({ shop: SHOP, access_token: TOKEN }));
        assert.equal(outcome.ok, true, outcome.detail);
      }
      assert.deepEqual(
        shopify.seen.map((s) => s.url),
        ['/proxy/shopify/admin/api/2025-10/shop.json', '/proxy/shopify/admin/api/2025-10/shop.json'],
      );
    });

    it('answers ok false with Shopify\'s own reason for a refused token (401), never with the token', async () => {
      shopify = await fakeShopify();
      const wrong = 'shpat_WrongTokenValue9876543210zyxwvu';
      const outcome = await tested(shopifyProvider({ apiUrl: shopify.url }).test({ shop: SHOP, access_token: wrong }));
      assert.equal(outcome.ok, false);
      assert.equal(outcome.detail, INVALID_TOKEN);
      assert.equal(outcome.account, undefined);
      assert.equal(shopify.seen[0].headers['x-shopify-access-token'], wrong);
      assert.ok(!outcome.detail.includes(wrong));
    });

    it('scrubs a token Shopify would echo, and reads field-by-field errors', async () => {
      shopify = await fakeShopify();
      shopify.respond((_req, res) => {
        res.writeHead(403, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ errors: `[API] This token (${TOKEN}) lacks access` }));
      });
      const echoed = await tested(shopifyProvider({ apiUrl: shopify.url }).test({ shop: SHOP, access_token: TOKEN }));
      assert.equal(echoed.ok, false);
      assert.equal(echoed.detail, '[API] This token ([token]) lacks access');
      shopify.respond((_req, res) => {
        res.writeHead(402, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ errors: { shop: ['is frozen', 'needs a plan'] } }));
      });
      const frozen = await tested(shopifyProvider({ apiUrl: shopify.url }).test({ shop: SHOP, access_token: TOKEN }));
      assert.deepEqual(frozen, { ok: false, detail: 'Shopify answered 402: shop: is frozen; shop: needs a plan' });
    });

    it('answers ok false when apiUrl does not lead to the Admin API (404, a 200 without a shop, a redirect not followed)', async () => {
      shopify = await fakeShopify('/admin-proxy');
      const missing = await tested(shopifyProvider({ apiUrl: shopify.url.replace('/admin-proxy', '') }).test({ shop: SHOP, access_token: TOKEN }));
      assert.equal(missing.ok, false);
      assert.match(missing.detail, /shop\.json was not found \(404\)/);
      shopify.respond((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end('<html>Log in to Shopify</html>');
      });
      const html = await tested(shopifyProvider({ apiUrl: shopify.url }).test({ shop: SHOP, access_token: TOKEN }));
      assert.equal(html.ok, false);
      assert.match(html.detail, /answered without a shop/);
      shopify.respond((req, res) => {
        if (req.url?.startsWith('/elsewhere')) {
          res.writeHead(200, { 'content-type': 'application/json' });
          return res.end(JSON.stringify({ shop: { id: 1, name: 'Followed' } }));
        }
        res.writeHead(301, { location: `http://127.0.0.1:${shopify.port}/elsewhere/shop.json` });
        res.end();
      });
      const moved = await tested(shopifyProvider({ apiUrl: shopify.url }).test({ shop: SHOP, access_token: TOKEN }));
      assert.equal(moved.ok, false);
      assert.match(moved.detail, /redirect \(301\), which is not followed/);
      assert.ok(!shopify.seen.some((s) => s.url.startsWith('/elsewhere')), 'the redirect was not followed with the token');
    });

    it('answers ok false when Shopify cannot be reached (a closed port)', async () => {
      shopify = await fakeShopify();
      const url = shopify.url;
      await shopify.close();
      const outcome = await tested(shopifyProvider({ apiUrl: url }).test({ shop: SHOP, access_token: TOKEN }));
      assert.equal(outcome.ok, false);
      assert.match(outcome.detail, /^Shopify could not be reached: .*ECONNREFUSED/);
    });

    it('answers ok false when Shopify does not answer in time', async () => {
      shopify = await fakeShopify();
      shopify.respond(() => undefined);
      const outcome = await tested(shopifyProvider({ apiUrl: shopify.url, timeoutMs: 200 }).test({ shop: SHOP, access_token: TOKEN }));
      assert.deepEqual(outcome, { ok: false, detail: 'Shopify could not be reached: no answer within 0.2 s' });
    });

    it('makes no request at all for a shop that is not a name.myshopify.com domain', async () => {
      shopify = await fakeShopify();
      const provider = shopifyProvider({ timeoutMs: 2000 });
      const port = shopify.port;
      // Hosts that would be ours to choose: the loopback server (which counts even a TLS handshake) or names that
      // never resolve (.invalid), so a check that let one through fails here without leaving this machine.
      const shops = [
        `127.0.0.1:${port}`,
        `localhost:${port}`,
        `${SHOP}:${port}`,
        `${SHOP}@127.0.0.1:${port}`,
        `127.0.0.1:${port}/x.myshopify.com`,
        `127.0.0.1:${port}#.myshopify.com`,
        `127.0.0.1:${port}?.myshopify.com`,
        `http://127.0.0.1:${port}/.myshopify.com`,
        'shop.example.invalid',
        `${SHOP}.invalid`,
        'tessera-test.myshopify.com.invalid',
        '-tessera.myshopify.com',
        'tessera_test.myshopify.com',
        'tessera.test.myshopify.com',
        '.myshopify.com',
        `http://${SHOP}`,
        `${SHOP}/admin`,
        `${SHOP}\r\nHost: evil.invalid`,
      ];
      for (const shop of shops) {
        const outcome = await tested(provider.test({ shop, access_token: TOKEN }));
        assert.equal(outcome.ok, false, shop);
        assert.match(outcome.detail, /must be the shop's name\.myshopify\.com domain/, shop);
      }
      assert.deepEqual(await tested(provider.test({ shop: '  ', access_token: TOKEN })), { ok: false, detail: 'The shop domain is empty.' });
      assert.equal(shopify.connections(), 0, 'nothing reached the loopback server');
      assert.equal(shopify.seen.length, 0);
    });

    it('takes the shop domain as people paste it, and builds https://{shop} from it', () => {
      const client = new ShopifyClient();
      assert.equal(client.baseFor(SHOP), `https://${SHOP}`);
      assert.equal(client.baseFor(' https://Tessera-Test.myshopify.com/ '), `https://${SHOP}`);
      assert.throws(() => client.baseFor('https://evil.invalid/'), /name\.myshopify\.com/);
      assert.equal(new ShopifyClient({ apiUrl: 'http://127.0.0.1:1/base/' }).baseFor('any-name'), 'http://127.0.0.1:1/base');
      assert.throws(() => new ShopifyClient({ apiVersion: '2025-08' }), /apiVersion/);
    });

    it('sends no request for a missing token or one no header can carry, and does not repeat it', async () => {
      shopify = await fakeShopify();
      const provider = shopifyProvider({ apiUrl: shopify.url });
      assert.deepEqual(await tested(provider.test({ shop: SHOP })), { ok: false, detail: 'The access token is empty.' });
      const outcome = await tested(provider.test({ shop: SHOP, access_token: `${TOKEN}\r\nX-Injected: 1` }));
      assert.equal(outcome.ok, false);
      assert.match(outcome.detail, /characters no Shopify token has/);
      assert.equal(shopify.seen.length, 0);
    });

    it('never answered a detail carrying the token or the client secret (every detail above, collected)', () => {
      assert.ok(details.length > 20, `only ${details.length} details were collected`);
      for (const detail of details) assert.ok(!detail.includes(TOKEN) && !detail.includes(SECRET), detail);
    });
  });
});
