import type { SignedUpUser, TestKernel } from '../../../core/testing.ts';
import { finished, unzipJson } from '../gdpr/helpers.ts';

/** A member's data of one workspace as its admin downloads it: the zip's JSON files by name. */
export async function memberExport(t: TestKernel, ws: string, admin: SignedUpUser, userId: string): Promise<Record<string, unknown[]>> {
  const queued = await t.request.post(`/api/v1/workspaces/${ws}/members/${userId}/data-export`).set(admin.auth).expect(202);
  const done = await finished(t, `/api/v1/workspaces/${ws}/data-exports/${queued.body.id}`, admin.auth);
  const res = await t.request
    .get(done.download_url!)
    .set(admin.auth)
    .buffer(true)
    .parse((r, cb) => {
      const parts: Buffer[] = [];
      r.on('data', (c: Buffer) => parts.push(c));
      r.on('end', () => cb(null, Buffer.concat(parts)));
    })
    .expect(200);
  return unzipJson(res.body as Buffer);
}
