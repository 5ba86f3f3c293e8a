import { containsPattern } from '../../core/like-pattern.ts';
import type { PluginContext } from '../../core/plugin.ts';
import { OUTBOX_TABLE } from './outbox.ts';

const FORMER = 'Former member';
const COLUMNS = ['subject', 'text', 'html'] as const;

function replaceAll(text: string | null, needles: string[]): string | null {
  if (text === null) return null;
  return needles.reduce((out, n) => out.replace(new RegExp(n.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'gi'), FORMER), text);
}

/**
 * The outbox keeps the instance's mail: messages to the person are exported and deleted; others' messages that
 * name them (an invite they sent) keep their text with "Former member" in their place.
 */
export function tapGdpr(ctx: PluginContext<any>): void {
  const hooks = ctx.hooksOf('gdpr.personalData');
  hooks.export.tapPromise('mail', async (sections, { trx, person, workspaceId }) => {
    if (workspaceId) return sections;
    const items = await trx(OUTBOX_TABLE).whereRaw('lower("to") = lower(?)', [person.email]).select('subject', 'text', 'created_at').orderBy('created_at');
    return [...sections, { kind: 'mail', items }];
  });
  hooks.erase.tapPromise('mail', async (reports, { trx, person, workspaceId }) => {
    if (workspaceId) return reports;
    const deleted = await trx(OUTBOX_TABLE).whereRaw('"to" ILIKE ?', [containsPattern(person.email)]).del();
    const needles = [person.email, person.name].filter((n) => n.trim() !== '');
    const naming = await trx(OUTBOX_TABLE)
      .where((q) => {
        for (const column of COLUMNS) for (const n of needles) q.orWhereRaw('?? ILIKE ?', [column, containsPattern(n)]);
      })
      .select('id', ...COLUMNS);
    for (const row of naming) {
      await trx(OUTBOX_TABLE).where({ id: row.id }).update(Object.fromEntries(COLUMNS.map((c) => [c, replaceAll(row[c], needles)])));
    }
    return [...reports, { kind: 'mail', deleted, pseudonymised: naming.length, retained: [] }];
  });
}
