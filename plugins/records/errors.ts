import { defineErrors, validationFailed, type AppError, type ErrorDetail } from '../../core/errors.ts';

/** The code of a problem with a value sent for a read-only field. */
export const READ_ONLY = 'field_read_only' as const;

/** The error refusing `errors`: `field_read_only` when that is all they are, else `validation_failed`. */
export function refusedValues(errors: ErrorDetail[]): AppError {
  return errors.every((e) => e.code === READ_ONLY) ? RecordErrors.field_read_only(errors) : validationFailed(errors);
}

/** The code of one record's refusal in a bulk answer, as `refusedValues` would choose it. */
export function refusedCode(errors: ErrorDetail[]): typeof READ_ONLY | 'validation_failed' {
  return errors.length > 0 && errors.every((e) => e.code === READ_ONLY) ? READ_ONLY : 'validation_failed';
}

/** The codes only the records plugin answers with; the kernel's own (`version_conflict`, `validation_failed`…) are in core/errors.ts. */
export const RecordErrors = defineErrors({
  /** Every value refused names a field no write through the API may set: computed, system, or synced by a source. */
  field_read_only: {
    status: 422,
    when: 'A value is sent for a read-only field (computed, system, or written by a source); `errors[]` points at each',
    create: (errors: ErrorDetail[]) => ({ detail: errors.length === 1 ? errors[0].detail : `${errors.length} values are for read-only fields.`, errors }),
  },
  position_clash: {
    status: 409,
    when: 'Two neighbouring records share a position, leaving no room between them; retrying may succeed',
    create: () => 'Two neighbouring records share a position, so there is no room between them; try again.',
  },
  /** Raised for a cell a field type's store finds clashing with other records: today a one-to-many link's. */
  link_conflict: {
    status: 409,
    when: 'A one-to-many link targets a record already linked to another one; `linked_record_id` names it',
    create: (detail: string, extensions?: Record<string, unknown>) => ({ detail, extensions }),
  },
});
