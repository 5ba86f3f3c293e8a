import ICAL from 'ical.js';
import { SourceUnavailable, type SourceRow } from '../sources/public.ts';
import type { EventGroup } from './calendar.ts';
import { instantCell, LONG_TEXT_MAX, TEXT_MAX, textCell, urlCell } from '../sources/public.ts';
import { organizerCell, statusCell } from './cells.ts';
import { instantOf } from './ical-time.ts';

/** The span a read keeps events in, in ms since the epoch, both ends included. */
export interface Window {
  start: number;
  end: number;
}

export interface ExpansionLimits {
  /** Rows one read may give: past them the feed is refused rather than cut (a cut snapshot would delete the rest). */
  maxOccurrences: number;
  /** Recurrence steps one read may take, counting those before the window (FREQ=MINUTELY since 1990 is not a calendar). */
  maxSteps: number;
}

/** How often expansion lets the event loop run: ical.js takes a few µs a step, and a feed may take a million. */
const STEPS_BETWEEN_PAUSES = 5000;

class Budget {
  private steps = 0;
  private rows = 0;

  constructor(private readonly limits: ExpansionLimits, private readonly signal: AbortSignal) {}

  async step(): Promise<void> {
    if (++this.steps > this.limits.maxSteps)
      throw new SourceUnavailable(`The feed's recurring events take more than ${this.limits.maxSteps} steps to expand; narrow past_days or future_days.`);
    if (this.steps % STEPS_BETWEEN_PAUSES === 0) {
      await new Promise((resolve) => setImmediate(resolve));
      if (this.signal.aborted) throw new SourceUnavailable('The read was stopped.');
    }
  }

  row(): void {
    if (++this.rows > this.limits.maxOccurrences)
      throw new SourceUnavailable(`The feed has more than ${this.limits.maxOccurrences} events in the window; narrow past_days or future_days.`);
  }
}

function tzidOf(component: ICAL.Component, property: string): string | null {
  const tzid = component.getFirstProperty(property)?.getParameter('tzid');
  return typeof tzid === 'string' ? tzid : null;
}

/** `2025-03-13` for a date, `2025-03-13T09:00:00Z` for a date-time: the part of an occurrence's key after the UID. */
function recurrenceKey(time: ICAL.Time, instant: number): string {
  return time.isDate ? time.toString() : `${new Date(instant).toISOString().slice(0, 19)}Z`;
}

interface Occurrence {
  key: string;
  /** The VEVENT the occurrence's properties come from: the master, or its override. */
  item: ICAL.Event;
  start: number;
  end: number;
  allDay: boolean;
  recurring: boolean;
}

/**
 * An occurrence of `item` from `start` to `end` (ms), or null outside the window. Both are read in the zone of the
 * item's DTSTART: an end is DTSTART plus the duration, in the start's zone.
 */
function occurrence(key: string, item: ICAL.Event, start: ICAL.Time, end: ICAL.Time, recurring: boolean, zone: string, window: Window): Occurrence | null {
  const tzid = tzidOf(item.component, 'dtstart');
  const from = instantOf(start, tzid, zone);
  const to = instantOf(end, tzid, zone);
  if (from > window.end || Math.max(from, to) < window.start) return null;
  return { key, item, start: from, end: to, allDay: start.isDate, recurring };
}

function updatedOf(component: ICAL.Component, zone: string): string | null {
  const property = component.getFirstProperty('last-modified') ?? component.getFirstProperty('dtstamp');
  const value = property?.getFirstValue();
  return property && value instanceof ICAL.Time ? instantCell(instantOf(value, tzidOf(component, property.name), zone)) : null;
}

function toRow(o: Occurrence, zone: string): SourceRow {
  const component = o.item.component;
  return {
    key: o.key,
    values: {
      uid: o.key,
      summary: textCell(o.item.summary, TEXT_MAX),
      description: textCell(o.item.description, LONG_TEXT_MAX),
      location: textCell(o.item.location, TEXT_MAX),
      start: instantCell(o.start),
      end: instantCell(o.end),
      all_day: o.allDay,
      status: statusCell(component.getFirstPropertyValue('status')),
      organizer: organizerCell(o.item.organizer),
      url: urlCell(component.getFirstPropertyValue('url')),
      recurring: o.recurring,
      updated: updatedOf(component, zone),
    },
  };
}

function recurrenceInstant(component: ICAL.Component, zone: string): { time: ICAL.Time; instant: number } {
  const time = component.getFirstPropertyValue('recurrence-id');
  if (!(time instanceof ICAL.Time)) throw new TypeError('RECURRENCE-ID is not a date or date-time');
  return { time, instant: instantOf(time, tzidOf(component, 'recurrence-id'), zone) };
}

/** A recurring master's occurrences in the window, overrides applied, EXDATEs left out. */
async function* recurrences(group: EventGroup, master: ICAL.Event, window: Window, budget: Budget): AsyncGenerator<Occurrence> {
  const tzid = tzidOf(master.component, 'dtstart');
  // An override may move an instance from after the window into it: expand as far as the last one names.
  const stopAt = Math.max(window.end, ...group.overrides.map((c) => recurrenceInstant(c, group.zone).instant));
  const expansion = master.iterator();
  for (let next = expansion.next(); next; next = expansion.next()) {
    await budget.step();
    const instant = instantOf(next, tzid, group.zone);
    if (instant > stopAt) break;
    const details = master.getOccurrenceDetails(next);
    const found = occurrence(`${group.uid}/${recurrenceKey(next, instant)}`, details.item, details.startDate, details.endDate, true, group.zone, window);
    if (found) yield found;
  }
}

/** Every occurrence of one UID in the window. */
async function* occurrencesOf(group: EventGroup, window: Window, budget: Budget): AsyncGenerator<Occurrence> {
  if (!group.master) {
    // Instances of a series whose master the feed does not carry (an invitation to one instance): each as it is,
    // the highest SEQUENCE first so that it is the copy of an instance kept.
    for (const component of [...group.overrides].reverse()) {
      await budget.step();
      const item = new ICAL.Event(component);
      const { time, instant } = recurrenceInstant(component, group.zone);
      const found = occurrence(`${group.uid}/${recurrenceKey(time, instant)}`, item, item.startDate, item.endDate, true, group.zone, window);
      if (found) yield found;
    }
    return;
  }
  const master = new ICAL.Event(group.master, { exceptions: group.overrides });
  if (master.isRecurring()) {
    yield* recurrences(group, master, window, budget);
    return;
  }
  await budget.step();
  const found = occurrence(group.uid, master, master.startDate, master.endDate, false, group.zone, window);
  if (found) yield found;
}

/**
 * The rows of a feed's events in the window, in the feed's order (the same bytes give the same rows in the same
 * order, which is what lets a read resume by page). An event ical.js cannot read (a DTSTART that is no date, a rule
 * it cannot fulfil) is left out whole; only the limits refuse the feed.
 */
export async function* eventRows(groups: EventGroup[], window: Window, limits: ExpansionLimits, signal: AbortSignal): AsyncGenerator<SourceRow> {
  const budget = new Budget(limits, signal);
  const keys = new Set<string>();
  for (const group of groups) {
    const rows: SourceRow[] = [];
    try {
      for await (const found of occurrencesOf(group, window, budget)) {
        budget.row();
        rows.push(toRow(found, group.zone));
      }
    } catch (err) {
      if (err instanceof SourceUnavailable) throw err;
      continue;
    }
    for (const row of rows) {
      // One row per key: an RDATE repeating an RRULE date, two copies of an instance, a UID spelled like another's occurrence.
      if (keys.has(row.key)) continue;
      keys.add(row.key);
      yield row;
    }
  }
}
