import assert from 'node:assert/strict';
import { startTestKernel, type TestKernel } from '../../core/testing.ts';
import { ajv } from '../../core/schema.ts';

describe('OpenAPI document and reference page', () => {
  let t: TestKernel;
  before(async () => {
    t = await startTestKernel();
  });
  after(() => t.stop());

  it('lists every route of every active plugin, with its method', async () => {
    const { body: doc } = await t.request.get('/api/v1/openapi.json').expect(200);
    assert.equal(doc.openapi, '3.1.0');
    const active = t.kernel.routes.filter((r) => t.kernel.isActive(r.pluginId));
    assert.ok(active.length > 5, 'expected the built-in plugins to contribute routes');
    for (const { pluginId, def } of active) {
      const op = doc.paths[`/api/v1${def.path}`]?.[def.method.toLowerCase()];
      assert.ok(op, `${def.method} ${def.path} (${pluginId}) is missing from the document`);
      assert.equal(op['x-tessera-plugin'], pluginId);
      assert.ok(op.summary, `${def.method} ${def.path} has no summary`);
    }
    const documented = Object.values(doc.paths).reduce((n: number, ops) => n + Object.keys(ops as object).length, 0);
    assert.equal(documented, active.length, 'the document lists routes that are not served');
  });

  it('documents request bodies as schemas that reject unknown properties, and problem responses', async () => {
    const { body: doc } = await t.request.get('/api/v1/openapi.json').expect(200);
    const signUp = doc.paths['/api/v1/auth/sign-up'].post;
    const schema = signUp.requestBody.content['application/json'].schema;
    assert.equal(schema.additionalProperties, false);
    assert.deepEqual([...schema.required].sort(), ['email', 'name', 'password']);
    assert.equal(signUp.responses['422'].content['application/problem+json'].schema.$ref, '#/components/schemas/Problem');
    assert.ok(doc.components.schemas.Problem.required.includes('request_id'));
    const me = doc.paths['/api/v1/me'].get;
    assert.ok(me.responses['401'], 'authenticated routes document 401');
    assert.deepEqual(doc.paths['/api/v1/health'].get.security, [], 'public routes need no credential');
  });

  it('is itself a valid set of JSON Schemas', async () => {
    const { body: doc } = await t.request.get('/api/v1/openapi.json').expect(200);
    for (const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
      for (const [method, op] of Object.entries(ops)) {
        const body = op.requestBody?.content?.['application/json']?.schema;
        if (body) assert.doesNotThrow(() => ajv.compile(body), `${method} ${path} request schema`);
      }
    }
  });

  it('serves the reference page and its assets locally, without a CDN', async () => {
    const page = await t.request.get('/api/v1/docs').expect(200);
    assert.match(page.headers['content-type'], /text\/html/);
    assert.doesNotMatch(page.text, /https?:\/\//, 'the page must not load anything from another host');
    for (const src of page.text.matchAll(/(?:src|href)="([^"]+)"/g)) {
      const res = await t.request.get(src[1]);
      assert.equal(res.status, 200, `${src[1]} should be served`);
    }
    await t.request.get('/api/v1/docs/assets/..%2Fpackage.json').expect(404);
  });
});
