/**
 * The two requests this provider makes, both to Amazon SNS: fetching a signing certificate and confirming a
 * subscription. Plain GETs with a timeout, redirects not followed (a redirect could lead off the hosts that were
 * checked), answers read up to a cap.
 */
import { AnswerTooLarge, describeFailure, readCapped } from '../integrations/public.ts';

const USER_AGENT = 'Tessera';

/** The request got no answer: no connection, a network error, the timeout, or an answer past the cap. */
export class Unreachable extends Error {}

/** GETs `url` and answers its status and text; throws `Unreachable` when no usable answer came. */
export async function getText(url: URL, timeoutMs: number, maxBytes: number): Promise<{ status: number; text: string }> {
  const signal = AbortSignal.timeout(timeoutMs);
  let res: Response;
  try {
    res = await fetch(url, { method: 'GET', redirect: 'manual', signal, headers: { 'user-agent': USER_AGENT } });
  } catch (err) {
    throw new Unreachable(describeFailure(err, timeoutMs, true));
  }
  try {
    return { status: res.status, text: await readCapped(res, maxBytes, `the answer was larger than ${maxBytes} bytes`) };
  } catch (err) {
    throw new Unreachable(err instanceof AnswerTooLarge ? err.message : describeFailure(err, timeoutMs, true));
  }
}
