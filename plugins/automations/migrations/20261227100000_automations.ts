import type { Knex } from 'knex';
import { createSignalTrigger, dropSignalTrigger } from '../../../core/cache.ts';

/**
 * Automations and their runs. A run's steps live in its row (jsonb): a run is read whole and written by one worker at
 * a time. The inbound hook token is unique so `POST /hooks/{token}` finds its automation by index; rotating replaces
 * it in place, so the old one stops answering at once.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('automations', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    t.uuid('database_id').notNullable();
    t.text('name').notNullable();
    t.boolean('enabled').notNullable().defaultTo(false);
    t.text('trigger_type').notNullable();
    t.jsonb('trigger').notNullable();
    t.jsonb('conditions');
    t.jsonb('actions').notNullable();
    t.text('hook_token').unique();
    t.text('hook_secret');
    t.integer('consecutive_failures').notNullable().defaultTo(0);
    t.uuid('created_by').references('users.id').onDelete('SET NULL');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['workspace_id', 'created_at', 'id']);
  });
  // What the event fan-out asks for every record write: the enabled automations of one database.
  await knex.raw('CREATE INDEX automations_heard ON automations (database_id, trigger_type) WHERE enabled');
  await knex.schema.createTable('automation_runs', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('automation_id').notNullable().references('automations.id').onDelete('CASCADE');
    t.uuid('workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    t.text('status').notNullable().defaultTo('queued');
    t.jsonb('trigger').notNullable();
    t.jsonb('steps').notNullable().defaultTo('[]');
    t.text('reason');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('finished_at', { useTz: true });
    t.index(['automation_id', 'created_at', 'id']);
    t.index(['created_at']);
  });
  // A record_matches automation remembers the records that match it: a record starts matching when it is not here.
  await knex.schema.createTable('automation_matched', (t) => {
    t.uuid('automation_id').notNullable().references('automations.id').onDelete('CASCADE');
    t.uuid('record_id').notNullable();
    t.primary(['automation_id', 'record_id']);
  });
  // Every process keeps the enabled automations of a database in memory; a change of one drops that database's entry.
  await createSignalTrigger(knex, 'automations', 'automations', 'database_id');
  await knex.raw(
    "ALTER TABLE automation_runs ADD CONSTRAINT automation_runs_status CHECK (status IN ('queued','running','waiting_for_approval','succeeded','failed','canceled'))",
  );
}

export async function down(knex: Knex): Promise<void> {
  await dropSignalTrigger(knex, 'automations');
  await knex.schema.dropTable('automation_matched');
  await knex.schema.dropTable('automation_runs');
  await knex.schema.dropTable('automations');
}
