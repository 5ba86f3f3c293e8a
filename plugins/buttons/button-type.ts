import { invalidField } from '../../core/errors.ts';
import { defineFieldType, InvalidCell, type FieldMeta } from '../databases/public.ts';
import type { AutomationService } from '../automations/public.ts';
import { ButtonOptions } from './schemas.ts';

const notWritable = (): never => {
  throw new InvalidCell('A button is pressed, not written: POST …/records/{id}/buttons/{field}/press.');
};

/**
 * `button`: a cell that reads `{ label }` and runs its automation when pressed. It stores nothing (no column), so it
 * is never written, filtered or sorted; its options name an automation of the same database with a button trigger.
 */
export function buttonType(automations: () => AutomationService) {
  return defineFieldType<ButtonOptions>({
    type: 'button',
    cell: { schema: { type: 'object', properties: { label: { type: 'string' } }, required: ['label'] }, example: { label: 'Send quote' }, writes: 'Read-only: press it instead.' },
    options: ButtonOptions,
    optionsExample: { label: 'Send quote', automation_id: '0190c7a2-5b7e-7000-8000-000000000020' },
    readOnly: true,
    // A constant: the cell is the field's label, which toApi reads from the options.
    select: () => 'true',
    async resolveOptions(trx, databaseId, options) {
      const automation = await automations().ofDatabase(databaseId, options.automation_id, trx);
      if (!automation) throw invalidField('/options/automation_id', 'No automation with this id on this database.');
      if (automation.trigger.type !== 'button') throw invalidField('/options/automation_id', `The automation's trigger is "${automation.trigger.type}"; a button runs only one whose trigger is { "type": "button" }.`);
      return options;
    },
    fromApi: notWritable,
    toApi: (_value, field: FieldMeta<ButtonOptions>) => ({ label: field.options.label }),
    ops: {},
    csv: { parse: notWritable, format: (_value, field) => field.options.label },
    convertsTo: {},
  });
}
