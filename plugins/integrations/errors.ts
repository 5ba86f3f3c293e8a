import { defineErrors } from '../../core/errors.ts';

/** The codes only the integrations plugin answers with; the kernel's own (`not_found`, `validation_failed`…) are in core/errors.ts. */
export const IntegrationErrors = defineErrors({
  connection_failed: {
    status: 422,
    when: 'Creating or testing a connection whose credentials the provider refused, or a provider that could not be reached',
    create: (provider: string, detail: string) => ({ detail: `${provider}: ${detail}`, errors: [{ pointer: '/credentials', detail }] }),
  },
  bad_state: {
    status: 400,
    when: "An OAuth callback whose state is unknown, expired, already used, another provider's or another user's",
    create: (detail: string) => ({ detail, errors: [{ pointer: '/query/state', detail }] }),
  },
  needs_reauth: {
    status: 409,
    when: 'Using a connection whose provider refused to refresh its access (status needs_reauth): an admin connects it again',
    create: (provider: string) => `${provider} no longer accepts this connection's authorization: connect it again.`,
  },
  provider_unreachable: {
    status: 502,
    when: "The provider's token endpoint could not be reached or answered nonsense while a token was refreshed",
    create: (provider: string) => `${provider} could not be reached to refresh the connection's access token; try again later.`,
  },
  bad_signature: {
    status: 401,
    when: "An inbound delivery whose signature is missing or wrong, or whose timestamp is outside the provider's window",
    create: (detail: string) => detail,
  },
});
