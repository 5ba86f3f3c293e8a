/** The calendar month (UTC) `at` falls in: its key (`2026-11`) and bounds. Monthly limits and credit grants follow it. */
export function monthOf(at: Date): { key: string; start: Date; end: Date } {
  const start = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1));
  const end = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1));
  return { key: start.toISOString().slice(0, 7), start, end };
}

/** What the trial clock and the period start read: replaceable, so that tests can move time on (`billing.clock`). */
export class Clock {
  now(): Date {
    return new Date();
  }
}
