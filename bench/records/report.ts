import { fmt } from '../lib/format.ts';

export interface Timings {
  /** Milliseconds of each measured request, in order. */
  ms: number[];
  /** Answers with another status than expected. */
  bad: number;
  firstBad?: string;
}

export interface LatencyTarget {
  stat: 'p50' | 'p99';
  ms: number;
}

export function percentile(ms: number[], p: number): number {
  const sorted = [...ms].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

const NAME_WIDTH = 44;

/** Prints one line per measurement: figure, target, ratio to it and PASS/MISS; remembers invalid runs. */
export class Report {
  invalid = false;

  constructor(private readonly targeted: boolean) {}

  note(text: string): void {
    console.log(`  ${text}`);
  }

  /** `targetedHere`: the targets hold on this storage although its others do not (issue 21's PGlite line). */
  latency(name: string, t: Timings, targets: LatencyTarget[], targetedHere = this.targeted): void {
    const p50 = percentile(t.ms, 50);
    const p99 = percentile(t.ms, 99);
    let line = `  ${name.padEnd(NAME_WIDTH)} p50 ${fmt(p50, 1).padStart(6)} ms  p99 ${fmt(p99, 1).padStart(6)} ms  (n=${t.ms.length})`;
    if (targetedHere && targets.length > 0) {
      const checks = targets.map((target) => {
        const figure = target.stat === 'p50' ? p50 : p99;
        return { text: `${target.stat} ≤ ${fmt(target.ms)} ms: ${fmt(figure / target.ms, 2)}×`, pass: figure <= target.ms };
      });
      line += `   target ${checks.map((c) => c.text).join(', ')}  ${checks.every((c) => c.pass) ? 'PASS' : 'MISS'}`;
    }
    this.print(line, t);
  }

  /** A throughput (`perSecond` of `unit`) against a floor. */
  rate(name: string, perSecond: number, unit: string, target: number, t: Timings, detail: string): void {
    let line = `  ${name.padEnd(NAME_WIDTH)} ${fmt(perSecond).padStart(7)} ${unit}/s  ${detail}`;
    if (this.targeted) line += `   target ≥ ${fmt(target)} ${unit}/s: ${fmt(perSecond / target, 2)}×  ${perSecond >= target ? 'PASS' : 'MISS'}`;
    this.print(line, t);
  }

  unavailable(name: string, why: string): void {
    console.log(`  ${name.padEnd(NAME_WIDTH)} ${why}`);
  }

  private print(line: string, t: Timings): void {
    if (t.bad === 0) {
      console.log(line);
      return;
    }
    this.invalid = true;
    console.log(`${line}   INVALID: ${t.bad} unexpected answers (first: ${t.firstBad})`);
  }
}
