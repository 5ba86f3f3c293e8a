import { readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Context, Middleware, Next } from 'koa';
import { definePlugin } from '../../core/plugin.ts';
import { notFound, StartupError } from '../../core/errors.ts';

const PUBLIC_DIR = fileURLToPath(new URL('./public/', import.meta.url));
const ASSET_PREFIX = '/console/assets/';

/**
 * The console's own files, by name: only these are served, so a path can never reach outside public/
 * (no `..`, no encoded slashes, no file added to the folder by accident).
 */
const FILES: Record<string, string> = {
  'index.html': 'text/html; charset=utf-8',
  'app.js': 'text/javascript; charset=utf-8',
  'api.js': 'text/javascript; charset=utf-8',
  'ui.js': 'text/javascript; charset=utf-8',
  'grid.js': 'text/javascript; charset=utf-8',
  'record.js': 'text/javascript; charset=utf-8',
  'form.js': 'text/javascript; charset=utf-8',
  'console.css': 'text/css; charset=utf-8',
};

/** Preact, its hooks and htm in one ES module (~13 KB): the console's only library, served from node_modules. */
function preactBundle(): string {
  const entry = createRequire(import.meta.url).resolve('htm'); // <htm>/dist/htm.js
  const file = path.join(path.dirname(entry), '..', 'preact', 'standalone.module.js');
  if (!existsSync(file)) throw new StartupError(`The console's Preact bundle ${file} is missing: is the htm package installed (npm install)?`, 'plugin_failed', ['console']);
  return file;
}

/**
 * The console's policy, in place of the kernel's API one for its own answers: its scripts, styles and calls come from
 * this origin only; nothing inline (so an injected `<script>` or `style=` does nothing), no framing, no plugins.
 */
export const CONSOLE_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

export function consoleMiddleware(): Middleware {
  const files = new Map<string, { file: string; type: string }>(Object.entries(FILES).map(([name, type]) => [name, { file: path.join(PUBLIC_DIR, name), type }]));
  files.set('preact-htm.js', { file: preactBundle(), type: 'text/javascript; charset=utf-8' });

  const send = async (ctx: Context, name: string) => {
    const asset = files.get(name);
    if (!asset) throw notFound(`No console asset is named ${JSON.stringify(name)}.`);
    // Read on each request: the files are small, and an edit shows on reload (no-cache revalidates every time).
    ctx.body = await readFile(asset.file);
    ctx.type = asset.type;
    ctx.set('Cache-Control', 'no-cache');
    ctx.set('Content-Security-Policy', CONSOLE_POLICY);
  };

  return async (ctx: Context, next: Next) => {
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return next();
    const p = ctx.path;
    if (p.startsWith(ASSET_PREFIX)) return send(ctx, p.slice(ASSET_PREFIX.length));
    if (p === '/') {
      // `/` is the page for a browser; curl and JSON clients (which prefer JSON, or say nothing) keep the kernel's
      // JSON. Both answers say they depend on Accept, so no cache hands one to the other.
      ctx.vary('Accept');
      if (ctx.accepts('json', 'html') === 'html') return send(ctx, 'index.html');
    }
    // Any other /console/... path is the page too, so a link into the console survives a reload.
    if (p === '/console' || p.startsWith('/console/')) return send(ctx, 'index.html');
    return next();
  };
}

/** A web console for people, served at `/`: static files speaking only the public API (see README.md). */
export default definePlugin({
  id: 'console',
  version: '1.0.0',
  kernel: '^1.0.0',
  register(ctx) {
    const middleware = consoleMiddleware();
    ctx.hooks.http.middleware.tap('console', (entries) => [...entries, { name: 'console:static', middleware, stage: 'beforeAuthentication' }]);
  },
});
