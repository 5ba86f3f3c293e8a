import { defineErrors } from '../../core/errors.ts';

/** The codes only the views plugin answers with; the kernel's own (`not_found`, `validation_failed`…) are in core/errors.ts. */
export const ViewErrors = defineErrors({
  last_view: {
    status: 409,
    when: "Deleting the database's last view",
    create: () => 'A database keeps at least one view: this is its last one.',
  },
});
