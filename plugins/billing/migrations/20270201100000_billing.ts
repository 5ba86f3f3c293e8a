import type { Knex } from 'knex';

/**
 * A workspace's billing: its plan and subscription, its counted usage, its AI credits (a ledger and the purchases that
 * fill it), and the provider events already handled. Everything goes with its workspace. Rows appear only once a
 * provider is configured: a self-hosted instance keeps nothing here.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('billing_accounts', (t) => {
    t.uuid('workspace_id').primary().references('workspaces.id').onDelete('CASCADE');
    // The plan in effect (what limits apply) and the status shown; both follow the trial and the provider's subscription.
    t.text('plan').notNullable();
    t.text('status').notNullable();
    t.boolean('trial_used').notNullable().defaultTo(false);
    t.timestamp('trial_ends_at', { useTz: true });
    t.text('customer_id');
    t.text('subscription_id');
    t.timestamp('current_period_end', { useTz: true });
    // AI credits: the month's grant (it lapses at the month's end) and the bought ones (they stay), spent in that order.
    t.text('grant_period');
    t.bigInteger('grant_balance').notNullable().defaultTo(0);
    t.bigInteger('purchased_balance').notNullable().defaultTo(0);
    t.boolean('auto_reload_enabled').notNullable().defaultTo(false);
    t.bigInteger('auto_reload_threshold').notNullable().defaultTo(0);
    t.bigInteger('auto_reload_amount').notNullable().defaultTo(0);
    t.timestamp('auto_reload_failed_at', { useTz: true });
    // The purchase an automatic reload has under way: none is started while it is set.
    t.uuid('reload_purchase_id');
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['subscription_id']);
    t.index(['customer_id']);
  });
  await knex.raw(`CREATE INDEX billing_accounts_trials ON billing_accounts (trial_ends_at) WHERE status = 'trialing'`);
  await knex.schema.createTable('billing_usage', (t) => {
    t.uuid('workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    t.text('meter').notNullable();
    // '' for what is counted for ever (records, members, storage); `YYYY-MM` for what is counted per month (runs).
    t.text('period').notNullable();
    t.bigInteger('used').notNullable();
    // The plan's limit of this meter, kept beside the count (set again whenever the plan changes), so that checking and
    // counting a write is one prepared statement on this row; null: no limit.
    t.bigInteger('cap');
    t.primary(['workspace_id', 'meter', 'period']);
  });
  await knex.schema.createTable('billing_events', (t) => {
    t.text('provider').notNullable();
    t.text('event_id').notNullable();
    t.text('type').notNullable();
    t.uuid('workspace_id');
    t.timestamp('received_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['provider', 'event_id']);
  });
  await knex.schema.createTable('billing_credit_ledger', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    t.bigInteger('amount').notNullable();
    t.bigInteger('balance').notNullable();
    t.text('reason').notNullable();
    t.text('detail').notNullable();
    t.text('ref');
    // Who spent (an agent run's starter): personal data, erased with the person.
    t.uuid('user_id');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['workspace_id', 'created_at', 'id']);
    t.index(['user_id']);
  });
  await knex.schema.createTable('billing_purchases', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    t.bigInteger('credits').notNullable();
    t.bigInteger('amount').notNullable();
    t.text('currency').notNullable();
    // pending → processing (the provider answers later) → succeeded | failed
    t.text('status').notNullable();
    t.text('payment_id');
    t.text('error');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['workspace_id', 'created_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['billing_purchases', 'billing_credit_ledger', 'billing_events', 'billing_usage', 'billing_accounts']) await knex.schema.dropTableIfExists(table);
}
