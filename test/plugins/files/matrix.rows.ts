import type { MatrixRow, SignedUpUser, TestKernel, World } from '../../../core/testing.ts';

/**
 * The files plugin's rows of the authorization matrix. Statuses follow the callers' order:
 * root admin creator editor member guest_in guest_out pat_read pat_write pat_admin outsider anonymous.
 */
export const plugin = 'files';

/** A 1×1 PNG. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
const file = { bytes: PNG, filename: 'dot.png', type: 'image/png' };

const files = (ws: string) => `/workspaces/${ws}/files`;

/** A new file of `ws` uploaded by `by` (the workspace's admin unless said): each caller acts on one of its own. */
async function uploaded(t: TestKernel, ws: string, by: SignedUpUser): Promise<string> {
  const res = await t.request.post(`/api/v1${files(ws)}`).set(by.auth).attach('file', PNG, { filename: 'dot.png', contentType: 'image/png' });
  if (res.status !== 201) throw new Error(`upload failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.id;
}

const ours = async (w: World, t: TestKernel) => `${files(w.ws)}/${await uploaded(t, w.ws, w.people.admin)}`;
/** A file of the outsider's workspace, named under this one. */
const theirs = async (w: World, t: TestKernel) => `${files(w.ws)}/${await uploaded(t, w.otherWs, w.people.outsider)}`;

export const rows: MatrixRow[] = [
  {
    // Editors and up upload; a guest sees the workspace but holds no role in it (403).
    route: 'POST /workspaces/{ws}/files',
    expect: '404 201 201 201 403 403 403 403 201 201 404 401',
    request: (w) => ({ path: files(w.ws), file }),
  },
  {
    // Files belong to the workspace, not to a space: guests do not see them.
    route: 'GET /workspaces/{ws}/files/{id}',
    expect: '404 200 200 200 200 404 404 200 200 200 404 401',
    request: async (w, _c, t) => ({ path: await ours(w, t) }),
    foreign: async (w, t) => ({ path: await theirs(w, t) }),
  },
  {
    route: 'GET /workspaces/{ws}/files/{id}/content',
    expect: '404 200 200 200 200 404 404 200 200 200 404 401',
    request: async (w, _c, t) => ({ path: `${await ours(w, t)}/content` }),
    foreign: async (w, t) => ({ path: `${await theirs(w, t)}/content` }),
  },
  {
    route: 'POST /workspaces/{ws}/files/{id}/signed-url',
    expect: '404 201 201 201 201 404 404 403 201 201 404 401',
    request: async (w, _c, t) => ({ path: `${await ours(w, t)}/signed-url`, body: { expires_in: 60 } }),
    foreign: async (w, t) => ({ path: `${await theirs(w, t)}/signed-url`, body: { expires_in: 60 } }),
  },
  {
    // The admin uploaded it: a creator may revoke it, an editor may not; the admin's write token may (its own upload).
    route: 'POST /workspaces/{ws}/files/{id}/revoke',
    expect: '404 200 200 403 403 404 404 403 200 200 404 401',
    request: async (w, _c, t) => ({ path: `${await ours(w, t)}/revoke` }),
    foreign: async (w, t) => ({ path: `${await theirs(w, t)}/revoke` }),
  },
  {
    // The link is the credential: whoever holds it, signed in or not.
    route: 'GET /files/signed/{token}',
    expect: '200 200 200 200 200 200 200 200 200 200 200 200',
    request: async (w, _c, t) => {
      const id = await uploaded(t, w.ws, w.people.admin);
      const res = await t.request.post(`/api/v1${files(w.ws)}/${id}/signed-url`).set(w.people.member.auth).send({});
      if (res.status !== 201) throw new Error(`minting failed: ${res.status} ${JSON.stringify(res.body)}`);
      return { path: new URL(res.body.url).pathname.replace('/api/v1', '') };
    },
  },
];
