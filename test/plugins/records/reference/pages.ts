import { matches, type FilterNode } from './filter.ts';
import type { RefRecord, RefWorld } from './model.ts';
import { comparePlaces, directionsOf, placeOf, type Place, type SortSpec } from './order.ts';

export interface RefQuery {
  filter?: FilterNode;
  sorts?: SortSpec[];
  q?: string;
}

/** The filter holds and the title (`name`) contains `q`, ignoring case, taken literally. */
export function inQuery(world: RefWorld, query: RefQuery, record: RefRecord): boolean {
  if (query.filter && !matches(world, query.filter, record)) return false;
  if (query.q === undefined) return true;
  const title = record.cells.name;
  return typeof title === 'string' && title.toLowerCase().includes(query.q.toLowerCase());
}

/** Every matching record in the query's order, each with its place. */
export function ordered(world: RefWorld, query: RefQuery): Array<{ record: RefRecord; place: Place }> {
  const directions = directionsOf(query.sorts);
  return world.records
    .filter((r) => inQuery(world, query, r))
    .map((record) => ({ record, place: placeOf(world, query.sorts, record) }))
    .sort((a, b) => comparePlaces(a.place, b.place, directions));
}

export interface RefPage {
  records: RefRecord[];
  /** Whether a next page exists (a next_cursor is due). */
  more: boolean;
  /** The place of the page's last record as it stood when the page was read: what a value-based cursor carries. */
  last: Place | null;
}

/**
 * A keyset page on the current records: the first `limit` matching records whose place comes
 * after `after` (the previous page's last place, whatever has changed since).
 */
export function expectedPage(world: RefWorld, query: RefQuery, after: Place | null, limit: number): RefPage {
  const directions = directionsOf(query.sorts);
  const rest = ordered(world, query).filter((e) => after === null || comparePlaces(e.place, after, directions) > 0);
  const page = rest.slice(0, limit);
  return { records: page.map((e) => e.record), more: rest.length > limit, last: page.length > 0 ? page[page.length - 1].place : null };
}
