/**
 * `npm run bench -- integrations`: the inbound receivers on PostgreSQL. A GitHub connection (its token tested against
 * a loopback server speaking GitHub's `GET /user`), then deliveries signed as GitHub signs them
 * (`X-Hub-Signature-256`), each with an id of its own:
 *   - verify and store, one at a time: p50 (target ≤ 3 ms);
 *   - sustained, BENCH_INTEGRATION_CLIENTS (16) senders for BENCH_INTEGRATION_SECONDS (10): deliveries/s (target
 *     ≥ 1,000), and the inbox counted against the 202s (target: none lost);
 *   - a burst of BENCH_INTEGRATION_BURST (5,000) with the server killed (SIGKILL) halfway and started again: every
 *     delivery answered 2xx is in the inbox exactly once (senders retry what got no answer, as providers do).
 *   - a Google Calendar OAuth connection whose access token has ended, tested by 50 requests at once: exactly one
 *     refresh request reaches the provider's token endpoint (a loopback OAuth server and Calendar API).
 */
import { createHmac, randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import { expect } from './lib/api.ts';
import { fmt } from './lib/format.ts';
import { startServer, type Server } from './lib/server.ts';
import { postgresStorage } from './lib/storage.ts';
import { percentile } from './records/report.ts';
import { createBenchDatabase } from './records/setup.ts';

const CLIENTS = Number(process.env.BENCH_INTEGRATION_CLIENTS ?? 16);
const SECONDS = Number(process.env.BENCH_INTEGRATION_SECONDS ?? 10);
const BURST = Number(process.env.BENCH_INTEGRATION_BURST ?? 5000);
const SEQUENTIAL = 1000;
const TOKEN = 'github_pat_bench0123456789';

console.log(`Tessera integrations benchmark — node ${process.version}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? 'unknown'})`);

/** GitHub's `GET /user`, enough for a connection's test. */
const github = http.createServer((req, res) => {
  const known = req.headers.authorization === `Bearer ${TOKEN}`;
  res.writeHead(known ? 200 : 401, { 'content-type': 'application/json' });
  res.end(JSON.stringify(known ? { login: 'bench', id: 1 } : { message: 'Bad credentials' }));
});
/**
 * Google's side: a token endpoint counting refresh requests (the code's token lives 1 s, so it has ended when the
 * callers come; refreshed ones an hour), and the Calendar API's primary calendar for a connection's test.
 */
let refreshes = 0;
let issued = 0;
const google = http.createServer((req, res) => {
  let text = '';
  req.on('data', (chunk) => (text += chunk));
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
    if (req.url === '/token') {
      const refresh = new URLSearchParams(text).get('grant_type') === 'refresh_token';
      if (refresh) refreshes++;
      issued++;
      return res.end(JSON.stringify({ access_token: `access-${issued}`, token_type: 'Bearer', expires_in: refresh ? 3600 : 1, refresh_token: `refresh-${issued}` }));
    }
    res.end(JSON.stringify({ id: 'bench@example.test', summary: 'Bench calendar' }));
  });
});
await new Promise<void>((resolve) => github.listen(0, '127.0.0.1', resolve));
await new Promise<void>((resolve) => google.listen(0, '127.0.0.1', resolve));
const googleUrl = `http://127.0.0.1:${(google.address() as AddressInfo).port}`;
const env = {
  BENCH_PLUGIN_OPTIONS: JSON.stringify({
    'integration-github': { apiUrl: `http://127.0.0.1:${(github.address() as AddressInfo).port}` },
    'integration-google-calendar': { apiUrl: googleUrl, tokenUrl: `${googleUrl}/token`, authorizeUrl: `${googleUrl}/authorize`, clientId: 'bench-client', clientSecret: 'bench-secret' },
  }),
};

/** Posts signed deliveries over keep-alive connections; answers the status, or 0 when the server did not answer. */
class Sender {
  private agent = new http.Agent({ keepAlive: true, maxSockets: CLIENTS * 2 });
  constructor(private url: URL, private readonly path: string, private readonly secret: string) {}

  retarget(url: string): void {
    this.agent.destroy();
    this.agent = new http.Agent({ keepAlive: true, maxSockets: CLIENTS * 2 });
    this.url = new URL(url);
  }

  send(id: string): Promise<{ status: number; ms: number }> {
    const body = JSON.stringify({ action: 'opened', issue: { number: 1, title: `Delivery ${id}` }, repository: { full_name: 'bench/repo' } });
    const headers = {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
      'x-github-event': 'issues',
      'x-github-delivery': id,
      'x-hub-signature-256': `sha256=${createHmac('sha256', this.secret).update(body).digest('hex')}`,
    };
    const started = performance.now();
    return new Promise((resolve) => {
      const req = http.request({ host: this.url.hostname, port: Number(this.url.port), method: 'POST', path: this.path, headers, agent: this.agent }, (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started }));
        res.on('error', () => resolve({ status: 0, ms: performance.now() - started }));
      });
      req.on('error', () => resolve({ status: 0, ms: performance.now() - started }));
      req.end(body);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

const storage = postgresStorage(1);
console.log(`\n${storage.label}`);
let server: Server = await startServer(storage, null, 'server.ts', env);
const db = await storage.open();
let failed = false;
try {
  const bench = await createBenchDatabase(server.url);
  const connection = await expect(201, 'connection', `${server.url}/api/v1/workspaces/${bench.workspaceId}/connections`, 'POST', bench.admin.session, { provider: 'github', name: 'Bench', credentials: { token: TOKEN } });
  const sender = new Sender(new URL(server.url), `/api/v1/integrations/github/webhook/${connection.id}`, connection.webhook_secret);
  const inbox = async (ids?: string[]) => {
    const q = db.knex('integration_deliveries').where({ connection_id: connection.id });
    if (ids) q.whereIn('delivery_id', ids);
    return Number((await q.count({ n: '*' }))[0].n);
  };

  // One at a time: the receiver's own cost, verify and store.
  for (let i = 0; i < 100; i++) await sender.send(`warm-${i}`);
  const ms: number[] = [];
  for (let i = 0; i < SEQUENTIAL; i++) {
    const answer = await sender.send(`seq-${i}`);
    if (answer.status !== 202) throw new Error(`delivery ${i}: ${answer.status}`);
    ms.push(answer.ms);
  }
  const p50 = percentile(ms, 50);
  console.log(`  verify and store, one at a time          p50 ${fmt(p50, 2)} ms  p99 ${fmt(percentile(ms, 99), 2)} ms  (n=${fmt(SEQUENTIAL)}; target p50 ≤ 3 ms) ${p50 <= 3 ? 'PASS' : 'MISS'}`);
  failed ||= p50 > 3;

  // Sustained: many senders, every 202 counted against the inbox.
  const accepted: string[] = [];
  let refused = 0;
  const until = performance.now() + SECONDS * 1000;
  let serial = 0;
  await Promise.all(Array.from({ length: CLIENTS }, async () => {
    while (performance.now() < until) {
      const id = `load-${serial++}`;
      const answer = await sender.send(id);
      if (answer.status === 202) accepted.push(id);
      else refused++;
    }
  }));
  const rate = accepted.length / SECONDS;
  const stored = await inbox(accepted);
  console.log(`  sustained, ${CLIENTS} senders for ${SECONDS} s          ${fmt(rate)} deliveries/s (target ≥ 1,000) ${rate >= 1000 ? 'PASS' : 'MISS'}; ${fmt(accepted.length - stored)} of ${fmt(accepted.length)} accepted missing from the inbox (target 0), ${fmt(refused)} not accepted`);
  failed ||= rate < 1000 || stored !== accepted.length;

  // A burst with the server killed halfway: what was answered 2xx must be in the inbox exactly once.
  const ids = Array.from({ length: BURST }, () => `burst-${randomUUID()}`);
  const answered = new Set<string>();
  let next = 0;
  let killedAt = -1;
  const pending: string[] = [];
  const burst = async () => {
    for (;;) {
      const id = pending.shift() ?? (next < ids.length ? ids[next++] : undefined);
      if (id === undefined) return;
      const answer = await sender.send(id);
      if (answer.status >= 200 && answer.status < 300) answered.add(id);
      // No answer (the server was killed): a provider sends it again later.
      else pending.push(id);
      if (killedAt < 0 && answered.size >= ids.length / 2) {
        killedAt = answered.size;
        process.kill(server.pid, 'SIGKILL');
        server = await startServer(storage, null, 'server.ts', env);
        sender.retarget(server.url);
      }
    }
  };
  await Promise.all(Array.from({ length: CLIENTS }, burst));
  const kept = await inbox(ids);
  const duplicates = Number((await db.knex.raw(`SELECT count(*) - count(DISTINCT delivery_id) AS n FROM integration_deliveries WHERE connection_id = ?`, [connection.id])).rows[0].n);
  const lost = [...answered].length - (await inbox([...answered]));
  console.log(`  burst of ${fmt(BURST)}, killed after ${fmt(killedAt)} answers     ${fmt(answered.size)} answered 2xx, ${fmt(kept)} in the inbox, ${fmt(lost)} answered but lost (target 0), ${fmt(duplicates)} stored twice (target 0) ${lost === 0 && duplicates === 0 ? 'PASS' : 'MISS'}`);
  failed ||= lost !== 0 || duplicates !== 0;
  sender.close();

  // 50 callers at once on a token that has ended: one refresh.
  const api = `${server.url}/api/v1/workspaces/${bench.workspaceId}/connections`;
  const calendar = await expect(201, 'calendar connection', api, 'POST', bench.admin.session, { provider: 'google-calendar', name: 'Bench calendar' });
  const state = new URL(calendar.authorize_url).searchParams.get('state')!;
  await expect(200, 'OAuth callback', `${server.url}/api/v1/integrations/google-calendar/oauth/callback?code=bench-code&state=${state}`, 'GET', bench.admin.session);
  await new Promise((resolve) => setTimeout(resolve, 1100));
  const before = refreshes;
  const tests = await Promise.all(Array.from({ length: 50 }, () => expect(200, 'connection test', `${api}/${calendar.id}/test`, 'POST', bench.admin.session)));
  const okTests = tests.filter((r: { ok: boolean }) => r.ok).length;
  const asked = refreshes - before;
  console.log(`  token refresh, 50 callers at once          ${asked} refresh request${asked === 1 ? '' : 's'} reached the provider (target exactly 1) ${asked === 1 ? 'PASS' : 'MISS'}; ${okTests} of 50 tests ok`);
  failed ||= asked !== 1 || okTests !== 50;
} finally {
  await db.close();
  await server.stop();
  await storage.cleanup();
  github.close();
  google.close();
}
process.exitCode = failed ? 1 : 0;
