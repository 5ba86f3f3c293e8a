import { type OutputContext } from './field-type.ts';
import { InvalidCell } from '../errors.ts';
import { UUID_PATTERN } from '../../../core/schema.ts';
import { userNameSortKey } from '../../auth/public.ts';

/** What user, created_by and updated_by cells share: a user id stored, `{ id, name }` read. */
export interface Person {
  id: string;
  name: string | null;
}


export function personIn(value: unknown): string {
  if (typeof value !== 'string' || !UUID_PATTERN.test(value)) throw new InvalidCell('Must be a user id.');
  return value.toLowerCase();
}

/** `name` is null when the user is not in `ctx.users` (e.g. the account was deleted). */
export function personOut(value: unknown, ctx: OutputContext): Person {
  const id = String(value);
  return { id, name: ctx.users.get(id)?.name ?? null };
}

/** CSV shows the name, falling back to the id when it is unknown. */
export function formatPerson(value: unknown): string {
  const person = value as Person;
  return person.name ?? person.id;
}

/** People sort by name (case-insensitive), not by id: by auth's sort key, since the names are its accounts'. */
export const personSortSql = userNameSortKey;
