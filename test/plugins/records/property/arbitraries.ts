import fc from 'fast-check';
import { rollupValueField, type FilterNode } from '../reference/filter.ts';
import { FIXED_ZONES, type FieldKind, type FixedZone, type RefField, type RollupFunction } from '../reference/model.ts';
import type { SortSpec } from '../reference/order.ts';

/**
 * Random databases, records, queries and changes between pages. Values are drawn from small
 * pools so that equal cells, ties and empty cells are common. People are symbols resolved when a
 * request is sent (`@user:i` by id, `@USER:i` upper-cased, `@nobody` a stranger), and so are
 * the days around now that `created_at` is filtered on (`@yesterday`, `@today`, `@tomorrow`) and
 * the linked records a link filter names (`@linked:i` the i-th made, live or not, modulo their
 * number; `@LINKED:i` upper-cased). A link cell is a list of indices into the live linked records
 * when it is sent, so that it never names one in the trash.
 */

/** ASCII only (PostgreSQL's lower() and JS agree there), with LIKE's special characters. */
const TEXT_UNITS = ['a', 'A', 'b', 'B', '%', '_', '\\', ' '];
const DAYS = ['2024-02-27', '2024-02-28', '2024-02-29', '2024-03-01', '2024-03-02'];
const TIMES = ['00:00:00', '05:29:59', '05:30:00', '18:30:00', '23:59:59'];
const OFFSETS = ['Z', '+05:30', '-05:00'];
/** Distinct ignoring case, as labels must be. */
const LABELS = ['Open', 'closed', 'Later', 'B', 'b_', 'x%'];
export const USER_COUNT = 4;

export type Values = Record<string, unknown>;

export type Change =
  | { afterPage: number; kind: 'create'; values: Values }
  | { afterPage: number; kind: 'update'; target: number; values: Values }
  | { afterPage: number; kind: 'delete'; target: number }
  | { afterPage: number; kind: 'move'; target: number; anchor: number; side: 'before' | 'after' | 'end' }
  | { afterPage: number; kind: 'update_linked'; target: number; values: Values }
  | { afterPage: number; kind: 'delete_linked'; target: number };

interface WalkBase {
  q?: string;
  /** Page sizes, used in turn. */
  pageSizes: number[];
  changes: Change[];
}
export type Walk = (WalkBase & { via: 'get' }) | (WalkBase & { via: 'post'; filter?: FilterNode; sorts?: SortSpec[]; count: boolean });

/** A query read in one page: many of them check filters cheaply. */
export interface Probe {
  filter: FilterNode;
  sorts?: SortSpec[];
  q?: string;
}

/** The database the link field leads to: its fields and its records, made before the scenario's own. */
export interface LinkedDatabase {
  fields: RefField[];
  records: Values[];
}

export interface Scenario {
  fields: RefField[];
  linked?: LinkedDatabase;
  /** Records created before the walks, each batch in one request (one transaction: one created_at). */
  batches: Values[][];
  probes: Probe[];
  walks: Walk[];
}

/** Every database starts with these two (the title and a system field). */
const STARTERS: RefField[] = [
  { api_name: 'name', type: 'text' },
  { api_name: 'created_at', type: 'created_at', zone: 'UTC' },
];

/** The scenario's fields, and the linked database's when it has a link field. */
interface Schema {
  fields: RefField[];
  linked?: RefField[];
}

const LINK = 'link';

/** Option ids run against the choices' order, so sorting by id and by order differ. */
function optionId(field: number, choice: number): string {
  return `00000000-0000-4000-8000-${(field * 16 + 15 - choice).toString(16).padStart(12, '0')}`;
}

const fieldArb: fc.Arbitrary<Omit<RefField, 'api_name'>> = fc.oneof(
  fc.constantFrom<FieldKind>('text', 'checkbox', 'date', 'user', 'autonumber').map((type) => ({ type })),
  fc.integer({ min: 0, max: 2 }).map((precision) => ({ type: 'number' as const, precision })),
  fc.constantFrom(...(Object.keys(FIXED_ZONES) as FixedZone[])).map((zone) => ({ type: 'datetime' as const, zone })),
  fc.record({
    type: fc.constantFrom<FieldKind>('single_select', 'multi_select'),
    labels: fc.shuffledSubarray(LABELS, { minLength: 1, maxLength: 4 }),
  }).map(({ type, labels }) => ({ type, choices: labels.map((label) => ({ id: '', label })) })),
);

/** The linked database: its title, a number, a select, a day and a person, which lookups and rollups read. */
const linkedFieldsArb: fc.Arbitrary<RefField[]> = fc
  .record({ precision: fc.integer({ min: 0, max: 2 }), labels: fc.shuffledSubarray(LABELS, { minLength: 1, maxLength: 4 }) })
  .map(({ precision, labels }) => [
    ...STARTERS,
    { api_name: 'num', type: 'number', precision },
    { api_name: 'stage', type: 'single_select', choices: labels.map((label, j) => ({ id: optionId(9, j), label })) },
    { api_name: 'day', type: 'date' },
    { api_name: 'owner', type: 'user' },
  ]);

/** What a rollup may compute from each field of the linked database (the others answer 422). */
const ROLLUPS: Record<string, RollupFunction[]> = {
  name: ['count', 'concat', 'unique'],
  num: ['count', 'sum', 'avg', 'min', 'max', 'concat', 'unique'],
  stage: ['count', 'concat', 'unique'],
  day: ['count', 'min', 'max', 'earliest', 'latest', 'concat', 'unique'],
  // People have no text form: their concat is refused.
  owner: ['count', 'unique'],
};

/** Rollups by what they compute and from what, each pair as likely as any other. */
const computedArb: fc.Arbitrary<Omit<RefField, 'api_name'>> = fc.oneof(
  { weight: 1, arbitrary: fc.constantFrom(...Object.keys(ROLLUPS)).map((target) => ({ type: 'lookup' as const, via: LINK, target })) },
  { weight: 2, arbitrary: fc.constantFrom(...Object.entries(ROLLUPS).flatMap(([target, fns]) => fns.map((fn) => ({ type: 'rollup' as const, via: LINK, target, fn })))) },
  { weight: 1, arbitrary: fc.constant({ type: 'count' as const, via: LINK }) },
);

const relationArb = fc.record({ kind: fc.constantFrom('one_to_many' as const, 'many_to_many' as const), side: fc.constantFrom('from' as const, 'to' as const) });

/** Four in five scenarios link to another database, through `link`, with one to four fields reading it. */
const schemaArb: fc.Arbitrary<Schema> = fc
  .record({
    own: fc.array(fieldArb, { minLength: 1, maxLength: 5 }),
    link: fc.option(fc.record({ fields: linkedFieldsArb, relation: relationArb, computed: fc.array(computedArb, { minLength: 1, maxLength: 4 }) }), { nil: undefined, freq: 5 }),
  })
  .map(({ own, link }) => {
    const fields: RefField[] = [
      ...STARTERS,
      ...own.map((f, i) => ({ ...f, api_name: `${f.type}_${i}`, ...(f.choices ? { choices: f.choices.map((c, j) => ({ id: optionId(i, j), label: c.label })) } : {}) })),
    ];
    if (!link) return { fields };
    const computed = link.computed.map((f, i) => ({ ...f, api_name: `${f.type}_${own.length + i}` }));
    return { fields: [...fields, { api_name: LINK, type: 'link', relation: link.relation }, ...computed], linked: link.fields };
  });

/** Whether a record may link to several records through the link field (not the one side of a one-to-many). */
function linksMany(field: RefField): boolean {
  return field.relation!.kind === 'many_to_many' || field.relation!.side === 'from';
}

const textArb = (minLength: number) => fc.string({ unit: fc.constantFrom(...TEXT_UNITS), minLength, maxLength: 3 });
/** Filter values: short decimals (up to 3 places), finer than some fields store, so comparisons meet values between stored ones. */
const numberArb = fc.record({ m: fc.integer({ min: -30, max: 30 }), d: fc.integer({ min: 0, max: 3 }) }).map(({ m, d }) => Number(`${m}e-${d}`));
/**
 * Cell values: exactly at the field's precision (a write never rounds; finer values are refused, see
 * test/plugins/databases/field-types.test.ts), its last decimal included, and the largest magnitudes it stores.
 */
const cellNumberArb = (precision: number) =>
  fc.oneof(
    { weight: 9, arbitrary: fc.record({ m: fc.integer({ min: -30, max: 30 }), d: fc.integer({ min: 0, max: precision }) }).map(({ m, d }) => Number(`${m}e-${d}`)) },
    { weight: 1, arbitrary: fc.constantFrom(999_999_999_999_999, -999_999_999_999_999) },
  );
const dayArb = fc.constantFrom(...DAYS);
const instantArb = fc.oneof(dayArb, fc.tuple(dayArb, fc.constantFrom(...TIMES), fc.constantFrom(...OFFSETS)).map(([d, t, o]) => `${d}T${t}${o}`));
const rangeArb = fc.tuple(dayArb, dayArb).map(([a, b]) => (a <= b ? { from: a, to: b } : { from: b, to: a }));
const personArb = fc.integer({ min: 0, max: USER_COUNT - 1 }).chain((i) => fc.constantFrom(`@user:${i}`, `@USER:${i}`));
/** Present one time in three. */
const sometimes = <T>(arb: fc.Arbitrary<T>) => fc.oneof({ weight: 2, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: arb });
const qArb = fc.string({ unit: fc.constantFrom(...TEXT_UNITS), minLength: 1, maxLength: 2 });
const listOf = <T>(arb: fc.Arbitrary<T>) => fc.array(arb, { minLength: 1, maxLength: 3 });

function optionArb(field: RefField): fc.Arbitrary<string> {
  return fc.constantFrom(...field.choices!).chain((c) => fc.constantFrom(c.id, c.id.toUpperCase(), c.label));
}

/** What a write may put in a cell (null and empty values included). */
function cellArb(field: RefField): fc.Arbitrary<unknown> {
  const value = ((): fc.Arbitrary<unknown> => {
    switch (field.type) {
      case 'text': return textArb(0);
      case 'number': return cellNumberArb(field.precision ?? 0);
      case 'checkbox': return fc.boolean();
      case 'date': return dayArb;
      case 'datetime': return instantArb;
      case 'single_select': return optionArb(field);
      case 'multi_select': return fc.array(optionArb(field), { maxLength: 3 });
      case 'link': return fc.oneof({ weight: 4, arbitrary: fc.array(fc.nat(9), { minLength: 1, maxLength: linksMany(field) ? 3 : 1 }) }, { weight: 1, arbitrary: fc.constant([]) });
      default: return personArb;
    }
  })();
  return fc.oneof({ weight: 4, arbitrary: value }, { weight: 1, arbitrary: fc.constant(null) });
}

const WRITABLE: FieldKind[] = ['text', 'number', 'checkbox', 'date', 'datetime', 'single_select', 'multi_select', 'user', 'link'];

/** A `values` object: any subset of the writable fields. */
function valuesArb(fields: RefField[]): fc.Arbitrary<Values> {
  const writable = fields.filter((f) => WRITABLE.includes(f.type));
  return fc.record(Object.fromEntries(writable.map((f) => [f.api_name, cellArb(f)])), { requiredKeys: [] });
}

type Leaf = [op: string, value?: fc.Arbitrary<unknown>];
const valueless: Leaf[] = [['is_empty'], ['is_not_empty']];

function leavesOf(field: RefField): Leaf[] {
  switch (field.type) {
    case 'text': {
      const text = textArb(1);
      return [['eq', text], ['neq', text], ['contains', text], ['not_contains', text], ['starts_with', text], ['ends_with', text], ['is_any_of', listOf(text)], ['is_none_of', listOf(text)], ...valueless];
    }
    case 'number':
    case 'autonumber':
    case 'count': {
      const n = field.type === 'number' ? numberArb : fc.integer({ min: 0, max: field.type === 'count' ? 4 : 30 });
      return [['eq', n], ['neq', n], ['gt', n], ['gte', n], ['lt', n], ['lte', n], ['is_any_of', listOf(n)], ['is_none_of', listOf(n)], ...valueless];
    }
    case 'checkbox':
      return [['eq', fc.boolean()], ['neq', fc.boolean()]];
    case 'date':
    case 'datetime':
    case 'created_at': {
      const day = field.type === 'date' ? dayArb : field.type === 'datetime' ? instantArb : fc.constantFrom('@yesterday', '@today', '@tomorrow');
      const range = field.type === 'created_at' ? fc.constant({ from: '@yesterday', to: '@today' }) : rangeArb;
      const ops = ['eq', 'neq', 'before', 'after', 'on_or_before', 'on_or_after'].map((op): Leaf => [op, day]);
      return [...ops, ['within', range], ...valueless];
    }
    case 'single_select': {
      const option = optionArb(field);
      return [['eq', option], ['neq', option], ['is_any_of', listOf(option)], ['is_none_of', listOf(option)], ...valueless];
    }
    case 'multi_select': {
      const options = listOf(optionArb(field));
      return [['has_any_of', options], ['has_all_of', options], ['has_none_of', options], ['eq', options], ...valueless];
    }
    case 'user': {
      const person = fc.oneof(personArb, fc.constantFrom('me', '@nobody'));
      return [['eq', person], ['neq', person], ['is_any_of', listOf(person)], ['is_none_of', listOf(person)], ...valueless];
    }
    default:
      throw new Error(`no conditions on a ${field.type} field of its own`);
  }
}

const linkedIdArb = fc.oneof(
  { weight: 4, arbitrary: fc.nat(5).chain((i) => fc.constantFrom(`@linked:${i}`, `@LINKED:${i}`)) },
  { weight: 1, arbitrary: fc.constant('@nobody') },
);
const linkLeaves: Leaf[] = [['has_any_of', listOf(linkedIdArb)], ['has_all_of', listOf(linkedIdArb)], ['has_none_of', listOf(linkedIdArb)], ...valueless];

const conditionOn = (field: string, leaves: Leaf[]): fc.Arbitrary<FilterNode> =>
  fc.constantFrom(...leaves).chain(([op, value]) => (value ? value.map((v) => ({ field, op, value: v })) : fc.constant({ field, op })));

/** A condition on a field: a link by record ids, or a linked field through it; a lookup as the field it reads. */
function fieldConditionArb(field: RefField, linked: RefField[]): fc.Arbitrary<FilterNode> {
  switch (field.type) {
    case 'link':
      return fc.oneof(conditionOn(field.api_name, linkLeaves), fc.constantFrom(...linked).chain((f) => conditionOn(`${field.api_name}.${f.api_name}`, leavesOf(f))));
    case 'lookup':
      return conditionOn(field.api_name, leavesOf(linked.find((f) => f.api_name === field.target)!));
    case 'rollup': {
      const target = linked.find((f) => f.api_name === field.target)!;
      return conditionOn(field.api_name, leavesOf(field.fn === 'unique' ? target : rollupValueField(field, target)));
    }
    default:
      return conditionOn(field.api_name, leavesOf(field));
  }
}

const viaLink = (f: RefField) => f.type === 'link' || f.type === 'lookup' || f.type === 'count' || f.type === 'rollup';

/**
 * A field, then one of its ops: each field as likely as any other, whatever its number of ops,
 * except that half the conditions of a scenario with a link go through it.
 */
function conditionArb({ fields, linked = [] }: Schema): fc.Arbitrary<FilterNode> {
  const groups = [fields.filter((f) => !viaLink(f)), fields.filter(viaLink)].filter((g) => g.length > 0);
  return fc.constantFrom(...groups).chain((group) => fc.constantFrom(...group)).chain((f) => fieldConditionArb(f, linked));
}

function filterArb(schema: Schema): fc.Arbitrary<FilterNode> {
  const condition = conditionArb(schema);
  return fc.letrec<{ node: FilterNode }>((tie) => ({
    node: fc.oneof(
      { maxDepth: 3, depthIdentifier: 'filter' },
      { weight: 3, arbitrary: condition },
      fc.array(tie('node'), { maxLength: 3 }).map((and) => ({ and })),
      fc.array(tie('node'), { maxLength: 3 }).map((or) => ({ or })),
      tie('node').map((not) => ({ not })),
    ),
  })).node;
}

/** Mostly one condition: random trees of several rarely match anything. */
function someFilterArb(schema: Schema): fc.Arbitrary<FilterNode> {
  return fc.oneof(conditionArb(schema), conditionArb(schema), filterArb(schema));
}

/** Half the sort keys of a scenario with a link read through it (links, lookups, rollups, counts). */
function sortsArb(fields: RefField[]): fc.Arbitrary<SortSpec[]> {
  const groups = [fields.filter((f) => !viaLink(f)), fields.filter(viaLink)].filter((g) => g.length > 0);
  const field = fc.constantFrom(...groups).chain((group) => fc.constantFrom(...group.map((f) => f.api_name)));
  const sort = fc.record({ field, direction: fc.constantFrom<'asc' | 'desc'>('asc', 'desc') }, { requiredKeys: ['field'] });
  return fc.array(sort, { maxLength: 5 });
}

function changeArb({ fields, linked }: Schema): fc.Arbitrary<Change> {
  const afterPage = fc.integer({ min: 1, max: 3 });
  const target = fc.nat(99);
  const own = [
    fc.record({ afterPage, kind: fc.constant('create' as const), values: valuesArb(fields) }),
    fc.record({ afterPage, kind: fc.constant('update' as const), target, values: valuesArb(fields) }),
    fc.record({ afterPage, kind: fc.constant('delete' as const), target }),
    fc.record({ afterPage, kind: fc.constant('move' as const), target, anchor: fc.nat(99), side: fc.constantFrom<'before' | 'after' | 'end'>('before', 'after', 'end') }),
  ];
  if (!linked) return fc.oneof(...own);
  return fc.oneof(
    ...own,
    fc.record({ afterPage, kind: fc.constant('update_linked' as const), target, values: valuesArb(linked) }),
    fc.record({ afterPage, kind: fc.constant('delete_linked' as const), target }),
  );
}

function walkArb(schema: Schema): fc.Arbitrary<Walk> {
  const base = {
    q: sometimes(qArb),
    pageSizes: fc.array(fc.integer({ min: 1, max: 7 }), { minLength: 1, maxLength: 3 }),
    changes: fc.array(changeArb(schema), { maxLength: 4 }),
  };
  const filter = fc.oneof(fc.constant(undefined), someFilterArb(schema));
  return fc.oneof(
    { weight: 1, arbitrary: fc.record({ via: fc.constant('get' as const), ...base }) },
    { weight: 4, arbitrary: fc.record({ via: fc.constant('post' as const), ...base, filter, sorts: sometimes(sortsArb(schema.fields)), count: fc.boolean() }) },
  );
}

function probeArb(schema: Schema): fc.Arbitrary<Probe> {
  return fc.record({ filter: someFilterArb(schema), sorts: sometimes(sortsArb(schema.fields)), q: sometimes(qArb) });
}

export const scenarioArb: fc.Arbitrary<Scenario> = schemaArb.chain((schema) =>
  fc.record({
    fields: fc.constant(schema.fields),
    linked: schema.linked ? fc.record({ fields: fc.constant(schema.linked), records: fc.array(valuesArb(schema.linked), { minLength: 1, maxLength: 5 }) }) : fc.constant(undefined),
    batches: fc.array(fc.array(valuesArb(schema.fields), { minLength: 1, maxLength: 12 }), { minLength: 1, maxLength: 3 }),
    probes: fc.array(probeArb(schema), { minLength: 4, maxLength: 10 }),
    walks: fc.array(walkArb(schema), { minLength: 1, maxLength: 3 }),
  }),
);
