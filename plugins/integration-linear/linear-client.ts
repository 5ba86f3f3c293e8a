/**
 * The calls this plugin makes to Linear's GraphQL API (https://linear.app/developers/graphql), through Linear's own
 * client, `@linear/sdk`: it sends a personal API key as Linear wants it (`Authorization: <key>`, no `Bearer`), posts
 * `{ query, variables }` to the endpoint, refuses plain http except to this machine, and reads Linear's error answers
 * (`errors[].extensions.type`: `authentication error`, `invalid input`, `ratelimited`, …) into typed errors. Our
 * queries are small documents of our own sent with the SDK's `rawRequest`, so each call is one request that asks for
 * exactly the fields used (the SDK's models would fetch an issue's every field, then the issue again). Around it: a
 * timeout, no redirects, and failures (`LinearFailure`) whose messages never carry the key.
 */
import { LinearClient, LinearError, LinearErrorType } from '@linear/sdk';
import { describeFailure, redact } from '../integrations/public.ts';

const TIMEOUT_MS = 10_000;
const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

export interface LinearClientOptions {
  /** The GraphQL endpoint, e.g. `https://api.linear.app/graphql`. */
  apiUrl: string;
  /** How long one call may take (default 10 s). */
  timeoutMs?: number;
}

export type LinearFailureKind =
  /** Linear did not take the key (`authentication error`, or HTTP 401). */
  | 'refused'
  /** The key may not do this (`forbidden`, `feature not accessible`, HTTP 403). */
  | 'forbidden'
  /** Linear refused what was asked (`invalid input`: an unknown team, an empty title…). */
  | 'invalid_input'
  /** Linear is rate limiting the key (`ratelimited`, HTTP 429). */
  | 'rate_limited'
  /** An answer that is not Linear's GraphQL (HTML, a 404, a redirect): `apiUrl` is likely wrong. */
  | 'not_linear'
  /** Another error Linear gave (`internal error`, `graphql error`, …). */
  | 'other'
  /** No answer: refused connection, DNS, TLS, or the timeout. */
  | 'unreachable'
  /** A key that cannot be sent (empty, or with characters no header carries); nothing was sent. */
  | 'unusable_key';

export class LinearFailure extends Error {
  constructor(
    readonly kind: LinearFailureKind,
    message: string,
    readonly details: { type?: string; status?: number } = {},
  ) {
    super(message);
    this.name = 'LinearFailure';
  }
}

/** Whose key it is: the user, and the Linear workspace (organization) they belong to. */
export interface LinearViewer {
  id: string;
  name: string;
  organization: { id: string; name: string } | null;
}

export interface NewIssue {
  /** The team's id (a UUID), as Linear shows it in the team's settings or `teams { nodes { id key } }`. */
  teamId: string;
  title: string;
  /** Markdown. */
  description?: string;
}

export interface CreatedIssue {
  id: string;
  /** `ENG-123`. */
  identifier: string;
  title: string;
  url: string;
}

/** Removes the key from a text shown to people, wherever it may have crept in. */
export function withoutKey(text: string, key: string): string {
  return redact(text, [key], '[key]');
}

const VIEWER = /* GraphQL */ `
  query TesseraViewer {
    viewer {
      id
      name
      organization {
        id
        name
      }
    }
  }
`;

const ISSUE_CREATE = /* GraphQL */ `
  mutation TesseraIssueCreate($input: IssueCreateInput!) {
    issueCreate(input: $input) {
      success
      issue {
        id
        identifier
        title
        url
      }
    }
  }
`;

const isObject = (value: unknown): value is Record<string, unknown> => !!value && typeof value === 'object' && !Array.isArray(value);

export class LinearApi {
  readonly apiUrl: string;
  private readonly timeoutMs: number;

  constructor(options: LinearClientOptions) {
    const url = new URL(options.apiUrl);
    // The SDK's own rule, checked when the plugin starts rather than at the first call.
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && LOCAL_HOSTS.has(url.hostname)))
      throw new Error(`Linear's apiUrl must be an https URL (plain http only to localhost), not ${options.apiUrl}`);
    this.apiUrl = options.apiUrl;
    this.timeoutMs = options.timeoutMs ?? TIMEOUT_MS;
  }

  /** `viewer { id name organization { id name } }`: whose key it is. Throws `LinearFailure`. */
  async viewer(apiKey: string): Promise<LinearViewer> {
    const data = await this.request<{ viewer?: unknown }>(apiKey, VIEWER, {});
    const viewer = data.viewer;
    if (!isObject(viewer) || typeof viewer.id !== 'string' || !viewer.id || typeof viewer.name !== 'string')
      throw new LinearFailure('not_linear', `${this.apiUrl} answered without a Linear user: check that apiUrl is Linear's GraphQL endpoint.`);
    const org = viewer.organization;
    const organization = isObject(org) && typeof org.id === 'string' && typeof org.name === 'string' ? { id: org.id, name: org.name } : null;
    return { id: viewer.id, name: viewer.name || viewer.id, organization };
  }

  /** `issueCreate`: opens an issue in a team. Throws `LinearFailure` (`invalid_input` for an unknown team…). */
  async createIssue(apiKey: string, issue: NewIssue): Promise<CreatedIssue> {
    const input: Record<string, unknown> = { teamId: issue.teamId, title: issue.title };
    if (issue.description !== undefined) input.description = issue.description;
    const data = await this.request<{ issueCreate?: unknown }>(apiKey, ISSUE_CREATE, { input });
    const payload = data.issueCreate;
    const created = isObject(payload) ? payload.issue : undefined;
    if (!isObject(payload) || payload.success !== true || !isObject(created))
      throw new LinearFailure('other', 'Linear did not create the issue (issueCreate answered without success).');
    const { id, identifier, title, url } = created;
    if (typeof id !== 'string' || typeof identifier !== 'string' || typeof title !== 'string' || typeof url !== 'string')
      throw new LinearFailure('not_linear', `${this.apiUrl} answered issueCreate without the issue's id, identifier and url.`);
    return { id, identifier, title, url };
  }

  /**
   * One LinearClient per call, holding this call's key and a timeout signal of its own (the SDK hands any other
   * option to `fetch`, so `signal` and `redirect` reach it).
   */
  private async request<T>(apiKey: string, query: string, variables: Record<string, unknown>): Promise<T> {
    const key = typeof apiKey === 'string' ? apiKey.trim() : '';
    if (!key) throw new LinearFailure('unusable_key', 'The API key is empty.');
    // Checked here so that fetch never rejects a header with an error message that repeats its value.
    if (!/^[\x21-\x7e]+$/.test(key)) throw new LinearFailure('unusable_key', 'The API key has characters no Linear key has (spaces, line breaks or non-ASCII characters).');
    try {
      const client = new LinearClient({ apiKey: key, apiUrl: this.apiUrl, signal: AbortSignal.timeout(this.timeoutMs), redirect: 'manual' });
      const answer = await client.client.rawRequest<T, Record<string, unknown>>(query, variables);
      if (!answer.data) throw new LinearFailure('not_linear', `${this.apiUrl} answered without data: check that apiUrl is Linear's GraphQL endpoint.`);
      return answer.data;
    } catch (err) {
      throw this.failure(err, key);
    }
  }

  private failure(err: unknown, key: string): LinearFailure {
    if (err instanceof LinearFailure) return err;
    const scrub = (text: string) => withoutKey(text, key).replace(/\s+/g, ' ').trim().slice(0, 500);
    if (err instanceof LinearError) {
      const status = err.status;
      // The SDK reads a 4xx without GraphQL errors as an authentication error; only Linear's own errors are taken
      // at their word here, and a bare status is read by itself.
      if (err.errors?.length) {
        // The SDK's message joins Linear's message and its `userPresentableMessage` ("Authentication required, not
        // authenticated - You need to authenticate to access this operation.").
        const reason = scrub(err.message);
        const type = err.type;
        const kind: LinearFailureKind =
          type === LinearErrorType.AuthenticationError
            ? 'refused'
            : type === LinearErrorType.Forbidden || type === LinearErrorType.FeatureNotAccessible
              ? 'forbidden'
              : type === LinearErrorType.InvalidInput || type === LinearErrorType.UserError
                ? 'invalid_input'
                : type === LinearErrorType.Ratelimited
                  ? 'rate_limited'
                  : 'other';
        return new LinearFailure(kind, reason, { type, status });
      }
      if (status === 401) return new LinearFailure('refused', 'Linear refused the API key (HTTP 401).', { status });
      if (status === 403) return new LinearFailure('forbidden', 'Linear refused this key access (HTTP 403).', { status });
      if (status === 429) return new LinearFailure('rate_limited', 'Linear is rate limiting this key (HTTP 429).', { status });
      if (status !== undefined && status >= 300 && status < 400)
        return new LinearFailure('not_linear', `${this.apiUrl} answered with a redirect (${status}), which is not followed: check apiUrl.`, { status });
      if (status !== undefined && status >= 500) return new LinearFailure('other', `Linear answered HTTP ${status}.`, { status });
      if (status !== undefined) return new LinearFailure('not_linear', `${this.apiUrl} answered HTTP ${status} without a GraphQL answer: check that apiUrl is Linear's GraphQL endpoint.`, { status });
      // A LinearError with no status wraps a request that got no answer.
      return new LinearFailure('unreachable', scrub(`Linear could not be reached: ${describeFailure(err.raw ?? err, this.timeoutMs)}`));
    }
    if (err instanceof SyntaxError) return new LinearFailure('not_linear', `${this.apiUrl} answered with a JSON content type but no JSON: check that apiUrl is Linear's GraphQL endpoint.`);
    return new LinearFailure('unreachable', scrub(`Linear could not be reached: ${describeFailure(err, this.timeoutMs)}`));
  }
}
