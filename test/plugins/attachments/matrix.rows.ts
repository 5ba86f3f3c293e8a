import { randomUUID } from 'node:crypto';
import { perWorld, type MatrixRow, type TestKernel, type World } from '../../../core/testing.ts';

/**
 * The attachments plugin's rows of the authorization matrix. Statuses follow the callers' order:
 * root admin creator editor member guest_in guest_out pat_read pat_write pat_admin outsider anonymous.
 * Readers of the database read its files; editors (and write tokens) upload and delete them.
 */
export const plugin = 'attachments';

/** 1×1 PNG. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
const file = { bytes: PNG, filename: 'dot.png', type: 'image/png' };

/** A database of S (made by its creator) with an attachment field, one per world. */
const filesDatabase = perWorld(async (t: TestKernel, w: World): Promise<string> => {
  const auth = w.people.creator.auth;
  const db = await t.request.post(`/api/v1/workspaces/${w.ws}/databases`).set(auth).send({ name: 'Attachments matrix', space_id: w.spaceS });
  if (db.status !== 201) throw new Error(`database: ${db.status} ${JSON.stringify(db.body)}`);
  const field = await t.request.post(`/api/v1/workspaces/${w.ws}/databases/${db.body.id}/fields`).set(auth).send({ name: 'Files', type: 'attachment' });
  if (field.status !== 201) throw new Error(`field: ${field.status} ${JSON.stringify(field.body)}`);
  return db.body.id as string;
});

const records = (w: World, db: string) => `/workspaces/${w.ws}/databases/${db}/records`;

async function newRecord(t: TestKernel, w: World): Promise<{ db: string; record: string }> {
  const db = await filesDatabase(t, w);
  const res = await t.request.post(`/api/v1${records(w, db)}`).set(w.people.creator.auth).send({ values: { name: 'With files' } });
  if (res.status !== 201) throw new Error(`record: ${res.status} ${JSON.stringify(res.body)}`);
  return { db, record: res.body.id };
}

/** `R/{id}/attachments/{aid}` of a new attachment on a new record, uploaded by the creator. */
async function newAttachment(t: TestKernel, w: World): Promise<string> {
  const { db, record } = await newRecord(t, w);
  const path = `${records(w, db)}/${record}/attachments`;
  const res = await t.request.post(`/api/v1${path}`).set(w.people.creator.auth).attach('file', PNG, { filename: 'dot.png', contentType: 'image/png' });
  if (res.status !== 201) throw new Error(`upload: ${res.status} ${JSON.stringify(res.body)}`);
  return `${path}/${res.body.id}`;
}

const foreignAttachment = (w: World) => `${records(w, w.foreign.database)}/${randomUUID()}/attachments/${randomUUID()}`;

/** Read by every caller of the read-only rows: made once per world. */
const readAttachment = perWorld(newAttachment);

export const rows: MatrixRow[] = [
  {
    route: 'POST /workspaces/{ws}/databases/{db}/records/{id}/attachments',
    expect: '404 201 201 201 403 403 404 403 201 201 404 401',
    request: async (w, _c, t) => {
      const { db, record } = await newRecord(t, w);
      return { path: `${records(w, db)}/${record}/attachments`, file };
    },
    foreign: (w) => ({ path: `${records(w, w.foreign.database)}/${randomUUID()}/attachments`, file }),
  },
  {
    route: 'GET /workspaces/{ws}/databases/{db}/records/{id}/attachments/{aid}',
    expect: '404 200 200 200 200 200 404 200 200 200 404 401',
    request: async (w, _c, t) => ({ path: await readAttachment(t, w) }),
    foreign: (w) => ({ path: foreignAttachment(w) }),
  },
  {
    route: 'DELETE /workspaces/{ws}/databases/{db}/records/{id}/attachments/{aid}',
    expect: '404 204 204 204 403 403 404 403 204 204 404 401',
    request: async (w, _c, t) => ({ path: await newAttachment(t, w) }),
    foreign: (w) => ({ path: foreignAttachment(w) }),
  },
  {
    route: 'GET /workspaces/{ws}/databases/{db}/records/{id}/attachments/{aid}/content',
    expect: '404 200 200 200 200 200 404 200 200 200 404 401',
    request: async (w, _c, t) => ({ path: `${await readAttachment(t, w)}/content` }),
    foreign: (w) => ({ path: `${foreignAttachment(w)}/content` }),
  },
  {
    route: 'GET /workspaces/{ws}/databases/{db}/records/{id}/attachments/{aid}/thumbnail',
    expect: '404 200 200 200 200 200 404 200 200 200 404 401',
    request: async (w, _c, t) => ({ path: `${await readAttachment(t, w)}/thumbnail` }),
    foreign: (w) => ({ path: `${foreignAttachment(w)}/thumbnail` }),
  },
];
