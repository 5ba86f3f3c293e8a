import { FIXED_ZONES, type FixedZone } from './model.ts';

/** Instants as microseconds since the epoch (what timestamptz holds), days as `YYYY-MM-DD`. */

const MINUTE_US = 60_000_000n;

function wallUs(day: string, time = '00:00:00'): bigint {
  const [y, mo, d] = day.split('-').map(Number);
  const [h, mi, s] = time.split(':').map(Number);
  return BigInt(Date.UTC(y, mo - 1, d, h, mi, s)) * 1000n;
}

/** `YYYY-MM-DD`, `YYYY-MM-DDTHH:MM:SSZ` or with `±HH:MM`; a bare day is its midnight in `zone`. */
export function instantUs(text: string, zone: FixedZone): bigint {
  const m = /^(\d{4}-\d{2}-\d{2})(?:T(\d{2}:\d{2}:\d{2})(Z|([+-])(\d{2}):(\d{2})))?$/.exec(text);
  if (!m) throw new Error(`reference: not an instant: ${text}`);
  if (!m[2]) return dayStartUs(m[1], zone);
  const offset = m[3] === 'Z' ? 0 : (m[4] === '-' ? -1 : 1) * (Number(m[5]) * 60 + Number(m[6]));
  return wallUs(m[1], m[2]) - BigInt(offset) * MINUTE_US;
}

/** The instant `day` starts in `zone`. */
export function dayStartUs(day: string, zone: FixedZone): bigint {
  return wallUs(day) - BigInt(FIXED_ZONES[zone]) * MINUTE_US;
}

export function nextDay(day: string): string {
  const [y, mo, d] = day.split('-').map(Number);
  return new Date(Date.UTC(y, mo - 1, d + 1)).toISOString().slice(0, 10);
}

export function isoOfUs(us: bigint): string {
  return new Date(Number(us / 1000n)).toISOString();
}
