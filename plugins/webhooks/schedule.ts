/** The Standard Webhooks retry schedule, in seconds after each failed attempt: ten attempts in all over about four days. */
export const RETRY_SCHEDULE_S = [5, 300, 1800, 7200, 18000, 36000, 50400, 72000, 86400] as const;
export const MAX_ATTEMPTS = RETRY_SCHEDULE_S.length + 1;
/** A receiver's `Retry-After` is honoured up to the schedule's longest step, never further. */
const MAX_RETRY_AFTER_MS = 86_400_000;

/**
 * Milliseconds until the next attempt after `attempts` failed ones, or null when none is left: the schedule's step
 * times `scale` (1 in production; tests compress the clock), ±10 % jitter so failed bursts do not return together,
 * and no sooner than the receiver's `Retry-After`.
 */
export function retryDelayMs(attempts: number, scale: number, retryAfterMs: number | null, random: () => number = Math.random): number | null {
  const step = RETRY_SCHEDULE_S[attempts - 1];
  if (step === undefined) return null;
  const jittered = step * 1000 * scale * (0.9 + 0.2 * random());
  return Math.round(Math.max(jittered, Math.min(retryAfterMs ?? 0, MAX_RETRY_AFTER_MS)));
}

/** `Retry-After` as milliseconds from `now`: delta seconds or an HTTP date; null when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | null {
  if (!value) return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}
