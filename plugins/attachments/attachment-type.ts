import { API_PREFIX } from '../../core/router.ts';
import { Type, UUID_PATTERN } from '../../core/schema.ts';
import { defineFieldType, InvalidCell, type CellStore, type FieldMeta, type FilterCompiler } from '../databases/public.ts';
import { IMAGE_TYPES } from '../files/public.ts';

/** At most this many files in one cell (an upload past it is refused like a cell written with more). */
export const MAX_ATTACHMENTS_PER_CELL = 500;

const IMAGES_SQL = IMAGE_TYPES.map((t) => `'${t}'`).join(', ');

/** The API path of an attachment (alias `a`), as SQL: what `url` and `thumbnail_url` are made of. */
const pathSql = `'${API_PREFIX}/workspaces/' || a.workspace_id || '/databases/' || a.database_id || '/records/' || a.record_id || '/attachments/' || a.id`;

/** One attachment (`a`, its blob `b`) as a cell shows it. */
export const CELL_ITEM_SQL =
  `json_build_object('id', a.id, 'name', a.name, 'mime_type', b.mime_type, 'size', b.size, 'width', b.width, 'height', b.height, ` +
  `'url', ${pathSql} || '/content', 'thumbnail_url', CASE WHEN b.mime_type IN (${IMAGES_SQL}) AND NOT b.thumbnail_failed THEN ${pathSql} || '/thumbnail' END)`;

/** The attachments in a record's cell, in order, as a JSON array (never NULL). Field ids are uuids, safe as literals. */
function cellSql(field: FieldMeta, row: string): string {
  return (
    `(SELECT coalesce(json_agg(${CELL_ITEM_SQL} ORDER BY a.position, a.id), '[]'::json) FROM attachments a JOIN attachment_blobs b ON b.key = a.blob_key ` +
    `WHERE a.record_id = ${row}.id AND a.field_id = '${field.id}' AND a.position IS NOT NULL)`
  );
}

/** A cell as written: attachment ids of this record's field, each once, in the order wanted. */
function cellIn(value: unknown): string[] {
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string' && UUID_PATTERN.test(v))) throw new InvalidCell('Must be an array of attachment ids (uploaded to this record with POST …/attachments).');
  if (value.length > MAX_ATTACHMENTS_PER_CELL) throw new InvalidCell(`At most ${MAX_ATTACHMENTS_PER_CELL} attachments in one cell.`);
  const ids = (value as string[]).map((v) => v.toLowerCase());
  if (new Set(ids).size !== ids.length) throw new InvalidCell('An attachment appears twice in the cell.');
  return ids;
}

const count = (col: string) => `json_array_length(${col})`;
const isEmpty: FilterCompiler = (col) => ({ sql: `${count(col)} = 0`, bindings: [] });
const isNotEmpty: FilterCompiler = (col) => ({ sql: `${count(col)} > 0`, bindings: [] });

/**
 * `attachment`: files uploaded to a record (`POST …/records/{id}/attachments`), kept by this plugin (no column). A
 * write takes the ids of attachments already uploaded to that record's field, in the order wanted: leaving one out
 * deletes it; `[]` or null deletes them all.
 */
export function createAttachmentType(store: CellStore) {
  return defineFieldType<Record<string, never>>({
    type: 'attachment',
    cell: {
      schema: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            id: { type: 'string', format: 'uuid' },
            name: { type: 'string' },
            mime_type: { type: 'string' },
            size: { type: 'integer' },
            width: { type: ['integer', 'null'] },
            height: { type: ['integer', 'null'] },
            url: { type: 'string' },
            thumbnail_url: { type: ['string', 'null'] },
          },
        },
      },
      example: [
        {
          id: '0190c7a2-5b7e-7000-8000-000000000031',
          name: 'site-plan.png',
          mime_type: 'image/png',
          size: 48213,
          width: 1200,
          height: 800,
          url: '/api/v1/workspaces/…/records/…/attachments/0190c7a2-5b7e-7000-8000-000000000031/content',
          thumbnail_url: '/api/v1/workspaces/…/records/…/attachments/0190c7a2-5b7e-7000-8000-000000000031/thumbnail',
        },
      ],
      writes: `An array of ids of attachments uploaded to this record's field (at most ${MAX_ATTACHMENTS_PER_CELL}), in the order wanted; those left out are deleted; [] or null deletes all.`,
    },
    options: Type.Object({}, { additionalProperties: false }),
    select: cellSql,
    store,
    fromApi: cellIn,
    toApi: (value) => value,
    emptyValue: [],
    ops: { is_empty: isEmpty, is_not_empty: isNotEmpty },
    csv: {
      parse: () => {
        throw new InvalidCell('Attachments are not imported from CSV text; upload them to the record.');
      },
      format: (value) => (value as Array<{ name: string }>).map((a) => a.name).join(', '),
    },
    convertsTo: {},
  });
}
