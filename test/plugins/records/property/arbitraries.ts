import fc from 'fast-check';
import type { FilterNode } from '../reference/filter.ts';
import { FIXED_ZONES, type FieldKind, type FixedZone, type RefField } from '../reference/model.ts';
import type { SortSpec } from '../reference/order.ts';

/**
 * Random databases, records, queries and changes between pages. Values are drawn from small
 * pools so that equal cells, ties and empty cells are common. People are symbols resolved when a
 * request is sent (`@user:i` by id, `@USER:i` upper-cased, `@nobody` a stranger), and so are
 * the days around now that `created_at` is filtered on (`@yesterday`, `@today`, `@tomorrow`).
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
  | { afterPage: number; kind: 'move'; target: number; anchor: number; side: 'before' | 'after' | 'end' };

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

export interface Scenario {
  fields: RefField[];
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

const fieldsArb: fc.Arbitrary<RefField[]> = fc.array(fieldArb, { minLength: 1, maxLength: 5 }).map((list) => [
  ...STARTERS,
  ...list.map((f, i) => ({ ...f, api_name: `${f.type}_${i}`, ...(f.choices ? { choices: f.choices.map((c, j) => ({ id: optionId(i, j), label: c.label })) } : {}) })),
]);

const textArb = (minLength: number) => fc.string({ unit: fc.constantFrom(...TEXT_UNITS), minLength, maxLength: 3 });
/** Short decimals (up to 3 places) so rounding to 0–2 places meets its halfway cases. */
const numberArb = fc.record({ m: fc.integer({ min: -30, max: 30 }), d: fc.integer({ min: 0, max: 3 }) }).map(({ m, d }) => Number(`${m}e-${d}`));
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
      case 'number': return numberArb;
      case 'checkbox': return fc.boolean();
      case 'date': return dayArb;
      case 'datetime': return instantArb;
      case 'single_select': return optionArb(field);
      case 'multi_select': return fc.array(optionArb(field), { maxLength: 3 });
      default: return personArb;
    }
  })();
  return fc.oneof({ weight: 4, arbitrary: value }, { weight: 1, arbitrary: fc.constant(null) });
}

const WRITABLE: FieldKind[] = ['text', 'number', 'checkbox', 'date', 'datetime', 'single_select', 'multi_select', 'user'];

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
    case 'autonumber': {
      const n = field.type === 'number' ? numberArb : fc.integer({ min: 0, max: 30 });
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
  }
}

/** A field, then one of its ops: each field as likely as any other, whatever its number of ops. */
function conditionArb(fields: RefField[]): fc.Arbitrary<FilterNode> {
  return fc.constantFrom(...fields).chain((f) =>
    fc.constantFrom(...leavesOf(f)).chain(([op, value]) => (value ? value.map((v) => ({ field: f.api_name, op, value: v })) : fc.constant({ field: f.api_name, op }))),
  );
}

function filterArb(fields: RefField[]): fc.Arbitrary<FilterNode> {
  const condition = conditionArb(fields);
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
function someFilterArb(fields: RefField[]): fc.Arbitrary<FilterNode> {
  return fc.oneof(conditionArb(fields), conditionArb(fields), filterArb(fields));
}

function sortsArb(fields: RefField[]): fc.Arbitrary<SortSpec[]> {
  const sort = fc.record({ field: fc.constantFrom(...fields.map((f) => f.api_name)), direction: fc.constantFrom<'asc' | 'desc'>('asc', 'desc') }, { requiredKeys: ['field'] });
  return fc.array(sort, { maxLength: 5 });
}

function changeArb(fields: RefField[]): fc.Arbitrary<Change> {
  const afterPage = fc.integer({ min: 1, max: 3 });
  const target = fc.nat(99);
  return fc.oneof(
    fc.record({ afterPage, kind: fc.constant('create' as const), values: valuesArb(fields) }),
    fc.record({ afterPage, kind: fc.constant('update' as const), target, values: valuesArb(fields) }),
    fc.record({ afterPage, kind: fc.constant('delete' as const), target }),
    fc.record({ afterPage, kind: fc.constant('move' as const), target, anchor: fc.nat(99), side: fc.constantFrom<'before' | 'after' | 'end'>('before', 'after', 'end') }),
  );
}

function walkArb(fields: RefField[]): fc.Arbitrary<Walk> {
  const base = {
    q: sometimes(qArb),
    pageSizes: fc.array(fc.integer({ min: 1, max: 7 }), { minLength: 1, maxLength: 3 }),
    changes: fc.array(changeArb(fields), { maxLength: 4 }),
  };
  const filter = fc.oneof(fc.constant(undefined), someFilterArb(fields));
  return fc.oneof(
    { weight: 1, arbitrary: fc.record({ via: fc.constant('get' as const), ...base }) },
    { weight: 4, arbitrary: fc.record({ via: fc.constant('post' as const), ...base, filter, sorts: sometimes(sortsArb(fields)), count: fc.boolean() }) },
  );
}

function probeArb(fields: RefField[]): fc.Arbitrary<Probe> {
  return fc.record({ filter: someFilterArb(fields), sorts: sometimes(sortsArb(fields)), q: sometimes(qArb) });
}

export const scenarioArb: fc.Arbitrary<Scenario> = fieldsArb.chain((fields) =>
  fc.record({
    fields: fc.constant(fields),
    batches: fc.array(fc.array(valuesArb(fields), { minLength: 1, maxLength: 12 }), { minLength: 1, maxLength: 3 }),
    probes: fc.array(probeArb(fields), { minLength: 4, maxLength: 10 }),
    walks: fc.array(walkArb(fields), { minLength: 1, maxLength: 3 }),
  }),
);
