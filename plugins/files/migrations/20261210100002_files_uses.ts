import type { Knex } from 'knex';

/**
 * Which documents and record descriptions show which files, as their writes told (documents.writes): an erasure
 * keeps the images still shown and deletes the others. A use outliving its owner can only keep a file, never lose one.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('files_uses', (t) => {
    t.uuid('file_id').notNullable().references('files.id').onDelete('CASCADE');
    t.text('owner_kind').notNullable();
    // A document's id, or the id of the record a description belongs to.
    t.uuid('owner_id').notNullable();
    // A document's space (what a pack of the space takes along), a description's database (the uses go with it).
    t.uuid('space_id');
    t.uuid('database_id');
    t.primary(['owner_kind', 'owner_id', 'file_id']);
    t.index(['file_id']);
    t.index(['database_id']);
    t.index(['space_id']);
  });
  await knex.raw("ALTER TABLE files_uses ADD CONSTRAINT files_uses_owner_kind CHECK (owner_kind IN ('document','description'))");
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('files_uses');
}
