import { Type, type Static } from '../../core/schema.ts';

/** The Admin API version asked for when none is configured (Shopify releases one each quarter, `YYYY-01/04/07/10`). */
export const DEFAULT_API_VERSION = '2025-07';

export const ShopifyOptions = Type.Object(
  {
    apiUrl: Type.Optional(
      Type.String({
        format: 'uri',
        pattern: '^https?://',
        description:
          'Sends every connection\'s Admin API calls to this root instead of `https://{shop}` (a proxy, a loopback server in tests). Unset: each connection talks to its own shop, whose domain must then be a `name.myshopify.com` domain.',
      }),
    ),
    apiVersion: Type.Optional(
      Type.String({
        pattern: '^([0-9]{4}-(01|04|07|10)|unstable)$',
        default: DEFAULT_API_VERSION,
        description: 'Admin API version in the request paths (`/admin/api/{apiVersion}/…`).',
      }),
    ),
  },
  { additionalProperties: false, default: {} },
);
export type ShopifyOptions = Static<typeof ShopifyOptions>;
