import { defineErrors } from '../../core/errors.ts';

/** The codes only the integrations plugin answers with; the kernel's own (`not_found`, `validation_failed`…) are in core/errors.ts. */
export const IntegrationErrors = defineErrors({
  connection_failed: {
    status: 422,
    when: 'Creating or testing a connection whose credentials the provider refused, or a provider that could not be reached',
    create: (provider: string, detail: string) => ({ detail: `${provider}: ${detail}`, errors: [{ pointer: '/credentials', detail }] }),
  },
  bad_signature: {
    status: 401,
    when: "An inbound delivery whose signature is missing or wrong, or whose timestamp is outside the provider's window",
    create: (detail: string) => detail,
  },
});
