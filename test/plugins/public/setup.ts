import type { ConfigInput } from '../../../core/config.ts';
import type { TestKernel } from '../../../core/testing.ts';
import { recordsWorld, type RecordsWorld } from '../records/setup.ts';

/**
 * Database D of the records world (name, score, done, owner, stage) with an e-mail, a hidden note and a read-only
 * field added, and a form view of it, published: the form shows name, email, score, stage, owner, done (in that
 * order), hides `note`, and requires name and email.
 */
export interface FormWorld extends RecordsWorld {
  viewId: string;
  token: string;
  /** `/api/v1/public/forms/{token}`. */
  form: (token?: string) => string;
  /** `/api/v1/workspaces/{ws}/databases/{db}/views` + path. */
  views: (path?: string) => string;
}

/** `config` and `kernel`: as in recordsWorld. */
export async function formWorld(config?: ConfigInput, kernel?: TestKernel): Promise<FormWorld> {
  const w = await recordsWorld(config, kernel);
  const fields = `/api/v1/workspaces/${w.ws}/databases/${w.db}/fields`;
  for (const body of [
    { name: 'Email', type: 'email' },
    { name: 'Note', type: 'text' },
  ]) {
    await w.t.request.post(fields).set(w.admin.auth).send(body).expect(201);
  }
  const views = (path = '') => `/api/v1/workspaces/${w.ws}/databases/${w.db}/views${path}`;
  const view = await w.t.request
    .post(views())
    .set(w.admin.auth)
    .send({
      name: 'Contact',
      type: 'form',
      hidden_fields: ['note'],
      field_order: ['name', 'email', 'score', 'stage'],
      options: { title: 'Get in touch', description: 'We answer within a day.', required_fields: ['name', 'email'] },
    })
    .expect(201);
  const token = (await w.t.request.post(views(`/${view.body.id}/publish`)).set(w.admin.auth).expect(201)).body.token as string;
  const form = (t = token) => `/api/v1/public/forms/${t}`;
  return { ...w, viewId: view.body.id, token, form, views };
}
