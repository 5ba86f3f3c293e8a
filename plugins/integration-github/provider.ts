import { createHmac, timingSafeEqual } from 'node:crypto';
import { githubActions } from './actions.ts';
import type { Credentials, InboundDelivery, IntegrationProvider, ReadDelivery, Refusal, TestOutcome } from '../integrations/public.ts';
import { headerOf, refusal } from '../integrations/public.ts';
import { GitHubClient, GitHubUnreachable, messageOf, UnusableToken, withoutToken, type GitHubAnswer } from './github-client.ts';
import { DEFAULT_API_URL, GITHUB_ISSUES_KIND } from './schemas.ts';

export interface GithubProviderOptions {
  /** Root of the REST API (default `https://api.github.com`). */
  apiUrl?: string;
  /** How long a call to GitHub may take (default 10 s); tests shorten it. */
  timeoutMs?: number;
}

/** The events people most often hook automations to; GitHub sends many more, and every one is read the same way. */
export const GITHUB_EVENTS = [
  'ping',
  'push',
  'create',
  'delete',
  'issues',
  'issue_comment',
  'label',
  'milestone',
  'pull_request',
  'pull_request_review',
  'pull_request_review_comment',
  'release',
  'star',
  'fork',
  'discussion',
  'discussion_comment',
  'workflow_run',
  'check_run',
  'check_suite',
  'deployment',
  'deployment_status',
  'repository',
  'member',
];

const NAME = /^[a-z0-9_]+$/;
const SIGNATURE = /^sha256=([0-9a-fA-F]{64})$/;

/**
 * Checks GitHub's signature: `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the raw body, keyed by the secret>`.
 *
 * `@octokit/webhooks-methods` (GitHub's own implementation) has `verify`, but it takes the payload as a string, and
 * the bytes are what GitHub signed (a body that is not UTF-8 would be checked as something else). So the same
 * computation is done here with node:crypto over the raw bytes, compared in constant time, and the tests sign
 * their deliveries with the library's `sign` (and check them with its `verify`): a delivery signed as GitHub signs
 * passes, and this check cannot drift from GitHub's.
 */
function checkSignature(delivery: InboundDelivery): Refusal | null {
  if (!delivery.secret) return refusal('This connection has no webhook secret, so GitHub deliveries cannot be checked.');
  const given = headerOf(delivery.headers, 'x-hub-signature-256')?.trim();
  if (!given) {
    if (headerOf(delivery.headers, 'x-hub-signature'))
      return refusal('The delivery is signed with SHA-1 only (X-Hub-Signature); an X-Hub-Signature-256 header is required.');
    return refusal('The delivery has no X-Hub-Signature-256 header: set the webhook secret on GitHub to the one this connection was given.');
  }
  const match = SIGNATURE.exec(given);
  if (!match) {
    if (/^sha1=/i.test(given)) return refusal('The X-Hub-Signature-256 header holds a SHA-1 signature; only sha256= signatures are accepted.');
    return refusal('The X-Hub-Signature-256 header is malformed: expected sha256= followed by 64 hexadecimal digits.');
  }
  const expected = createHmac('sha256', delivery.secret).update(delivery.rawBody).digest();
  const actual = Buffer.from(match[1], 'hex');
  if (actual.length !== expected.length || !timingSafeEqual(actual, expected))
    return refusal('The X-Hub-Signature-256 signature does not match the body: the webhook secret on GitHub is not this connection\'s, or the body was altered.');
  return null;
}

/**
 * Reads a GitHub delivery once its signature checked out. GitHub's deliveries carry no timestamp (`now` is unused):
 * replays are caught by their `X-GitHub-Delivery` id.
 */
export function readGithubDelivery(delivery: InboundDelivery): Refusal | ReadDelivery {
  const bad = checkSignature(delivery);
  if (bad) return bad;
  const rawEvent = headerOf(delivery.headers, 'x-github-event')?.trim();
  if (!rawEvent) return refusal('The delivery has no X-GitHub-Event header.');
  const event = rawEvent.toLowerCase();
  if (!NAME.test(event)) return refusal('The X-GitHub-Event header is not an event name (lower-case letters, digits and underscores).');
  let payload: unknown;
  try {
    payload = JSON.parse(delivery.rawBody.toString('utf8'));
  } catch {
    const form = /application\/x-www-form-urlencoded/i.test(headerOf(delivery.headers, 'content-type') ?? '');
    return refusal(
      form
        ? 'The delivery is form-encoded: set the webhook\'s content type to application/json on GitHub.'
        : 'The delivery\'s body is not JSON: set the webhook\'s content type to application/json on GitHub.',
    );
  }
  // GitHub names what happened within an event with `action` (`issues` + `opened`): the event becomes `issues.opened`.
  let name = event;
  const action = payload && typeof payload === 'object' && !Array.isArray(payload) ? (payload as { action?: unknown }).action : undefined;
  if (typeof action === 'string') {
    const lower = action.toLowerCase();
    if (!NAME.test(lower)) return refusal(`The payload's action is not an event name (lower-case letters, digits and underscores).`);
    name = `${event}.${lower}`;
  }
  const id = headerOf(delivery.headers, 'x-github-delivery')?.trim();
  return { deliveryId: id ? id : null, event: name, payload };
}

/** Tests a token with `GET /user`: whose it is, or why GitHub refused it. Never throws; no detail names the token. */
async function testToken(client: GitHubClient, credentials: Credentials): Promise<TestOutcome> {
  const token = typeof credentials.token === 'string' ? credentials.token : '';
  let answer: GitHubAnswer;
  try {
    answer = await client.request(token, 'GET', '/user');
  } catch (err) {
    if (err instanceof UnusableToken || err instanceof GitHubUnreachable) return { ok: false, detail: withoutToken(err.message, token) };
    return { ok: false, detail: withoutToken(`GitHub could not be reached: ${err instanceof Error ? err.message : String(err)}`, token) };
  }
  const said = messageOf(answer.body);
  const outcome = ((): TestOutcome => {
    if (answer.status === 200) {
      const user = answer.body as { login?: unknown; id?: unknown } | undefined;
      if (user && typeof user.login === 'string' && user.login && (typeof user.id === 'number' || typeof user.id === 'string'))
        return { ok: true, detail: `Signed in as ${user.login}`, account: { id: String(user.id), name: user.login } };
      return { ok: false, detail: `${client.apiUrl}/user answered without a GitHub user: check that apiUrl is the root of GitHub's REST API.` };
    }
    if (answer.status === 401) return { ok: false, detail: said ?? 'GitHub refused the token: it is wrong, expired or revoked.' };
    if (answer.status === 403) return { ok: false, detail: said ?? 'GitHub refused this token access to the signed-in user (403).' };
    if (answer.status >= 300 && answer.status < 400)
      return { ok: false, detail: `${client.apiUrl}/user answered with a redirect (${answer.status}), which is not followed: check apiUrl.` };
    if (answer.status === 404) return { ok: false, detail: `${client.apiUrl}/user was not found (404): check that apiUrl is the root of GitHub's REST API.` };
    return { ok: false, detail: said ? `GitHub answered ${answer.status}: ${said}` : `GitHub answered ${answer.status}.` };
  })();
  return { ...outcome, detail: withoutToken(outcome.detail, token) };
}

/** The GitHub provider, as the plugin adds it to `integrations.providers`; tests call it directly. */
export function githubProvider(options: GithubProviderOptions = {}): IntegrationProvider {
  const client = new GitHubClient({ apiUrl: options.apiUrl ?? DEFAULT_API_URL, timeoutMs: options.timeoutMs });
  return {
    id: 'github',
    name: 'GitHub',
    categories: ['code_hosting'],
    auth: { type: 'api_key', fields: [{ name: 'token', label: 'Personal access token', secret: true }] },
    signsWithSharedSecret: true,
    test: (credentials) => testToken(client, credentials),
    verifyWebhook: readGithubDelivery,
    events: [...GITHUB_EVENTS],
    actions: githubActions(client),
    sources: [GITHUB_ISSUES_KIND],
  };
}
