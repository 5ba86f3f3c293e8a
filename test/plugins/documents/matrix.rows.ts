import { randomUUID } from 'node:crypto';
import { perWorld, type MatrixRow, type SignedUpUser, type TestKernel, type World } from '../../../core/testing.ts';

/**
 * The documents plugin's rows of the authorization matrix. Statuses follow the callers' order:
 * root admin creator editor member guest_in guest_out pat_read pat_write pat_admin outsider anonymous.
 */
export const plugin = 'documents';

const doc = { type: 'doc', content: [{ type: 'paragraph', content: [{ type: 'text', text: 'Matrix' }] }] };

async function call(t: TestKernel, user: SignedUpUser, path: string, body: object): Promise<Record<string, any>> {
  const res = await t.request.post(`/api/v1${path}`).set(user.auth).send(body);
  if (res.status !== 201) throw new Error(`${path} failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** A new record of D: each caller writes a description never written (version 0). */
const recordOfD = async (t: TestKernel, w: World) => (await call(t, w.people.creator, `/workspaces/${w.ws}/databases/${w.databaseD}/records`, { values: { name: 'Described' } })).id as string;
const description = (w: World, record: string, database = w.databaseD) => `/workspaces/${w.ws}/databases/${database}/records/${record}/description`;
/** A new document in S, by its creator. */
const documentInS = async (t: TestKernel, w: World) => (await call(t, w.people.creator, `/workspaces/${w.ws}/documents`, { title: 'Matrix doc', space_id: w.spaceS })).id as string;
/** A document of the outsider's workspace, named under this one. */
const foreignDocument = async (w: World, t: TestKernel, suffix = '') => ({
  path: `/workspaces/${w.ws}/documents/${(await call(t, w.people.outsider, `/workspaces/${w.otherWs}/documents`, { title: 'Theirs', space_id: w.foreign.space })).id}${suffix}`,
});

/** Read by every caller of the read-only rows: made once per world. */
const describedRecord = perWorld(recordOfD);
const readDocument = perWorld(documentInS);

export const rows: MatrixRow[] = [
  {
    route: 'GET /workspaces/{ws}/databases/{db}/records/{id}/description',
    expect: '404 200 200 200 200 200 404 200 200 200 404 401',
    request: async (w, _c, t) => ({ path: description(w, await describedRecord(t, w)) }),
    foreign: (w) => ({ path: description(w, randomUUID(), w.foreign.database) }),
  },
  {
    // Members read descriptions but do not write them; a guest of S is a member there.
    route: 'PUT /workspaces/{ws}/databases/{db}/records/{id}/description',
    expect: '404 200 200 200 403 403 404 403 200 200 404 401',
    request: async (w, _c, t) => ({ path: description(w, await recordOfD(t, w)), body: { content: doc, version: 0 } }),
    foreign: (w) => ({ path: description(w, randomUUID(), w.foreign.database), body: { content: doc, version: 0 } }),
  },
  {
    // Creators of the space create; a space the caller cannot see is a 422 at /space_id, as databases answer.
    route: 'POST /workspaces/{ws}/documents',
    expect: '404 201 201 403 403 403 422 403 201 201 404 401',
    request: (w) => ({ path: `/workspaces/${w.ws}/documents`, body: { title: 'New', space_id: w.spaceS } }),
  },
  { route: 'GET /workspaces/{ws}/documents', expect: '404 200 200 200 200 200 200 200 200 200 404 401', request: (w) => ({ path: `/workspaces/${w.ws}/documents` }) },
  {
    route: 'GET /workspaces/{ws}/documents/{id}',
    expect: '404 200 200 200 200 200 404 200 200 200 404 401',
    request: async (w, _c, t) => ({ path: `/workspaces/${w.ws}/documents/${await readDocument(t, w)}` }),
    foreign: (w, t) => foreignDocument(w, t),
  },
  {
    route: 'PATCH /workspaces/{ws}/documents/{id}',
    expect: '404 200 200 403 403 403 404 403 200 200 404 401',
    request: async (w, _c, t) => ({ path: `/workspaces/${w.ws}/documents/${await documentInS(t, w)}`, body: { title: 'Renamed' } }),
    foreign: async (w, t) => ({ ...(await foreignDocument(w, t)), body: { title: 'Renamed' } }),
  },
  {
    route: 'DELETE /workspaces/{ws}/documents/{id}',
    expect: '404 204 204 403 403 403 404 403 204 204 404 401',
    request: async (w, _c, t) => ({ path: `/workspaces/${w.ws}/documents/${await documentInS(t, w)}` }),
    foreign: (w, t) => foreignDocument(w, t),
  },
  {
    route: 'GET /workspaces/{ws}/documents/{id}/content',
    expect: '404 200 200 200 200 200 404 200 200 200 404 401',
    request: async (w, _c, t) => ({ path: `/workspaces/${w.ws}/documents/${await readDocument(t, w)}/content` }),
    foreign: (w, t) => foreignDocument(w, t, '/content'),
  },
  {
    route: 'PUT /workspaces/{ws}/documents/{id}/content',
    expect: '404 200 200 200 403 403 404 403 200 200 404 401',
    request: async (w, _c, t) => ({ path: `/workspaces/${w.ws}/documents/${await documentInS(t, w)}/content`, body: { content: doc, version: 0 } }),
    foreign: async (w, t) => ({ ...(await foreignDocument(w, t, '/content')), body: { content: doc, version: 0 } }),
  },
];
