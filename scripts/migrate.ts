/**
 * Brings a table's stored shapes to the newest (packages/adapters/src/migrations/migrate.ts): the
 * deploy runs it by itself (stacks/Storage.ts's `Migrations` script), and `npm start` at boot; by
 * hand, with AWS credentials for the stage's account:
 *
 *   TABLE_NAME=<TableName output> npm run migrate
 *
 * Idempotent: migrations the table has recorded are skipped. `DYNAMODB_ENDPOINT` points it at
 * DynamoDB Local instead.
 */
import { createDb } from "../packages/adapters/src/dynamo/db";
import { migrate } from "../packages/adapters/src/migrations/migrate";

const { TABLE_NAME, DYNAMODB_ENDPOINT } = process.env;
if (!TABLE_NAME) {
  console.error("Set TABLE_NAME (the stage's TableName output)");
  process.exit(2);
}
const db = createDb({ tableName: TABLE_NAME, endpoint: DYNAMODB_ENDPOINT || undefined });
const applied = await migrate(db);
console.log(applied.length === 0 ? `${TABLE_NAME} has every migration` : applied.map((m) => `${m.id}: ${m.items} items moved`).join("\n"));
db.raw.destroy();
