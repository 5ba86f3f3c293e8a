import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { suiteKernel } from '../fixtures/suite-kernel.ts';
import { renderSdk, staleFiles } from '../../scripts/sdk-files.ts';
import { createTessera, EventStreamParser, SubscribeError, type Schema, type TesseraClient, type TesseraEvent } from '../../sdk/src/index.ts';

const PASSWORD = 'correct horse battery';
let people = 0;

/** A new user signed up through the SDK, and a client that calls as them. */
async function signedUp(baseUrl: string): Promise<{ api: TesseraClient; token: string; userId: string }> {
  const anonymous = createTessera({ baseUrl });
  const { data, error, response } = await anonymous.POST('/api/v1/auth/sign-up', {
    body: { email: `sdk${Date.now()}${people++}@example.test`, name: 'SDK user', password: PASSWORD },
  });
  assert.equal(response.status, 201, JSON.stringify(error));
  return { api: createTessera({ baseUrl, token: data!.token }), token: data!.token, userId: data!.user.id };
}

/** A workspace, a space and a database (title field `name`, plus a number field `amount`) made through the SDK. */
async function database(api: TesseraClient): Promise<{ ws: string; db: string }> {
  const workspace = await api.POST('/api/v1/workspaces', { body: { name: 'SDK workspace' } });
  assert.equal(workspace.response.status, 201, JSON.stringify(workspace.error));
  const ws = workspace.data!.id;
  const space = await api.POST('/api/v1/workspaces/{ws}/spaces', { params: { path: { ws } }, body: { name: 'Sales' } });
  assert.equal(space.response.status, 201, JSON.stringify(space.error));
  const created = await api.POST('/api/v1/workspaces/{ws}/databases', { params: { path: { ws } }, body: { name: 'Deals', space_id: space.data!.id } });
  assert.equal(created.response.status, 201, JSON.stringify(created.error));
  const db = created.data!.id;
  const field = await api.POST('/api/v1/workspaces/{ws}/databases/{db}/fields', { params: { path: { ws, db } }, body: { name: 'Amount', api_name: 'amount', type: 'number' } });
  assert.equal(field.response.status, 201, JSON.stringify(field.error));
  return { ws, db };
}

/** An answer of the fake event server: what it writes, then whether it ends the response. */
type Script = (res: http.ServerResponse, req: http.IncomingMessage) => void;

/** A loopback server answering its nth request with `scripts[n]` (the last one for any after), keeping the requests. */
async function fakeEventServer(scripts: Script[]): Promise<{ url: string; requests: http.IncomingMessage[]; close(): Promise<void> }> {
  const requests: http.IncomingMessage[] = [];
  const server = http.createServer((req, res) => {
    requests.push(req);
    scripts[Math.min(requests.length, scripts.length) - 1](res, req);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

const streamHead = (res: http.ServerResponse) => res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });

describe('the TypeScript SDK (sdk/)', function () {
  this.timeout(120_000);
  const kernel = suiteKernel();

  it('is current: sdk/openapi.json and sdk/src/schema.ts are what `npm run sdk` makes of the served document', async () => {
    const { body } = await kernel().request.get('/api/v1/openapi.json').expect(200);
    const stale = staleFiles(await renderSdk(body));
    assert.deepEqual(stale, [], `sdk/${stale.join(', sdk/')} ${stale.length === 1 ? 'is' : 'are'} out of date: run \`npm run sdk\` and commit the result`);
  });

  it('signs up, creates a workspace, a space and a database, bulk creates records and queries them with a filter, typed', async () => {
    const baseUrl = kernel().url;
    const { api } = await signedUp(baseUrl);
    const { ws, db } = await database(api);

    const bulk = await api.POST('/api/v1/workspaces/{ws}/databases/{db}/records', {
      params: { path: { ws, db } },
      body: { records: [{ values: { name: 'Acme renewal', amount: 12500 } }, { values: { name: 'Globex pilot', amount: 800 } }, { values: { name: 'Initech upsell', amount: 4000 } }] },
    });
    assert.equal(bulk.response.status, 201, JSON.stringify(bulk.error));
    assert.ok(bulk.data && 'data' in bulk.data, 'a bulk create answers { data }');
    assert.deepEqual(bulk.data.data.map((r) => r.values.name), ['Acme renewal', 'Globex pilot', 'Initech upsell']);

    const filter: Schema<'Filter'> = { and: [{ field: 'amount', op: 'gte', value: 1000 }, { not: { field: 'name', op: 'starts_with', value: 'Initech' } }] };
    const query = await api.POST('/api/v1/workspaces/{ws}/databases/{db}/records/query', {
      params: { path: { ws, db } },
      body: { filter, sorts: [{ field: 'amount', direction: 'desc' }], count: 'exact' },
    });
    assert.equal(query.response.status, 200, JSON.stringify(query.error));
    const page = query.data!;
    assert.deepEqual(page.data.map((r) => [r.values.name, r.values.amount]), [['Acme renewal', 12500]]);
    assert.equal(page.count, 1);
    assert.equal(page.next_cursor, null);

    // A mistake the server reports is the typed problem, with its pointer.
    const wrong = await api.POST('/api/v1/workspaces/{ws}/databases/{db}/records/query', { params: { path: { ws, db } }, body: { filter: { field: 'nope', op: 'eq', value: 1 } } });
    assert.equal(wrong.response.status, 422);
    assert.equal(wrong.error?.code, 'validation_failed');
    assert.ok(wrong.error?.errors?.some((e) => e.pointer === '/filter/field'), JSON.stringify(wrong.error));

    // Without a token the same call is refused.
    const anonymous = await createTessera({ baseUrl }).POST('/api/v1/workspaces/{ws}/databases/{db}/records/query', { params: { path: { ws, db } }, body: {} });
    assert.equal(anonymous.response.status, 401);

    // What the compiler refuses (checked by `npm run typecheck`; never called).
    void (() => {
      // @ts-expect-error an op the filter language does not have
      const badOp: Schema<'Filter'> = { field: 'amount', op: 'greater_than', value: 1 };
      // @ts-expect-error a path the document does not have
      void api.GET('/api/v1/workspaces/{ws}/nothing', { params: { path: { ws } } });
      // @ts-expect-error the database id is missing
      void api.POST('/api/v1/workspaces/{ws}/databases/{db}/records/query', { params: { path: { ws } }, body: {} });
      return badOp;
    });
  });

  it('takes the token from a function before each request', async () => {
    const baseUrl = kernel().url;
    const { token, userId } = await signedUp(baseUrl);
    let asked = 0;
    const api = createTessera({ baseUrl, token: async () => (asked++, token) });
    const me = await api.GET('/api/v1/me');
    assert.equal(me.response.status, 200, JSON.stringify(me.error));
    assert.equal(me.data!.id, userId);
    assert.equal(asked, 1);
  });

  it('parses text/event-stream as EventSource does', () => {
    const parser = new EventStreamParser();
    const out = [
      ...parser.push('\uFEFFretry: 1500\n: a comment\n\nid: 7\nevent: record.created\ndata: {"a":\r'),
      ...parser.push('\ndata: 1}\r\n\r\n'),
      // No data: not dispatched, but its id carries over to the next event.
      ...parser.push('id: 8\nevent: nothing\n\ndata:"x"\r\rdata\n\n'),
      ...parser.push('data: "cut off"\n'),
    ];
    assert.deepEqual(out, [
      { id: '7', event: 'record.created', data: '{"a":\n1}' },
      { id: '8', event: 'message', data: '"x"' },
      { id: '8', event: 'message', data: '' },
    ]);
    assert.equal(parser.retryMs, 1500);
  });

  it('subscribes with the bearer, ignores comments, reconnects with Last-Event-ID, and stops when aborted', async () => {
    const server = await fakeEventServer([
      (res) => {
        streamHead(res);
        res.write('retry: 20\n\n: keep-alive\n\n');
        res.write('id: 1\nevent: record.created\ndata: {"name":"record.created","payload":{"n":1}}\n\n');
        // An event cut in two chunks, then the stream ends.
        res.write('id: 2\nevent: record.upd');
        setTimeout(() => res.end('ated\ndata: {"name":"record.updated","payload":{"n":2}}\n\n'), 20);
      },
      // A failure in between: retried.
      (res) => res.writeHead(503, { 'Content-Type': 'application/problem+json' }).end('{"code":"unavailable"}'),
      (res) => {
        streamHead(res);
        res.write(':\n\nid: 3\nevent: record.deleted\ndata: {"name":"record.deleted","payload":{"n":3}}\n\n');
      },
    ]);
    try {
      const api = createTessera({ baseUrl: server.url, token: 'tss_test' });
      const controller = new AbortController();
      const seen: TesseraEvent[] = [];
      const errors: unknown[] = [];
      await api.subscribe('ws-1', { topics: ['database:d-1', 'record:r-1'], signal: controller.signal, onError: (err) => errors.push(err) }, (event) => {
        seen.push(event);
        if (seen.length === 3) controller.abort();
      });
      assert.deepEqual(seen.map((e) => [e.id, e.event, e.data.payload.n]), [['1', 'record.created', 1], ['2', 'record.updated', 2], ['3', 'record.deleted', 3]]);
      assert.equal(server.requests.length, 3);
      for (const req of server.requests) {
        assert.equal(req.url, '/api/v1/workspaces/ws-1/events?topics=database%3Ad-1%2Crecord%3Ar-1');
        assert.equal(req.headers.authorization, 'Bearer tss_test');
        assert.equal(req.headers.accept, 'text/event-stream');
      }
      assert.deepEqual(server.requests.map((req) => req.headers['last-event-id']), [undefined, '2', '2']);
      assert.equal(errors.length, 2, 'the end of the first stream and the 503');
    } finally {
      await server.close();
    }
  });

  it('rejects at once on an answer a retry cannot mend, and resumes from lastEventId', async () => {
    const server = await fakeEventServer([(res) => res.writeHead(401, { 'Content-Type': 'application/problem+json' }).end('{"code":"unauthenticated","detail":"Sign in first."}')]);
    try {
      const api = createTessera({ baseUrl: server.url, token: 'tss_revoked' });
      await assert.rejects(
        api.subscribe('ws-1', { lastEventId: '41' }, () => {}),
        (err: unknown) => err instanceof SubscribeError && err.status === 401 && /unauthenticated: Sign in first/.test(err.message),
      );
      assert.equal(server.requests.length, 1);
      assert.equal(server.requests[0].headers['last-event-id'], '41');
      assert.equal(server.requests[0].url, '/api/v1/workspaces/ws-1/events');
    } finally {
      await server.close();
    }
  });

  it('follows record events of the server when it serves the event stream', async function () {
    const { body: doc } = await kernel().request.get('/api/v1/openapi.json').expect(200);
    // The helper does not rely on the route being documented; this test needs the route to be served.
    if (!doc.paths['/api/v1/workspaces/{ws}/events']) this.skip();
    const baseUrl = kernel().url;
    const { api } = await signedUp(baseUrl);
    const { ws, db } = await database(api);
    const controller = new AbortController();
    const seen: TesseraEvent[] = [];
    const opened = api.subscribe(ws, { topics: [`database:${db}`], signal: controller.signal }, (event) => {
      seen.push(event);
      if (event.event === 'record.created') controller.abort();
    });
    // The stream opens while records are created: one is made every 250 ms until the stream reports one (a record made
    // before the stream opened is not replayed to a stream that sends no Last-Event-ID).
    const deadline = Date.now() + 20_000;
    while (!controller.signal.aborted && Date.now() < deadline) {
      const created = await api.POST('/api/v1/workspaces/{ws}/databases/{db}/records', { params: { path: { ws, db } }, body: { records: [{ values: { name: 'Live' } }] } });
      assert.equal(created.response.status, 201, JSON.stringify(created.error));
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    controller.abort();
    await opened;
    const event = seen.find((e) => e.event === 'record.created');
    assert.ok(event, `no record.created within 20 s; got ${JSON.stringify(seen.map((e) => e.event))}`);
    assert.ok(event.id, 'each event has an id');
    assert.equal(event.data.workspace_id, ws);
  });
});
