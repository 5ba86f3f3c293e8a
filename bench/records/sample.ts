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
  const check = (answer: Answer) => {
    if (answer.status === opts.status) return;
    timings.bad++;
    timings.firstBad ??= `${answer.status} ${answer.text.slice(0, 200)}`;
  };
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
