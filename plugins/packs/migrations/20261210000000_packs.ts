import type { Knex } from 'knex';

/**
 * The install ledger (what each install made, with the fingerprint it left) and the marketplace (published packs,
 * one row per name and version). Both go with their workspace.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('pack_installs', (t) => {
    t.uuid('id').primary();
    t.uuid('workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    t.text('name').notNullable();
    t.text('version').notNullable();
    t.text('source_type').notNullable();
    t.text('source_id');
    t.uuid('installed_by').references('users.id').onDelete('SET NULL');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['workspace_id', 'created_at', 'id']);
  });
  await knex.schema.createTable('pack_install_items', (t) => {
    t.uuid('install_id').notNullable().references('pack_installs.id').onDelete('CASCADE');
    t.integer('position').notNullable();
    t.text('kind').notNullable();
    t.text('ref').notNullable();
    t.uuid('resource_id').notNullable();
    t.jsonb('containers').notNullable();
    t.text('stamp').notNullable();
    t.primary(['install_id', 'position']);
  });
  await knex.schema.createTable('marketplace_packs', (t) => {
    t.uuid('id').primary();
    t.uuid('workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    // The workspace's name when it published: what readers of the marketplace see of the publisher.
    t.text('publisher_name').notNullable();
    t.text('name').notNullable();
    t.text('version').notNullable();
    t.text('description').notNullable();
    t.boolean('public').notNullable();
    t.jsonb('pack').notNullable();
    t.integer('installs').notNullable().defaultTo(0);
    // The newest version of its name: what the marketplace and the gallery list.
    t.boolean('latest').notNullable().defaultTo(true);
    t.uuid('published_by').references('users.id').onDelete('SET NULL');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['name', 'version']);
    t.index(['created_at', 'id']);
  });
  // A name belongs to the workspace that first published it; its versions are found by name.
  await knex.raw('CREATE INDEX marketplace_packs_name ON marketplace_packs (lower(name))');
  await knex.raw('CREATE INDEX marketplace_packs_latest ON marketplace_packs (created_at DESC, id DESC) WHERE latest');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('marketplace_packs');
  await knex.schema.dropTable('pack_install_items');
  await knex.schema.dropTable('pack_installs');
}
