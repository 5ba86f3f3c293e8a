import { type FieldMeta, type FieldType } from './field-type.ts';
import { InvalidCell } from '../errors.ts';

type SystemDefinition<O> = Pick<FieldType<O>, 'type' | 'options' | 'systemColumn' | 'toApi' | 'ops' | 'sortExpr' | 'sortType' | 'canBeTitle' | 'normalizeOptions' | 'cell'> & {
  format(value: unknown, field: FieldMeta<O>): string;
  formatSql?(col: string, field: FieldMeta<O>): string;
};

/**
 * A type that reads one of the record's system columns (number, created_at, …): no column of
 * its own, never written through the API or CSV, and nothing converts to or from it.
 */
export function systemFieldType<O>(def: SystemDefinition<O>): FieldType<O> {
  const refuse = (): never => {
    throw new InvalidCell(`A ${def.type} field is read-only.`);
  };
  const { format, formatSql, ...rest } = def;
  return Object.freeze({
    ...rest,
    readOnly: true,
    fromApi: refuse,
    csv: { parse: refuse, format, ...(formatSql ? { formatSql } : {}) },
    convertsTo: {},
  });
}
