import { inTransaction } from '../../../core/db.ts';
import type { Caller, MatrixRow, TestKernel, World } from '../../../core/testing.ts';

/**
 * The notifications plugin's rows of the authorization matrix. Statuses follow the callers' order:
 * root admin creator editor member guest_in guest_out pat_read pat_write pat_admin outsider anonymous.
 * Each caller acts on a notification of its own about database D: guest_out, who does not see D, gets a 404.
 */
export const plugin = 'notifications';

/** Whose notification a caller acts on: a token's is its owner's (admin). */
function ownerOf(w: World, caller: Caller): string {
  if (caller === 'anonymous' || caller.startsWith('pat_')) return w.people.admin.id;
  return w.people[caller as Exclude<Caller, 'anonymous' | 'pat_read' | 'pat_write' | 'pat_admin'>].id;
}

/** A new notification for `userId` in `ws` about a record of `databaseId`, through the one door senders use. */
async function notificationFor(t: TestKernel, ws: string, userId: string, databaseId: string | null): Promise<string> {
  const service = t.container.resolverFor('notifications')('notifications.service');
  const subject = { type: 'record', id: crypto.randomUUID(), title: 'Matrix' };
  await inTransaction(t.db, (trx) => service.notify(trx, [{ workspaceId: ws, userId, type: 'mention', actorId: null, subject, recordId: subject.id, databaseId }]));
  const row: { id: string } = await t.db('notifications').where({ subject_id: subject.id }).first('id');
  return row.id;
}

const own = (action: string) => async (w: World, caller: Caller, t: TestKernel) => ({
  path: `/workspaces/${w.ws}/notifications/${await notificationFor(t, w.ws, ownerOf(w, caller), w.databaseD)}/${action}`,
});
const foreign = (action: string) => async (w: World, t: TestKernel) => ({
  path: `/workspaces/${w.ws}/notifications/${await notificationFor(t, w.otherWs, w.people.outsider.id, w.foreign.database)}/${action}`,
});
const unsubscribeLink = async (w: World, t: TestKernel) => {
  const token = await t.container.resolverFor('notifications')('notifications.unsubscriber').token(w.people.admin.id, 'matrix');
  return { path: `/public/notifications/unsubscribe/${token}` };
};

export const rows: MatrixRow[] = [
  { route: 'GET /workspaces/{ws}/notifications', expect: '404 200 200 200 200 200 200 200 200 200 404 401', request: (w) => ({ path: `/workspaces/${w.ws}/notifications` }) },
  { route: 'GET /workspaces/{ws}/notifications/unread-count', expect: '404 200 200 200 200 200 200 200 200 200 404 401', request: (w) => ({ path: `/workspaces/${w.ws}/notifications/unread-count` }) },
  { route: 'POST /workspaces/{ws}/notifications/read-all', expect: '404 200 200 200 200 200 200 403 200 200 404 401', request: (w) => ({ path: `/workspaces/${w.ws}/notifications/read-all` }) },
  { route: 'POST /workspaces/{ws}/notifications/{id}/read', expect: '404 200 200 200 200 200 404 403 200 200 404 401', request: own('read'), foreign: foreign('read') },
  { route: 'POST /workspaces/{ws}/notifications/{id}/archive', expect: '404 200 200 200 200 200 404 403 200 200 404 401', request: own('archive'), foreign: foreign('archive') },
  { route: 'POST /workspaces/{ws}/notifications/{id}/unarchive', expect: '404 201 201 201 201 201 404 403 201 201 404 401', request: own('unarchive'), foreign: foreign('unarchive') },
  { route: 'GET /public/notifications/unsubscribe/{token}', expect: '200 200 200 200 200 200 200 200 200 200 200 200', request: (w, _caller, t) => unsubscribeLink(w, t) },
  { route: 'POST /public/notifications/unsubscribe/{token}', expect: '200 200 200 200 200 200 200 200 200 200 200 200', request: (w, _caller, t) => unsubscribeLink(w, t) },
];
