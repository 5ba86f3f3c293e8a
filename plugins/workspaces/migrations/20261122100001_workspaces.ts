import type { Knex } from 'knex';

/**
 * Workspaces and who belongs to them. Every table of a workspace's content refers to
 * `workspaces` with ON DELETE CASCADE, so deleting a workspace cannot leave orphans, even
 * under concurrent writes (an insert's foreign-key check waits for, or fails after, the delete).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('workspaces', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.text('name').notNullable();
    t.text('description');
    t.uuid('created_by').references('users.id').onDelete('SET NULL');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });

  await knex.schema.createTable('workspace_members', (t) => {
    t.uuid('workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    t.uuid('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.text('role').notNullable();
    // A guest's spaces; empty for every other role.
    t.specificType('space_ids', 'uuid[]').notNullable().defaultTo('{}');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['workspace_id', 'user_id']);
    t.index(['user_id']);
  });
  await knex.raw(
    "ALTER TABLE workspace_members ADD CONSTRAINT workspace_members_role CHECK (role IN ('admin','creator','editor','member','guest'))",
  );

  await knex.schema.createTable('workspace_invites', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    t.text('email').notNullable();
    t.text('role').notNullable();
    t.specificType('space_ids', 'uuid[]').notNullable().defaultTo('{}');
    t.text('status').notNullable().defaultTo('pending');
    t.text('token_hash').notNullable().unique();
    t.uuid('invited_by').references('users.id').onDelete('SET NULL');
    t.uuid('accepted_by').references('users.id').onDelete('SET NULL');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('sent_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('accepted_at', { useTz: true });
    t.timestamp('revoked_at', { useTz: true });
    t.index(['workspace_id', 'created_at', 'id']);
  });
  await knex.raw(
    "ALTER TABLE workspace_invites ADD CONSTRAINT workspace_invites_role CHECK (role IN ('admin','creator','editor','member','guest'))",
  );
  await knex.raw(
    "ALTER TABLE workspace_invites ADD CONSTRAINT workspace_invites_status CHECK (status IN ('pending','accepted','revoked'))",
  );
  // One pending invite per address and workspace: a second invite is a resend, not a duplicate.
  await knex.raw("CREATE UNIQUE INDEX workspace_invites_pending_email ON workspace_invites (workspace_id, lower(email)) WHERE status = 'pending'");

  await knex.schema.createTable('workspace_getting_started', (t) => {
    t.uuid('workspace_id').notNullable();
    t.uuid('user_id').notNullable();
    t.specificType('completed', 'text[]').notNullable().defaultTo('{}');
    t.timestamp('dismissed_at', { useTz: true });
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['workspace_id', 'user_id']);
    // Leaving the workspace forgets the checklist.
    t.foreign(['workspace_id', 'user_id']).references(['workspace_id', 'user_id']).inTable('workspace_members').onDelete('CASCADE');
  });

  // Tokens are bound to a workspace: they go with it. Tokens naming no workspace predate this plugin and never worked inside one.
  await knex.raw('DELETE FROM personal_access_tokens t WHERE NOT EXISTS (SELECT 1 FROM workspaces w WHERE w.id = t.workspace_id)');
  await knex.raw(
    'ALTER TABLE personal_access_tokens ADD CONSTRAINT personal_access_tokens_workspace FOREIGN KEY (workspace_id) REFERENCES workspaces (id) ON DELETE CASCADE',
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE personal_access_tokens DROP CONSTRAINT personal_access_tokens_workspace');
  await knex.schema.dropTable('workspace_getting_started');
  await knex.schema.dropTable('workspace_invites');
  await knex.schema.dropTable('workspace_members');
  await knex.schema.dropTable('workspaces');
}
