import http from 'node:http';
import { createHash, randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';

export interface FakeAccount {
  id: number;
  login: string;
  name: string | null;
  emails: Array<{ email: string; primary: boolean; verified: boolean }>;
}

interface Grant {
  account: FakeAccount;
  redirectUri: string;
  challenge: string;
}

/**
 * A GitHub-shaped OAuth 2.0 provider on 127.0.0.1, strict the way GitHub is: the authorize
 * step auto-approves `account`; the token endpoint checks client credentials, the code, the
 * redirect_uri and the PKCE verifier, and answers JSON only to `Accept: application/json`;
 * /user and /user/emails need the issued access token. /oidc/userinfo serves the same
 * account as OpenID Connect claims, for providers configured without a preset.
 */
export class FakeOAuthServer {
  readonly clientId = 'fake-client-id';
  readonly clientSecret = 'fake-client-secret';
  account: FakeAccount = { id: 1, login: 'octo', name: 'Octo Cat', emails: [] };
  /** When set, /user answers this HTTP status instead of the profile. */
  userStatus: number | null = null;
  readonly tokenRequests: Array<{ accept: string; form: Record<string, string> }> = [];
  private readonly grants = new Map<string, Grant>();
  private readonly tokens = new Map<string, FakeAccount>();
  private server!: http.Server;
  url = '';

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => {
      this.handle(req, res).catch(() => this.json(res, 500, { message: 'fake server error' }));
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  /** Provider options pointing a preset at this server. */
  options(extra: Record<string, unknown> = {}) {
    return {
      clientId: this.clientId,
      clientSecret: this.clientSecret,
      authorizeUrl: `${this.url}/login/oauth/authorize`,
      tokenUrl: `${this.url}/login/oauth/access_token`,
      userInfoUrl: `${this.url}/user`,
      ...extra,
    };
  }

  private json(res: http.ServerResponse, status: number, body: unknown): void {
    res.writeHead(status, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify(body));
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', this.url);
    if (req.method === 'GET' && url.pathname === '/login/oauth/authorize') return this.authorize(url, res);
    if (req.method === 'POST' && url.pathname === '/login/oauth/access_token') return this.token(req, res);
    const account = this.tokens.get((req.headers.authorization ?? '').replace(/^(Bearer|token)\s+/i, ''));
    if (req.method === 'GET' && ['/user', '/user/emails', '/oidc/userinfo'].includes(url.pathname)) {
      if (!account) return this.json(res, 401, { message: 'Bad credentials' });
      if (url.pathname === '/user') {
        if (this.userStatus) return this.json(res, this.userStatus, { message: 'Server Error' });
        // Like GitHub: the profile's `email` is the public one, which may be unverified.
        return this.json(res, 200, { id: account.id, login: account.login, name: account.name, email: 'public-unverified@example.test' });
      }
      if (url.pathname === '/user/emails') return this.json(res, 200, account.emails.map((e) => ({ ...e, visibility: null })));
      const primary = account.emails.find((e) => e.primary);
      return this.json(res, 200, { sub: `oidc-${account.id}`, email: primary?.email, email_verified: primary?.verified ?? false, name: account.name });
    }
    this.json(res, 404, { message: 'Not Found' });
  }

  private authorize(url: URL, res: http.ServerResponse): void {
    const q = url.searchParams;
    if (q.get('client_id') !== this.clientId || q.get('response_type') !== 'code' || q.get('code_challenge_method') !== 'S256') {
      return this.json(res, 400, { message: 'bad authorize request' });
    }
    const code = randomBytes(10).toString('hex');
    this.grants.set(code, { account: structuredClone(this.account), redirectUri: q.get('redirect_uri')!, challenge: q.get('code_challenge')! });
    const back = new URL(q.get('redirect_uri')!);
    back.searchParams.set('code', code);
    back.searchParams.set('state', q.get('state')!);
    res.writeHead(302, { Location: back.toString() });
    res.end();
  }

  private async token(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    let raw = '';
    for await (const chunk of req) raw += chunk;
    const form = Object.fromEntries(new URLSearchParams(raw));
    const accept = req.headers.accept ?? '';
    this.tokenRequests.push({ accept, form });
    const reply = (body: Record<string, string>) => {
      if (accept.includes('application/json')) return this.json(res, 200, body);
      res.writeHead(200, { 'Content-Type': 'application/x-www-form-urlencoded' });
      res.end(new URLSearchParams(body).toString());
    };
    if (form.client_id !== this.clientId || form.client_secret !== this.clientSecret) return reply({ error: 'incorrect_client_credentials' });
    const grant = this.grants.get(form.code);
    this.grants.delete(form.code);
    if (!grant) return reply({ error: 'bad_verification_code' });
    if (form.redirect_uri !== grant.redirectUri) return reply({ error: 'redirect_uri_mismatch' });
    const challenge = createHash('sha256').update(form.code_verifier ?? '').digest('base64url');
    if (challenge !== grant.challenge) return reply({ error: 'invalid_grant' });
    const accessToken = `gho_${randomBytes(16).toString('hex')}`;
    this.tokens.set(accessToken, grant.account);
    reply({ access_token: accessToken, token_type: 'bearer', scope: 'read:user,user:email' });
  }
}
