import { type TestKernel, createWorkspace, type SignedUpUser } from '../../../core/testing.ts';

export interface CreatedPat {
  id: string;
  token: string;
  prefix: string;
  auth: { Authorization: string };
  [k: string]: unknown;
}

/** Creates a PAT through the API with the user's session, in a new workspace of theirs unless `workspace_id` is given. */
export async function createPat(t: TestKernel, user: SignedUpUser, body: Record<string, unknown> = {}): Promise<CreatedPat> {
  const workspaceId = body.workspace_id ?? (await createWorkspace(t, user)).id;
  const res = await t.request
    .post('/api/v1/me/tokens')
    .set(user.auth)
    .send({ name: 'ci', ...body, workspace_id: workspaceId });
  if (res.status !== 201) throw new Error(`token creation failed: ${res.status} ${JSON.stringify(res.body)}`);
  return { ...res.body, auth: { Authorization: `Bearer ${res.body.token}` } };
}

/** Polls until `check` returns a value (fire-and-forget writes land shortly after the response). */
export async function eventually<T>(check: () => Promise<T | undefined | null | false>, timeoutMs = 3000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}
