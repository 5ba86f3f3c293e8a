import type { Context, Next } from 'koa';
import { API_PREFIX } from './router.ts';

/** JSON answers load nothing: a browser that renders one anyway runs nothing and frames nothing. */
const API_POLICY = "default-src 'none'; frame-ancestors 'none'";
/** The reference page loads its own scripts, styles and images, and calls this API for "Try it out". */
const DOCS_POLICY = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; font-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/**
 * Headers every answer carries, errors included (set before anything can throw): no type sniffing (an
 * uploaded image is never run as HTML), no framing, no referrer leaking ids in URLs.
 */
export function securityHeaders() {
  return async (ctx: Context, next: Next) => {
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('X-Frame-Options', 'DENY');
    ctx.set('Referrer-Policy', 'no-referrer');
    ctx.set('Content-Security-Policy', ctx.path.startsWith(`${API_PREFIX}/docs`) ? DOCS_POLICY : API_POLICY);
    return next();
  };
}
