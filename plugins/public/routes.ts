import { KernelErrors } from '../../core/errors.ts';
import { defineRoute, type AnyRouteDef } from '../../core/routes.ts';
import { Form, FormParams, SubmitBody, Submitted } from './schemas.ts';
import { UsageErrors } from '../../core/usage.ts';

const tags = ['public'];
const GONE = { description: 'The link is unknown, or its form was unpublished, replaced or deleted' };

/** No credential on either route: the link is the credential. The kernel logs `{token}` paths by their template. */
export function publicRoutes(maxBodyBytes: number): AnyRouteDef[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/public/forms/{token}',
      operationId: 'public.form',
      summary: 'A published form: its heading and the fields it asks for',
      description: 'No credential needed. Only the writable fields the form view does not hide, in its `field_order`. An unknown, unpublished or replaced link: 404, alike.',
      tags,
      auth: 'public',
      params: FormParams,
      responses: { 200: { description: 'The form', schema: Form }, 404: GONE },
      handler: ({ params, resolve }) => resolve('public.forms').describe(params.token),
    }),
    defineRoute({
      method: 'POST',
      path: '/public/forms/{token}',
      operationId: 'public.submit',
      example: { values: { name: 'Ada Lovelace' } },
      summary: 'Submit a published form: creates one record with no user',
      description:
        'No credential needed. Creates one record (`created_by` null; history, notifications and the `record.created` event say origin `public_form`). ' +
        'Only fields of the form (others → 422), required ones filled (→ 422 with pointers), values checked by their field types as in a signed-in write. ' +
        'A non-empty `hp` (honeypot) is answered the same 201 and nothing is created. Every attempt counts against the client address\'s limit (`submissionsPerMinute`): 429 with `Retry-After` beyond.',
      tags,
      auth: 'public',
      params: FormParams,
      body: SubmitBody,
      bodyLimit: maxBodyBytes,
      status: 201,
      // A replay would skip the rate limit, and anonymous callers share no key space.
      idempotency: false,
      responses: { 201: { description: 'Submitted (or dropped as spam)', schema: Submitted }, 404: GONE },
      errors: [UsageErrors.plan_limit_exceeded, KernelErrors.rate_limited],
      handler: ({ params, body, ctx, resolve }) => resolve('public.forms').submit(params.token, body, ctx.ip),
    }),
  ];
}
