/**
 * The calls this plugin makes to Slack's Web API (https://docs.slack.dev/reference/methods), through Slack's own
 * client, `@slack/web-api`'s `WebClient`: it knows how Slack wants a method called (a form-encoded POST to
 * `{apiUrl}{method}`, the token as `Authorization: Bearer …`) and how it answers (HTTP 200 with `{ ok, error }`, 429
 * with `Retry-After`), and it refuses redirects. Around it: a timeout, no retries unless asked, a silent logger, and
 * failures (`SlackFailure`) whose messages never carry the token.
 */
import { ErrorCode, WebClient, type Logger, type LogLevel, type WebAPICallResult } from '@slack/web-api';
import { describeFailure, redact } from '../integrations/public.ts';

const TIMEOUT_MS = 10_000;
/** Slack's error codes (`invalid_auth`, `channel_not_found`): anything else in `error` is not an answer from Slack. */
const ERROR_CODE = /^[a-z0-9_]{1,100}$/;

export interface SlackClientOptions {
  /** The Web API's root, e.g. `https://slack.com/api/` (a missing trailing slash is added). */
  apiUrl: string;
  /** How long one call may take (default 10 s). */
  timeoutMs?: number;
  /**
   * How many times a call that got no answer, or an HTTP error, is sent again (default 0). Off by default: a
   * `chat.postMessage` that timed out may have been posted, and sending it again would post it twice.
   */
  retries?: number;
}

/** Why a call failed, as a sentence without the token, and what kind of failure it was. */
export type SlackFailureKind =
  /** Slack answered `{ ok: false, error }`: `slackError` is its code (`invalid_auth`, `channel_not_found`, …). */
  | 'refused'
  /** Slack answered 429; `retryAfter` is how many seconds it asked to wait. */
  | 'rate_limited'
  /** An HTTP status other than 200 and 429 (`status`). */
  | 'http'
  /** An answer that is not Slack's (HTML, an empty body): `apiUrl` is likely wrong. */
  | 'not_slack'
  /** No answer: refused connection, DNS, TLS, a redirect, or the timeout. */
  | 'unreachable'
  /** A token that cannot be sent (empty, or with characters no header carries); nothing was sent. */
  | 'unusable_token';

export class SlackFailure extends Error {
  constructor(
    readonly kind: SlackFailureKind,
    message: string,
    readonly details: { slackError?: string; status?: number; retryAfter?: number } = {},
  ) {
    super(message);
    this.name = 'SlackFailure';
  }
}

/** What `auth.test` says about a token: the user (the bot user, for a bot token) and the Slack workspace. */
export interface SlackIdentity {
  userId: string;
  user: string;
  teamId: string;
  team: string;
  url: string | null;
  botId: string | null;
}

/** Where `chat.postMessage` posted: the channel's id and the message's timestamp (its id within the channel). */
export interface PostedMessage {
  channel: string;
  ts: string;
}

/** Removes the token from a text shown to people, wherever it may have crept in (an error repeating a header). */
export function withoutToken(text: string, token: string): string {
  return redact(text, [token], '[token]');
}

// WebClient logs a failed request at `warn` (with the error's message) to the console by default; nothing of it is wanted.
const silent: Logger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  setLevel: () => undefined,
  getLevel: () => 'error' as LogLevel,
  setName: () => undefined,
};

export class SlackClient {
  readonly apiUrl: string;
  private readonly timeoutMs: number;
  private readonly retries: number;

  constructor(options: SlackClientOptions) {
    const url = new URL(options.apiUrl);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`Slack's apiUrl must be an http(s) URL, not ${options.apiUrl}`);
    this.apiUrl = options.apiUrl.endsWith('/') ? options.apiUrl : `${options.apiUrl}/`;
    this.timeoutMs = options.timeoutMs ?? TIMEOUT_MS;
    this.retries = options.retries ?? 0;
  }

  /** `auth.test`: whose token it is. Throws `SlackFailure`. */
  async authTest(token: string): Promise<SlackIdentity> {
    const answer = await this.call(token, (client) => client.auth.test());
    const { user_id: userId, user, team_id: teamId, team } = answer;
    if (typeof userId !== 'string' || !userId || typeof teamId !== 'string' || !teamId || typeof team !== 'string' || typeof user !== 'string')
      throw new SlackFailure('not_slack', `${this.apiUrl}auth.test answered without a Slack user and workspace: check that apiUrl is the root of Slack's Web API.`);
    return {
      userId,
      user: user || userId,
      teamId,
      team: team || teamId,
      url: typeof answer.url === 'string' ? answer.url : null,
      botId: typeof answer.bot_id === 'string' ? answer.bot_id : null,
    };
  }

  /**
   * `chat.postMessage`: posts `text` (Slack's mrkdwn) to `channel` (an id such as `C0123456789`, or `#name` for a
   * public channel the bot is in). Throws `SlackFailure` (`refused` with `channel_not_found`, `not_in_channel`, …).
   */
  async postMessage(token: string, channel: string, text: string): Promise<PostedMessage> {
    const answer = await this.call(token, (client) => client.chat.postMessage({ channel, text }));
    if (typeof answer.channel !== 'string' || typeof answer.ts !== 'string')
      throw new SlackFailure('not_slack', `${this.apiUrl}chat.postMessage answered without a channel and a message timestamp: check that apiUrl is the root of Slack's Web API.`);
    return { channel: answer.channel, ts: answer.ts };
  }

  /**
   * One WebClient per call, holding this call's token: the token goes in its `Authorization` header and nowhere
   * else (not in the form body, as it would if passed as the method's `token` argument). Absolute method URLs are
   * refused, so the token only ever goes to `apiUrl`. No `headers` option is passed: WebClient writes the
   * `Authorization` header into that object, so a shared one would carry a token from one call to the next.
   */
  private async call<T extends WebAPICallResult>(token: string, run: (client: WebClient) => Promise<T>): Promise<T> {
    const bearer = typeof token === 'string' ? token.trim() : '';
    if (!bearer) throw new SlackFailure('unusable_token', 'The bot token is empty.');
    // Checked here so that fetch never rejects a header with an error message that repeats its value.
    if (!/^[\x21-\x7e]+$/.test(bearer)) throw new SlackFailure('unusable_token', 'The bot token has characters no Slack token has (spaces, line breaks or non-ASCII characters).');
    const client = new WebClient(bearer, {
      slackApiUrl: this.apiUrl,
      timeout: this.timeoutMs,
      retryConfig: { retries: this.retries },
      // A 429 is answered at once rather than waited out (WebClient would otherwise sleep Retry-After seconds, then retry).
      rejectRateLimitedCalls: true,
      allowAbsoluteUrls: false,
      logger: silent,
    });
    try {
      return await run(client);
    } catch (err) {
      throw this.failure(err, bearer);
    }
  }

  private failure(err: unknown, token: string): SlackFailure {
    const scrub = (text: string) => withoutToken(text, token).slice(0, 500);
    const coded = err as { code?: unknown; data?: { error?: unknown }; statusCode?: unknown; body?: unknown; retryAfter?: unknown; original?: unknown };
    switch (coded?.code) {
      case ErrorCode.PlatformError: {
        const said = coded.data?.error;
        if (typeof said === 'string' && ERROR_CODE.test(said)) return new SlackFailure('refused', `Slack answered ${said}.`, { slackError: said });
        return new SlackFailure('not_slack', `${this.apiUrl} answered without a Slack API answer: check that apiUrl is the root of Slack's Web API.`);
      }
      case ErrorCode.HTTPError: {
        const status = typeof coded.statusCode === 'number' ? coded.statusCode : 0;
        const said = coded.body && typeof coded.body === 'object' ? (coded.body as { error?: unknown }).error : undefined;
        const reason = typeof said === 'string' && ERROR_CODE.test(said) ? `: ${said}` : '';
        const hint = status === 404 ? ': check that apiUrl is the root of Slack\'s Web API' : reason;
        return new SlackFailure('http', scrub(`Slack answered HTTP ${status}${hint}.`), { status });
      }
      case ErrorCode.RateLimitedError: {
        const retryAfter = typeof coded.retryAfter === 'number' ? coded.retryAfter : undefined;
        return new SlackFailure('rate_limited', `Slack is rate limiting these calls${retryAfter !== undefined ? `; it asks to wait ${retryAfter} s` : ''}.`, { retryAfter });
      }
      case ErrorCode.RequestError:
        return new SlackFailure('unreachable', scrub(`Slack could not be reached: ${describeFailure(coded.original ?? err, this.timeoutMs)}`));
      default:
        return new SlackFailure('unreachable', scrub(`Slack could not be reached: ${describeFailure(err, this.timeoutMs)}`));
    }
  }
}
