import assert from 'node:assert/strict';
import { inTransaction } from '../../../core/db.ts';
import type { UserPrincipal } from '../../../core/principal.ts';
import type { CommentHooks } from '../../../plugins/comments/hooks.ts';
import type { MentionHooks } from '../../../plugins/mentions/hooks.ts';
import { notificationsWorld, type NotificationsWorld } from './setup.ts';

describe('notifications: what comments and mentions send', () => {
  let w: NotificationsWorld;
  let record: string;
  const hooks = <T>(key: string) => w.t.kernel.pluginHooks.get(key)!.hooks as T;
  const actor = (user: { id: string; name: string; email: string }) => ({ kind: 'session', user }) as unknown as UserPrincipal;
  const rows = () => w.t.db('notifications').orderBy(['user_id', 'type']).select('user_id', 'type', 'actor_id', 'subject_type', 'subject_id', 'subject_title', 'record_id', 'data');
  const comment = (mentions: string[]) => ({
    id: crypto.randomUUID(),
    record_id: record,
    author: { id: w.editor.id, name: 'Eddie' },
    content: { type: 'doc', content: [] },
    text: 'Can you   check\nthe figures?',
    mentions,
    created_at: new Date().toISOString(),
    updated_at: new Date().toISOString(),
    edited: false,
  });

  before(async () => {
    w = await notificationsWorld();
    record = (await w.t.request.post(w.records()).set(w.editor.auth).send({ values: { name: 'Deal' } }).expect(201)).body.id;
    for (const user of [w.member, w.admin, w.editor]) await w.t.request.put(w.records(`/${record}/watch`)).set(user.auth).expect(201);
  });
  after(() => w.t.stop());
  beforeEach(() => w.t.db('notifications').delete());

  it("tells a record's watchers of a new comment, except its author and those it mentions", async () => {
    const posted = comment([w.admin.id]);
    const editor = { id: w.editor.id, name: 'Eddie', email: w.editor.email };
    await inTransaction(w.t.db, (trx) =>
      hooks<CommentHooks>('comments.changes').changed.promise({ trx, kind: 'created', workspaceId: w.ws, databaseId: w.db, recordId: record, actor: actor(editor), origin: { type: 'user', id: editor.id }, comment: posted }),
    );
    // The admin is mentioned: the mentions plugin tells them of that (its own test), not of a comment.
    assert.deepEqual((await rows()).filter((r) => r.type === 'comment'), [
      { user_id: w.member.id, type: 'comment', actor_id: w.editor.id, subject_type: 'record', subject_id: record, subject_title: 'Deal', record_id: record, data: { comment_id: posted.id, excerpt: 'Can you check the figures?' } },
    ]);
    await inTransaction(w.t.db, (trx) =>
      hooks<CommentHooks>('comments.changes').changed.promise({ trx, kind: 'updated', workspaceId: w.ws, databaseId: w.db, recordId: record, actor: actor(editor), origin: { type: 'user', id: editor.id }, comment: posted, before: posted }),
    );
    assert.equal((await rows()).filter((r) => r.type === 'comment').length, 1, 'an edit tells watchers nothing');
  });

  it('tells each newly mentioned user, about the record or the document the mention is in', async () => {
    const editor = { id: w.editor.id, name: 'Eddie', email: w.editor.email };
    const source = { type: 'comment' as const, id: crypto.randomUUID(), recordId: record, databaseId: w.db, documentId: null, title: 'Deal' };
    await inTransaction(w.t.db, (trx) =>
      hooks<MentionHooks>('mentions.recorded').recorded.promise({ trx, workspaceId: w.ws, actor: actor(editor), source, mentions: [{ id: crypto.randomUUID(), userId: w.member.id }], text: 'Hi @Mia' }),
    );
    const document = crypto.randomUUID();
    await inTransaction(w.t.db, (trx) =>
      hooks<MentionHooks>('mentions.recorded').recorded.promise({
        trx,
        workspaceId: w.ws,
        actor: actor(editor),
        source: { type: 'document', id: document, recordId: null, databaseId: null, documentId: document, title: 'Handbook' },
        mentions: [{ id: crypto.randomUUID(), userId: w.admin.id }],
        text: 'See @Ada',
      }),
    );
    const found = await rows();
    assert.deepEqual(
      found.map((r) => [r.user_id, r.type, r.subject_type, r.subject_id, r.subject_title, r.data.source_type]).sort(),
      [
        [w.member.id, 'mention', 'record', record, 'Deal', 'comment'],
        [w.admin.id, 'mention', 'document', document, 'Handbook', 'document'],
      ].sort(),
    );
  });
});
