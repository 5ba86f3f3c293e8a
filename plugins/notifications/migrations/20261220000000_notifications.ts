import type { Knex } from 'knex';

/**
 * The inbox (`notifications`, one row per recipient), the mail waiting for each recipient's next digest
 * (`notifications_emails`), when each recipient was last mailed (`notifications_digests`), and the instance key
 * unsubscribe links are signed with (`notifications_keys`). Rows go with their workspace, recipient and database by
 * cascade; an actor who is deleted leaves the row with no actor.
 */
export async function up(knex: Knex): Promise<void> {
  const about = (t: Knex.CreateTableBuilder) => {
    t.uuid('workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    t.uuid('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.text('type').notNullable();
    t.uuid('actor_id').nullable().references('users.id').onDelete('SET NULL');
    t.text('subject_type').notNullable();
    t.uuid('subject_id').notNullable();
    t.text('subject_title').nullable();
    t.uuid('record_id').nullable();
    t.uuid('database_id').nullable().references('databases.id').onDelete('CASCADE');
    t.jsonb('data').notNullable().defaultTo('{}');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  };
  await knex.schema.createTable('notifications', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    about(t);
    t.timestamp('read_at', { useTz: true }).nullable();
    t.timestamp('archived_at', { useTz: true }).nullable();
    // The caller's lists, newest first; also a leaving member's rows and the workspace's cascade.
    t.index(['user_id', 'workspace_id', 'created_at', 'id']);
    // Records purged, and the database's cascade.
    t.index(['database_id', 'record_id']);
  });
  // Unread in the inbox, alone: the badge counts it without the table (database_id narrows a guest's count), and
  // the `status=unread` page reads it in order instead of skipping every read notification.
  await knex.raw('CREATE INDEX notifications_unread ON notifications (user_id, workspace_id, created_at, id) INCLUDE (database_id) WHERE read_at IS NULL AND archived_at IS NULL');
  // An erased member's actions, found without reading every row.
  await knex.raw('CREATE INDEX notifications_actor ON notifications (actor_id) WHERE actor_id IS NOT NULL');

  await knex.schema.createTable('notifications_emails', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    about(t);
    t.index(['user_id', 'created_at']);
    t.index(['workspace_id', 'user_id']);
    t.index(['database_id', 'record_id']);
  });
  await knex.raw('CREATE INDEX notifications_emails_actor ON notifications_emails (actor_id) WHERE actor_id IS NOT NULL');

  await knex.schema.createTable('notifications_digests', (t) => {
    t.uuid('user_id').primary().references('users.id').onDelete('CASCADE');
    t.timestamp('last_sent_at', { useTz: true }).nullable();
  });

  await knex.schema.createTable('notifications_keys', (t) => {
    t.text('name').primary();
    t.text('secret').notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('notifications_keys');
  await knex.schema.dropTable('notifications_digests');
  await knex.schema.dropTable('notifications_emails');
  await knex.schema.dropTable('notifications');
}
