import type { Knex } from 'knex';

/**
 * Editor images. A revoked file keeps its row (revoked_at set, generation bumped) so that nothing can take its
 * id again; its blob is gone. `created_by` goes null when the uploader's account goes: the image belongs to the
 * workspace and to the documents that show it.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('files', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    t.text('name').notNullable();
    t.text('mime_type').notNullable();
    t.bigInteger('size').notNullable();
    t.integer('width').notNullable();
    t.integer('height').notNullable();
    t.text('blob_key').notNullable();
    // Part of every signed URL's MAC: bumping it stops every URL minted before, with nothing stored per URL.
    t.integer('generation').notNullable().defaultTo(0);
    t.timestamp('revoked_at', { useTz: true });
    // Made by a pack install: it lives as long as the documents that came with it show it.
    t.boolean('made_by_pack').notNullable().defaultTo(false);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.uuid('created_by').references('users.id').onDelete('SET NULL');
    t.index(['workspace_id']);
    // A member's export and erasure.
    t.index(['created_by']);
  });
  // The key signed URLs are made with, when no `signingKey` option is given: one per instance, made once.
  await knex.schema.createTable('files_keys', (t) => {
    t.text('name').primary();
    t.text('secret').notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('files_keys');
  await knex.schema.dropTable('files');
}
