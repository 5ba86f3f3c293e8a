import type { FilterOp } from './field-type.ts';

/** The filter operators of each family of types (API.md "Filter AST"). */
export const TEXT_OPS: readonly FilterOp[] = ['eq', 'neq', 'contains', 'not_contains', 'starts_with', 'ends_with', 'is_empty', 'is_not_empty', 'is_any_of', 'is_none_of'];
export const NUMBER_OPS: readonly FilterOp[] = ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'is_empty', 'is_not_empty', 'is_any_of', 'is_none_of'];
export const CHECKBOX_OPS: readonly FilterOp[] = ['eq', 'neq'];
export const DATE_OPS: readonly FilterOp[] = ['eq', 'neq', 'before', 'after', 'on_or_before', 'on_or_after', 'within', 'is_empty', 'is_not_empty'];
export const SELECT_OPS: readonly FilterOp[] = ['eq', 'neq', 'is_any_of', 'is_none_of', 'is_empty', 'is_not_empty'];
export const MULTI_SELECT_OPS: readonly FilterOp[] = ['has_any_of', 'has_all_of', 'has_none_of', 'eq', 'is_empty', 'is_not_empty'];
export const PERSON_OPS: readonly FilterOp[] = ['eq', 'neq', 'is_any_of', 'is_none_of', 'is_empty', 'is_not_empty'];
export const JSON_OPS: readonly FilterOp[] = ['is_empty', 'is_not_empty'];
