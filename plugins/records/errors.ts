import { defineErrors } from '../../core/errors.ts';

/** The codes only the records plugin answers with; the kernel's own (`version_conflict`, `validation_failed`…) are in core/errors.ts. */
export const RecordErrors = defineErrors({
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
