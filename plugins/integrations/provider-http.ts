/**
 * What every provider's HTTP client needs and none should write again: secrets kept out of the sentences people see,
 * a failed fetch told in a few words, and an answer read only up to a cap.
 */

/** Each of `secrets` replaced by `mask` in a text shown to people, wherever it may have crept in (an error repeating a header). */
export function redact(text: string, secrets: Array<string | null | undefined>, mask: string): string {
  let out = text;
  for (const secret of secrets) {
    const s = secret?.trim();
    if (s) out = out.split(s).join(mask);
  }
  return out;
}

/**
 * Why a fetch got no answer: the timeout, else what undici's cause says (its message, or its code such as
 * `ECONNREFUSED`; `codeFirst` prefers the code), else the error's own message.
 */
export function describeFailure(err: unknown, timeoutMs: number, codeFirst = false): string {
  if (err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError')) return `no answer within ${timeoutMs / 1000} s`;
  const cause = err instanceof Error ? (err.cause as { message?: unknown; code?: unknown } | undefined) : undefined;
  const message = cause && typeof cause.message === 'string' && cause.message ? cause.message : undefined;
  const code = cause && typeof cause.code === 'string' ? cause.code : undefined;
  return (codeFirst ? (code ?? message) : (message ?? code)) ?? (err instanceof Error ? err.message : String(err));
}

/** An answer past the cap a client reads: not read further. */
export class AnswerTooLarge extends Error {}

/** An answer's text, read up to `maxBytes`; past them the rest is not read and `AnswerTooLarge` says `tooLarge`. */
export async function readCapped(res: Response, maxBytes: number, tooLarge: string): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw new AnswerTooLarge(tooLarge);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}
