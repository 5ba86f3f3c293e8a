import Router, { type Layer, type MatchResult } from '@koa/router';

/** A route's path as the index sees it: where it sits in the stack, and its literal segments (lower case). */
interface Shape {
  layer: Layer;
  at: number;
  literals: Array<[position: number, text: string]>;
}

interface Index {
  /** The stack's length when the index was built: a route added since rebuilds it. */
  layers: number;
  /** Routes made of literals and `:param` segments only, by their number of segments. */
  bySize: Map<number, Shape[]>;
  /** Routes with any other path syntax: tested for every path. */
  always: Shape[];
}

const PARAM = /^:[A-Za-z0-9_]+$/;
const LITERAL = /^[^:*?+(){}]*$/;

/** A path's segments, one trailing slash ignored (routes are not strict about it). */
function segmentsOf(path: string): string[] {
  return (path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path).split('/');
}

/**
 * A koa router that tests a request's path only against the routes it could match: @koa/router tests every route's
 * regular expression in turn, and with ~200 routes that took 60–170 µs a request, more than the rest of routing. A
 * route of literal and `:param` segments can match only a path with as many segments and the same literals (any case,
 * as the routes' expressions ignore case); those few are then tested as before, in the stack's order, so what matches
 * and in which order is what the plain router gives.
 */
export class IndexedRouter extends Router {
  private index: Index | undefined;

  override match(path: string, method: string): MatchResult {
    const result: MatchResult = { path: [], pathAndMethod: [], route: false };
    const upper = method.toUpperCase();
    for (const layer of this.candidates(path)) {
      if (!layer.match(path)) continue;
      result.path.push(layer);
      if (layer.methods.length === 0 || layer.methods.includes(upper)) {
        result.pathAndMethod.push(layer);
        if (layer.methods.length > 0) result.route = true;
      }
    }
    return result;
  }

  private candidates(path: string): Layer[] {
    const index = this.index?.layers === this.stack.length ? this.index : (this.index = this.build());
    const segments = segmentsOf(path.toLowerCase());
    const fits = (index.bySize.get(segments.length) ?? []).filter((shape) => shape.literals.every(([i, text]) => segments[i] === text));
    if (index.always.length === 0) return fits.map((shape) => shape.layer);
    return [...fits, ...index.always].sort((a, b) => a.at - b.at).map((shape) => shape.layer);
  }

  private build(): Index {
    const index: Index = { layers: this.stack.length, bySize: new Map(), always: [] };
    this.stack.forEach((layer, at) => {
      const segments = typeof layer.path === 'string' ? segmentsOf(layer.path) : null;
      const plain = segments !== null && layer.methods.length > 0 && segments.every((s) => PARAM.test(s) || LITERAL.test(s));
      if (!segments || !plain) {
        index.always.push({ layer, at, literals: [] });
        return;
      }
      const literals = segments.flatMap((s, i): Array<[number, string]> => (PARAM.test(s) ? [] : [[i, s.toLowerCase()]]));
      const sized = index.bySize.get(segments.length) ?? [];
      sized.push({ layer, at, literals });
      index.bySize.set(segments.length, sized);
    });
    return index;
  }
}
