import { Type, type Static } from '../../core/schema.ts';
import { PRESETS } from './oauth-providers.ts';

const Url = Type.String({ format: 'uri', pattern: '^https?://' });

const providerFields = {
  clientId: Type.String({ minLength: 1 }),
  clientSecret: Type.String({ minLength: 1, description: 'Put it in the environment: `{ "$env": "GITHUB_CLIENT_SECRET" }`.' }),
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  scopes: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
};

/** A preset (github, google) needs only its client credentials; URLs given here override the preset's. */
const PresetProvider = Type.Object(
  { ...providerFields, authorizeUrl: Type.Optional(Url), tokenUrl: Type.Optional(Url), userInfoUrl: Type.Optional(Url) },
  { additionalProperties: false },
);

/** Any other id is an OpenID Connect-style provider and must name all three endpoints. */
const CustomProvider = Type.Object(
  { ...providerFields, authorizeUrl: Url, tokenUrl: Url, userInfoUrl: Url },
  { additionalProperties: false },
);

const presetProperties = Object.fromEntries(Object.keys(PRESETS).map((id) => [id, Type.Optional(PresetProvider)]));

export const AuthOptionsSchema = Type.Object(
  {
    sessionTtlHours: Type.Integer({ minimum: 1, default: 24 * 30 }),
    signInRateLimit: Type.Object(
      {
        /** Failed sign-ins for one email (any case) from one IP address before 429 there; the owner elsewhere is not held up. */
        maxFailures: Type.Integer({ minimum: 1, default: 5 }),
        /** Failed sign-ins from one IP address, any email, before 429; higher, since many people can share an address. */
        maxFailuresPerIp: Type.Integer({ minimum: 1, default: 20 }),
        windowMinutes: Type.Integer({ minimum: 1, default: 15 }),
        /** Failed sign-ins for one email from every address before 429 anywhere: the ceiling on guesses spread over many addresses. */
        maxFailuresPerAccount: Type.Integer({ minimum: 1, default: 100 }),
        accountWindowMinutes: Type.Integer({ minimum: 1, default: 60 }),
      },
      { additionalProperties: false, default: {} },
    ),
    /** `open`: anyone; `invite_only`: an address with a pending workspace invite; `closed`: nobody (admins come from ADMIN_EMAIL or create-admin). */
    signUp: Type.Union([Type.Literal('open'), Type.Literal('invite_only'), Type.Literal('closed')], { default: 'open' }),
    signUpRateLimit: Type.Object(
      {
        /** Sign-up attempts from one IP address per window, whatever their outcome (so 409 `email_taken` cannot be farmed). */
        maxPerIp: Type.Integer({ minimum: 1, default: 10 }),
        windowMinutes: Type.Integer({ minimum: 1, default: 60 }),
      },
      { additionalProperties: false, default: {} },
    ),
    /**
     * The Argon2id cost of each new password hash: OWASP's recommendation by default. Existing hashes keep the cost
     * they were made with. Lower only where guessing does not matter: the test suite's kernels use 1 MiB and 1 pass.
     */
    passwordHashing: Type.Object(
      {
        memoryKiB: Type.Integer({ minimum: 8, maximum: 4_194_304, default: 19_456 }),
        passes: Type.Integer({ minimum: 1, maximum: 100, default: 2 }),
      },
      { additionalProperties: false, default: {} },
    ),
    passwordResetTtlMinutes: Type.Integer({ minimum: 5, maximum: 24 * 60, default: 60 }),
    passwordResetRateLimit: Type.Object(
      {
        /** Reset requests for one email (any case) per window; counted whether or not the address has an account. */
        maxPerEmail: Type.Integer({ minimum: 1, default: 3 }),
        maxPerIp: Type.Integer({ minimum: 1, default: 20 }),
        windowMinutes: Type.Integer({ minimum: 1, default: 60 }),
      },
      { additionalProperties: false, default: {} },
    ),
    /** Created at start when no account has this email (env ADMIN_EMAIL, ADMIN_PASSWORD); an existing account is left alone. */
    admin: Type.Optional(
      Type.Object({ email: Type.String({ format: 'email', maxLength: 320 }), password: Type.String({ minLength: 8, maxLength: 1024 }) }, { additionalProperties: false }),
    ),
    oauth: Type.Object(presetProperties, {
      additionalProperties: CustomProvider,
      propertyNames: { pattern: '^[a-z][a-z0-9-]*$', not: { const: 'password' } },
      default: {},
    }),
  },
  { additionalProperties: false, default: {} },
);

export type OAuthProviderOptions = Static<typeof PresetProvider>;
export type AuthOptions = Omit<Static<typeof AuthOptionsSchema>, 'oauth'> & { oauth: Record<string, OAuthProviderOptions> };
