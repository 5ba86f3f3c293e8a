import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestKernel, type TestKernel } from '../../core/testing.ts';
import { API_PREFIX } from '../../core/router.ts';
import { builtinPlugins } from '../../plugins/index.ts';
import { ROWS as KERNEL_ROWS } from './rows.ts';
import { startStripeServer, type FakeStripe } from '../plugins/payments-stripe/stripe-server.ts';
import { PRO_PRICE, WEBHOOK_SECRET } from '../plugins/billing/billing-kernel.ts';
import { pluginRows } from './plugin-rows.ts';
import { buildWorld, createPat, createPeople, credentialOf, PASSWORD, personOf } from './world.ts';
import { CALLERS, type Caller, type MatrixRequest, type People, type World } from '../../core/testing-matrix.ts';

const ROWS = [...KERNEL_ROWS, ...(await pluginRows(builtinPlugins.map((p) => p.id)))];

const UNLIMITED = { members: null, records: null, storage_bytes: null, automation_runs_per_month: null, ai_credits_per_month: null };

/** Billing through the loopback Stripe at `stripe`, with plans that limit nothing. */
const billingOn = (stripe: FakeStripe) => ({
  billing: { options: { provider: 'stripe', plans: [{ id: 'free', name: 'Free', limits: UNLIMITED }, { id: 'pro', name: 'Pro', price_id: PRO_PRICE, limits: UNLIMITED }] } },
  'payments-stripe': { options: { secretKey: stripe.secretKey, webhookSecret: WEBHOOK_SECRET, apiUrl: stripe.url } },
});

/** `/workspaces/{ws}/spaces/{id}` → a pattern its concrete paths match. */
function templateRegex(template: string): RegExp {
  return new RegExp(`^${template.replace(/\./g, '\\.').replace(/\{[^}]+\}/g, '[^/]+')}$`);
}

/** The status of a streamed answer, from a real connection to the kernel (listening on a port of its own), closed once read. */
async function streamed(t: TestKernel, req: MatrixRequest, auth: Record<string, string>): Promise<{ status: number; text: string }> {
  const server = t.kernel.server ?? (await t.kernel.listen(0, '127.0.0.1'));
  const { port } = server.address() as AddressInfo;
  const url = new URL(`http://127.0.0.1:${port}${API_PREFIX}${req.path}`);
  for (const [k, v] of Object.entries(req.query ?? {})) url.searchParams.set(k, v);
  return new Promise((resolve, reject) => {
    const request = http.get(url, { headers: { ...auth, Accept: 'text/event-stream' } }, (res) => {
      if (res.statusCode === 200) {
        request.destroy();
        return resolve({ status: 200, text: '' });
      }
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    request.on('error', reject);
  });
}

async function send(t: TestKernel, method: string, req: MatrixRequest, auth: Record<string, string>): Promise<{ status: number; text: string }> {
  if (req.stream) return streamed(t, req, auth);
  let r = (t.request as any)[method.toLowerCase()](`${API_PREFIX}${req.path}`).set(auth);
  if (req.query) r = r.query(req.query);
  if (req.file) r = r.attach('file', req.file.bytes, { filename: req.file.filename, contentType: req.file.type });
  else if (req.body) r = r.send(req.body);
  const res = await r;
  return { status: res.status, text: res.text ?? '' };
}

/** A credential nobody else uses: a new sign-in for a person, a new token of the same scope. */
async function freshCredential(t: TestKernel, w: World, caller: Caller): Promise<Record<string, string>> {
  if (caller === 'anonymous') return {};
  if (caller.startsWith('pat_')) return { Authorization: `Bearer ${await createPat(t, w.people.admin, w.ws, caller.slice(4))}` };
  const person = w.people[personOf(caller)!];
  const res = await t.request.post(`${API_PREFIX}/auth/sign-in`).send({ email: person.email, password: PASSWORD });
  return { Authorization: `Bearer ${res.body.token}` };
}

describe('authorization matrix: every route × every kind of caller', function () {
  this.timeout(10 * 60_000);
  let t: TestKernel;
  let stripe: FakeStripe;
  let people: People;
  let world: World;

  before(async () => {
    // Billing on, limiting nothing, so that its routes answer as they do for a paying instance.
    stripe = await startStripeServer();
    t = await startTestKernel({ config: { metrics: { enabled: true }, plugins: billingOn(stripe) } });
    people = await createPeople(t);
    world = await buildWorld(t, people, { vault: true });
  });
  after(async () => {
    await t.stop();
    await stripe.close();
  });

  it('has exactly one row per route of the enabled plugins', () => {
    const routes = t.kernel.routes.filter((r) => t.kernel.isActive(r.pluginId)).map((r) => `${r.def.method} ${r.def.path}`);
    const rows = ROWS.map((r) => r.route);
    assert.deepEqual(
      routes.filter((r) => !rows.includes(r)),
      [],
      'routes without a matrix row: add one per route, in test/authorization/rows.ts or in test/plugins/<plugin id>/matrix.rows.ts (see examples/hello-plugin/test/matrix.rows.ts)',
    );
    assert.deepEqual(rows.filter((r) => !routes.includes(r)), [], 'rows naming no route');
    assert.deepEqual(rows.filter((r, i) => rows.indexOf(r) !== i), [], 'routes with two rows');
  });

  it('refuses read tokens on every route that writes', () => {
    const defs = new Map(t.kernel.routes.map((r) => [`${r.def.method} ${r.def.path}`, r.def]));
    const patRead = CALLERS.indexOf('pat_read');
    const writable = ROWS.filter((row) => {
      const def = defs.get(row.route);
      return def && def.method !== 'GET' && def.auth !== 'public' && !def.readOnly && /^2/.test(row.expect.split(' ')[patRead]);
    });
    assert.deepEqual(writable.map((row) => row.route), [], 'write routes whose row lets a read token through');
  });

  for (const row of ROWS) {
    it(row.route, async () => {
      const [method, template] = row.route.split(' ');
      const matches = templateRegex(template);
      const actual: string[] = [];
      // A row that changes its world gets a new one once a caller's call has gone through: a refused call changes
      // nothing, so the callers refused before it share one.
      let w = world;
      let changed = row.fresh === 'world';
      for (const caller of CALLERS) {
        if (changed) w = await buildWorld(t, people, { elsewhere: world });
        const req = await row.request(w, caller, t);
        assert.match(req.path, matches, `the row for ${row.route} calls ${req.path}`);
        const auth = row.fresh === 'credential' ? await freshCredential(t, w, caller) : credentialOf(w, caller);
        const res = await send(t, method, req, auth);
        actual.push(String(res.status));
        changed = row.fresh === 'world' && res.status < 300;
        // guest_in reads D, which links into Vault (space T): nothing of Vault may show through.
        if (caller === 'guest_in' && w.vault) {
          for (const secret of [w.vault.database, w.vault.marker]) assert.ok(!res.text.includes(secret), `${row.route} shows guest_in ${secret} of a space it cannot see`);
        }
      }
      const expected = row.expect.split(' ');
      const wrong = CALLERS.flatMap((c, i) => (actual[i] === expected[i] ? [] : [`${c}: expected ${expected[i]}, got ${actual[i]}`]));
      assert.deepEqual(wrong, [], `${row.route}\n  ${wrong.join('\n  ')}`);

      if (row.foreign) {
        const req = await row.foreign(world, t);
        for (const caller of ['admin', 'pat_admin'] as const) {
          assert.equal((await send(t, method, req, credentialOf(world, caller))).status, 404, `${caller} naming another workspace's resource in ${req.path}`);
        }
      }
    });
  }
});
