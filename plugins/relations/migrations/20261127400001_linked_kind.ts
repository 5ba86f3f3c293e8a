import type { Knex } from 'knex';

/**
 * Lookups, rollups and counts now carry their relation's kind, copied from their link field when
 * made: sorting by them joins the one linked record instead of a subquery per record where a link
 * reaches one record at most. This fills it in on the ones made before.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(
    `UPDATE fields f SET options = f.options || jsonb_build_object('kind', l.options->'kind')
       FROM fields l
      WHERE f.type IN ('lookup', 'rollup', 'count') AND f.options->>'kind' IS NULL
        AND l.id::text = f.options->>'link_field_id' AND l.options->>'kind' IS NOT NULL`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`UPDATE fields SET options = options - 'kind' WHERE type IN ('lookup', 'rollup', 'count')`);
}
