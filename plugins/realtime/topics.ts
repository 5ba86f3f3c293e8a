import { invalidField } from '../../core/errors.ts';
import { UUID_PATTERN } from '../../core/schema.ts';

/** What a stream listens to: databases and records by id; `all` when no topic was named. */
export interface Topics {
  all: boolean;
  databases: Set<string>;
  records: Set<string>;
}

const MAX_TOPICS = 100;

/** `database:{id},record:{id}` → topics; anything else is a 422 at `/query/topics`. */
export function parseTopics(text: string | undefined): Topics {
  const topics: Topics = { all: text === undefined, databases: new Set(), records: new Set() };
  if (text === undefined) return topics;
  const parts = text.split(',').map((p) => p.trim());
  if (parts.length > MAX_TOPICS) throw invalidField('/query/topics', `At most ${MAX_TOPICS} topics.`);
  for (const part of parts) {
    const [kind, id, extra] = part.split(':');
    if (extra !== undefined || !id || !UUID_PATTERN.test(id) || (kind !== 'database' && kind !== 'record')) {
      throw invalidField('/query/topics', `"${part.slice(0, 100)}" is not a topic: use database:{id} or record:{id}.`);
    }
    (kind === 'database' ? topics.databases : topics.records).add(id.toLowerCase());
  }
  return topics;
}

/** The database and record an event is about (from its payload), for matching topics. */
export function subjectOf(payload: unknown): { databaseId: string | null; recordId: string | null } {
  const p = (payload ?? {}) as { database_id?: unknown; record_id?: unknown; record?: { id?: unknown }; after?: { id?: unknown } };
  const databaseId = typeof p.database_id === 'string' ? p.database_id : null;
  const nested = p.record?.id ?? p.after?.id;
  const recordId = typeof p.record_id === 'string' ? p.record_id : typeof nested === 'string' ? nested : null;
  return { databaseId, recordId };
}

export function matches(topics: Topics, subject: { databaseId: string | null; recordId: string | null }): boolean {
  if (topics.all) return true;
  return (subject.databaseId !== null && topics.databases.has(subject.databaseId)) || (subject.recordId !== null && topics.records.has(subject.recordId));
}
