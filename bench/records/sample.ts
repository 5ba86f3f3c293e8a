import type { Answer, Client } from './client.ts';
import type { Timings } from './report.ts';

export interface Request {
  method: string;
  path: string;
  body?: string;
}

export interface SampleOptions {
  iterations: number;
  /** Stop earlier once this much time has gone by (slow queries, PGlite), after at least `minimum` requests. */
  budgetMs: number;
  minimum: number;
  warmup: number;
  status: number;
}

/**
 * Sequential requests on one connection: `warmup` unmeasured ones (their statuses still count), then up to `iterations`
 * measured. `next(i)` builds request i outside the timed part.
 */
export async function sample(client: Client, opts: SampleOptions, next: (i: number) => Request): Promise<Timings> {
  const timings: Timings = { ms: [], bad: 0 };
  const check = (answer: Answer) => countBad(timings, answer, opts.status);
  for (let i = 0; i < opts.warmup; i++) {
    const r = next(i);
    check(await client.request(r.method, r.path, r.body));
  }
  const deadline = performance.now() + opts.budgetMs;
  for (let i = 0; i < opts.iterations && (i < opts.minimum || performance.now() < deadline); i++) {
    const r = next(opts.warmup + i);
    const answer = await client.request(r.method, r.path, r.body);
    check(answer);
    timings.ms.push(answer.ms);
  }
  return timings;
}

/**
 * `sample` on two servers at once, one request to each in turn, so that both meet the same moments of a shared
 * machine: a ratio of their timings is not moved by load that came and went between two separate samples.
 */
export async function sampleAlternating(a: Client, b: Client, opts: SampleOptions, nextA: (i: number) => Request, nextB: (i: number) => Request): Promise<[Timings, Timings]> {
  const timings: [Timings, Timings] = [{ ms: [], bad: 0 }, { ms: [], bad: 0 }];
  const one = async (client: Client, r: Request, t: Timings, measured: boolean) => {
    const answer = await client.request(r.method, r.path, r.body);
    countBad(t, answer, opts.status);
    if (measured) t.ms.push(answer.ms);
  };
  for (let i = 0; i < opts.warmup; i++) {
    await one(a, nextA(i), timings[0], false);
    await one(b, nextB(i), timings[1], false);
  }
  const deadline = performance.now() + opts.budgetMs;
  for (let i = 0; i < opts.iterations && (i < opts.minimum || performance.now() < deadline); i++) {
    await one(a, nextA(opts.warmup + i), timings[0], true);
    await one(b, nextB(opts.warmup + i), timings[1], true);
  }
  return timings;
}

/** Counts an answer whose status is not the one expected, keeping the first one's text for the report. */
function countBad(timings: Timings, answer: Answer, status: number): void {
  if (answer.status === status) return;
  timings.bad++;
  timings.firstBad ??= `${answer.status} ${answer.text.slice(0, 200)}`;
}
