import { createDb } from "@tp/adapters/dynamo/db";
import { migrate } from "@tp/adapters/migrations/migrate";

/**
 * The deploy's migration step (stacks/Storage.ts's `Migrations` script, run on every deploy
 * before the stacks that use the table): applies the migrations the table has not recorded.
 */
export async function handler(): Promise<{ applied: { id: string; items: number }[] }> {
  const db = createDb({ tableName: process.env.TABLE_NAME!, endpoint: process.env.DYNAMODB_ENDPOINT || undefined });
  const applied = await migrate(db);
  return { applied: applied.map(({ id, items }) => ({ id, items })) };
}
