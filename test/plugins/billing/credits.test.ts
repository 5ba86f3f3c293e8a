import assert from 'node:assert/strict';
import { AppError } from '../../../core/errors.ts';
import { createWorkspace, joinWorkspace, signUp, type SignedUpUser, type TestKernel } from '../../../core/testing.ts';
import type { CreditService } from '../../../plugins/billing/credits.service.ts';
import { monthOf } from '../../../plugins/billing/periods.ts';
import { sleep, waitUntil } from '../../fixtures/wait.ts';
import { finished, unzipJson } from '../gdpr/helpers.ts';
import { signedEvent, type FakeStripe } from '../payments-stripe/stripe-server.ts';
import { setClock, startBillingWorld, type BillingWorld, WEBHOOK_SECRET } from './billing-kernel.ts';

interface Entry {
  id: string;
  amount: number;
  balance: number;
  reason: 'grant' | 'expiry' | 'purchase' | 'debit';
  detail: string;
  ref: string | null;
  created_at: string;
}

/** Each entry's balance is the one before it plus its amount, the oldest starting from nothing (`entries` newest first). */
function assertChained(entries: Entry[]): void {
  const oldestFirst = [...entries].reverse();
  let balance = 0;
  for (const [i, e] of oldestFirst.entries()) {
    assert.equal(e.balance, balance + e.amount, `entry ${i} (oldest first) ${e.reason} ${e.amount} → ${e.balance} after ${balance}: ${JSON.stringify(oldestFirst.map((x) => [x.reason, x.amount, x.balance]))}`);
    balance = e.balance;
  }
  for (let i = 1; i < entries.length; i++) assert.ok(entries[i - 1]!.created_at >= entries[i]!.created_at, 'newest first');
}

describe('billing: AI credits', function () {
  this.timeout(120_000);
  let stripe: FakeStripe;
  let t: TestKernel;
  let admin: SignedUpUser;
  let credits: CreditService;

  let world: BillingWorld;
  before(async () => {
    ({ stripe, t, admin } = world = await startBillingWorld({ config: { jobs: { pollingIntervalSeconds: 0.5 } }, adminName: 'Ada' }));
    credits = t.kernel.container.resolverFor('billing')('billing.credits');
  });
  after(() => world.stop());
  afterEach(() => setClock(t, null));

  const apiOf = (ws: string) => (path: string) => `/api/v1/workspaces/${ws}${path}`;
  const billingOf = async (ws: string, who = admin) => (await t.request.get(apiOf(ws)('/billing')).set(who.auth).expect(200)).body;
  /** The whole ledger, newest first, read a page of `limit` at a time. */
  async function ledgerOf(ws: string, limit = 200): Promise<Entry[]> {
    const entries: Entry[] = [];
    let cursor: string | null = null;
    do {
      const query: Record<string, string | number> = { limit, ...(cursor ? { cursor } : {}) };
      const page = (await t.request.get(apiOf(ws)('/billing/ai-credits/ledger')).query(query).set(admin.auth).expect(200)).body;
      entries.push(...page.data);
      cursor = page.next_cursor;
    } while (cursor);
    return entries;
  }
  const debit = (ws: string, amount: number, extra: { ref?: string; userId?: string } = {}) => credits.debit({ workspaceId: ws, amount, detail: `Agent run (${amount})`, ...extra });
  /** The refusal a debit the balance cannot pay meets. */
  async function refused(ws: string, amount: number): Promise<AppError> {
    const err = await debit(ws, amount).then(
      () => assert.fail(`a debit of ${amount} went through`),
      (e: unknown) => e,
    );
    assert.ok(err instanceof AppError, String(err));
    return err;
  }
  const purchasesOf = (ws: string) => t.db('billing_purchases').where({ workspace_id: ws }).orderBy('created_at').select('id', 'status', 'credits', 'amount', 'currency', 'payment_id', 'error');
  const paymentIntentRequests = () => stripe.requests.filter((r) => r.method === 'POST' && r.path === '/v1/payment_intents');
  const intentsFor = (ws: string) => paymentIntentRequests().filter((r) => r.body.metadata?.workspace_id === ws);
  /** A workspace of `admin` with a Stripe customer whose card is its default (as if it had subscribed once). */
  async function workspaceWithCustomer(): Promise<string> {
    const ws = (await createWorkspace(t, admin)).id;
    await billingOf(ws);
    const customer = stripe.addCustomer({ card: 'default', workspaceId: ws });
    await t.db('billing_accounts').where({ workspace_id: ws }).update({ customer_id: customer.id });
    return ws;
  }
  const autoReload = (ws: string, body: object, who = admin) => t.request.put(apiOf(ws)('/billing/ai-credits/auto-reload')).set(who.auth).send(body);
  const purchaseEntries = async (ws: string) => (await ledgerOf(ws)).filter((e) => e.reason === 'purchase');

  it("grants the plan's credits each month: debits take them, the grant first; what is left lapses; bought credits stay", async () => {
    const ws = await workspaceWithCustomer();
    const month = monthOf(new Date()).key;
    assert.equal((await billingOf(ws)).credits.balance, 50);
    const first = await ledgerOf(ws);
    assert.deepEqual(
      first.map((e) => [e.reason, e.amount, e.balance, e.ref]),
      [['grant', 50, 50, month]],
    );
    assert.match(first[0]!.detail, /Free plan/);

    assert.deepEqual(await debit(ws, 20, { ref: 'run-1' }), { balance: 30 });
    const exhausted = await refused(ws, 31);
    assert.deepEqual([exhausted.status, exhausted.code, exhausted.extensions], [402, 'credits_exhausted', { balance: 30, needed: 31 }]);
    assert.equal((await billingOf(ws)).credits.balance, 30);
    assert.deepEqual((await ledgerOf(ws)).map((e) => [e.reason, e.amount, e.balance, e.ref]), [
      ['debit', -20, 30, 'run-1'],
      ['grant', 50, 50, month],
    ]);

    // 100 credits bought: saving auto-reload with the balance already below its threshold buys at once.
    await autoReload(ws, { enabled: true, threshold: 40, amount: 100 }).expect(200);
    await waitUntil('the purchase', async () => (await purchaseEntries(ws)).length === 1);
    await autoReload(ws, { enabled: false, threshold: 40, amount: 100 }).expect(200);
    assert.equal((await billingOf(ws)).credits.balance, 130);
    assert.deepEqual(await debit(ws, 25), { balance: 105 });
    assert.deepEqual(await t.db('billing_accounts').where({ workspace_id: ws }).first('grant_balance', 'purchased_balance').then((a) => [Number(a.grant_balance), Number(a.purchased_balance)]), [5, 100]);

    // The next month: the 5 left of this month's grant lapse, 50 are granted, the 100 bought stay.
    const next = monthOf(monthOf(new Date()).end);
    setClock(t, new Date(next.start.getTime() + 3_600_000));
    assert.equal((await billingOf(ws)).credits.balance, 150);
    const after = await ledgerOf(ws);
    assert.deepEqual(after.slice(0, 3).map((e) => [e.reason, e.amount, e.balance, e.ref]), [
      ['grant', 50, 150, next.key],
      ['expiry', -5, 100, month],
      ['debit', -25, 105, null],
    ]);
    assertChained(after);
    // Reading again in the same month grants nothing more.
    assert.equal((await billingOf(ws)).credits.balance, 150);
    assert.equal((await ledgerOf(ws)).length, after.length);

    // The grant is spent before the bought credits.
    assert.deepEqual(await debit(ws, 60), { balance: 90 });
    assert.deepEqual(await t.db('billing_accounts').where({ workspace_id: ws }).first('grant_balance', 'purchased_balance').then((a) => [Number(a.grant_balance), Number(a.purchased_balance)]), [0, 90]);
    const beyond = await refused(ws, 91);
    assert.equal(beyond.code, 'credits_exhausted');
    assert.equal((await billingOf(ws)).credits.balance, 90);
    assert.equal((await ledgerOf(ws)).length, after.length + 1);
    assert.equal((await purchasesOf(ws)).length, 1);
  });

  it('lists the ledger newest first, a page at a time, each balance the one before plus the amount', async () => {
    const ws = (await createWorkspace(t, admin)).id;
    for (let i = 1; i <= 7; i++) await debit(ws, i, { ref: `run-${i}` });
    const api = apiOf(ws);
    const pages: Entry[][] = [];
    let cursor: string | null = null;
    do {
      const res: { body: { data: Entry[]; next_cursor: string | null } } = await t.request
        .get(api('/billing/ai-credits/ledger'))
        .query({ limit: 3, ...(cursor ? { cursor } : {}) })
        .set(admin.auth)
        .expect(200);
      pages.push(res.body.data);
      cursor = res.body.next_cursor;
    } while (cursor);
    assert.deepEqual(
      pages.map((p) => p.length),
      [3, 3, 2],
    );
    const entries = pages.flat();
    assert.deepEqual(
      entries.map((e) => [e.reason, e.amount, e.balance, e.ref]),
      [
        ['debit', -7, 22, 'run-7'],
        ['debit', -6, 29, 'run-6'],
        ['debit', -5, 35, 'run-5'],
        ['debit', -4, 40, 'run-4'],
        ['debit', -3, 44, 'run-3'],
        ['debit', -2, 47, 'run-2'],
        ['debit', -1, 49, 'run-1'],
        ['grant', 50, 50, monthOf(new Date()).key],
      ],
    );
    assert.equal(new Set(entries.map((e) => e.id)).size, 8);
    for (const e of entries) assert.deepEqual(Object.keys(e).sort(), ['amount', 'balance', 'created_at', 'detail', 'id', 'reason', 'ref']);
    assertChained(entries);
    assert.equal((await billingOf(ws)).credits.balance, 22);

    // A cursor of another workspace's ledger is refused; the ledger is for admins.
    const other = (await createWorkspace(t, admin)).id;
    const firstPage = (await t.request.get(api('/billing/ai-credits/ledger')).query({ limit: 3 }).set(admin.auth).expect(200)).body;
    await t.request.get(apiOf(other)('/billing/ai-credits/ledger')).query({ cursor: firstPage.next_cursor }).set(admin.auth).expect(422);
    const member = await signUp(t);
    await joinWorkspace(t, admin, ws, member, 'member');
    await t.request.get(api('/billing/ai-credits/ledger')).set(member.auth).expect(403);
  });

  it('refuses an auto-reload setting without a customer, a bad one, or from a non-admin, changing nothing', async () => {
    const ws = (await createWorkspace(t, admin)).id;
    const off = { enabled: false, threshold: 0, amount: 0, failed_at: null };
    const noCustomer = await autoReload(ws, { enabled: true, threshold: 10, amount: 100 }).expect(422);
    assert.equal(noCustomer.body.code, 'no_customer');
    assert.deepEqual((await billingOf(ws)).credits.auto_reload, off);

    const customer = stripe.addCustomer({ card: 'default', workspaceId: ws });
    await t.db('billing_accounts').where({ workspace_id: ws }).update({ customer_id: customer.id });
    const bad = [
      { enabled: true, threshold: -1, amount: 100 },
      { enabled: true, threshold: 10, amount: 0 },
      { enabled: true, threshold: 10, amount: 100, currency: 'eur' },
      { enabled: true, threshold: 10 },
      { enabled: 'yes', threshold: 10, amount: 100 },
      { enabled: true, threshold: 10.5, amount: 100 },
      { enabled: true, threshold: 10, amount: 1_000_000_001 },
    ];
    for (const body of bad) {
      const res = await autoReload(ws, body).expect(422);
      assert.equal(res.body.code, 'validation_failed', JSON.stringify(body));
    }
    assert.deepEqual((await billingOf(ws)).credits.auto_reload, off);

    const member = await signUp(t);
    const editor = await signUp(t);
    await joinWorkspace(t, admin, ws, member, 'member');
    await joinWorkspace(t, admin, ws, editor, 'editor');
    for (const who of [member, editor]) {
      await autoReload(ws, { enabled: true, threshold: 10, amount: 100 }, who).expect(403);
      await t.request.get(apiOf(ws)('/billing')).set(who.auth).expect(403);
    }
    assert.deepEqual((await billingOf(ws)).credits.auto_reload, off);

    const saved = await autoReload(ws, { enabled: true, threshold: 10, amount: 100 }).expect(200);
    assert.deepEqual(saved.body.credits, { balance: 50, auto_reload: { enabled: true, threshold: 10, amount: 100, failed_at: null } });
    assert.deepEqual(await purchasesOf(ws), [], 'the balance is above the threshold: nothing is bought');
  });

  it('starts exactly one purchase when 50 debits at once cross the threshold', async () => {
    const ws = await workspaceWithCustomer();
    await autoReload(ws, { enabled: true, threshold: 30, amount: 100 }).expect(200);
    const before = paymentIntentRequests().length;
    const results = await Promise.allSettled(Array.from({ length: 50 }, (_, i) => debit(ws, 1, { ref: `run-${i}` })));
    assert.deepEqual(
      results.filter((r) => r.status === 'rejected').map((r) => String((r as PromiseRejectedResult).reason)),
      [],
    );
    const purchases = await purchasesOf(ws);
    assert.equal(purchases.length, 1, JSON.stringify(purchases));
    await waitUntil('the purchase to be paid', async () => (await purchaseEntries(ws)).length > 0);
    await sleep(1500);

    const [purchase] = await purchasesOf(ws);
    assert.deepEqual({ status: purchase.status, credits: Number(purchase.credits), amount: Number(purchase.amount), currency: purchase.currency }, { status: 'succeeded', credits: 100, amount: 100, currency: 'usd' });
    assert.equal(paymentIntentRequests().length - before, 1);
    const [intent] = intentsFor(ws);
    assert.equal(intent!.idempotencyKey, `credit-purchase-${purchase.id}`);
    assert.deepEqual([intent!.body.amount, intent!.body.currency, intent!.body.off_session, intent!.body.metadata.purchase_id], ['100', 'usd', 'true', purchase.id]);
    assert.equal(purchase.payment_id, stripe.paymentIntents.get(purchase.payment_id)?.id);

    const ledger = await ledgerOf(ws);
    const purchased = ledger.filter((e) => e.reason === 'purchase');
    assert.deepEqual(purchased.map((e) => [e.amount, e.ref]), [[100, purchase.id]]);
    assert.equal(ledger.filter((e) => e.reason === 'debit').length, 50);
    assertChained(ledger);
    const billing = await billingOf(ws);
    assert.equal(billing.credits.balance, 100);
    assert.equal((await t.db('billing_accounts').where({ workspace_id: ws }).first('reload_purchase_id')).reload_purchase_id, null);
  });

  it('starts a purchase when a debit is refused, even with the balance above the threshold', async () => {
    const ws = await workspaceWithCustomer();
    await autoReload(ws, { enabled: true, threshold: 5, amount: 200 }).expect(200);
    assert.equal((await refused(ws, 80)).code, 'credits_exhausted');
    assert.equal((await purchasesOf(ws)).length, 1);
    await waitUntil('the purchase to be paid', async () => (await purchaseEntries(ws)).length > 0);
    assert.equal((await debit(ws, 80)).balance, 170);
    assert.equal((await purchasesOf(ws)).length, 1);
  });

  it('pauses auto-reload after a declined card, tells every admin once, and resumes once the setting is saved again', async () => {
    const ws = await workspaceWithCustomer();
    const [admin2, member] = [await signUp(t, { name: 'Bea' }), await signUp(t, { name: 'Mo' })];
    await joinWorkspace(t, admin, ws, admin2, 'admin');
    await joinWorkspace(t, admin, ws, member, 'member');
    const setting = { enabled: true, threshold: 30, amount: 100 };
    await autoReload(ws, setting).expect(200);
    stripe.declineNextCharges(1);
    assert.deepEqual(await debit(ws, 25), { balance: 25 });
    await waitUntil('the purchase to fail', async () => (await purchasesOf(ws))[0]?.status === 'failed');
    const [failed] = await purchasesOf(ws);
    assert.match(failed.error, /declined/);
    assert.equal(intentsFor(ws).length, 1);

    const billing = await billingOf(ws);
    assert.equal(billing.credits.balance, 25);
    assert.equal(billing.credits.auto_reload.enabled, true);
    assert.ok(billing.credits.auto_reload.failed_at && !Number.isNaN(Date.parse(billing.credits.auto_reload.failed_at)), JSON.stringify(billing.credits));
    for (const who of [admin, admin2]) {
      const inbox = (await t.request.get(apiOf(ws)('/notifications')).set(who.auth).expect(200)).body.data.filter((n: { type: string }) => n.type === 'credits_reload_failed');
      assert.equal(inbox.length, 1, who.name);
    }
    assert.deepEqual(await t.db('notifications').where({ workspace_id: ws, type: 'credits_reload_failed' }).orderBy('user_id').pluck('user_id'), [admin.id, admin2.id].sort());
    const [note] = await t.db('notifications').where({ workspace_id: ws, type: 'credits_reload_failed', user_id: admin.id }).select('data');
    assert.equal((typeof note.data === 'string' ? JSON.parse(note.data) : note.data).purchase_id, failed.id);

    // Below the threshold again and again: nothing more is bought, and nobody is told again.
    assert.deepEqual(await debit(ws, 5), { balance: 20 });
    assert.deepEqual(await debit(ws, 5), { balance: 15 });
    await sleep(1500);
    assert.equal((await purchasesOf(ws)).length, 1);
    assert.equal(intentsFor(ws).length, 1);
    assert.equal(await t.db('notifications').where({ workspace_id: ws, type: 'credits_reload_failed' }).count({ n: '*' }).first().then((r) => Number(r!.n)), 2);
    assert.deepEqual(await purchaseEntries(ws), []);

    // Saving the setting again: the pause ends and, the balance being below the threshold, one purchase starts.
    const saved = await autoReload(ws, setting).expect(200);
    assert.equal(saved.body.credits.auto_reload.failed_at, null);
    await waitUntil('the new purchase to be paid', async () => (await purchaseEntries(ws)).length === 1);
    await sleep(1000);
    const purchases = await purchasesOf(ws);
    assert.deepEqual(purchases.map((p) => p.status), ['failed', 'succeeded']);
    assert.deepEqual(intentsFor(ws).map((r) => r.idempotencyKey), purchases.map((p) => `credit-purchase-${p.id}`));
    const after = await billingOf(ws);
    assert.equal(after.credits.balance, 115);
    assert.equal(after.credits.auto_reload.failed_at, null);
    assertChained(await ledgerOf(ws));
  });

  it('adds the credits of a charge left processing once its payment_intent.succeeded event arrives, and only once', async () => {
    const ws = await workspaceWithCustomer();
    await autoReload(ws, { enabled: true, threshold: 30, amount: 100 }).expect(200);
    stripe.queueCharges('processing');
    await debit(ws, 25);
    await waitUntil('the charge to be processing', async () => (await purchasesOf(ws))[0]?.status === 'processing');
    const [purchase] = await purchasesOf(ws);
    assert.ok(purchase.payment_id?.startsWith('pi_'));
    assert.equal(stripe.paymentIntents.get(purchase.payment_id)?.status, 'processing');
    assert.equal((await billingOf(ws)).credits.balance, 25);
    assert.deepEqual(await purchaseEntries(ws), []);
    // One purchase under way: further debits below the threshold start no other.
    await debit(ws, 5);
    await sleep(1200);
    assert.equal((await purchasesOf(ws)).length, 1);
    assert.equal(intentsFor(ws).length, 1);

    const signed = signedEvent(stripe.settlePayment(purchase.payment_id, 'succeeded'), WEBHOOK_SECRET);
    const deliver = () => t.request.post('/api/v1/billing/webhooks/stripe').set('Stripe-Signature', signed.header).set('Content-Type', 'application/json').send(signed.body);
    const first = await deliver().expect(200);
    assert.deepEqual(first.body, { received: true, handled: true });
    assert.equal((await billingOf(ws)).credits.balance, 120);
    const again = await deliver().expect(200);
    assert.deepEqual(again.body, { received: true, duplicate: true });
    assert.equal((await billingOf(ws)).credits.balance, 120);
    assert.deepEqual((await purchaseEntries(ws)).map((e) => [e.amount, e.balance, e.ref]), [[100, 120, purchase.id]]);
    assert.equal((await purchasesOf(ws))[0].status, 'succeeded');
    assert.equal((await t.db('billing_accounts').where({ workspace_id: ws }).first('reload_purchase_id')).reload_purchase_id, null);
  });

  it('never refuses a debit on a plan without a credit limit', async () => {
    const ws = (await createWorkspace(t, admin)).id;
    await billingOf(ws);
    await t.db('billing_accounts').where({ workspace_id: ws }).update({ plan: 'team' });
    assert.equal((await billingOf(ws)).plan, 'team');
    const results = await Promise.all([debit(ws, 40), debit(ws, 1_000), debit(ws, 5_000)]);
    assert.equal(results.length, 3);
    const ledger = await ledgerOf(ws);
    assert.deepEqual(ledger.filter((e) => e.reason === 'debit').map((e) => e.amount).sort((a, b) => a - b), [-5_000, -1_000, -40]);
    assertChained(ledger);
    assert.equal((await billingOf(ws)).credits.balance, 50 - 6_040);
    const usage = (await t.request.get(apiOf(ws)('/billing/usage')).set(admin.auth).expect(200)).body;
    assert.equal(usage.limits.ai_credits_per_month, null);
    assert.equal(usage.usage.ai_credits_per_month, 6_040);

    // The next month grants nothing (the plan has no monthly credits) and still refuses nothing.
    // (The clock standing still, every entry of that month has the same time: the ledger keeps them in the order made.)
    setClock(t, monthOf(monthOf(new Date()).end).start);
    for (let i = 1; i <= 5; i++) assert.deepEqual(await debit(ws, 10, { ref: `later-${i}` }), { balance: 50 - 6_040 - 10 * i });
    const later = await ledgerOf(ws);
    assert.deepEqual(later.slice(0, 5).map((e) => [e.reason, e.ref]), [
      ['debit', 'later-5'],
      ['debit', 'later-4'],
      ['debit', 'later-3'],
      ['debit', 'later-2'],
      ['debit', 'later-1'],
    ]);
    assert.equal(later.filter((e) => e.reason !== 'debit').length, 1, 'the first grant only: nothing lapses, nothing is granted');
    assertChained(later);
  });

  it("exports a member's debits and keeps them, without the member, once the member is erased", async () => {
    const ws = (await createWorkspace(t, admin)).id;
    const api = apiOf(ws);
    const mia = await signUp(t, { name: 'Mia' });
    await joinWorkspace(t, admin, ws, mia, 'editor');
    await debit(ws, 7, { userId: mia.id, ref: 'run-mia' });
    await debit(ws, 3, { userId: admin.id, ref: 'run-ada' });

    const queued = (await t.request.post(api(`/members/${mia.id}/data-export`)).set(admin.auth).expect(202)).body.id;
    const done = await finished(t, api(`/data-exports/${queued}`), admin.auth);
    assert.equal(done.status, 'ready');
    const zip = await t.request
      .get(done.download_url!)
      .set(admin.auth)
      .buffer(true)
      .parse((res, cb) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => cb(null, Buffer.concat(chunks)));
      });
    const exported = unzipJson(zip.body as Buffer)['billing_credit_debits.json'] as Array<Record<string, unknown>>;
    assert.equal(exported.length, 1, JSON.stringify(exported));
    assert.deepEqual([exported[0]!.amount, exported[0]!.reason, exported[0]!.ref, exported[0]!.workspace_id], [-7, 'debit', 'run-mia', ws]);
    assert.ok(!JSON.stringify(exported).includes('run-ada'), "the admin's debit is not in Mia's export");

    const res = await t.request.post(api(`/members/${mia.id}/erase`)).set(admin.auth).send({ confirm: mia.email }).expect(200);
    const report = res.body.reports.find((r: { kind: string }) => r.kind === 'billing_credit_debits');
    assert.deepEqual([report.deleted, report.pseudonymised], [0, 1]);
    const rows = await t.db('billing_credit_ledger').where({ workspace_id: ws, reason: 'debit' }).orderBy('ref').select('ref', 'user_id', 'amount');
    assert.deepEqual(rows.map((r) => [r.ref, r.user_id, Number(r.amount)]), [
      ['run-ada', admin.id, -3],
      ['run-mia', null, -7],
    ]);
    assert.deepEqual(await t.db('billing_credit_ledger').where({ user_id: mia.id }).select('id'), []);
    const ledger = await ledgerOf(ws);
    assert.deepEqual(ledger.map((e) => [e.reason, e.amount, e.ref]), [
      ['debit', -3, 'run-ada'],
      ['debit', -7, 'run-mia'],
      ['grant', 50, monthOf(new Date()).key],
    ]);
    assert.equal((await billingOf(ws)).credits.balance, 40);
  });
});

describe('billing: AI credits priced at a fraction of a cent', function () {
  this.timeout(60_000);
  let stripe: FakeStripe;
  let t: TestKernel;
  let admin: SignedUpUser;
  let world: BillingWorld;
  before(async () => ({ stripe, t, admin } = world = await startBillingWorld({ billing: { creditUnitAmount: 0.5 } })));
  after(() => world.stop());

  it('refuses an auto-reload amount whose price is not a whole number of cents (422 uneven_amount), and takes an even one', async () => {
    const ws = (await createWorkspace(t, admin)).id;
    const api = (path: string) => `/api/v1/workspaces/${ws}${path}`;
    await t.request.get(api('/billing')).set(admin.auth).expect(200);
    const customer = stripe.addCustomer({ card: 'default', workspaceId: ws });
    await t.db('billing_accounts').where({ workspace_id: ws }).update({ customer_id: customer.id });
    const uneven = await t.request.put(api('/billing/ai-credits/auto-reload')).set(admin.auth).send({ enabled: true, threshold: 10, amount: 201 }).expect(422);
    assert.equal(uneven.body.code, 'uneven_amount');
    assert.equal(uneven.body.errors?.[0]?.pointer, '/amount');
    assert.deepEqual((await t.request.get(api('/billing')).set(admin.auth).expect(200)).body.credits.auto_reload, { enabled: false, threshold: 0, amount: 0, failed_at: null });
    const even = await t.request.put(api('/billing/ai-credits/auto-reload')).set(admin.auth).send({ enabled: true, threshold: 10, amount: 200 }).expect(200);
    assert.deepEqual(even.body.credits.auto_reload, { enabled: true, threshold: 10, amount: 200, failed_at: null });
  });
});
