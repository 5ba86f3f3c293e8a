import type { Db } from '../../../core/db.ts';
import type { TSchema } from '../../../core/schema.ts';

/** The filter operators of the filter AST (API.md). Each type lists those that fit it. */
export const FILTER_OPS = [
  'eq', 'neq', 'gt', 'gte', 'lt', 'lte',
  'contains', 'not_contains', 'starts_with', 'ends_with',
  'is_empty', 'is_not_empty',
  'is_any_of', 'is_none_of', 'has_any_of', 'has_all_of', 'has_none_of',
  'before', 'after', 'on_or_before', 'on_or_after', 'within',
] as const;
export type FilterOp = (typeof FILTER_OPS)[number];

/** A condition as SQL for knex.raw: `?` placeholders and their bindings, in order. */
export interface SqlCondition {
  sql: string;
  bindings: unknown[];
}

/** What a filter may depend on besides its value: who asks (`"me"` in user filters) and when (relative dates). */
export interface FilterContext {
  userId: string;
  now: Date;
}

/**
 * Compiles `<column> <op> <value>` for one field; throws InvalidCell when the value does not fit.
 * `col` is the quoted column (the field's own or a system column).
 */
export type FilterCompiler = (col: string, value: unknown, field: FieldMeta<any>, ctx: FilterContext) => SqlCondition;

/** The filter operators a type supports, each with its SQL. */
export type FilterOps = Readonly<Partial<Record<FilterOp, FilterCompiler>>>;

/** System columns every record table has; system field types read one of them. */
export type SystemColumn = 'number' | 'created_at' | 'updated_at' | 'created_by' | 'updated_by';

/** What a field type sees of a field: its metadata as stored. */
export interface FieldMeta<O = Record<string, unknown>> {
  id: string;
  api_name: string;
  type: string;
  options: O;
  /**
   * The reader cannot see the database the field reaches (`FieldType.reaches`): its cell, its
   * filters and its sort key read as if the field linked nothing.
   */
  unseen?: boolean;
}

/** What output may need besides the stored value (e.g. user names for `user` cells), loaded once per page. */
export interface OutputContext {
  users: Map<string, { id: string; name: string }>;
}

/** How a column of one type becomes a column of another, for `…/fields/{field}/convert`. */
export interface Conversion {
  /**
   * SQL expression computing the new column from `col` (a quoted column name); NULL where the
   * value cannot be carried over. The converter counts `lost` as non-null before, null after.
   */
  sql(col: string, from: FieldMeta, to: FieldMeta): string;
}

/** One cell of a type with a `store`, as a write asks for it (`value` as `fromApi` returned it). */
export interface CellWrite {
  recordId: string;
  value: unknown;
  /** Where the cell was in the request, for errors. */
  pointer: string;
}

/** A cell a store refuses: `conflict` answers 409 (the value clashes with other records), else 422. */
export interface CellProblem {
  recordId: string;
  pointer: string;
  detail: string;
  conflict?: boolean;
  /** Extension members of a 409 (e.g. the record already linked). */
  extensions?: Record<string, unknown>;
}

/** How a condition reaches the linked records of a field (see `FieldType.across`). */
export interface Across<O = any> {
  /** The database whose records the field reaches. */
  database(field: FieldMeta<O>): string;
  /** For lookups: the id of the linked field a condition is about (absent: links, by record). */
  field?(field: FieldMeta<O>): string;
  /** SQL true when a live record linked to the row aliased `row` satisfies `condition` (on alias `t`). */
  exists(field: FieldMeta<O>, row: string, condition: string): string;
  /**
   * Whether conditions on the field test the linked records (default: always). A rollup's do only
   * when it shows their values (`unique`); the others test its aggregate with `opsFor`.
   */
  applies?(field: FieldMeta<O>): boolean;
}

/** A cell in the API reference (`FieldType.cell`). */
export interface CellDoc {
  schema: Record<string, unknown>;
  example: unknown;
  /** What a write takes when it differs from what a read gives. */
  writes?: string;
}

/** Who sets a field's options (`FieldType.resolveOptions`). */
export interface OptionsWriter {
  /** Whether the writer can see a database of the workspace, asked in the writing transaction. */
  sees(databaseId: string): Promise<boolean>;
}

/** Which database a field reads the records of (see `FieldType.reaches`). */
export interface Reach<O = any> {
  database(field: FieldMeta<O>): string | undefined;
  /** The options shown to whoever cannot see that database: nothing naming it or what is in it. */
  unseenOptions(options: O): Partial<O>;
}

/** A computed cell as an aggregate over rows: see `FieldType.aggregate`. */
export interface CellAggregate {
  from(row: string): string;
  value: string;
}

/** A sort key computed per field (`FieldType.sortKeyFor`). */
export interface FieldSortKey {
  /** SQL of the key; NULL sorts last in both directions. */
  expr: string;
  /** SQL type of its value (a query cursor carries it as text and casts it back). */
  type: string;
  /**
   * A `LEFT JOIN` that `expr` reads from, added once to the step of a query that picks a page's
   * records (a key from the one record a link reaches, joined rather than looked up per record).
   * It must expose only names of its own, so the query's unqualified columns stay unambiguous.
   */
  join?: string;
}

/** Who writes, for stores that check what the writer may see. */
export interface CellContext {
  workspaceId: string;
  /** Null when no user writes (a public form): such a writer sees nothing that access grants. */
  userId: string | null;
}

/**
 * What a field does when records of its database are written (a link field's auto-link rules),
 * in the write's transaction, after every cell of the write is stored.
 */
export interface WriteReaction<O = any> {
  /** Ids of the fields of its own database whose change calls `react`; none: it never reacts. */
  watches(field: FieldMeta<O>): readonly string[];
  /** `recordIds`: live records just created, or whose watched cells were just written. */
  react(trx: Db, field: FieldMeta<O>, recordIds: string[], ctx: WriteContext): Promise<void>;
}

/** Who wrote, and in which database (the field's own). */
export interface WriteContext extends CellContext {
  databaseId: string;
}

/**
 * Where a computed type keeps written cells. Every cell is checked before any is written. `ctx` is the writer: what
 * of a value it cannot see (links into a database it was not given) its write leaves as it is, and its duplicate
 * does not carry.
 */
export interface CellStore {
  check(trx: Db, field: FieldMeta<any>, cells: CellWrite[], ctx: CellContext): Promise<CellProblem[]>;
  /** Replaces each record's value with the checked one, as far as the writer sees it. */
  write(trx: Db, field: FieldMeta<any>, cells: CellWrite[], ctx: CellContext): Promise<void>;
  /** Gives a duplicate what of the source's value may be shared (links that allow more than one) and the writer sees. */
  duplicate(trx: Db, field: FieldMeta<any>, sourceId: string, copyId: string, ctx: CellContext): Promise<void>;
}

/**
 * One field type. The registry holds one per type; adding a type is one file exporting one of
 * these. The records engine never switches on a type's name: it asks the type.
 */
export interface FieldType<O = any> {
  readonly type: string;
  /** Options (TypeBox, `additionalProperties: false`); defaults are applied on create. */
  readonly options: TSchema;
  /**
   * SQL type of the field's own column (`text`, `numeric`, `boolean`, `timestamptz`, `date`,
   * `uuid`, `uuid[]`, `jsonb`, ...). Absent for types that read a system column or are computed.
   */
  column?(options: O): string;
  /** The system column a system type reads (created_at, ...): no column of its own, read-only. */
  readonly systemColumn?: SystemColumn;
  /** Values are never written through the API (system and computed types). */
  readonly readOnly?: boolean;
  /**
   * Fields of this type are created and deleted by that plugin (links by `relations`, with their
   * relation), never through the fields routes (422 on create, 409 on delete, restore or convert).
   */
  readonly managedBy?: string;
  /**
   * Computed types (no column): SQL of the cell of the record whose row is aliased `row`, read
   * beside the columns in every read of records (an array or object arrives as JSON).
   */
  select?(field: FieldMeta<O>, row: string): string;
  /**
   * Computed types whose cell is one aggregate over rows that other fields aggregate over too (a
   * link, and the lookups, rollups and counts through it): those rows' `FROM … WHERE …` for the
   * record aliased `row`, and the aggregate. Reads of records compute the fields whose `from` is
   * the same text in one LATERAL subquery, visiting those rows once instead of once per field;
   * `select` stays the cell alone (filters, and fields alone on their rows).
   */
  aggregate?(field: FieldMeta<O>): CellAggregate | undefined;
  /**
   * Options naming other fields (a lookup's link field and the field across it): checked and
   * completed (ids, the linked database) in the transaction that creates the field. A type
   * reaching another database refuses one the writer cannot see (`sees`) before naming anything in it.
   */
  resolveOptions?(trx: Db, databaseId: string, options: O, writer: OptionsWriter): Promise<O>;
  /** User ids a computed cell shows (a lookup of people), so their names are loaded with the page. */
  usersIn?(value: unknown, field: FieldMeta<O>): string[];
  /**
   * Types that reach the records of another database (links, lookups): what filters on them test
   * (the records engine compiles the condition on the linked row `t`, with the linked field's ops).
   */
  readonly across?: Across<O>;
  /**
   * Types that read the records of another database (links, lookups, rollups, counts). A reader
   * who cannot see that database gets the field `unseen`, so its SQL must honour that flag, and
   * its options as `unseenOptions` leaves them.
   */
  readonly reaches?: Reach<O>;
  /** Computed types whose cells are written elsewhere (links: a junction table), after the record's row. */
  readonly store?: CellStore;
  /**
   * Work done when records are written: the records engine calls it only for fields whose
   * `watches` names something, so databases without such fields pay nothing on writes.
   */
  readonly reaction?: WriteReaction<O>;
  /** Stored values are user ids: the records engine checks they name members and loads their names. */
  readonly refersToUsers?: boolean;
  /** What an empty cell stores and reads as when it is not NULL (a checkbox: `false`, never empty). */
  readonly emptyValue?: unknown;
  /**
   * SQL true where a stored value in `col` does not fit the field under its (new) options: a
   * precision lowered below the places values have, negatives no longer allowed, fewer stars. An
   * options change that would leave such values is refused; the conversion rounds them, and its
   * dry run says which. Absent: no option constrains stored values.
   */
  misfitSql?(col: string, field: FieldMeta<O>): string;
  /** Checks `options` beyond the schema (e.g. option ids stay unique); returns the options to store. */
  normalizeOptions?(options: O, previous?: O): O;
  /** An API value (never null: null clears) → the column value. Throws InvalidCell. */
  fromApi(value: unknown, field: FieldMeta<O>): unknown;
  /** A column value (never null) → the API value. */
  toApi(value: unknown, field: FieldMeta<O>, ctx: OutputContext): unknown;
  /** Filter operators this type supports, with their SQL; others → 422. */
  readonly ops: FilterOps;
  /**
   * The filter operators of one field when its options decide them (a rollup's follow its
   * function and the field it reads), applied to `select`'s value. Default: `ops`.
   */
  opsFor?(field: FieldMeta<O>): FilterOps;
  /**
   * Sort key SQL for `col` when the column's own order is not the user's (e.g. a single
   * select sorts by option order, not by option id). Default: the column itself.
   */
  sortExpr?(col: string, field: FieldMeta<O>): string;
  /**
   * `sortExpr` is an immutable expression of the column alone (not reading other tables nor
   * embedding options that change), so an index on it serves sorts.
   */
  readonly sortIndexable?: boolean;
  /** SQL type of `sortExpr`'s value (a query cursor carries it as text); default: the column's type. */
  readonly sortType?: string;
  /**
   * The sort key of one field of a computed type, when its options decide it or it reads other
   * rows than `select` does (a rollup sorts by its aggregate, a lookup by its first value's key):
   * SQL for the record row aliased `row`, as in `select`. Used instead of `sortExpr`/`sortType`.
   */
  sortKeyFor?(field: FieldMeta<O>, row: string): FieldSortKey;
  /**
   * What its cells look like in records (JSON Schema of what reads give, an example, and how a
   * write differs), for the API reference. Absent: documented as any JSON value.
   */
  readonly cell?: CellDoc;
  /**
   * Options the reference shows for a create, where the defaults alone are not a valid example (options naming other
   * fields or an automation). Absent: the defaults.
   */
  readonly optionsExample?: Partial<O>;
  /** Whether the type can be the title field (shown in links, searched by `q`). */
  readonly canBeTitle?: boolean;
  /** CSV: a cell's text → an API value (then `fromApi`); an API value → a cell's text. */
  readonly csv: {
    parse(text: string, field: FieldMeta<O>): unknown;
    format(value: unknown, field: FieldMeta<O>): string;
    /**
     * SQL of the column's cell as `format` writes what `toApi` reads, byte for byte (NULL for an empty cell): lets an
     * export have PostgreSQL write the text. Only where the twin is exact; without it the export formats in JS.
     */
    formatSql?(col: string, field: FieldMeta<O>): string;
  };
  /** Types this one converts to, with the SQL used; a target not listed → 422. */
  readonly convertsTo: Readonly<Record<string, Conversion>>;
}

export function defineFieldType<O>(type: FieldType<O>): FieldType<O> {
  return Object.freeze(type);
}
