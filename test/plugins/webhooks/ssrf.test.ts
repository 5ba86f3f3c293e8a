import assert from 'node:assert/strict';
import { builtinPlugins } from '../../../plugins/index.ts';
import { createWebhooksPlugin } from '../../../plugins/webhooks/index.ts';
import { isForbiddenAddress } from '../../../core/address-policy.ts';
import type { Resolver } from '../../../plugins/webhooks/http-client.ts';
import { sleep, waitUntil } from '../../fixtures/wait.ts';
import { startReceiver, type Receiver } from './receiver.ts';
import { webhookWorld, type WebhookWorld } from './world.ts';

describe('webhooks: private network targets', function () {
  this.timeout(30000);
  let w: WebhookWorld;
  let receiver: Receiver;
  /** The test's DNS: what each name resolves to now, and every name asked. No real resolver is ever consulted. */
  const dns = new Map<string, string[]>();
  const asked: string[] = [];
  const resolver: Resolver = async (hostname) => {
    asked.push(hostname);
    const found = dns.get(hostname);
    if (!found) throw Object.assign(new Error(`${hostname} unknown`), { code: 'ENOTFOUND' });
    return found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };

  before(async () => {
    const plugins = builtinPlugins.map((p) => (p.id === 'webhooks' ? createWebhooksPlugin({ resolver }) : p));
    w = await webhookWorld({ plugins, config: { plugins: { webhooks: { options: { pollMs: 20 } } } } });
    receiver = await startReceiver();
  });
  after(async () => {
    await w.t.stop();
    await receiver.close();
  });

  const create = (url: string) => w.t.request.post(w.api('/webhooks')).set(w.admin.auth).send({ url, events: ['record.created'] });
  const count = async () => (await w.t.request.get(w.api('/webhooks?limit=200')).set(w.admin.auth).expect(200)).body.data.length;

  it('refuses loopback, private, link-local, multicast and mapped addresses at save (422 on /url), literal or resolved, storing nothing', async () => {
    dns.set('internal.example', ['10.0.0.7']);
    dns.set('metadata.example', ['::ffff:169.254.169.254']);
    dns.set('mixed.example', ['203.0.113.9', '127.0.0.1']);
    const before = await count();
    for (const url of [
      'http://127.0.0.1/hook',
      'http://127.8.9.10:8080/hook',
      'http://10.1.2.3/hook',
      'http://172.16.0.1/hook',
      'http://192.168.1.1/hook',
      'http://169.254.169.254/latest/meta-data',
      'http://100.64.0.1/hook',
      'http://0.0.0.0/hook',
      'http://224.0.0.1/hook',
      'http://[::1]/hook',
      'http://[::]/hook',
      'http://[::ffff:127.0.0.1]/hook',
      'http://[::ffff:a9fe:a9fe]/hook',
      'http://[fd00::1]/hook',
      'http://[fe80::1]/hook',
      'http://2130706433/hook',
      'http://internal.example/hook',
      'http://metadata.example/hook',
      'http://mixed.example/hook',
    ]) {
      const res = await create(url).expect(422);
      assert.equal(res.body.code, 'validation_failed', url);
      assert.equal(res.body.errors[0].pointer, '/url', url);
    }
    assert.equal(await count(), before, 'nothing stored');
    assert.equal(receiver.connections, 0);
  });

  it('accepts public targets, and a PATCH to a private one is refused like a create', async () => {
    dns.set('public.example', ['203.0.113.10']);
    const ok = await create('https://public.example/hook').expect(201);
    await create('https://198.51.100.7/hook').expect(201);
    const res = await w.t.request.patch(w.api(`/webhooks/${ok.body.id}`)).set(w.admin.auth).send({ url: 'http://[::1]:9/x' }).expect(422);
    assert.equal(res.body.errors[0].pointer, '/url');
    assert.equal((await w.t.request.get(w.api(`/webhooks/${ok.body.id}`)).set(w.admin.auth)).body.url, 'https://public.example/hook', 'unchanged');
    for (const id of (await w.t.request.get(w.api('/webhooks')).set(w.admin.auth)).body.data.map((h: { id: string }) => h.id)) {
      await w.t.request.delete(w.api(`/webhooks/${id}`)).set(w.admin.auth).expect(204);
    }
  });

  it('refuses at connect time a name whose DNS answer turned private after the save, before any connection', async () => {
    dns.set('flip.example', ['203.0.113.20']);
    const hook = (await create(`http://flip.example:${receiver.port}/hook`).expect(201)).body;
    await w.t.request.patch(w.api(`/webhooks/${hook.id}`)).set(w.admin.auth).send({ enabled: false }).expect(200);
    // Now the name points at the loopback receiver: a sender trusting it would reach the receiver.
    dns.set('flip.example', ['127.0.0.1']);
    await w.t.request.patch(w.api(`/webhooks/${hook.id}`)).set(w.admin.auth).send({ enabled: true }).expect(200);
    asked.length = 0;
    await w.t.request.post(w.api(`/databases/${w.db}/records`)).set(w.editor.auth).send({ values: { name: 'x' } }).expect(201);
    const delivery = await waitUntil('a refused attempt', async () => {
      const [d] = (await w.t.request.get(w.api(`/webhooks/${hook.id}/deliveries`)).set(w.admin.auth)).body.data;
      return d && d.attempt >= 1 ? d : null;
    });
    assert.match(delivery.error, /refused: flip\.example resolves to 127\.0\.0\.1/);
    assert.equal(delivery.response_code, null);
    assert.equal(delivery.status, 'pending', 'retried later on the schedule');
    assert.ok(asked.includes('flip.example'), 'the name was resolved again at connect time');
    await sleep(200);
    assert.equal(receiver.connections, 0, 'no connection was opened');
    assert.equal(receiver.got.length, 0);
  });
});

describe('webhooks: the address policy', () => {
  it('forbids loopback, private, shared, link-local, multicast, reserved and their IPv6 and mapped forms; allows public addresses', () => {
    const forbidden = ['127.0.0.1', '10.255.0.1', '172.31.255.255', '192.168.0.1', '169.254.169.254', '100.127.0.1', '0.0.0.0', '224.0.0.251', '239.1.1.1', '240.0.0.1', '255.255.255.255',
      '::1', '::', '::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:10.0.0.1', '::127.0.0.1', '64:ff9b::a00:1', 'fc00::1', 'fd12:3456::1', 'fe80::1', 'ff02::1', 'not-an-ip'];
    const allowed = ['8.8.8.8', '203.0.113.10', '172.32.0.1', '100.128.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8', '2001:4860::8888'];
    for (const a of forbidden) assert.equal(isForbiddenAddress(a), true, a);
    for (const a of allowed) assert.equal(isForbiddenAddress(a), false, a);
  });

  it('knows the rarer forms from the registry, and any spelling of an address', () => {
    // Site-local, discard-only, IPv4-translated (RFC 6145) and local-use NAT64 (RFC 8215): missed by the hand-written list.
    const forbidden = ['fec0::1', '100::1', '::ffff:0:7f00:1', '::ffff:0:a9fe:a9fe', '64:ff9b:1::a00:1', '64:ff9b::8.8.8.8',
      '0:0:0:0:0:ffff:7f00:1', '::FFFF:A9FE:A9FE', 'FE80::1', 'fe80::1%eth0', '192.0.0.8', '198.19.1.1'];
    // Documentation ranges reach nothing, and stand for public addresses here as in examples.
    const allowed = ['198.51.100.7', '192.0.2.1', '0:0:0:0:0:ffff:808:808'];
    for (const a of forbidden) assert.equal(isForbiddenAddress(a), true, a);
    for (const a of allowed) assert.equal(isForbiddenAddress(a), false, a);
  });
});
