import type { Answer, Client, Requester } from './client.ts';
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

/** Where requests go and how request i is built (outside the timed part). */
export interface Source {
  client: Requester;
  next: (i: number) => Request;
}

/**
 * Sequential requests on one connection: `warmup` unmeasured ones (their statuses still count), then up to `iterations`
 * measured. `next(i)` builds request i outside the timed part.
 */
export async function sample(client: Client, opts: SampleOptions, next: (i: number) => Request): Promise<Timings> {
  const [timings] = await sampleInTurn([{ client, next }], opts);
  return timings;
}

/**
 * `sample` on several servers at once, one request to each in turn, so that all meet the same moments of a shared
 * machine: a ratio of their timings is not moved by load that came and went between two separate samples.
 */
export async function sampleInTurn(sources: Source[], opts: SampleOptions): Promise<Timings[]> {
  const timings: Timings[] = sources.map(() => ({ ms: [], bad: 0 }));
  const round = async (i: number, measured: boolean) => {
    for (const [k, { client, next }] of sources.entries()) {
      const r = next(i);
      const answer = await client.request(r.method, r.path, r.body);
      countBad(timings[k], answer, opts.status);
      if (measured) timings[k].ms.push(answer.ms);
    }
  };
  for (let i = 0; i < opts.warmup; i++) await round(i, false);
  const deadline = performance.now() + opts.budgetMs;
  for (let i = 0; i < opts.iterations && (i < opts.minimum || performance.now() < deadline); i++) await round(opts.warmup + i, true);
  return timings;
}

/** Counts an answer whose status is not the one expected, keeping the first one's text for the report. */
function countBad(timings: Timings, answer: Answer, status: number): void {
  if (answer.status === status) return;
  timings.bad++;
  timings.firstBad ??= `${answer.status} ${answer.text.slice(0, 200)}`;
}
