import { containsPattern } from '../../core/like-pattern.ts';
import type { PluginContext } from '../../core/plugin.ts';
import { mentions, withoutPerson } from '../../core/privacy.ts';
import { OUTBOX_TABLE } from './outbox.ts';

const COLUMNS = ['subject', 'text', 'html'] as const;

/**
 * The outbox keeps the instance's mail: messages to the person are exported and deleted; others' messages that
 * name them (an invite they sent) keep their text with "Former member" in their place.
 */
export function tapGdpr(ctx: PluginContext<unknown>): void {
  const hooks = ctx.hooksOf('gdpr.personalData');
  hooks.export.tapPromise('mail', async (sections, { trx, person, workspaceId }) => {
    if (workspaceId) return sections;
    const items = await trx(OUTBOX_TABLE).whereRaw('lower("to") = lower(?)', [person.email]).select('subject', 'text', 'created_at').orderBy('created_at');
    return [...sections, { kind: 'mail', items }];
  });
  hooks.erase.tapPromise('mail', async (reports, { trx, person, workspaceId }) => {
    if (workspaceId) return reports;
    const deleted = await trx(OUTBOX_TABLE).whereRaw('lower("to") = lower(?)', [person.email]).del();
    const needles = [person.email, person.name].filter((n) => n.trim() !== '');
    const candidates = await trx(OUTBOX_TABLE)
      .where((q) => {
        for (const column of COLUMNS) for (const n of needles) q.orWhereRaw('?? ILIKE ?', [column, containsPattern(n)]);
      })
      .select('id', ...COLUMNS);
    const naming = candidates.filter((row) => COLUMNS.some((c) => row[c] !== null && mentions(row[c], person)));
    for (const row of naming) {
      await trx(OUTBOX_TABLE).where({ id: row.id }).update(Object.fromEntries(COLUMNS.map((c) => [c, row[c] === null ? null : withoutPerson(row[c], person)])));
    }
    return [...reports, { kind: 'mail', deleted, pseudonymised: naming.length, retained: [] }];
  });
}
