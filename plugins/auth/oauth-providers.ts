import type { OAuthProviderOptions } from './options.ts';

/** How a provider describes the signed-in account: GitHub's REST API, or OpenID Connect userinfo claims. */
export type ProfileStyle = 'github' | 'oidc';

interface Preset {
  name: string;
  authorizeUrl: string;
  tokenUrl: string;
  userInfoUrl: string;
  scopes: string[];
  profile: ProfileStyle;
}

export const PRESETS = {
  github: {
    name: 'GitHub',
    authorizeUrl: 'https://github.com/login/oauth/authorize',
    tokenUrl: 'https://github.com/login/oauth/access_token',
    userInfoUrl: 'https://api.github.com/user',
    scopes: ['read:user', 'user:email'],
    profile: 'github',
  },
  google: {
    name: 'Google',
    authorizeUrl: 'https://accounts.google.com/o/oauth2/v2/auth',
    tokenUrl: 'https://oauth2.googleapis.com/token',
    userInfoUrl: 'https://openidconnect.googleapis.com/v1/userinfo',
    scopes: ['openid', 'email', 'profile'],
    profile: 'oidc',
  },
} satisfies Record<string, Preset>;

export interface OAuthProvider extends Preset {
  id: string;
  clientId: string;
  clientSecret: string;
}

/** Merges configured providers over their presets; the options schema guarantees custom ones name every URL. */
export function resolveProviders(configured: Record<string, OAuthProviderOptions>): Map<string, OAuthProvider> {
  const out = new Map<string, OAuthProvider>();
  for (const [id, opts] of Object.entries(configured)) {
    const preset: Partial<Preset> = (PRESETS as Record<string, Preset>)[id] ?? {};
    out.set(id, {
      id,
      name: opts.name ?? preset.name ?? id,
      clientId: opts.clientId,
      clientSecret: opts.clientSecret,
      authorizeUrl: opts.authorizeUrl ?? preset.authorizeUrl!,
      tokenUrl: opts.tokenUrl ?? preset.tokenUrl!,
      userInfoUrl: opts.userInfoUrl ?? preset.userInfoUrl!,
      scopes: opts.scopes ?? preset.scopes ?? ['openid', 'email', 'profile'],
      profile: preset.profile ?? 'oidc',
    });
  }
  return out;
}
