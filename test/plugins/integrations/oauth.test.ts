import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { definePlugin } from '../../../core/plugin.ts';
import { createWorkspace, joinWorkspace, signUp, startTestKernel, type SignedUpUser, type TestKernel } from '../../../core/testing.ts';
import { TokenRejected, type IntegrationProvider } from '../../../plugins/integrations/public.ts';
import integrations from '../../../plugins/integrations/index.ts';
import system from '../../../plugins/system/index.ts';
import auth from '../../../plugins/auth/index.ts';
import workspaces from '../../../plugins/workspaces/index.ts';

/**
 * An OAuth 2 authorization server on loopback, as RFC 6749 and RFC 7636 describe its token endpoint: codes it issued
 * (bound to a PKCE challenge) traded once for tokens, refresh tokens traded for new ones. It counts what it is asked.
 */
class AuthorizationServer {
  readonly codes = new Map<string, string>();
  readonly refreshTokens = new Set<string>();
  refreshes = 0;
  /** Seconds new access tokens live: Tessera refreshes one a minute before its end, or at half its life if shorter. */
  expiresIn = 3600;
  refuseRefresh = false;
  /** Tokens revoked at `/revoke` (RFC 7009). */
  readonly revoked: string[] = [];
  private server!: http.Server;
  private serial = 0;
  url = '';

  /** A code for an authorize URL, as the server would give the browser once the user agreed. */
  issueCode(authorizeUrl: string): { code: string; state: string } {
    const url = new URL(authorizeUrl);
    const code = `code-${++this.serial}`;
    this.codes.set(code, url.searchParams.get('code_challenge')!);
    return { code, state: url.searchParams.get('state')! };
  }

  async start(): Promise<void> {
    this.server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        const form = new URLSearchParams(body);
        const answer = (status: number, json: object) => {
          res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
          res.end(JSON.stringify(json));
        };
        if (form.get('client_id') !== 'tessera-client' || form.get('client_secret') !== 'tessera-secret') return answer(401, { error: 'invalid_client' });
        if (req.url === '/revoke') {
          this.revoked.push(form.get('token') ?? '');
          res.writeHead(200);
          return res.end();
        }
        if (form.get('grant_type') === 'authorization_code') {
          const challenge = this.codes.get(form.get('code') ?? '');
          this.codes.delete(form.get('code') ?? '');
          const verifier = form.get('code_verifier') ?? '';
          if (!challenge || createHash('sha256').update(verifier).digest('base64url') !== challenge) return answer(400, { error: 'invalid_grant' });
          return answer(200, this.tokens());
        }
        if (form.get('grant_type') === 'refresh_token') {
          this.refreshes++;
          const token = form.get('refresh_token') ?? '';
          if (this.refuseRefresh || !this.refreshTokens.delete(token)) return answer(400, { error: 'invalid_grant', error_description: 'The refresh token was revoked.' });
          return answer(200, this.tokens());
        }
        answer(400, { error: 'unsupported_grant_type' });
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private tokens() {
    const refresh = `refresh-${++this.serial}`;
    this.refreshTokens.add(refresh);
    return { access_token: `access-${this.serial}`, token_type: 'Bearer', expires_in: this.expiresIn, refresh_token: refresh, scope: 'read write' };
  }
}

describe('integrations: OAuth connections', function () {
  const as = new AuthorizationServer();
  let t: TestKernel;
  let admin: SignedUpUser;
  let creator: SignedUpUser;
  let ws: string;

  before(async () => {
    await as.start();
    const provider: IntegrationProvider = {
      id: 'cal',
      name: 'Cal',
      categories: ['calendar'],
      auth: { type: 'oauth2', authorizeUrl: 'https://cal.example/authorize', tokenUrl: `${as.url}/token`, revokeUrl: `${as.url}/revoke`, scopes: ['read', 'write'], clientId: 'tessera-client', clientSecret: 'tessera-secret', authorizeParams: { access_type: 'offline' } },
      test: async (credentials) => ({ ok: credentials.access_token?.startsWith('access-') ?? false, detail: 'checked', account: { id: 'cal-1', name: 'Cal account' } }),
    };
    const cal = definePlugin({
      id: 'integration-cal',
      version: '1.0.0',
      kernel: '^1.0.0',
      dependsOn: { integrations: '^1.0.0' },
      register(ctx) {
        ctx.hooksOf('integrations.providers').providers.tap('integration-cal', (list) => [...list, provider]);
      },
    });
    t = await startTestKernel({ plugins: [system, auth, workspaces, integrations, cal], also: ['notifications'] });
    admin = await signUp(t);
    creator = await signUp(t);
    ws = (await createWorkspace(t, admin)).id;
    await joinWorkspace(t, admin, ws, creator, 'creator');
  });
  after(async () => {
    await t.stop();
    await as.stop();
  });

  const oauth = () => t.kernel.container.resolverFor('integrations')('integrations.oauth');
  const connect = async (by: SignedUpUser) => {
    const res = await t.request.post(`/api/v1/workspaces/${ws}/connections`).set(by.auth).send({ provider: 'cal', name: 'Calendar' });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body;
  };
  const callback = (by: SignedUpUser, query: Record<string, string>) => t.request.get('/api/v1/integrations/cal/oauth/callback').query(query).set(by.auth);
  const connected = async (by: SignedUpUser) => {
    const made = await connect(by);
    const res = await callback(by, as.issueCode(made.authorize_url));
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body;
  };

  it('starts pending with an authorize URL that carries PKCE (S256), the scopes and a one-time state', async () => {
    const made = await connect(creator);
    assert.equal(made.status, 'pending');
    const url = new URL(made.authorize_url);
    assert.equal(url.origin + url.pathname, 'https://cal.example/authorize');
    assert.equal(url.searchParams.get('response_type'), 'code');
    assert.equal(url.searchParams.get('client_id'), 'tessera-client');
    assert.equal(url.searchParams.get('scope'), 'read write');
    assert.equal(url.searchParams.get('code_challenge_method'), 'S256');
    assert.equal(url.searchParams.get('access_type'), 'offline');
    assert.equal(url.searchParams.get('redirect_uri'), `${t.kernel.container.resolverFor('kernel')('host').publicUrl()}/api/v1/integrations/cal/oauth/callback`);
    assert.match(url.searchParams.get('state')!, /^[0-9A-Za-z]{43}$/);
    assert.equal((await t.request.post(`/api/v1/workspaces/${ws}/connections/${made.id}/test`).set(creator.auth)).body.ok, false);
  });

  it("completes for the user who started it, once: another user's or a reused state is a 400 and changes nothing", async () => {
    const made = await connect(creator);
    const { code, state } = as.issueCode(made.authorize_url);
    const foreign = await callback(admin, { code, state });
    assert.equal(foreign.status, 400);
    assert.equal(foreign.body.code, 'bad_state');
    assert.equal((await t.request.get(`/api/v1/workspaces/${ws}/connections/${made.id}`).set(creator.auth)).body.status, 'pending');
    assert.equal((await callback(creator, { code, state: 'a-state-nobody-issued' })).status, 400);

    const done = await callback(creator, { code, state });
    assert.equal(done.status, 200);
    assert.equal(done.body.status, 'active');
    assert.deepEqual(done.body.account, { id: 'cal-1', name: 'Cal account' });
    assert.deepEqual(done.body.scopes, ['read', 'write']);
    assert.ok(Date.parse(done.body.expires_at) > Date.now() + 3000_000);
    assert.doesNotMatch(JSON.stringify(done.body), /access-|refresh-/);
    const row = await t.db('integration_connections').where({ id: made.id }).first('credentials');
    assert.doesNotMatch(row.credentials, /access-|refresh-/);

    const again = await callback(creator, { code, state });
    assert.equal(again.status, 400);
    assert.equal((await t.request.post(`/api/v1/workspaces/${ws}/connections/${made.id}/test`).set(creator.auth)).body.ok, true);
  });

  it('refuses a code the provider refuses, and a denied authorization, leaving the connection pending', async () => {
    const made = await connect(creator);
    const { state } = as.issueCode(made.authorize_url);
    const refused = await callback(creator, { code: 'code-never-issued', state });
    assert.equal(refused.status, 422);
    assert.equal(refused.body.code, 'connection_failed');
    const other = await connect(creator);
    const denied = await callback(creator, { error: 'access_denied', state: as.issueCode(other.authorize_url).state });
    assert.equal(denied.status, 422);
    for (const id of [made.id, other.id]) assert.equal((await t.request.get(`/api/v1/workspaces/${ws}/connections/${id}`).set(creator.auth)).body.status, 'pending');
  });

  it('refreshes a token due for it once for 50 callers at the same moment, and not again while the new one is fresh', async () => {
    as.expiresIn = 1;
    const made = await connected(creator);
    as.expiresIn = 3600;
    // Past half its life of a second: due for a refresh.
    await new Promise((resolve) => setTimeout(resolve, 600));
    const before = as.refreshes;
    const tokens = await Promise.all(Array.from({ length: 50 }, () => oauth().accessToken(made.id)));
    assert.equal(as.refreshes - before, 1);
    assert.equal(new Set(tokens).size, 1);
    assert.notEqual(tokens[0], undefined);
    assert.equal(await oauth().accessToken(made.id), tokens[0]);
    assert.equal(as.refreshes - before, 1);
  });

  it("refreshes on the provider's 401 and calls again, once", async () => {
    const made = await connected(creator);
    const before = as.refreshes;
    const seen: string[] = [];
    const result = await oauth().withAccessToken(made.id, async (token) => {
      seen.push(token);
      if (seen.length === 1) throw new TokenRejected('401');
      return 'done';
    });
    assert.equal(result, 'done');
    assert.equal(as.refreshes - before, 1);
    assert.notEqual(seen[0], seen[1]);
  });

  it('marks the connection needs_reauth when the provider refuses the refresh, and tells the admins', async () => {
    as.expiresIn = 1;
    const made = await connected(creator);
    as.expiresIn = 3600;
    await new Promise((resolve) => setTimeout(resolve, 600));
    as.refuseRefresh = true;
    try {
      await assert.rejects(oauth().accessToken(made.id), (err: { code?: string }) => err.code === 'needs_reauth');
    } finally {
      as.refuseRefresh = false;
    }
    assert.equal((await t.request.get(`/api/v1/workspaces/${ws}/connections/${made.id}`).set(creator.auth)).body.status, 'needs_reauth');
    const told = await t.db('notifications').where({ type: 'connection_needs_reauth', subject_id: made.id }).select('user_id');
    assert.deepEqual(told.map((n) => n.user_id), [admin.id]);
    const tested = await t.request.post(`/api/v1/workspaces/${ws}/connections/${made.id}/test`).set(creator.auth);
    assert.equal(tested.body.ok, false);
    assert.match(tested.body.detail, /connect it again/);
  });

  it('revokes the grant at the provider when the connection is deleted', async () => {
    const made = await connected(creator);
    const stored = await oauth().accessToken(made.id);
    assert.ok(stored);
    await t.request.delete(`/api/v1/workspaces/${ws}/connections/${made.id}`).set(creator.auth).expect(204);
    assert.equal(as.revoked.length, 1);
    assert.match(as.revoked[0], /^refresh-/, 'the refresh token, which takes its access tokens with it');
    assert.equal((await t.request.get(`/api/v1/workspaces/${ws}/connections/${made.id}`).set(creator.auth)).status, 404);
  });
});
