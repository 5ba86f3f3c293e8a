import { inTransaction, type Db } from 'tessera/db';
import type { EventBus } from 'tessera/events';
import { keysetPage, type Page } from 'tessera/pagination';
import type { Greeting } from './schemas.ts';
import type { HelloHooks } from './hooks.ts';

const TABLE = 'hello_greetings';

interface GreetingRow {
  id: string;
  user_id: string;
  name: string;
  message: string;
  created_at: Date;
}

function toGreeting(row: GreetingRow): Greeting {
  return { id: row.id, name: row.name, message: row.message, created_at: row.created_at.toISOString() };
}

export class GreetingService {
  constructor(
    private readonly db: Db,
    private readonly events: EventBus,
    private readonly hooks: HelloHooks,
    private readonly greeting: string,
  ) {}

  /** Stores a greeting and records `hello.greeting_created` in the same transaction. */
  async create(userId: string, name: string): Promise<Greeting> {
    const message = this.hooks.message.call(`${this.greeting}, ${name}!`, { name, userId });
    return inTransaction(this.db, async (trx) => {
      const [row] = await trx<GreetingRow>(TABLE).insert({ user_id: userId, name, message }).returning('*');
      await this.events.emit(trx, { name: 'hello.greeting_created', payload: { id: row.id, name }, actorId: userId });
      return toGreeting(row);
    });
  }

  /** The user's greetings, newest first, one keyset page at a time. */
  async list(userId: string, page: { limit?: number; cursor?: string }): Promise<Page<Greeting>> {
    const query = this.db<GreetingRow>(TABLE).select('*').where({ user_id: userId });
    const result = await keysetPage<GreetingRow>(this.db, query, {
      keys: [{ column: 'created_at', type: 'timestamptz' }, { column: 'id', type: 'uuid' }],
      direction: 'desc',
    }, page);
    return { data: result.data.map(toGreeting), next_cursor: result.next_cursor };
  }
}
