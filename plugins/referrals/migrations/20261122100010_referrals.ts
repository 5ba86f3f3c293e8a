import type { Knex } from 'knex';

/** Referral codes, who was referred by whom (first touch, once), and rewards granted to referrers. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('referral_codes', (t) => {
    t.uuid('user_id').primary().references('users.id').onDelete('CASCADE');
    t.text('code').notNullable().unique();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  // Codes match case-insensitively: stored upper-case, so the unique index serves the lookup.
  await knex.raw('ALTER TABLE referral_codes ADD CONSTRAINT referral_codes_upper CHECK (code = upper(code))');

  await knex.schema.createTable('referral_attributions', (t) => {
    t.uuid('user_id').primary().references('users.id').onDelete('CASCADE');
    t.uuid('referrer_id').notNullable().references('users.id').onDelete('CASCADE').index();
    t.text('code').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw('ALTER TABLE referral_attributions ADD CONSTRAINT referral_attributions_not_self CHECK (user_id <> referrer_id)');

  await knex.schema.createTable('referral_rewards', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('referrer_id').notNullable().references('users.id').onDelete('CASCADE').index();
    // The reward stays the referrer's when the referred account is deleted.
    t.uuid('referred_user_id').references('users.id').onDelete('SET NULL').index();
    t.text('kind').notNullable();
    t.integer('amount').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('referral_rewards');
  await knex.schema.dropTable('referral_attributions');
  await knex.schema.dropTable('referral_codes');
}
