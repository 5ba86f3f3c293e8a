import { defineRoute, type AnyRouteDef } from '../../core/routes.ts';
import { Attribution, AttributeBody, MyReferral } from './schemas.ts';

const tags = ['referrals'];

export function referralRoutes(): AnyRouteDef[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/referrals/me',
      operationId: 'referrals.mine',
      summary: 'My referral code, link and rewards summary; the code is made on the first call',
      tags,
      auth: 'user',
      responses: { 200: { description: 'My referral', schema: MyReferral } },
      handler: ({ user, ctx, resolve }) => {
        // Without a configured public URL, the instance is where the caller reached it.
        const base = resolve('config').publicUrl ?? `${ctx.protocol}://${ctx.host}`;
        return resolve('referrals.service').me(user.id, base);
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/referrals/attribute',
      operationId: 'referrals.attribute',
      example: { code: 'ADA-7Q2X' },
      summary: 'Attribute me to the referral code that brought me (first touch, one time)',
      description:
        'Always 200 for a valid body. `{ attributed: false, reason }` changes nothing: `unknown_code`, `self_referral` (your own code), ' +
        'or `already_attributed` (the first attribution is final). Codes match case-insensitively.',
      tags,
      auth: 'user',
      body: AttributeBody,
      responses: { 200: { description: 'Whether this call attributed me', schema: Attribution } },
      handler: ({ user, body, resolve }) => resolve('referrals.service').attribute(user.id, body.code),
    }),
  ];
}
