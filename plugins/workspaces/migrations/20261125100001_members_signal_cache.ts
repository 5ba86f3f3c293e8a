import type { Knex } from 'knex';
import { ACCESS_TOPIC } from '../../../core/authz.ts';
import { createSignalTrigger, dropSignalTrigger } from '../../../core/cache.ts';

/** Memberships are cached per workspace by every process (kernel `access` topic): a change signals them. */
export async function up(knex: Knex): Promise<void> {
  await createSignalTrigger(knex, 'workspace_members', ACCESS_TOPIC, 'workspace_id');
}

export async function down(knex: Knex): Promise<void> {
  await dropSignalTrigger(knex, 'workspace_members');
}
