import assert from 'node:assert/strict';
import type { Response } from 'supertest';
import type { TestKernel, SignedUpUser } from '../../../core/testing.ts';
import { createPat, type CreatedPat } from '../tokens/helpers.ts';

/** Creates a workspace as `user` through the API. */
export async function createWorkspace(t: TestKernel, user: SignedUpUser, name = 'Acme'): Promise<{ id: string; name: string }> {
  const res = await t.request.post('/api/v1/workspaces').set(user.auth).send({ name });
  if (res.status !== 201) throw new Error(`workspace creation failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** A PAT of `user` for a workspace of their own (tokens are bound to a workspace they belong to). */
export async function patOf(t: TestKernel, user: SignedUpUser, scope: 'read' | 'write' | 'admin' = 'read'): Promise<CreatedPat> {
  const ws = await createWorkspace(t, user, 'Token home');
  return createPat(t, user, { scope, workspace_id: ws.id });
}

/** Every item of a list route, following `next_cursor`. */
export async function collect<T>(t: TestKernel, auth: { Authorization: string }, url: string, limit: number): Promise<T[]> {
  const out: T[] = [];
  let cursor: string | null = null;
  do {
    const sep: string = url.includes('?') ? '&' : '?';
    const res: Response = await t.request.get(`${url}${sep}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`).set(auth).expect(200);
    assert.ok(res.body.data.length <= limit, 'page larger than limit');
    out.push(...res.body.data);
    cursor = res.body.next_cursor;
  } while (cursor);
  return out;
}
