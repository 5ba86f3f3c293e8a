import type { Knex } from 'knex';

/**
 * One row per searchable thing (record, database, space, document) with its words as a `simple` tsvector: one GIN
 * index serves every database of every workspace, whatever their fields, and a search never reads a records table.
 * The title weighs more than the body (weights A and B). `source_version` orders what a row was made from (a
 * record's or a document's version, a space's or database's `updated_at`), so that a late reader (a rebuild page, an
 * event handled after the next write) never writes older text over newer.
 * `search_rebuilds` is the queue of databases whose rows are being rebuilt (new or changed fields, plugin enabled
 * late): one row per database however many changes asked, so that what is pending is visible and bounded.
 * `search_backfill` holds one row until the databases that existed before the plugin was enabled are queued.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('search_entries', (t) => {
    t.uuid('id').primary();
    t.uuid('workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    t.text('type').notNullable();
    t.uuid('space_id').notNullable();
    t.uuid('database_id');
    t.text('title').notNullable();
    t.text('body').notNullable();
    t.bigInteger('source_version').notNullable().defaultTo(0);
    t.timestamp('indexed_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['database_id']);
    t.index(['space_id']);
  });
  await knex.raw("ALTER TABLE search_entries ADD CONSTRAINT search_entries_type CHECK (type IN ('record','database','space','document'))");
  // Beside the words, one lexeme per scope the row sits in (`w` workspace, `s` space, `d` database, each followed by the
  // id's hex): a search ANDs the caller's scopes into its query, so the GIN index itself keeps to the workspace and to
  // what the caller sees, instead of fetching every match of the instance and dropping most.
  await knex.raw(`ALTER TABLE search_entries ADD COLUMN words tsvector GENERATED ALWAYS AS (
    setweight(to_tsvector('simple'::regconfig, title), 'A') || setweight(to_tsvector('simple'::regconfig, body), 'B')
    || to_tsvector('simple'::regconfig, 'w' || replace(workspace_id::text, '-', '') || ' s' || replace(space_id::text, '-', '')
                                        || coalesce(' d' || replace(database_id::text, '-', ''), ''))) STORED`);
  await knex.raw('CREATE INDEX search_entries_words ON search_entries USING gin (words)');

  await knex.schema.createTable('search_rebuilds', (t) => {
    t.uuid('database_id').primary();
    t.uuid('workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    t.integer('requests').notNullable().defaultTo(1);
    t.timestamp('requested_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['workspace_id']);
  });

  await knex.schema.createTable('search_backfill', (t) => {
    t.text('id').primary();
  });
  await knex('search_backfill').insert({ id: 'databases' });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('search_backfill');
  await knex.schema.dropTable('search_rebuilds');
  await knex.schema.dropTable('search_entries');
}
