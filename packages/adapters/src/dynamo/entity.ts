/**
 * How an entity maps onto the single table: a key (a partition and a sort value) and the
 * definition a `Repository` is built from (its primary key, its index keys, its expiry). The
 * repository, the bulk reads and writes and the transactions all name keys by this shape; the
 * key strings themselves are built in `keys.ts` only.
 */
import type { IndexName } from "./table";

/** A primary or index key: a partition and a sort value. */
export interface Key {
  pk: string;
  sk: string;
}

/**
 * How one entity maps onto the table: its primary key, the index keys that give its
 * access patterns, and an optional expiry. Key strings are built in `keys.ts` only.
 */
export interface EntityDefinition<T> {
  type: string;
  key: (item: T) => Key;
  indexes?: Partial<Record<IndexName, (item: T) => Key | undefined>>;
  /** Epoch seconds after which DynamoDB may delete the item. */
  expiresAt?: (item: T) => number | undefined;
}
