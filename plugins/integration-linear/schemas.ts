import { Type, type Static } from '../../core/schema.ts';

export const DEFAULT_API_URL = 'https://api.linear.app/graphql';

export const LinearOptions = Type.Object(
  {
    apiUrl: Type.Optional(
      Type.String({
        format: 'uri',
        // @linear/sdk refuses plain http except to a server on this machine; so does the schema, before anything starts.
        pattern: '^(https://|http://(localhost|127\\.0\\.0\\.1|\\[::1\\])([:/]|$))',
        default: DEFAULT_API_URL,
        description:
          "Linear's GraphQL endpoint the connections talk to: `https://api.linear.app/graphql`, or a loopback server (`http://127.0.0.1:<port>/graphql`) in tests.",
      }),
    ),
  },
  { additionalProperties: false, default: {} },
);
export type LinearOptions = Static<typeof LinearOptions>;
