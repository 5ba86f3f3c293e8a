import { randomUUID } from 'node:crypto';
import { type TestKernel, signUp } from '../../core/testing.ts';
import { PNG } from '../plugins/users/images.ts';
import { personOf } from './world.ts';
import { perWorld, type Caller, type MatrixRow, type World } from '../../core/testing-matrix.ts';

const ALL = (s: number) => Array(12).fill(String(s)).join(' ');

let unique = 0;
const email = () => `matrix-${Date.now()}-${unique++}@example.test`;

async function adminCall(t: TestKernel, w: World, method: 'post' | 'put', path: string, body: object): Promise<any> {
  const res = await t.request[method](`/api/v1${path}`).set(w.people.admin.auth).send(body);
  if (res.status >= 300) throw new Error(`${method} ${path} → ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

async function creatorCall(t: TestKernel, w: World, path: string, body: object): Promise<any> {
  const res = await t.request.post(`/api/v1${path}`).set(w.people.creator.auth).send(body);
  if (res.status >= 300) throw new Error(`POST ${path} → ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** A favorite of the caller's person (tokens: the admin's) on a new record of D; a random id for anonymous. */
async function favoriteOf(t: TestKernel, w: World, caller: Caller): Promise<string> {
  const record = await creatorCall(t, w, `/workspaces/${w.ws}/databases/${w.databaseD}/records`, { values: { name: 'Starred' } });
  const person = personOf(caller);
  if (!person) return randomUUID();
  const [row] = await t.db('favorites').insert({ workspace_id: w.ws, user_id: w.people[person].id, target_type: 'record', target_id: record.id, database_id: w.databaseD }).returning('id');
  return row.id;
}

/** The views of D (or of another database of the workspace). */
const views = (w: World, database = w.databaseD) => `/workspaces/${w.ws}/databases/${database}/views`;

/** D's default view: the one every database gets. */
async function defaultView(t: TestKernel, w: World): Promise<string> {
  return (await t.db('database_views').where({ database_id: w.databaseD, is_default: true }).first('id')).id;
}

/** A many-to-many relation of D with itself, with link fields of new names. */
const selfRelation = (w: World) => ({ from_database_id: w.databaseD, to_database_id: w.databaseD, kind: 'many_to_many', from_field_name: `Out ${unique++}`, to_field_name: `In ${unique++}` });

/** One self-relation of D per world, with two records to link. */
const linkOf = perWorld(async (t: TestKernel, w: World): Promise<{ relation: string; field: string; record: string; target: string }> => {
  const relation = await creatorCall(t, w, `/workspaces/${w.ws}/relations`, selfRelation(w));
  const records = `/workspaces/${w.ws}/databases/${w.databaseD}/records`;
  const record = (await creatorCall(t, w, records, { values: { name: 'Links from' } })).id;
  const target = (await creatorCall(t, w, records, { values: { name: 'Links to' } })).id;
  return { relation: relation.id, field: relation.from_field.api_name, record, target };
});

const rulesOf = (w: World, relation: string) => `/workspaces/${w.ws}/relations/${relation}/auto-link-rules`;

export const ROWS: MatrixRow[] = [
  // --- kernel and system: public ------------------------------------------------------------
  { route: 'GET /health', expect: ALL(200), request: () => ({ path: '/health' }) },
  { route: 'GET /openapi.json', expect: ALL(200), request: () => ({ path: '/openapi.json' }) },
  { route: 'GET /docs', expect: ALL(200), request: () => ({ path: '/docs' }) },
  { route: 'GET /docs/assets/{name}', expect: ALL(200), request: () => ({ path: '/docs/assets/swagger-ui.css' }) },
  // Metrics (enabled in the matrix): an instance admin's session or the metrics token.
  { route: 'GET /metrics', expect: '200 403 403 403 403 403 403 403 403 403 403 401', request: () => ({ path: '/metrics' }) },

  // --- auth -----------------------------------------------------------------------------------
  { route: 'GET /auth/providers', expect: ALL(200), request: () => ({ path: '/auth/providers' }) },
  // No OAuth provider is configured in the matrix: every provider id is unknown.
  { route: 'GET /auth/oauth/{provider}/start', expect: ALL(404), request: () => ({ path: '/auth/oauth/github/start' }) },
  { route: 'GET /auth/oauth/{provider}/callback', expect: ALL(404), request: () => ({ path: '/auth/oauth/github/callback', query: { code: 'c', state: 's' } }) },
  { route: 'POST /auth/sign-up', expect: ALL(201), request: () => ({ path: '/auth/sign-up', body: { email: email(), password: 'correct horse battery', name: 'New' } }) },
  { route: 'POST /auth/sign-in', expect: ALL(200), request: (w) => ({ path: '/auth/sign-in', body: { email: w.people.member.email, password: 'correct horse battery' } }) },
  { route: 'POST /auth/password-reset', expect: ALL(202), request: () => ({ path: '/auth/password-reset', body: { email: email() } }) },
  // An unknown token: the route is reached by everyone, and nobody's password changes.
  {
    route: 'POST /auth/password-reset/confirm',
    expect: ALL(422),
    request: () => ({ path: '/auth/password-reset/confirm', body: { token: randomUUID(), password: 'correct horse battery' } }),
  },
  {
    route: 'POST /auth/sign-out',
    expect: '204 204 204 204 204 204 204 403 403 403 204 401',
    fresh: 'credential',
    request: () => ({ path: '/auth/sign-out' }),
  },

  // --- me, users, tokens ----------------------------------------------------------------------
  { route: 'GET /me', expect: '200 200 200 200 200 200 200 200 200 200 200 401', request: () => ({ path: '/me' }) },
  { route: 'PATCH /me', expect: '200 200 200 200 200 200 200 403 200 200 200 401', request: (_w, c) => ({ path: '/me', body: { name: personOf(c) ?? 'anonymous' } }) },
  {
    // A wrong current password reaches the handler without ending the sessions the other rows use.
    route: 'POST /me/password',
    expect: '422 422 422 422 422 422 422 403 403 403 422 401',
    request: () => ({ path: '/me/password', body: { current_password: 'not the password', new_password: 'another horse battery' } }),
  },
  { route: 'GET /me/preferences', expect: '200 200 200 200 200 200 200 200 200 200 200 401', request: () => ({ path: '/me/preferences' }) },
  { route: 'PATCH /me/preferences', expect: '200 200 200 200 200 200 200 403 200 200 200 401', request: () => ({ path: '/me/preferences', body: { locale: 'en' } }) },
  {
    route: 'PUT /me/avatar',
    expect: '200 200 200 200 200 200 200 403 200 200 200 401',
    request: () => ({ path: '/me/avatar', file: { bytes: PNG, filename: 'a.png', type: 'image/png' } }),
  },
  { route: 'DELETE /me/avatar', expect: '204 204 204 204 204 204 204 403 204 204 204 401', request: () => ({ path: '/me/avatar' }) },
  {
    // Sessions of people who share a workspace with the owner, and instance admins; the outsider shares none with the
    // editor (it does with the member) and gets the 404 of an unknown user; tokens may not (API.md).
    route: 'GET /users/{id}/avatar',
    expect: '200 200 200 200 200 200 200 403 403 403 404 401',
    request: async (w, _c, t) => {
      await t.request.put('/api/v1/me/avatar').set(w.people.editor.auth).attach('file', PNG, { filename: 'a.png', contentType: 'image/png' });
      return { path: `/users/${w.people.editor.id}/avatar` };
    },
  },
  {
    // Only members of the workspace may mint a token for it.
    route: 'POST /me/tokens',
    expect: '422 201 201 201 201 201 201 403 403 403 422 401',
    request: (w) => ({ path: '/me/tokens', body: { name: 'matrix', workspace_id: w.ws } }),
  },
  { route: 'GET /me/tokens', expect: '200 200 200 200 200 200 200 403 403 403 200 401', request: () => ({ path: '/me/tokens' }) },
  {
    // The token is the workspace admin's: only they may revoke it.
    route: 'DELETE /me/tokens/{id}',
    expect: '404 204 404 404 404 404 404 403 403 403 404 401',
    request: async (w, _c, t) => {
      const token = await t.request.post('/api/v1/me/tokens').set(w.people.admin.auth).send({ name: 'doomed', workspace_id: w.ws });
      return { path: `/me/tokens/${token.body.id}` };
    },
  },

  // --- workspaces and members -----------------------------------------------------------------
  { route: 'POST /workspaces', expect: '201 201 201 201 201 201 201 403 403 403 201 401', request: () => ({ path: '/workspaces', body: { name: 'Another' } }) },
  { route: 'GET /workspaces', expect: '200 200 200 200 200 200 200 200 200 200 200 401', request: () => ({ path: '/workspaces' }) },
  { route: 'GET /workspaces/{ws}', expect: '404 200 200 200 200 200 200 200 200 200 404 401', request: (w) => ({ path: `/workspaces/${w.ws}` }) },
  { route: 'PATCH /workspaces/{ws}', expect: '404 200 403 403 403 403 403 403 403 200 404 401', request: (w) => ({ path: `/workspaces/${w.ws}`, body: { name: 'Matrix' } }) },
  { route: 'DELETE /workspaces/{ws}', expect: '404 204 403 403 403 403 403 403 403 204 404 401', fresh: 'world', request: (w) => ({ path: `/workspaces/${w.ws}` }) },
  { route: 'GET /workspaces/{ws}/members', expect: '404 200 200 200 200 403 403 200 200 200 404 401', request: (w) => ({ path: `/workspaces/${w.ws}/members` }) },
  {
    route: 'PATCH /workspaces/{ws}/members/{user_id}',
    expect: '404 200 403 403 403 403 403 403 403 200 404 401',
    request: (w) => ({ path: `/workspaces/${w.ws}/members/${w.people.member.id}`, body: { role: 'member' } }),
    foreign: (w) => ({ path: `/workspaces/${w.ws}/members/${w.people.outsider.id}`, body: { role: 'member' } }),
  },
  {
    // An admin removes anyone; the editor here removes itself (leaves).
    route: 'DELETE /workspaces/{ws}/members/{user_id}',
    expect: '404 204 403 204 403 403 403 403 403 204 404 401',
    fresh: 'world',
    request: (w) => ({ path: `/workspaces/${w.ws}/members/${w.people.editor.id}` }),
    foreign: (w) => ({ path: `/workspaces/${w.ws}/members/${w.people.outsider.id}` }),
  },

  // --- invites and getting started ------------------------------------------------------------
  {
    route: 'POST /workspaces/{ws}/invites',
    expect: '404 201 403 403 403 403 403 403 403 201 404 401',
    request: (w) => ({ path: `/workspaces/${w.ws}/invites`, body: { email: email(), role: 'member' } }),
  },
  { route: 'GET /workspaces/{ws}/invites', expect: '404 200 403 403 403 403 403 403 403 200 404 401', request: (w) => ({ path: `/workspaces/${w.ws}/invites` }) },
  {
    route: 'POST /workspaces/{ws}/invites/{id}/resend',
    expect: '404 200 403 403 403 403 403 403 403 200 404 401',
    request: async (w, _c, t) => ({ path: `/workspaces/${w.ws}/invites/${(await adminCall(t, w, 'post', `/workspaces/${w.ws}/invites`, { email: email(), role: 'editor' })).id}/resend` }),
    foreign: (w) => ({ path: `/workspaces/${w.ws}/invites/${w.foreign.invite}/resend` }),
  },
  {
    route: 'DELETE /workspaces/{ws}/invites/{id}',
    expect: '404 200 403 403 403 403 403 403 403 200 404 401',
    request: async (w, _c, t) => ({ path: `/workspaces/${w.ws}/invites/${(await adminCall(t, w, 'post', `/workspaces/${w.ws}/invites`, { email: email(), role: 'editor' })).id}` }),
    foreign: (w) => ({ path: `/workspaces/${w.ws}/invites/${w.foreign.invite}` }),
  },
  {
    // The invite is addressed to the outsider: only that signed-in person may accept it.
    route: 'POST /invites/{token}/accept',
    expect: '403 403 403 403 403 403 403 403 403 403 200 401',
    fresh: 'world',
    request: async (w, _c, t) => {
      // Callers refused before the outsider share a world: the invite they were refused is pending, and resent for a fresh link.
      const invites = (await t.request.get(`/api/v1/workspaces/${w.ws}/invites`).set(w.people.admin.auth)).body.data as Array<{ id: string; email: string }>;
      const pending = invites.find((i) => i.email === w.people.outsider.email);
      const invite = pending
        ? await adminCall(t, w, 'post', `/workspaces/${w.ws}/invites/${pending.id}/resend`, {})
        : await adminCall(t, w, 'post', `/workspaces/${w.ws}/invites`, { email: w.people.outsider.email, role: 'member' });
      return { path: `/invites/${new URL(invite.accept_url).pathname.split('/').pop()}/accept` };
    },
  },
  { route: 'GET /workspaces/{ws}/getting-started', expect: '404 200 200 200 200 200 200 200 200 200 404 401', request: (w) => ({ path: `/workspaces/${w.ws}/getting-started` }) },
  {
    route: 'PATCH /workspaces/{ws}/getting-started',
    expect: '404 200 200 200 200 200 200 403 200 200 404 401',
    request: (w) => ({ path: `/workspaces/${w.ws}/getting-started`, body: { dismissed: false } }),
  },

  // --- spaces and folders: S was created by `creator`; guest_in may enter S, guest_out only T ---
  {
    route: 'POST /workspaces/{ws}/spaces',
    expect: '404 201 201 403 403 403 403 403 201 201 404 401',
    request: (w) => ({ path: `/workspaces/${w.ws}/spaces`, body: { name: 'New' } }),
  },
  { route: 'GET /workspaces/{ws}/spaces', expect: '404 200 200 200 200 200 200 200 200 200 404 401', request: (w) => ({ path: `/workspaces/${w.ws}/spaces` }) },
  {
    route: 'GET /workspaces/{ws}/spaces/{id}',
    expect: '404 200 200 200 200 200 404 200 200 200 404 401',
    request: (w) => ({ path: `/workspaces/${w.ws}/spaces/${w.spaceS}` }),
    foreign: (w) => ({ path: `/workspaces/${w.ws}/spaces/${w.foreign.space}` }),
  },
  {
    route: 'PATCH /workspaces/{ws}/spaces/{id}',
    expect: '404 200 200 403 403 403 404 403 200 200 404 401',
    request: (w) => ({ path: `/workspaces/${w.ws}/spaces/${w.spaceS}`, body: { name: 'S' } }),
    foreign: (w) => ({ path: `/workspaces/${w.ws}/spaces/${w.foreign.space}`, body: { name: 'S' } }),
  },
  {
    // Its creator or an admin; a write token of the admin acts as at most a creator, and did not create S.
    route: 'DELETE /workspaces/{ws}/spaces/{id}',
    expect: '404 204 204 403 403 403 404 403 403 204 404 401',
    fresh: 'world',
    request: (w) => ({ path: `/workspaces/${w.ws}/spaces/${w.spaceS}` }),
    foreign: (w) => ({ path: `/workspaces/${w.ws}/spaces/${w.foreign.space}` }),
  },
  {
    route: 'POST /workspaces/{ws}/spaces/{id}/folders',
    expect: '404 201 201 403 403 403 404 403 201 201 404 401',
    request: (w) => ({ path: `/workspaces/${w.ws}/spaces/${w.spaceS}/folders`, body: { name: 'Sub', parent_id: w.folderF } }),
    foreign: (w) => ({ path: `/workspaces/${w.ws}/spaces/${w.foreign.space}/folders`, body: { name: 'Sub' } }),
  },
  {
    route: 'GET /workspaces/{ws}/spaces/{id}/folders',
    expect: '404 200 200 200 200 200 404 200 200 200 404 401',
    request: (w) => ({ path: `/workspaces/${w.ws}/spaces/${w.spaceS}/folders` }),
    foreign: (w) => ({ path: `/workspaces/${w.ws}/spaces/${w.foreign.space}/folders` }),
  },
  {
    route: 'PATCH /workspaces/{ws}/folders/{id}',
    expect: '404 200 200 403 403 403 404 403 200 200 404 401',
    request: (w) => ({ path: `/workspaces/${w.ws}/folders/${w.folderF}`, body: { name: 'F' } }),
    foreign: (w) => ({ path: `/workspaces/${w.ws}/folders/${w.foreign.folder}`, body: { name: 'F' } }),
  },
  {
    route: 'DELETE /workspaces/{ws}/folders/{id}',
    expect: '404 204 204 403 403 403 404 403 204 204 404 401',
    fresh: 'world',
    request: (w) => ({ path: `/workspaces/${w.ws}/folders/${w.folderF}` }),
    foreign: (w) => ({ path: `/workspaces/${w.ws}/folders/${w.foreign.folder}` }),
  },

  // --- databases: D lives in S and was created by `creator` ------------------------------------
  {
    // Needs creator on the space: guest_out cannot see S at all, so for it S is no such space.
    route: 'POST /workspaces/{ws}/databases',
    expect: '404 201 201 403 403 403 422 403 201 201 404 401',
    request: (w) => ({ path: `/workspaces/${w.ws}/databases`, body: { name: 'New', space_id: w.spaceS } }),
  },
  { route: 'GET /workspaces/{ws}/databases', expect: '404 200 200 200 200 200 200 200 200 200 404 401', request: (w) => ({ path: `/workspaces/${w.ws}/databases` }) },
  {
    route: 'GET /workspaces/{ws}/databases/{db}',
    expect: '404 200 200 200 200 200 404 200 200 200 404 401',
    request: (w) => ({ path: `/workspaces/${w.ws}/databases/${w.databaseD}` }),
    foreign: (w) => ({ path: `/workspaces/${w.ws}/databases/${w.foreign.database}` }),
  },
  {
    route: 'PATCH /workspaces/{ws}/databases/{db}',
    expect: '404 200 200 403 403 403 404 403 200 200 404 401',
    request: (w) => ({ path: `/workspaces/${w.ws}/databases/${w.databaseD}`, body: { name: 'D' } }),
    foreign: (w) => ({ path: `/workspaces/${w.ws}/databases/${w.foreign.database}`, body: { name: 'D' } }),
  },
  {
    // Its creator or an admin; the admin's write token acts as at most a creator and did not create D.
    route: 'DELETE /workspaces/{ws}/databases/{db}',
    expect: '404 204 204 403 403 403 404 403 403 204 404 401',
    fresh: 'world',
    request: (w) => ({ path: `/workspaces/${w.ws}/databases/${w.databaseD}`, body: { confirm: 'D' } }),
    foreign: (w) => ({ path: `/workspaces/${w.ws}/databases/${w.foreign.database}`, body: { confirm: 'Theirs' } }),
  },

  // --- fields of D: `notes` is a text field created by `creator` ------------------------------
  {
    route: 'GET /workspaces/{ws}/databases/{db}/fields',
    expect: '404 200 200 200 200 200 404 200 200 200 404 401',
    request: (w) => ({ path: `/workspaces/${w.ws}/databases/${w.databaseD}/fields` }),
    foreign: (w) => ({ path: `/workspaces/${w.ws}/databases/${w.foreign.database}/fields` }),
  },
  {
    route: 'POST /workspaces/{ws}/databases/{db}/fields',
    expect: '404 201 201 403 403 403 404 403 201 201 404 401',
    request: (w) => ({ path: `/workspaces/${w.ws}/databases/${w.databaseD}/fields`, body: { name: `Field ${unique++}`, type: 'number' } }),
    foreign: (w) => ({ path: `/workspaces/${w.ws}/databases/${w.foreign.database}/fields`, body: { name: 'X', type: 'text' } }),
  },
  {
    route: 'GET /workspaces/{ws}/databases/{db}/fields/{field}',
    expect: '404 200 200 200 200 200 404 200 200 200 404 401',
    request: (w) => ({ path: `/workspaces/${w.ws}/databases/${w.databaseD}/fields/notes` }),
    foreign: (w) => ({ path: `/workspaces/${w.ws}/databases/${w.foreign.database}/fields/name` }),
  },
  {
    route: 'PATCH /workspaces/{ws}/databases/{db}/fields/{field}',
    expect: '404 200 200 403 403 403 404 403 200 200 404 401',
    request: (w) => ({ path: `/workspaces/${w.ws}/databases/${w.databaseD}/fields/notes`, body: { name: 'Notes' } }),
    foreign: (w) => ({ path: `/workspaces/${w.ws}/databases/${w.foreign.database}/fields/name`, body: { name: 'Name' } }),
  },
  {
    route: 'DELETE /workspaces/{ws}/databases/{db}/fields/{field}',
    expect: '404 200 200 403 403 403 404 403 200 200 404 401',
    request: async (w, _c, t) => {
      const field = await creatorCall(t, w, `/workspaces/${w.ws}/databases/${w.databaseD}/fields`, { name: `Doomed ${unique++}`, type: 'text' });
      return { path: `/workspaces/${w.ws}/databases/${w.databaseD}/fields/${field.id}` };
    },
    foreign: (w) => ({ path: `/workspaces/${w.ws}/databases/${w.foreign.database}/fields/name` }),
  },
  {
    route: 'POST /workspaces/{ws}/databases/{db}/fields/{field}/restore',
    expect: '404 200 200 403 403 403 404 403 200 200 404 401',
    request: async (w, _c, t) => {
      const base = `/workspaces/${w.ws}/databases/${w.databaseD}/fields`;
      const field = await creatorCall(t, w, base, { name: `Restorable ${unique++}`, type: 'text' });
      await t.request.delete(`/api/v1${base}/${field.id}`).set(w.people.creator.auth).expect(200);
      return { path: `${base}/${field.id}/restore` };
    },
    foreign: (w) => ({ path: `/workspaces/${w.ws}/databases/${w.foreign.database}/fields/name/restore` }),
  },

  {
    // A dry run: it reports and changes nothing, so every caller meets the same field.
    route: 'POST /workspaces/{ws}/databases/{db}/fields/{field}/convert',
    expect: '404 200 200 403 403 403 404 403 200 200 404 401',
    request: (w) => ({ path: `/workspaces/${w.ws}/databases/${w.databaseD}/fields/notes/convert`, body: { type: 'long_text', dry_run: true } }),
    foreign: (w) => ({ path: `/workspaces/${w.ws}/databases/${w.foreign.database}/fields/name/convert`, body: { type: 'long_text', dry_run: true } }),
  },
  {
    route: 'POST /workspaces/{ws}/databases/{db}/fields/{field}/options',
    expect: '404 201 201 403 403 403 404 403 201 201 404 401',
    request: (w) => ({ path: `/workspaces/${w.ws}/databases/${w.databaseD}/fields/stage/options`, body: { label: `Choice ${unique++}` } }),
  },
  {
    route: 'PATCH /workspaces/{ws}/databases/{db}/fields/{field}/options/{option_id}',
    expect: '404 200 200 403 403 403 404 403 200 200 404 401',
    request: (w) => ({ path: `/workspaces/${w.ws}/databases/${w.databaseD}/fields/stage/options/${w.optionOpen}`, body: { color: 'blue' } }),
  },
  {
    route: 'DELETE /workspaces/{ws}/databases/{db}/fields/{field}/options/{option_id}',
    expect: '404 204 204 403 403 403 404 403 204 204 404 401',
    request: async (w, _c, t) => {
      const base = `/workspaces/${w.ws}/databases/${w.databaseD}/fields/stage/options`;
      const option = await creatorCall(t, w, base, { label: `Doomed ${unique++}` });
      return { path: `${base}/${option.id}` };
    },
  },

  // --- records of D: writers are editors (creator's PAT cap included), readers members --------
  {
    route: 'POST /workspaces/{ws}/databases/{db}/records',
    expect: '404 201 201 201 403 403 404 403 201 201 404 401',
    request: (w) => ({ path: `/workspaces/${w.ws}/databases/${w.databaseD}/records`, body: { values: { name: `Row ${unique++}` } } }),
    foreign: (w) => ({ path: `/workspaces/${w.ws}/databases/${w.foreign.database}/records`, body: { values: { name: 'X' } } }),
  },
  {
    route: 'GET /workspaces/{ws}/databases/{db}/records',
    expect: '404 200 200 200 200 200 404 200 200 200 404 401',
    request: (w) => ({ path: `/workspaces/${w.ws}/databases/${w.databaseD}/records` }),
    foreign: (w) => ({ path: `/workspaces/${w.ws}/databases/${w.foreign.database}/records` }),
  },
  {
    route: 'POST /workspaces/{ws}/databases/{db}/records/query',
    expect: '404 200 200 200 200 200 404 200 200 200 404 401',
    request: (w) => ({ path: `/workspaces/${w.ws}/databases/${w.databaseD}/records/query`, body: { filter: { field: 'name', op: 'is_not_empty' }, sorts: [{ field: 'name' }] } }),
    foreign: (w) => ({ path: `/workspaces/${w.ws}/databases/${w.foreign.database}/records/query`, body: {} }),
  },
  {
    route: 'GET /workspaces/{ws}/databases/{db}/records/by-number/{n}',
    expect: '404 200 200 200 200 200 404 200 200 200 404 401',
    request: async (w, _c, t) => {
      const record = await creatorCall(t, w, `/workspaces/${w.ws}/databases/${w.databaseD}/records`, { values: { name: 'By number' } });
      return { path: `/workspaces/${w.ws}/databases/${w.databaseD}/records/by-number/${record.number}` };
    },
    foreign: (w) => ({ path: `/workspaces/${w.ws}/databases/${w.foreign.database}/records/by-number/1` }),
  },
  {
    route: 'GET /workspaces/{ws}/databases/{db}/records/{id}',
    expect: '404 200 200 200 200 200 404 200 200 200 404 401',
    request: async (w, _c, t) => {
      const record = await creatorCall(t, w, `/workspaces/${w.ws}/databases/${w.databaseD}/records`, { values: { name: 'Read me' } });
      return { path: `/workspaces/${w.ws}/databases/${w.databaseD}/records/${record.id}` };
    },
    foreign: (w) => ({ path: `/workspaces/${w.ws}/databases/${w.foreign.database}/records/${randomUUID()}` }),
  },
  {
    route: 'PATCH /workspaces/{ws}/databases/{db}/records/{id}',
    expect: '404 200 200 200 403 403 404 403 200 200 404 401',
    request: async (w, _c, t) => {
      const record = await creatorCall(t, w, `/workspaces/${w.ws}/databases/${w.databaseD}/records`, { values: { name: 'Edit me' } });
      return { path: `/workspaces/${w.ws}/databases/${w.databaseD}/records/${record.id}`, body: { values: { notes: 'edited' } } };
    },
    foreign: (w) => ({ path: `/workspaces/${w.ws}/databases/${w.foreign.database}/records/${randomUUID()}`, body: { values: { name: 'X' } } }),
  },
  {
    route: 'DELETE /workspaces/{ws}/databases/{db}/records/{id}',
    expect: '404 204 204 204 403 403 404 403 204 204 404 401',
    request: async (w, _c, t) => {
      const record = await creatorCall(t, w, `/workspaces/${w.ws}/databases/${w.databaseD}/records`, { values: { name: 'Doomed' } });
      return { path: `/workspaces/${w.ws}/databases/${w.databaseD}/records/${record.id}` };
    },
    foreign: (w) => ({ path: `/workspaces/${w.ws}/databases/${w.foreign.database}/records/${randomUUID()}` }),
  },

  {
    route: 'PATCH /workspaces/{ws}/databases/{db}/records',
    expect: '404 200 200 200 403 403 404 403 200 200 404 401',
    request: async (w, _c, t) => {
      const record = await creatorCall(t, w, `/workspaces/${w.ws}/databases/${w.databaseD}/records`, { values: { name: 'Batch edit me' } });
      return { path: `/workspaces/${w.ws}/databases/${w.databaseD}/records`, body: { records: [{ id: record.id, values: { notes: 'edited' } }] } };
    },
    foreign: (w) => ({ path: `/workspaces/${w.ws}/databases/${w.foreign.database}/records`, body: { records: [{ id: randomUUID(), values: { name: 'X' } }] } }),
  },
  {
    route: 'POST /workspaces/{ws}/databases/{db}/records/delete',
    expect: '404 200 200 200 403 403 404 403 200 200 404 401',
    request: async (w, _c, t) => {
      const record = await creatorCall(t, w, `/workspaces/${w.ws}/databases/${w.databaseD}/records`, { values: { name: 'Batch doomed' } });
      return { path: `/workspaces/${w.ws}/databases/${w.databaseD}/records/delete`, body: { ids: [record.id] } };
    },
    foreign: (w) => ({ path: `/workspaces/${w.ws}/databases/${w.foreign.database}/records/delete`, body: { ids: [randomUUID()] } }),
  },
  {
    route: 'POST /workspaces/{ws}/databases/{db}/records/restore',
    expect: '404 200 200 200 403 403 404 403 200 200 404 401',
    request: async (w, _c, t) => {
      const base = `/workspaces/${w.ws}/databases/${w.databaseD}/records`;
      const record = await creatorCall(t, w, base, { values: { name: 'Restore me' } });
      await creatorCall(t, w, `${base}/delete`, { ids: [record.id] });
      return { path: `${base}/restore`, body: { ids: [record.id] } };
    },
    foreign: (w) => ({ path: `/workspaces/${w.ws}/databases/${w.foreign.database}/records/restore`, body: { ids: [randomUUID()] } }),
  },
  {
    route: 'POST /workspaces/{ws}/databases/{db}/records/{id}/duplicate',
    expect: '404 201 201 201 403 403 404 403 201 201 404 401',
    request: async (w, _c, t) => {
      const record = await creatorCall(t, w, `/workspaces/${w.ws}/databases/${w.databaseD}/records`, { values: { name: 'Copy me' } });
      return { path: `/workspaces/${w.ws}/databases/${w.databaseD}/records/${record.id}/duplicate` };
    },
    foreign: (w) => ({ path: `/workspaces/${w.ws}/databases/${w.foreign.database}/records/${randomUUID()}/duplicate` }),
  },
  {
    route: 'POST /workspaces/{ws}/databases/{db}/records/{id}/move',
    expect: '404 200 200 200 403 403 404 403 200 200 404 401',
    request: async (w, _c, t) => {
      const record = await creatorCall(t, w, `/workspaces/${w.ws}/databases/${w.databaseD}/records`, { values: { name: 'Move me' } });
      return { path: `/workspaces/${w.ws}/databases/${w.databaseD}/records/${record.id}/move`, body: {} };
    },
    foreign: (w) => ({ path: `/workspaces/${w.ws}/databases/${w.foreign.database}/records/${randomUUID()}/move`, body: {} }),
  },
  // Watching is the caller's own subscription: readers may, read tokens included. A record per call,
  // so that each caller (the tokens are all the admin's) watches it for the first time.
  {
    route: 'PUT /workspaces/{ws}/databases/{db}/records/{id}/watch',
    expect: '404 201 201 201 201 201 404 403 201 201 404 401',
    request: async (w, _c, t) => {
      const record = await creatorCall(t, w, `/workspaces/${w.ws}/databases/${w.databaseD}/records`, { values: { name: 'Watch me' } });
      return { path: `/workspaces/${w.ws}/databases/${w.databaseD}/records/${record.id}/watch` };
    },
    foreign: (w) => ({ path: `/workspaces/${w.ws}/databases/${w.foreign.database}/records/${randomUUID()}/watch` }),
  },
  {
    route: 'DELETE /workspaces/{ws}/databases/{db}/records/{id}/watch',
    expect: '404 204 204 204 204 204 404 403 204 204 404 401',
    request: async (w, caller, t) => {
      const record = await creatorCall(t, w, `/workspaces/${w.ws}/databases/${w.databaseD}/records`, { values: { name: 'Unwatch me' } });
      const person = personOf(caller);
      if (person) await t.db('record_watchers').insert({ workspace_id: w.ws, database_id: w.databaseD, record_id: record.id, user_id: w.people[person].id });
      return { path: `/workspaces/${w.ws}/databases/${w.databaseD}/records/${record.id}/watch` };
    },
    foreign: (w) => ({ path: `/workspaces/${w.ws}/databases/${w.foreign.database}/records/${randomUUID()}/watch` }),
  },
  {
    route: 'GET /workspaces/{ws}/databases/{db}/records/{id}/watchers',
    expect: '404 200 200 200 200 200 404 200 200 200 404 401',
    request: async (w, _c, t) => {
      const record = await creatorCall(t, w, `/workspaces/${w.ws}/databases/${w.databaseD}/records`, { values: { name: 'Watched' } });
      return { path: `/workspaces/${w.ws}/databases/${w.databaseD}/records/${record.id}/watchers` };
    },
    foreign: (w) => ({ path: `/workspaces/${w.ws}/databases/${w.foreign.database}/records/${randomUUID()}/watchers` }),
  },
  {
    route: 'GET /workspaces/{ws}/databases/{db}/trash',
    expect: '404 200 200 200 200 200 404 200 200 200 404 401',
    request: (w) => ({ path: `/workspaces/${w.ws}/databases/${w.databaseD}/trash` }),
    foreign: (w) => ({ path: `/workspaces/${w.ws}/databases/${w.foreign.database}/trash` }),
  },

  // --- views of D: reading and one's own override need `member`; designing needs `creator` ---
  { route: 'GET /workspaces/{ws}/databases/{db}/views', expect: '404 200 200 200 200 200 404 200 200 200 404 401', request: (w) => ({ path: views(w) }), foreign: (w) => ({ path: views(w, w.foreign.database) }) },
  {
    route: 'POST /workspaces/{ws}/databases/{db}/views',
    expect: '404 201 201 403 403 403 404 403 201 201 404 401',
    request: (w) => ({ path: views(w), body: { name: `View ${unique++}`, type: 'grid' } }),
    foreign: (w) => ({ path: views(w, w.foreign.database), body: { name: 'X', type: 'grid' } }),
  },
  {
    route: 'GET /workspaces/{ws}/databases/{db}/views/{view}',
    expect: '404 200 200 200 200 200 404 200 200 200 404 401',
    request: async (w, _c, t) => ({ path: `${views(w)}/${await defaultView(t, w)}` }),
    foreign: (w) => ({ path: `${views(w, w.foreign.database)}/${randomUUID()}` }),
  },
  {
    route: 'PATCH /workspaces/{ws}/databases/{db}/views/{view}',
    expect: '404 200 200 403 403 403 404 403 200 200 404 401',
    request: async (w, _c, t) => ({ path: `${views(w)}/${await defaultView(t, w)}`, body: { name: 'Grid' } }),
    foreign: (w) => ({ path: `${views(w, w.foreign.database)}/${randomUUID()}`, body: { name: 'Grid' } }),
  },
  {
    route: 'DELETE /workspaces/{ws}/databases/{db}/views/{view}',
    expect: '404 204 204 403 403 403 404 403 204 204 404 401',
    request: async (w, _c, t) => ({ path: `${views(w)}/${(await creatorCall(t, w, views(w), { name: `Doomed ${unique++}`, type: 'grid' })).id}` }),
    foreign: (w) => ({ path: `${views(w, w.foreign.database)}/${randomUUID()}` }),
  },
  {
    route: 'GET /workspaces/{ws}/databases/{db}/views/{view}/overrides',
    expect: '404 200 200 200 200 200 404 200 200 200 404 401',
    request: async (w, _c, t) => ({ path: `${views(w)}/${await defaultView(t, w)}/overrides` }),
    foreign: (w) => ({ path: `${views(w, w.foreign.database)}/${randomUUID()}/overrides` }),
  },
  {
    route: 'PUT /workspaces/{ws}/databases/{db}/views/{view}/overrides',
    expect: '404 200 200 200 200 200 404 403 200 200 404 401',
    request: async (w, _c, t) => ({ path: `${views(w)}/${await defaultView(t, w)}/overrides`, body: { sorts: [{ field: 'name' }] } }),
    foreign: (w) => ({ path: `${views(w, w.foreign.database)}/${randomUUID()}/overrides`, body: {} }),
  },
  {
    route: 'DELETE /workspaces/{ws}/databases/{db}/views/{view}/overrides',
    expect: '404 204 204 204 204 204 404 403 204 204 404 401',
    request: async (w, _c, t) => ({ path: `${views(w)}/${await defaultView(t, w)}/overrides` }),
    foreign: (w) => ({ path: `${views(w, w.foreign.database)}/${randomUUID()}/overrides` }),
  },
  {
    route: 'POST /workspaces/{ws}/databases/{db}/views/{view}/publish',
    expect: '404 201 201 403 403 403 404 403 201 201 404 401',
    request: async (w, _c, t) => ({ path: `${views(w)}/${(await creatorCall(t, w, views(w), { name: `Form ${unique++}`, type: 'form' })).id}/publish` }),
    foreign: (w) => ({ path: `${views(w, w.foreign.database)}/${randomUUID()}/publish` }),
  },
  {
    route: 'DELETE /workspaces/{ws}/databases/{db}/views/{view}/publish',
    expect: '404 204 204 403 403 403 404 403 204 204 404 401',
    request: async (w, _c, t) => ({ path: `${views(w)}/${(await creatorCall(t, w, views(w), { name: `Form ${unique++}`, type: 'form' })).id}/publish` }),
    foreign: (w) => ({ path: `${views(w, w.foreign.database)}/${randomUUID()}/publish` }),
  },

  // --- relations (a self-relation of D) and links: relating needs `creator` on both databases ---
  {
    route: 'POST /workspaces/{ws}/relations',
    expect: '404 201 201 403 403 403 422 403 201 201 404 401',
    request: (w) => ({ path: `/workspaces/${w.ws}/relations`, body: selfRelation(w) }),
  },
  { route: 'GET /workspaces/{ws}/relations', expect: '404 200 200 200 200 200 200 200 200 200 404 401', request: (w) => ({ path: `/workspaces/${w.ws}/relations` }) },
  {
    route: 'GET /workspaces/{ws}/relations/{id}',
    expect: '404 200 200 200 200 200 404 200 200 200 404 401',
    request: async (w, _c, t) => ({ path: `/workspaces/${w.ws}/relations/${(await linkOf(t, w)).relation}` }),
    foreign: (w) => ({ path: `/workspaces/${w.ws}/relations/${randomUUID()}` }),
  },
  {
    route: 'DELETE /workspaces/{ws}/relations/{id}',
    expect: '404 204 204 403 403 403 404 403 204 204 404 401',
    request: async (w, _c, t) => ({ path: `/workspaces/${w.ws}/relations/${(await creatorCall(t, w, `/workspaces/${w.ws}/relations`, selfRelation(w))).id}`, body: { confirm: true } }),
    foreign: (w) => ({ path: `/workspaces/${w.ws}/relations/${randomUUID()}`, body: { confirm: true } }),
  },
  {
    route: 'POST /workspaces/{ws}/databases/{db}/records/{id}/links/{field}',
    expect: '404 200 200 200 403 403 404 403 200 200 404 401',
    request: async (w, _c, t) => {
      const link = await linkOf(t, w);
      return { path: `/workspaces/${w.ws}/databases/${w.databaseD}/records/${link.record}/links/${link.field}`, body: { record_ids: [link.target] } };
    },
    foreign: (w) => ({ path: `/workspaces/${w.ws}/databases/${w.foreign.database}/records/${randomUUID()}/links/x`, body: { record_ids: [randomUUID()] } }),
  },
  {
    route: 'DELETE /workspaces/{ws}/databases/{db}/records/{id}/links/{field}/{target_id}',
    expect: '404 204 204 204 403 403 404 403 204 204 404 401',
    request: async (w, _c, t) => {
      const link = await linkOf(t, w);
      return { path: `/workspaces/${w.ws}/databases/${w.databaseD}/records/${link.record}/links/${link.field}/${link.target}` };
    },
    foreign: (w) => ({ path: `/workspaces/${w.ws}/databases/${w.foreign.database}/records/${randomUUID()}/links/x/${randomUUID()}` }),
  },

  // Auto-link rules change like relations (creator on both); drift is read by whoever sees both; bulk link writes D (editor).
  {
    route: 'POST /workspaces/{ws}/relations/{id}/auto-link-rules',
    expect: '404 201 201 403 403 403 404 403 201 201 404 401',
    // A relation per call: the same rule twice is a 409.
    request: async (w, _c, t) => ({ path: rulesOf(w, (await creatorCall(t, w, `/workspaces/${w.ws}/relations`, selfRelation(w))).id), body: { from_field_id: 'name', to_field_id: 'notes' } }),
    foreign: (w) => ({ path: rulesOf(w, randomUUID()), body: { from_field_id: 'name', to_field_id: 'notes' } }),
  },
  {
    route: 'GET /workspaces/{ws}/relations/{id}/auto-link-rules',
    expect: '404 200 200 200 200 200 404 200 200 200 404 401',
    request: async (w, _c, t) => ({ path: rulesOf(w, (await linkOf(t, w)).relation) }),
    foreign: (w) => ({ path: rulesOf(w, randomUUID()) }),
  },
  {
    route: 'DELETE /workspaces/{ws}/relations/{id}/auto-link-rules',
    expect: '404 204 204 403 403 403 404 403 204 204 404 401',
    request: async (w, _c, t) => ({ path: rulesOf(w, (await linkOf(t, w)).relation) }),
    foreign: (w) => ({ path: rulesOf(w, randomUUID()) }),
  },
  {
    route: 'DELETE /workspaces/{ws}/relations/{id}/auto-link-rules/{rule}',
    expect: '404 204 204 403 403 403 404 403 204 204 404 401',
    request: async (w, _c, t) => {
      const relation = (await creatorCall(t, w, `/workspaces/${w.ws}/relations`, selfRelation(w))).id;
      const rule = await creatorCall(t, w, rulesOf(w, relation), { from_field_id: 'name', to_field_id: 'notes', backfill: false });
      return { path: `${rulesOf(w, relation)}/${rule.id}` };
    },
    foreign: (w) => ({ path: `${rulesOf(w, randomUUID())}/${randomUUID()}` }),
  },
  {
    route: 'GET /workspaces/{ws}/relations/{id}/drift',
    expect: '404 200 200 200 200 200 404 200 200 200 404 401',
    request: async (w, _c, t) => ({ path: `/workspaces/${w.ws}/relations/${(await linkOf(t, w)).relation}/drift`, query: { field_id: 'stage' } }),
    foreign: (w) => ({ path: `/workspaces/${w.ws}/relations/${randomUUID()}/drift`, query: { field_id: 'stage' } }),
  },
  {
    route: 'POST /workspaces/{ws}/relations/{id}/bulk-link',
    expect: '404 200 200 200 403 403 404 403 200 200 404 401',
    request: async (w, _c, t) => ({ path: `/workspaces/${w.ws}/relations/${(await linkOf(t, w)).relation}/bulk-link`, body: { field_id: 'stage' } }),
    foreign: (w) => ({ path: `/workspaces/${w.ws}/relations/${randomUUID()}/bulk-link`, body: { field_id: 'stage' } }),
  },

  // --- favorites: the caller's own; whoever sees the target may star it; read tokens only list ---
  { route: 'GET /workspaces/{ws}/favorites', expect: '404 200 200 200 200 200 200 200 200 200 404 401', request: (w) => ({ path: `/workspaces/${w.ws}/favorites` }) },
  {
    // A record per call, so that each caller (the tokens are all the admin's) stars it for the first time.
    route: 'PUT /workspaces/{ws}/favorites',
    expect: '404 201 201 201 201 201 404 403 201 201 404 401',
    request: async (w, _c, t) => {
      const record = await creatorCall(t, w, `/workspaces/${w.ws}/databases/${w.databaseD}/records`, { values: { name: 'Star me' } });
      return { path: `/workspaces/${w.ws}/favorites`, body: { target_type: 'record', target_id: record.id } };
    },
    foreign: (w) => ({ path: `/workspaces/${w.ws}/favorites`, body: { target_type: 'database', target_id: w.foreign.database } }),
  },
  {
    route: 'GET /workspaces/{ws}/favorites/{id}',
    expect: '404 200 200 200 200 200 404 200 200 200 404 401',
    request: async (w, caller, t) => ({ path: `/workspaces/${w.ws}/favorites/${await favoriteOf(t, w, caller)}` }),
    foreign: (w) => ({ path: `/workspaces/${w.ws}/favorites/${randomUUID()}` }),
  },
  {
    // Unstarring one's own favorite is allowed even when its target is hidden from one (guest_out).
    route: 'DELETE /workspaces/{ws}/favorites/{id}',
    expect: '404 204 204 204 204 204 204 403 204 204 404 401',
    request: async (w, caller, t) => ({ path: `/workspaces/${w.ws}/favorites/${await favoriteOf(t, w, caller)}` }),
    foreign: (w) => ({ path: `/workspaces/${w.ws}/favorites/${randomUUID()}` }),
  },

  // --- access grants --------------------------------------------------------------------------
  { route: 'GET /workspaces/{ws}/access', expect: '404 200 403 403 403 403 403 403 403 200 404 401', request: (w) => ({ path: `/workspaces/${w.ws}/access` }) },
  {
    route: 'PUT /workspaces/{ws}/access',
    expect: '404 201 403 403 403 403 403 403 403 201 404 401',
    fresh: 'world',
    request: (w) => ({ path: `/workspaces/${w.ws}/access`, body: { scope_type: 'space', scope_id: w.spaceS, user_id: w.people.member.id, role: 'editor' } }),
  },
  {
    route: 'DELETE /workspaces/{ws}/access/{id}',
    expect: '404 204 403 403 403 403 403 403 403 204 404 401',
    request: async (w, _c, t) => {
      const grant = await adminCall(t, w, 'put', `/workspaces/${w.ws}/access`, { scope_type: 'space', scope_id: w.spaceT, user_id: w.people.member.id, role: 'editor' });
      return { path: `/workspaces/${w.ws}/access/${grant.id}` };
    },
    foreign: (w) => ({ path: `/workspaces/${w.ws}/access/${w.foreign.grant}` }),
  },

  // --- instance administration: a session of the instance admin only -------------------------
  { route: 'GET /admin/plugins', expect: '200 403 403 403 403 403 403 403 403 403 403 401', request: () => ({ path: '/admin/plugins' }) },
  { route: 'GET /admin/users', expect: '200 403 403 403 403 403 403 403 403 403 403 401', request: () => ({ path: '/admin/users' }) },
  { route: 'GET /admin/users/{id}', expect: '200 403 403 403 403 403 403 403 403 403 403 401', request: (w) => ({ path: `/admin/users/${w.people.member.id}` }) },
  {
    route: 'PATCH /admin/users/{id}',
    expect: '200 403 403 403 403 403 403 403 403 403 403 401',
    request: (w) => ({ path: `/admin/users/${w.people.member.id}`, body: { name: 'member' } }),
  },
  {
    // A user of its own each time: the reset signs its target out everywhere.
    route: 'POST /admin/users/{id}/password-reset',
    expect: '202 403 403 403 403 403 403 403 403 403 403 401',
    request: async (_w, _c, t) => ({ path: `/admin/users/${(await signUp(t)).id}/password-reset` }),
  },
  { route: 'GET /admin/workspaces', expect: '200 403 403 403 403 403 403 403 403 403 403 401', request: () => ({ path: '/admin/workspaces' }) },
  { route: 'GET /admin/workspaces/{id}', expect: '200 403 403 403 403 403 403 403 403 403 403 401', request: (w) => ({ path: `/admin/workspaces/${w.ws}` }) },
  { route: 'GET /admin/stats', expect: '200 403 403 403 403 403 403 403 403 403 403 401', request: () => ({ path: '/admin/stats' }) },
  { route: 'GET /admin/mail/outbox', expect: '200 403 403 403 403 403 403 403 403 403 403 401', request: () => ({ path: '/admin/mail/outbox' }) },

  // --- referrals ------------------------------------------------------------------------------
  { route: 'GET /referrals/me', expect: '200 200 200 200 200 200 200 200 200 200 200 401', request: () => ({ path: '/referrals/me' }) },
  {
    route: 'POST /referrals/attribute',
    expect: '200 200 200 200 200 200 200 403 200 200 200 401',
    request: () => ({ path: '/referrals/attribute', body: { code: `NOPE${randomUUID().slice(0, 8)}` } }),
  },
];

