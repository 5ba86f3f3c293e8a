import assert from 'node:assert/strict';
import { startTestKernel, type TestKernel } from '../../core/testing.ts';
import { Ajv } from 'ajv';
import { compile } from '../../core/schema.ts';
import { StartupError } from '../../core/errors.ts';
import { definePlugin } from '../../core/plugin.ts';
import { defineRoute } from '../../core/routes.ts';
import system from '../../plugins/system/index.ts';
import { ApiDocument } from '../fixtures/openapi-document.ts';

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
        // Component references (the filter AST) resolve inside the document.
        if (body) assert.doesNotThrow(() => new Ajv({ strict: false, formats: { uuid: true, email: true, uri: true, 'date-time': true } }).compile({ ...body, components: doc.components }), `${method} ${path} request schema`);
      }
    }
  });

  it('names every operation <resource>.<verb>, once, as each built-in route declares it', async () => {
    const { body: doc } = await t.request.get('/api/v1/openapi.json').expect(200);
    const ids: string[] = Object.values(doc.paths as Record<string, Record<string, { operationId: string }>>).flatMap((ops) => Object.values(ops).map((op) => op.operationId));
    for (const id of ids) assert.match(id, /^[a-z][A-Za-z]*(\.[a-z][A-Za-z]*)+$/);
    assert.deepEqual(ids.filter((id, i) => ids.indexOf(id) !== i), [], 'operation ids used twice');
    assert.equal(doc.paths['/api/v1/workspaces/{ws}/databases/{db}/records/query'].post.operationId, 'records.query');
    assert.deepEqual(t.kernel.routes.filter((r) => !r.def.operationId).map((r) => `${r.def.method} ${r.def.path}`), [], 'built-in routes without an operationId');
  });

  it('refuses at start-up two routes with one operationId', async () => {
    const probe = (path: string) => defineRoute({ method: 'GET', path, operationId: 'probe.get', summary: 'A probe', auth: 'public', responses: { 200: { description: 'Ok' } }, handler: () => ({}) });
    const plugin = definePlugin({ id: 'op-probe', version: '1.0.0', kernel: '^1.0.0', register: (ctx) => ctx.routes([probe('/op-probe/a'), probe('/op-probe/b')]) });
    await assert.rejects(startTestKernel({ plugins: [system, plugin] }), (err: unknown) => err instanceof StartupError && err.code === 'route_invalid' && /probe\.get.*GET \/op-probe\/a/.test(err.message));
  });

  it('gives every write that takes a JSON body an example its own schema accepts, so "Try it out" sends something valid', async () => {
    const { body: doc } = await t.request.get('/api/v1/openapi.json').expect(200);
    for (const { def } of t.kernel.routes.filter((r) => r.def.body && r.def.bodyType !== 'multipart' && r.def.bodyType !== 'upload' && r.def.bodyType !== 'form')) {
      assert.notEqual(def.example, undefined, `${def.method} ${def.path} has no example`);
      const validate = compile(def.body!);
      assert.ok(validate(structuredClone(def.example)), `${def.method} ${def.path}: its example fails its schema: ${JSON.stringify(validate.errors)}`);
      assert.deepEqual(doc.paths[`/api/v1${def.path}`][def.method.toLowerCase()].requestBody.content['application/json'].example, def.example);
    }
  });

  it('gives examples that pass their own schemas: of every schema, parameter, request and response', async () => {
    const api = new ApiDocument((await t.request.get('/api/v1/openapi.json').expect(200)).body);
    const examples = api.examples();
    assert.ok(examples.length > 500, `only ${examples.length} examples found`);
    const failing = examples.flatMap(({ at, schema, value }) => {
      const failure = api.failure(schema, value);
      return failure ? [`${at}: ${failure}`] : [];
    });
    assert.deepEqual(failing, [], `${failing.length} of ${examples.length} examples fail their schemas`);
    // What a client may leave out is not required of it: the server fills in the defaults.
    const currency = api.doc.components.schemas['FieldOptions.currency'];
    assert.equal(currency.required, undefined);
    assert.equal(api.failure('/components/schemas/FieldOptions.currency', { code: 'EUR', symbol: '€', precision: 2 }), null);
  });

  it('names the server it is served by, and every part an import takes', async () => {
    const { body: doc } = await t.request.get('/api/v1/openapi.json').expect(200);
    assert.deepEqual(doc.servers, [{ url: '/' }]);
    const parts = doc.paths['/api/v1/workspaces/{ws}/databases/{db}/import'].post.requestBody.content['multipart/form-data'].schema;
    assert.deepEqual(Object.keys(parts.properties).sort(), ['dry_run', 'file', 'mapping']);
    assert.deepEqual(parts.required.sort(), ['file', 'mapping']);
  });

  it('documents every error as a problem with X-Request-Id, Retry-After on 429, and the extension members a route adds', async () => {
    const { body: doc } = await t.request.get('/api/v1/openapi.json').expect(200);
    for (const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
      for (const [method, op] of Object.entries(ops)) {
        for (const [status, res] of Object.entries(op.responses as Record<string, any>)) {
          assert.ok(res.headers?.['X-Request-Id'], `${method} ${path} ${status}: X-Request-Id`);
          if (Number(status) < 400) continue;
          // A problem, unless the route answers that status with a body of its own (health: 503 with its checks).
          assert.ok(res.content?.['application/problem+json']?.schema ?? res.content?.['application/json']?.schema, `${method} ${path} ${status} has no problem body`);
          if (status === '429') assert.ok(res.headers['Retry-After'], `${method} ${path} 429: Retry-After`);
        }
      }
    }
    const members = (path: string, method: string, status: string) => doc.paths[`/api/v1${path}`][method].responses[status].content['application/problem+json'].schema.allOf[1].properties;
    assert.ok(members('/workspaces/{ws}/databases/{db}/records/{id}', 'patch', '409').current_version);
    assert.ok(members('/workspaces/{ws}/databases/{db}/fields/{field}/options/{option_id}', 'delete', '409').usage_count);
    assert.ok(members('/workspaces/{ws}/databases/{db}/records/{id}/links/{field}', 'post', '409').linked_record_id);
  });

  it("lists under each status the codes an operation can answer with: its catalogue's and the kernel's its shape implies", async () => {
    const { body: doc } = await t.request.get('/api/v1/openapi.json').expect(200);
    const byId = new Map<string, any>();
    for (const ops of Object.values(doc.paths as Record<string, Record<string, any>>)) for (const op of Object.values(ops)) byId.set(op.operationId, op);
    const codes = (operationId: string, status: string) => byId.get(operationId)?.responses[status]?.['x-tessera-codes'];
    const deleteView = byId.get('views.delete');
    assert.ok(deleteView, 'views.delete is documented');
    assert.deepEqual(codes('views.delete', '409'), ['last_view']);
    assert.match(deleteView.responses['409'].description, /last view.*`last_view`/);
    const example = deleteView.responses['409'].content['application/problem+json'].examples.last_view.value;
    assert.equal(example.code, 'last_view');
    assert.equal(example.status, 409);
    assert.deepEqual(codes('views.delete', '401'), ['unauthenticated']);
    assert.deepEqual(codes('views.delete', '404'), ['not_found']);
    const patchMember = [...byId.values()].find((op) => op['x-tessera-plugin'] === 'workspaces' && op.responses['409']?.['x-tessera-codes']?.includes('last_admin'));
    assert.ok(patchMember, 'a members route lists last_admin');
    assert.deepEqual(codes('records.update', '409'), ['version_conflict', 'link_conflict']);
    assert.ok(codes('records.update', '422').includes('validation_failed'));
    assert.deepEqual(codes('auth.signUp', '409'), ['email_taken']);
  });

  it('documents what the server enforces: the filter AST, one of values or records, confirm true', async () => {
    const { body: doc } = await t.request.get('/api/v1/openapi.json').expect(200);
    const body = (path: string, method: string) => doc.paths[`/api/v1${path}`][method].requestBody.content['application/json'].schema;
    assert.equal(body('/workspaces/{ws}/databases/{db}/records/query', 'post').properties.filter.$ref, '#/components/schemas/Filter');
    assert.ok(doc.components.schemas.FilterCondition.properties.op.enum.includes('has_any_of'));
    assert.deepEqual(body('/workspaces/{ws}/databases/{db}/records', 'post').oneOf, [{ required: ['values'] }, { required: ['records'] }]);
    const confirm = body('/workspaces/{ws}/relations/{id}', 'delete');
    assert.deepEqual([confirm.required, confirm.properties.confirm.const], [['confirm'], true]);
    const validate = new Ajv({ strict: false }).compile({ ...doc.components.schemas.Filter, components: doc.components });
    assert.ok(validate({ and: [{ field: 'a', op: 'eq', value: 1 }, { not: { field: 'b.c', op: 'is_empty' } }] }));
    assert.ok(!validate({ and: [{ field: 'a', op: 'equals', value: 1 }] }));
  });

  it("documents each field type's options and cells, for the types this instance has", async () => {
    const { body: doc } = await t.request.get('/api/v1/openapi.json').expect(200);
    const create = doc.paths['/api/v1/workspaces/{ws}/databases/{db}/fields'].post.requestBody.content['application/json'].schema;
    assert.ok(create.properties.type.enum.includes('number') && create.properties.type.enum.includes('lookup'));
    const number = create.oneOf.find((v: { title: string }) => v.title === 'number');
    assert.equal(number.properties.options.$ref, '#/components/schemas/FieldOptions.number');
    assert.deepEqual(doc.components.schemas['FieldOptions.number'].example, { precision: 0, allow_negative: true });
    const values = doc.paths['/api/v1/workspaces/{ws}/databases/{db}/records'].post.requestBody.content['application/json'].schema.properties.values;
    assert.ok(values.additionalProperties.anyOf.some((r: { $ref: string }) => r.$ref === '#/components/schemas/Cell.link'));
    assert.deepEqual(doc.components.schemas['Cell.link'].example, [{ id: '0190c7a2-5b7e-7000-8000-000000000012', title: 'Acme' }]);
    // Every type says what its cells look like.
    const types = doc.components.schemas as Record<string, { example?: unknown }>;
    assert.deepEqual(create.properties.type.enum.filter((name: string) => types[`Cell.${name}`]?.example === undefined), []);
  });

  it('says which values a choice takes when one is wrong', async () => {
    const owner = (await t.request.post('/api/v1/auth/sign-up').send({ email: `enum-${Date.now()}@example.test`, password: 'correct horse battery', name: 'E' }).expect(201)).body;
    const auth = { Authorization: `Bearer ${owner.token}` };
    const ws = (await t.request.post('/api/v1/workspaces').set(auth).send({ name: 'E' }).expect(201)).body.id;
    const space = (await t.request.post(`/api/v1/workspaces/${ws}/spaces`).set(auth).send({ name: 'S' }).expect(201)).body.id;
    const db = (await t.request.post(`/api/v1/workspaces/${ws}/databases`).set(auth).send({ name: 'D', space_id: space }).expect(201)).body.id;
    const res = await t.request.post(`/api/v1/workspaces/${ws}/databases/${db}/views`).set(auth).send({ name: 'V', type: 'table' }).expect(422);
    assert.deepEqual(res.body.errors, [{ pointer: '/type', detail: 'Must be one of "grid", "kanban", "gallery", "calendar", "form".' }]);
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
