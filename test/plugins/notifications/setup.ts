import type { Logger } from 'pino';
import { inTransaction } from '../../../core/db.ts';
import type { Plugin } from '../../../core/plugin.ts';
import { startTestKernel, type TestKernel, createWorkspace, signUp, type SignedUpUser } from '../../../core/testing.ts';
import { builtinPlugins } from '../../../plugins/index.ts';
import type { NotificationInput } from '../../../plugins/notifications/public.ts';

/**
 * A workspace with an admin (who makes database D in space S), an editor, a member and a guest of another space,
 * D holding a user field `owner`. `extra`: test plugins loaded beside the built-ins.
 */
export interface NotificationsWorld {
  t: TestKernel;
  admin: SignedUpUser;
  editor: SignedUpUser;
  member: SignedUpUser;
  guest: SignedUpUser;
  ws: string;
  db: string;
  space: string;
  otherSpace: string;
  /** `/api/v1/workspaces/{ws}` + path. */
  api: (path: string) => string;
  /** `/api/v1/workspaces/{ws}/databases/{db}/records` + path. */
  records: (path?: string) => string;
  /** Sends through `notifications.service`, in a transaction of its own. */
  notify: (inputs: NotificationInput[]) => Promise<number>;
}

export async function notificationsWorld(opts: { extra?: Plugin[]; config?: Record<string, unknown>; logger?: Logger } = {}): Promise<NotificationsWorld> {
  const t = await startTestKernel({ ...(opts.extra ? { plugins: [...builtinPlugins, ...opts.extra] } : {}), ...(opts.config ? { config: opts.config } : {}), ...(opts.logger ? { logger: opts.logger } : {}) });
  const admin = await signUp(t, { name: 'Ada' });
  const editor = await signUp(t, { name: 'Eddie' });
  const member = await signUp(t, { name: 'Mia' });
  const guest = await signUp(t, { name: 'Gus' });
  const ws = (await createWorkspace(t, admin)).id;
  const api = (path: string) => `/api/v1/workspaces/${ws}${path}`;
  const space = (await t.request.post(api('/spaces')).set(admin.auth).send({ name: 'S' }).expect(201)).body.id;
  const otherSpace = (await t.request.post(api('/spaces')).set(admin.auth).send({ name: 'T' }).expect(201)).body.id;
  await t.db('workspace_members').insert([
    { workspace_id: ws, user_id: editor.id, role: 'editor' },
    { workspace_id: ws, user_id: member.id, role: 'member' },
    { workspace_id: ws, user_id: guest.id, role: 'guest', space_ids: [otherSpace] },
  ]);
  const db = (await t.request.post(api('/databases')).set(admin.auth).send({ name: 'D', space_id: space }).expect(201)).body.id;
  await t.request.post(api(`/databases/${db}/fields`)).set(admin.auth).send({ name: 'Owner', type: 'user' }).expect(201);
  await t.request.post(api(`/databases/${db}/fields`)).set(admin.auth).send({ name: 'Score', type: 'number' }).expect(201);
  const service = t.container.resolverFor('notifications')('notifications.service');
  return {
    t,
    admin,
    editor,
    member,
    guest,
    ws,
    db,
    space,
    otherSpace,
    api,
    records: (path = '') => api(`/databases/${db}/records${path}`),
    notify: (inputs) => inTransaction(t.db, (trx) => service.notify(trx, inputs)),
  };
}
