import { notFound } from '../../core/errors.ts';

/**
 * The public plugin answers with the kernel's codes only: `not_found` for any link that names no live form (never
 * saying which case it is), `validation_failed` (records' decoding, with the details below) for a submission,
 * `rate_limited` beyond the limit.
 */
export const PublicErrors = {
  formNotFound: () => notFound('No such form: the link is unknown, or the form is no longer published.'),
};

/** Details of a refused submission, one per field. */
export const SubmissionDetails = {
  notOnForm: (apiName: string) => `"${apiName}" is not a field of this form.`,
  required: 'This field is required.',
};
