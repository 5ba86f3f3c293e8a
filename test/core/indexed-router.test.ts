import assert from 'node:assert/strict';
import Router from '@koa/router';
import { IndexedRouter } from '../../core/indexed-router.ts';
import { startTestKernel } from '../../core/testing.ts';

/** A tiny seeded generator: a failure names the seed that reproduces it. */
function random(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    return s / 0x7fffffff;
  };
}

describe('IndexedRouter', () => {
  it('matches every path exactly as @koa/router does, in the same order, over the real route table', async function () {
    this.timeout(120_000);
    const t = await startTestKernel();
    let operations: Array<{ path: string; method: string }>;
    try {
      const doc = (await t.request.get('/api/v1/openapi.json').expect(200)).body as { paths: Record<string, Record<string, unknown>> };
      operations = Object.entries(doc.paths).flatMap(([path, methods]) => Object.keys(methods).map((method) => ({ path, method: method.toUpperCase() })));
    } finally {
      await t.stop();
    }
    assert.ok(operations.length > 100, `${operations.length} operations`);
    const indexed = new IndexedRouter({ prefix: '/api/v1' });
    const plain = new Router({ prefix: '/api/v1' });
    const noop = () => undefined;
    for (const { path, method } of operations) {
      const koaPath = path.replace(/\{(\w+)\}/g, ':$1');
      indexed.register(koaPath, [method], noop);
      plain.register(koaPath, [method], noop);
    }
    // One route added after the first match rebuilds the index.
    indexed.match('/api/v1/me', 'GET');
    indexed.register('/late{/:id}/*rest', ['GET'], noop);
    plain.register('/late{/:id}/*rest', ['GET'], noop);

    const next = random(21);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)];
    const values = ['0190a7c2-0000-7000-8000-000000000001', 'x', '', 'a%2Fb', 'ÄÖ', 'records', '..', ' '];
    const paths: string[] = ['/', '/api/v1', '/api/v1/', '/api/v1/late/1/any/thing', '/api/v1/late/any', '/API/V1/ME', '/api/v1//me', '/api/v1/me//'];
    for (let i = 0; i < 20_000; i++) {
      const { path } = pick(operations);
      let p = `/api/v1${path.replace(/\{\w+\}/g, () => pick(values))}`;
      const change = next();
      if (change < 0.15) p = p.toUpperCase();
      else if (change < 0.3) p += '/';
      else if (change < 0.4) p += `/${pick(values)}`;
      else if (change < 0.5) p = p.split('/').slice(0, -1).join('/');
      else if (change < 0.55) p += '//';
      paths.push(p);
    }
    const ids = (router: Router, layers: unknown[]) => layers.map((l) => router.stack.indexOf(l as never));
    let routed = 0;
    for (const p of paths) {
      for (const method of ['GET', 'post', 'DELETE', 'PATCH', 'PUT', 'HEAD', 'OPTIONS']) {
        const a = indexed.match(p, method);
        const b = plain.match(p, method);
        assert.deepEqual(
          { path: ids(indexed, a.path), pathAndMethod: ids(indexed, a.pathAndMethod), route: a.route },
          { path: ids(plain, b.path), pathAndMethod: ids(plain, b.pathAndMethod), route: b.route },
          `${method} ${p}`,
        );
        if (a.route) routed++;
      }
    }
    // The comparison is worth something only if many paths do reach a route (and the late, wildcard one too).
    assert.ok(routed > 20_000, `${routed} of ${paths.length * 7} matched a route`);
    assert.ok(indexed.match('/api/v1/late/1/any/thing', 'GET').route);
  });
});
