import { defineErrors } from '../../core/errors.ts';

/** The comments plugin's codes, beyond the kernel's. */
export const CommentErrors = defineErrors({
  not_author: { status: 403, when: 'Only its author edits a comment; its author or a workspace admin deletes it', create: (detail: string) => detail },
});
