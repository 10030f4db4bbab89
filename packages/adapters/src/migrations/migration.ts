import type { Db } from "../dynamo/db";

/**
 * A change of stored shapes: items written in an older shape are moved to the new one, once per
 * table, so the code reads one shape (docs/data-model.md "Migrations"). `run` is idempotent (a
 * second run, or two at once, finds nothing left to move) and answers how many items it moved.
 */
export interface Migration {
  id: string;
  description: string;
  run(db: Db): Promise<number>;
}
