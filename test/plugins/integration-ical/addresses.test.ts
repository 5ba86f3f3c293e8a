import assert from 'node:assert/strict';
import { isForbiddenAddress } from '../../../core/address-policy.ts';
import { SourceRefused, SourceUnavailable } from '../../../plugins/sources/public.ts';
import type { Resolver } from '../../../plugins/integration-ical/feed-address.ts';
import { icalEventsKind } from '../../../plugins/integration-ical/kind.ts';
import { storageIndependent } from '../../fixtures/suite-runs.ts';
import { startFeedServer, type FeedServer } from './feed-server.ts';
import { calendar, input, readError, readRows, vevent } from './fixtures.ts';

/** The test's DNS: what each name resolves to now, and every name asked. No real resolver is consulted. */
function testDns() {
  const names = new Map<string, string[]>();
  const asked: string[] = [];
  const resolver: Resolver = async (hostname) => {
    asked.push(hostname);
    const found = names.get(hostname);
    if (!found) throw Object.assign(new Error(`${hostname} unknown`), { code: 'ENOTFOUND' });
    return found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return { names, asked, resolver };
}

const ICS = calendar(vevent('UID:one@example.com', 'DTSTART:20250310T090000Z', 'SUMMARY:One'));

describe('integration-ical: where a feed may be read from', () => {
  storageIndependent();

  describe('check()', () => {
    const dns = testDns();
    const kind = icalEventsKind({ resolver: dns.resolver });
    const refusal = async (url: string, allowPrivateNetworks = false): Promise<SourceRefused> => {
      try {
        await kind.check!(input({ url }, { allowPrivateNetworks }));
      } catch (err) {
        assert.ok(err instanceof SourceRefused, `${url}: ${String(err)}`);
        assert.equal(err.pointer, '/config/url');
        return err;
      }
      assert.fail(`${url} was accepted`);
    };

    it('refuses loopback, private and link-local addresses, literal or resolved, unless private networks are allowed', async () => {
      dns.names.set('internal.example', ['10.1.2.3']);
      dns.names.set('mixed.example', ['203.0.113.9', '127.0.0.1']);
      dns.names.set('public.example', ['203.0.113.10']);
      assert.equal((await refusal('http://127.0.0.1/')).detail, '127.0.0.1 is a loopback, private, link-local or multicast address.');
      for (const url of ['http://127.0.0.1:8080/cal.ics', 'http://[::1]/cal.ics', 'https://192.168.1.10/cal.ics', 'http://169.254.169.254/latest', 'http://[::ffff:7f00:1]/', 'http://2130706433/'])
        await refusal(url);
      assert.equal((await refusal('https://internal.example/team.ics')).detail, 'internal.example resolves to 10.1.2.3, a loopback, private, link-local or multicast address.');
      assert.match((await refusal('https://mixed.example/team.ics')).detail, /resolves to 127\.0\.0\.1/);
      await kind.check!(input({ url: 'https://public.example/team.ics' }, { allowPrivateNetworks: false }));
      await kind.check!(input({ url: 'https://203.0.113.7/team.ics' }, { allowPrivateNetworks: false }));
      // A name that does not resolve now is judged when it is fetched.
      await kind.check!(input({ url: 'https://nowhere.example/team.ics' }, { allowPrivateNetworks: false }));
      dns.asked.length = 0;
      await kind.check!(input({ url: 'http://127.0.0.1/' }, { allowPrivateNetworks: true }));
      await kind.check!(input({ url: 'https://internal.example/team.ics' }, { allowPrivateNetworks: true }));
      assert.deepEqual(dns.asked, [], 'no lookup when private networks are allowed');
    });

    it('refuses other schemes and credentials in the URL, whatever the network rules', async () => {
      assert.equal((await refusal('ftp://example.com/cal.ics', true)).detail, 'Only http and https feeds can be read, not ftp.');
      assert.equal((await refusal('webcal://example.com/cal.ics', true)).detail, 'Only http and https feeds can be read, not webcal.');
      assert.equal((await refusal('https://ada:hunter2@example.com/cal.ics', true)).detail, 'Credentials in the URL are not accepted.');
      assert.equal((await refusal('https://ada@example.com/cal.ics', true)).detail, 'Credentials in the URL are not accepted.');
    });
  });

  describe('read()', () => {
    let feed: FeedServer;
    let inside: FeedServer;
    beforeEach(async () => {
      feed = await startFeedServer('127.0.0.1');
      // A second loopback address stands for the private network a redirect must not reach.
      inside = await startFeedServer('127.0.0.2');
      inside.ics('/secret.ics', ICS);
    });
    afterEach(async () => {
      await feed.close();
      await inside.close();
    });

    it('does not connect to a loopback feed unless private networks are allowed', async () => {
      feed.ics('/cal.ics', ICS);
      const refused = await readError(icalEventsKind(), input({ url: `${feed.origin}/cal.ics` }, { allowPrivateNetworks: false }), SourceUnavailable);
      assert.match(refused.message, /127\.0\.0\.1 is a loopback, private, link-local or multicast address/);
      assert.equal(feed.connections, 0);
      assert.deepEqual((await readRows(icalEventsKind(), input({ url: `${feed.origin}/cal.ics` }))).map((r) => r.key), ['one@example.com']);
    });

    it('resolves the name again at connect time: an answer turned private since the check gets no connection', async () => {
      const dns = testDns();
      const kind = icalEventsKind({ resolver: dns.resolver });
      dns.names.set('flip.example', ['203.0.113.20']);
      const url = `http://flip.example:${inside.port}/secret.ics`;
      await kind.check!(input({ url }, { allowPrivateNetworks: false }));
      dns.names.set('flip.example', ['127.0.0.2']);
      dns.asked.length = 0;
      const refused = await readError(kind, input({ url }, { allowPrivateNetworks: false }), SourceUnavailable);
      assert.match(refused.message, /flip\.example resolves to 127\.0\.0\.2/);
      assert.deepEqual(dns.asked, ['flip.example']);
      assert.equal(inside.connections, 0);
    });

    describe('redirects', () => {
      // Here 127.0.0.1 plays a public host (the feed); every other address is judged by the kernel's policy.
      const dns = testDns();
      dns.names.set('feed.example', ['127.0.0.1']);
      dns.names.set('inside.example', ['127.0.0.2']);
      const kind = icalEventsKind({ resolver: dns.resolver, isForbidden: (address) => address !== '127.0.0.1' && isForbiddenAddress(address) });
      const redirect = (from: string, to: string, status = 302) =>
        feed.serve(from, (_req, res) => {
          res.writeHead(status, { location: to });
          res.end();
        });

      it('follows up to 5 redirects, relative ones too, and refuses a sixth', async () => {
        feed.ics('/cal.ics', ICS);
        redirect('/r1', '/r2', 301);
        redirect('/r2', `http://feed.example:${feed.port}/r3`, 307);
        redirect('/r3', '/r4', 308);
        redirect('/r4', '/r5', 303);
        redirect('/r5', '/cal.ics');
        const rows = await readRows(kind, input({ url: `http://feed.example:${feed.port}/r1` }, { allowPrivateNetworks: false }));
        assert.deepEqual(rows.map((r) => r.key), ['one@example.com']);
        redirect('/r0', '/r1');
        const tooMany = await readError(kind, input({ url: `http://feed.example:${feed.port}/r0` }, { allowPrivateNetworks: false }), SourceUnavailable);
        assert.equal(tooMany.message, `The feed at feed.example:${feed.port} redirected more than 5 times.`);
        redirect('/nowhere', '');
        assert.match((await readError(kind, input({ url: `http://feed.example:${feed.port}/nowhere` }), SourceUnavailable)).message, /redirected without saying where to/);
      });

      it('refuses a redirect to a loopback address, literal or by name, unless private networks are allowed', async () => {
        redirect('/literal', `http://127.0.0.2:${inside.port}/secret.ics`);
        redirect('/named', `http://inside.example:${inside.port}/secret.ics`);
        redirect('/ftp', 'ftp://feed.example/cal.ics');
        const literal = await readError(kind, input({ url: `http://feed.example:${feed.port}/literal` }, { allowPrivateNetworks: false }), SourceUnavailable);
        assert.equal(literal.message, `The feed at feed.example:${feed.port} redirected to an address that is refused: 127.0.0.2 is a loopback, private, link-local or multicast address.`);
        const named = await readError(kind, input({ url: `http://feed.example:${feed.port}/named` }, { allowPrivateNetworks: false }), SourceUnavailable);
        assert.match(named.message, /inside\.example resolves to 127\.0\.0\.2/);
        assert.match((await readError(kind, input({ url: `http://feed.example:${feed.port}/ftp` }), SourceUnavailable)).message, /not ftp/);
        assert.equal(inside.connections, 0, 'the private server was never reached');
        // The same redirects, allowed: they do lead to a feed.
        for (const path of ['/literal', '/named']) {
          const rows = await readRows(kind, input({ url: `http://feed.example:${feed.port}${path}` }, { allowPrivateNetworks: true }));
          assert.deepEqual(rows.map((r) => r.key), ['one@example.com'], path);
        }
        assert.equal(inside.connections, 2);
      });
    });
  });
});
