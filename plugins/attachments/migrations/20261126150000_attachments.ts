import type { Knex } from 'knex';

/**
 * `attachment_blobs`: the bytes of attachments, one row per blob key, with what was learnt from them (type from the
 * bytes, dimensions from the header) and their thumbnails. Several attachments share one (a duplicated record): the
 * row goes, and its blobs after the commit, when the last attachment naming it does.
 *
 * `attachments`: one file in one record's cell. `record_id` has no foreign key (records live in one table per
 * database); the plugin removes the attachments of purged records and deleted databases itself, so that their blobs
 * go too. `position` is the place in the cell; null only inside the upload's transaction, before the cell takes it.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('attachment_blobs', (t) => {
    t.text('key').primary();
    t.bigInteger('size').notNullable();
    t.text('mime_type').notNullable();
    t.integer('width');
    t.integer('height');
    t.text('small_key');
    t.text('large_key');
    // Set once a thumbnail could not be made (a decompression bomb, bytes that do not decode): never tried again.
    t.boolean('thumbnail_failed').notNullable().defaultTo(false);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.schema.createTable('attachments', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    t.uuid('database_id').notNullable().references('databases.id').onDelete('CASCADE');
    t.uuid('record_id').notNullable();
    t.uuid('field_id').notNullable();
    t.text('blob_key').notNullable().references('attachment_blobs.key');
    t.text('name').notNullable();
    t.integer('position');
    t.uuid('created_by').references('users.id').onDelete('SET NULL');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    // A record's cell, in order.
    t.index(['record_id', 'field_id', 'position']);
    // The last reference to a blob, when one goes.
    t.index(['blob_key']);
    // A deleted database's attachments.
    t.index(['database_id']);
    // A member's export and erasure.
    t.index(['created_by']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('attachments');
  await knex.schema.dropTable('attachment_blobs');
}
