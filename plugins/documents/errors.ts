import { defineErrors } from '../../core/errors.ts';

/** The documents plugin's codes, beyond the kernel's (404, 413, 422). */
export const DocumentErrors = defineErrors({
  version_conflict: {
    status: 409,
    when: 'The `version` sent is not the current one: someone wrote since; `current_version` and `updated_by` say who and which',
    create: (currentVersion: number, updatedBy: string | null) => ({
      detail: 'The content was changed by someone else since the version you read.',
      extensions: { current_version: currentVersion, updated_by: updatedBy },
    }),
  },
});
