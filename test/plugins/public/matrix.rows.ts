import type { MatrixRow, TestKernel, World } from '../../../core/testing.ts';

/**
 * The public plugin's rows of the authorization matrix. Statuses follow the callers' order:
 * root admin creator editor member guest_in guest_out pat_read pat_write pat_admin outsider anonymous.
 */
export const plugin = 'public';

/** A new form view of D, published by the admin: the path of its public link. */
async function publishedForm(t: TestKernel, w: World): Promise<string> {
  const views = `/api/v1/workspaces/${w.ws}/databases/${w.databaseD}/views`;
  const view = await t.request.post(views).set(w.people.admin.auth).send({ name: `Form ${Math.random()}`, type: 'form' });
  if (view.status !== 201) throw new Error(`form view failed: ${view.status} ${JSON.stringify(view.body)}`);
  const published = await t.request.post(`${views}/${view.body.id}/publish`).set(w.people.admin.auth);
  if (published.status !== 201) throw new Error(`publish failed: ${published.status} ${JSON.stringify(published.body)}`);
  return `/public/forms/${published.body.token}`;
}

export const rows: MatrixRow[] = [
  {
    // The link is the credential: whoever holds it, signed in or not.
    route: 'GET /public/forms/{token}',
    expect: '200 200 200 200 200 200 200 200 200 200 200 200',
    request: async (w, _c, t) => ({ path: await publishedForm(t, w) }),
  },
  {
    // Every caller comes from the same address: its counter is cleared so the limit (tested on its own) stays out of this.
    route: 'POST /public/forms/{token}',
    expect: '201 201 201 201 201 201 201 201 201 201 201 201',
    request: async (w, _c, t) => {
      await t.db('public_rate_counters').delete();
      return { path: await publishedForm(t, w), body: { values: {} } };
    },
  },
];
