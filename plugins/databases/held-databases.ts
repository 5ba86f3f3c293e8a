import type { Db } from '../../core/db.ts';

/** Where a database sits, as its row says. */
export interface DatabasePlace {
  workspace_id: string;
  space_id: string;
  created_by: string | null;
}

/**
 * The databases a transaction holds FOR SHARE (`TableCatalog.hold`), with where each sits: no other transaction can
 * move or delete them until it ends, so what the hold read stays true for it. The locator answers from here instead of
 * reading the row again: a records write's taps (search, notifications) each located the database, a round trip apiece.
 */
export class HeldDatabases {
  private readonly byTransaction = new WeakMap<Db, Map<string, DatabasePlace>>();

  remember(trx: Db, databaseId: string, place: DatabasePlace): void {
    let held = this.byTransaction.get(trx);
    if (!held) this.byTransaction.set(trx, (held = new Map()));
    held.set(databaseId, place);
  }

  placeOf(trx: Db, databaseId: string): DatabasePlace | undefined {
    return this.byTransaction.get(trx)?.get(databaseId);
  }
}
