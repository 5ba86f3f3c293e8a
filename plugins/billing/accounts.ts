import type { Db } from '../../core/db.ts';
import { FREE } from './plans.ts';
import type { BillingStatus } from './schemas.ts';

export const ACCOUNTS = 'billing_accounts';

/** A workspace's row of `billing_accounts`. */
export interface AccountRow {
  workspace_id: string;
  plan: string;
  status: BillingStatus;
  trial_used: boolean;
  trial_ends_at: Date | null;
  customer_id: string | null;
  subscription_id: string | null;
  current_period_end: Date | null;
  grant_period: string | null;
  grant_balance: string | number;
  purchased_balance: string | number;
  auto_reload_enabled: boolean;
  auto_reload_threshold: string | number;
  auto_reload_amount: string | number;
  auto_reload_failed_at: Date | null;
  reload_purchase_id: string | null;
}

/** Makes the workspace's account (on the free plan) unless it has one. */
async function open(db: Db, workspaceId: string): Promise<void> {
  await db(ACCOUNTS).insert({ workspace_id: workspaceId, plan: FREE, status: 'free' }).onConflict('workspace_id').ignore();
}

/** The workspace's account, made on first use. */
export async function accountOf(db: Db, workspaceId: string): Promise<AccountRow> {
  const row = await db(ACCOUNTS).where({ workspace_id: workspaceId }).first();
  if (row) return row;
  await open(db, workspaceId);
  return db(ACCOUNTS).where({ workspace_id: workspaceId }).first();
}

/** The workspace's account, held for the rest of the transaction: changes to one account happen one at a time. */
export async function heldAccount(trx: Db, workspaceId: string): Promise<AccountRow> {
  await open(trx, workspaceId);
  return trx(ACCOUNTS).where({ workspace_id: workspaceId }).forUpdate().first();
}

export async function updateAccount(trx: Db, workspaceId: string, patch: Partial<Omit<AccountRow, 'workspace_id'>>): Promise<void> {
  await trx(ACCOUNTS).where({ workspace_id: workspaceId }).update({ ...patch, updated_at: trx.fn.now() });
}

/** A subscription the provider still bills: the workspace has a paid plan through it. */
export const LIVE_STATUSES: readonly BillingStatus[] = ['trialing', 'active', 'past_due'];
