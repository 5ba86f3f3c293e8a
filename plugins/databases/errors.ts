import { defineErrors } from '../../core/errors.ts';

/** The codes only the databases plugin answers with; the kernel's own (`limit_exceeded`, `validation_failed`…) are in core/errors.ts. */
export const DatabaseErrors = defineErrors({
  title_field: {
    status: 409,
    when: "Deleting the database's title field",
    create: () => 'The title field cannot be deleted; make another field the title first.',
  },
  name_taken: {
    status: 409,
    when: 'Restoring a field whose name a live field has taken meanwhile',
    create: (name: string) => `A live field is named "${name}" now; rename it first.`,
  },
  option_in_use: {
    status: 409,
    when: 'Deleting an option records use, without `confirm=true`; `usage_count` says how many',
    create: (usage: number) => ({ detail: `${usage} records use this option; delete with ?confirm=true to clear it from them.`, extensions: { usage_count: usage } }),
  },
  field_synced: {
    status: 409,
    when: "Deleting, converting or re-optioning a field a source writes (`synced`); renaming it is allowed",
    create: (what: string) => `This field is written by its source's syncs and cannot be ${what}; delete the source first to make it an ordinary field.`,
  },
  managed_field: {
    status: 409,
    when: 'Changing through the fields routes a field another plugin manages (a link: its relation)',
    create: (type: string, what: string, owner: string) =>
      `A ${type} field is ${what} by the ${owner} plugin, with what it belongs to (a link: its relation), not through the fields routes.`,
  },
});

/**
 * A value refused by a field type. Not a catalogue entry: the type knows why the value is wrong but
 * not where it was sent (a cell of a write, a filter's value), so whoever asked the type catches it
 * and answers the kernel's `validation_failed` (422) with the detail at that pointer.
 */
export class InvalidCell extends Error {
  constructor(readonly detail: string) {
    super(detail);
    this.name = 'InvalidCell';
  }
}
