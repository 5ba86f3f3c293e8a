/**
 * The two requests this provider makes, both to Amazon SNS: fetching a signing certificate and confirming a
 * subscription. Plain GETs with a timeout, redirects not followed (a redirect could lead off the hosts that were
 * checked), answers read up to a cap.
 */

const USER_AGENT = 'Tessera';

/** The request got no answer: no connection, a network error, the timeout, or an answer past the cap. */
export class Unreachable extends Error {}

function describeFailure(err: unknown, timeoutMs: number): string {
  if (err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError')) return `no answer within ${timeoutMs / 1000} s`;
  const cause = err instanceof Error ? (err.cause as { message?: unknown; code?: unknown } | undefined) : undefined;
  if (cause && typeof cause.code === 'string') return cause.code;
  if (cause && typeof cause.message === 'string' && cause.message) return cause.message;
  return err instanceof Error ? err.message : String(err);
}

/** GETs `url` and answers its status and text; throws `Unreachable` when no usable answer came. */
export async function getText(url: URL, timeoutMs: number, maxBytes: number): Promise<{ status: number; text: string }> {
  const signal = AbortSignal.timeout(timeoutMs);
  let res: Response;
  try {
    res = await fetch(url, { method: 'GET', redirect: 'manual', signal, headers: { 'user-agent': USER_AGENT } });
  } catch (err) {
    throw new Unreachable(describeFailure(err, timeoutMs));
  }
  if (!res.body) return { status: res.status, text: '' };
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) {
        await reader.cancel().catch(() => undefined);
        throw new Unreachable(`the answer was larger than ${maxBytes} bytes`);
      }
      chunks.push(value);
    }
  } catch (err) {
    if (err instanceof Unreachable) throw err;
    throw new Unreachable(describeFailure(err, timeoutMs));
  }
  return { status: res.status, text: Buffer.concat(chunks).toString('utf8') };
}
