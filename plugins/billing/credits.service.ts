import type { Db } from '../../core/db.ts';
import { inTransaction } from '../../core/db.ts';
import { AppError } from '../../core/errors.ts';
import type { Logger } from '../../core/logger.ts';
import { keysetPage, type Page } from '../../core/pagination.ts';
import { heldAccount, updateAccount, type AccountRow } from './accounts.ts';
import { BillingErrors } from './errors.ts';
import { PaymentDeclined, ProviderUnavailable, type PaymentProvider } from './hooks.ts';
import { monthOf, type Clock } from './periods.ts';
import type { Plans } from './plans.ts';
import type { AutoReloadBody, LedgerEntry, LedgerReason } from './schemas.ts';

const LEDGER = 'billing_credit_ledger';
const PURCHASES = 'billing_purchases';

/** What spending credits is for: shown in the ledger, and whose spending it was (an agent run's starter). */
export interface Debit {
  workspaceId: string;
  amount: number;
  detail: string;
  ref?: string | null;
  userId?: string | null;
}

export const balanceOf = (account: Pick<AccountRow, 'grant_balance' | 'purchased_balance'>) => Number(account.grant_balance) + Number(account.purchased_balance);

/**
 * AI credits: a ledger per workspace. Each month the plan's credits are granted (what is left of the last grant lapses);
 * bought credits stay until spent; spending takes the grant first. Every change holds the workspace's account row, so
 * concurrent debits queue and an automatic reload starts once per crossing of the threshold, one purchase at a time.
 */
export class CreditService {
  constructor(
    private readonly deps: {
      /** Billing is on (a provider configured); off, credits are neither counted nor limited. */
      enabled: boolean;
      db: Db;
      plans: Plans;
      clock: Clock;
      provider: () => PaymentProvider;
      currency: string;
      unitAmount: number;
      logger: Logger;
      startPurchase: (trx: Db, purchaseId: string) => Promise<void>;
      notifyAdmins: (trx: Db, workspaceId: string, type: string, data: Record<string, unknown>) => Promise<void>;
    },
  ) {}

  /**
   * Spends credits, or refuses with `credits_exhausted` when the plan caps them and the balance cannot pay; a refusal
   * starts an automatic reload (when it is on) even above the threshold, so that a debit larger than the threshold
   * does not leave the workspace refused for good.
   */
  async debit(debit: Debit, within?: Db): Promise<{ balance: number | null }> {
    if (!this.deps.enabled) return { balance: null };
    try {
      return await inTransaction(within ?? this.deps.db, (trx) => this.spend(trx, debit));
    } catch (err) {
      if (!within && err instanceof AppError && err.code === BillingErrors.credits_exhausted.code) {
        await inTransaction(this.deps.db, async (trx) => this.reloadIfLow(trx, await this.current(trx, debit.workspaceId), true));
      }
      throw err;
    }
  }

  private async spend(trx: Db, debit: Debit): Promise<{ balance: number }> {
    const account = await this.current(trx, debit.workspaceId);
    const grant = Number(account.grant_balance);
    const purchased = Number(account.purchased_balance);
    const capped = this.deps.plans.limit(account.plan, 'ai_credits_per_month') !== null;
    if (capped && grant + purchased < debit.amount) throw BillingErrors.credits_exhausted(grant + purchased, debit.amount);
    const fromGrant = Math.min(Math.max(grant, 0), debit.amount);
    const after = { grant_balance: grant - fromGrant, purchased_balance: purchased - (debit.amount - fromGrant) };
    const balance = balanceOf(after);
    await this.record(trx, debit.workspaceId, -debit.amount, balance, 'debit', debit.detail, debit.ref ?? null, debit.userId ?? null);
    await updateAccount(trx, debit.workspaceId, after);
    await this.reloadIfLow(trx, { ...account, ...after });
    return { balance };
  }

  /** The balance as of now (this month's grant given); null when billing is off and credits are not counted. */
  async balance(workspaceId: string): Promise<number | null> {
    if (!this.deps.enabled) return null;
    return inTransaction(this.deps.db, async (trx) => balanceOf(await this.current(trx, workspaceId)));
  }

  /** Credits spent this month: what the usage answer shows against `ai_credits_per_month`. */
  async spentThisMonth(workspaceId: string): Promise<number> {
    const row = await this.deps.db(LEDGER).where({ workspace_id: workspaceId, reason: 'debit' }).where('created_at', '>=', monthOf(this.deps.clock.now()).start).sum({ spent: 'amount' }).first();
    return -Number(row?.spent ?? 0);
  }

  /** `PUT …/ai-credits/auto-reload`: saving it clears a failed purchase's pause; a balance already below the threshold starts one. */
  async setAutoReload(workspaceId: string, body: AutoReloadBody): Promise<void> {
    if (!Number.isInteger(body.amount * this.deps.unitAmount)) throw BillingErrors.uneven_amount(body.amount, this.deps.unitAmount);
    await inTransaction(this.deps.db, async (trx) => {
      const account = await this.current(trx, workspaceId);
      if (body.enabled && !account.customer_id) throw BillingErrors.no_customer();
      const next = { auto_reload_enabled: body.enabled, auto_reload_threshold: body.threshold, auto_reload_amount: body.amount, auto_reload_failed_at: null };
      await updateAccount(trx, workspaceId, next);
      await this.reloadIfLow(trx, { ...account, ...next });
    });
  }

  async ledger(workspaceId: string, page: { limit?: number; cursor?: string }): Promise<Page<LedgerEntry>> {
    const q = this.deps.db(LEDGER).where({ workspace_id: workspaceId }).select('id', 'amount', 'balance', 'reason', 'detail', 'ref', 'created_at');
    const result = await keysetPage<LedgerEntry>(this.deps.db, q, { keys: [{ column: 'created_at', type: 'timestamptz' }, { column: 'id', type: 'uuid' }], direction: 'desc' }, page, { workspaceId });
    return { ...result, data: result.data.map((e) => ({ ...e, amount: Number(e.amount), balance: Number(e.balance), created_at: new Date(e.created_at).toISOString() })) };
  }

  /**
   * The purchase job: charges the provider once (the purchase's idempotency key makes a retried job the same charge).
   * A refusal fails the purchase for good; an unreachable provider is tried again by the job, then fails it.
   */
  async charge(purchaseId: string, lastAttempt: boolean): Promise<void> {
    const purchase = await this.deps.db(PURCHASES).where({ id: purchaseId, status: 'pending' }).first();
    if (!purchase) return;
    const account = await this.deps.db('billing_accounts').where({ workspace_id: purchase.workspace_id }).first('customer_id');
    if (!account?.customer_id) return this.fail(purchaseId, 'The workspace has no customer at the payment provider.');
    try {
      const paid = await this.deps.provider().chargeCredits({
        customerId: account.customer_id,
        workspaceId: purchase.workspace_id,
        purchaseId,
        credits: Number(purchase.credits),
        amount: Number(purchase.amount),
        currency: purchase.currency,
        idempotencyKey: `credit-purchase-${purchaseId}`,
      });
      if (paid.status === 'succeeded') await this.complete(purchaseId, paid.paymentId);
      else await this.deps.db(PURCHASES).where({ id: purchaseId, status: 'pending' }).update({ status: 'processing', payment_id: paid.paymentId, updated_at: this.deps.db.fn.now() });
    } catch (err) {
      if (err instanceof PaymentDeclined) return this.fail(purchaseId, err.detail);
      // The last attempt ends the purchase whatever went wrong: one left pending would hold automatic reloads back for good.
      if (lastAttempt) return this.fail(purchaseId, err instanceof ProviderUnavailable ? err.detail : 'The purchase could not be made.');
      throw err;
    }
  }

  /** The purchase was paid (at once, or as the provider's event says later): its credits are added, once. */
  async complete(purchaseId: string, paymentId: string | null, within?: Db): Promise<boolean> {
    return inTransaction(within ?? this.deps.db, async (trx) => {
      const [purchase] = await trx(PURCHASES)
        .where({ id: purchaseId })
        .whereIn('status', ['pending', 'processing'])
        .update({ status: 'succeeded', payment_id: paymentId, updated_at: trx.fn.now() })
        .returning(['workspace_id', 'credits']);
      if (!purchase) return false;
      const account = await this.current(trx, purchase.workspace_id);
      const purchased = Number(account.purchased_balance) + Number(purchase.credits);
      const balance = Number(account.grant_balance) + purchased;
      await this.record(trx, purchase.workspace_id, Number(purchase.credits), balance, 'purchase', `Bought ${purchase.credits} credits`, purchaseId, null);
      await updateAccount(trx, purchase.workspace_id, { purchased_balance: purchased, reload_purchase_id: account.reload_purchase_id === purchaseId ? null : account.reload_purchase_id });
      return true;
    });
  }

  /** The purchase failed: automatic reloads pause until the setting is saved again, and the admins hear of it. */
  async fail(purchaseId: string, detail: string, within?: Db): Promise<void> {
    await inTransaction(within ?? this.deps.db, async (trx) => {
      const [purchase] = await trx(PURCHASES)
        .where({ id: purchaseId })
        .whereIn('status', ['pending', 'processing'])
        .update({ status: 'failed', error: detail, updated_at: trx.fn.now() })
        .returning(['workspace_id', 'credits']);
      if (!purchase) return;
      const account = await heldAccount(trx, purchase.workspace_id);
      await updateAccount(trx, purchase.workspace_id, {
        reload_purchase_id: account.reload_purchase_id === purchaseId ? null : account.reload_purchase_id,
        auto_reload_failed_at: this.deps.clock.now(),
      });
      this.deps.logger.warn({ workspace: purchase.workspace_id, purchase: purchaseId, detail }, 'an AI credit purchase failed; automatic reloads pause');
      await this.deps.notifyAdmins(trx, purchase.workspace_id, 'credits_reload_failed', { purchase_id: purchaseId, credits: Number(purchase.credits), reason: detail });
    });
  }

  /** The account, held, with this month's grant given (and last month's lapsed) if it was not yet. */
  private async current(trx: Db, workspaceId: string): Promise<AccountRow> {
    const account = await heldAccount(trx, workspaceId);
    const month = monthOf(this.deps.clock.now()).key;
    if (account.grant_period === month) return account;
    let grant = Number(account.grant_balance);
    const purchased = Number(account.purchased_balance);
    if (grant > 0) {
      await this.record(trx, workspaceId, -grant, purchased, 'expiry', "Last month's credits lapse", account.grant_period, null);
      grant = 0;
    }
    const monthly = this.deps.plans.limit(account.plan, 'ai_credits_per_month') ?? 0;
    if (monthly > 0) {
      grant += monthly;
      await this.record(trx, workspaceId, monthly, grant + purchased, 'grant', `The ${this.deps.plans.get(account.plan).name} plan's credits for ${month}`, month, null);
    }
    const next = { grant_period: month, grant_balance: grant };
    await updateAccount(trx, workspaceId, next);
    return { ...account, ...next };
  }

  /** Below the threshold (or `refused` a debit) with automatic reloads on and none under way: one purchase starts, in this transaction. */
  private async reloadIfLow(trx: Db, account: AccountRow, refused = false): Promise<void> {
    const amount = Number(account.auto_reload_amount);
    if (!account.auto_reload_enabled || account.auto_reload_failed_at || account.reload_purchase_id || amount <= 0) return;
    if (!refused && balanceOf(account) >= Number(account.auto_reload_threshold)) return;
    const [purchase] = await trx(PURCHASES)
      .insert({ workspace_id: account.workspace_id, credits: amount, amount: amount * this.deps.unitAmount, currency: this.deps.currency, status: 'pending' })
      .returning('id');
    await updateAccount(trx, account.workspace_id, { reload_purchase_id: purchase.id });
    await this.deps.startPurchase(trx, purchase.id);
  }

  /**
   * One entry, stamped after the workspace's last one: entries made in one transaction (a lapse, a grant and a debit) or
   * within one millisecond would otherwise share `created_at`, and the ledger, ordered by it, would list them in any order.
   * The account row is held, so the workspace's entries are made one at a time.
   */
  private async record(trx: Db, workspaceId: string, amount: number, balance: number, reason: LedgerReason, detail: string, ref: string | null, userId: string | null): Promise<void> {
    const createdAt = trx.raw(`GREATEST(?::timestamptz, (SELECT max(created_at) + interval '1 microsecond' FROM ${LEDGER} WHERE workspace_id = ?))`, [this.deps.clock.now(), workspaceId]);
    await trx(LEDGER).insert({ workspace_id: workspaceId, amount, balance, reason, detail, ref, user_id: userId, created_at: createdAt });
  }
}
