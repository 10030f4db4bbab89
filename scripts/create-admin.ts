/**
 * Creates the first administrator of a deployed stage (`npm start` creates its own at boot).
 * Run once after `sst deploy`, with AWS credentials for the stage's account:
 *
 *   TABLE_NAME=<TableName output> ADMIN_USERNAME=admin ADMIN_EMAIL=ops@example.com \
 *     ADMIN_PASSWORD='a long password' npx tsx scripts/create-admin.ts
 *
 * Idempotent: an existing username is left as it is. `DYNAMODB_ENDPOINT` points it at DynamoDB
 * Local instead (tests).
 */
import { randomUUID } from "node:crypto";
import { createDb } from "../packages/adapters/src/dynamo/db";
import { DynamoUserStore } from "../packages/adapters/src/stores/user-store";
import { ensureAdministrator } from "../packages/core/src/users";

const { TABLE_NAME, ADMIN_USERNAME = "admin", ADMIN_EMAIL, ADMIN_PASSWORD, DYNAMODB_ENDPOINT } = process.env;
if (!TABLE_NAME || !ADMIN_EMAIL || !ADMIN_PASSWORD) {
  console.error("Set TABLE_NAME (the stage's TableName output), ADMIN_EMAIL and ADMIN_PASSWORD (ADMIN_USERNAME defaults to admin)");
  process.exit(2);
}
const db = createDb({ tableName: TABLE_NAME, endpoint: DYNAMODB_ENDPOINT || undefined });
const outcome = await ensureAdministrator(
  { users: new DynamoUserStore(db), now: Date.now, newId: randomUUID },
  { username: ADMIN_USERNAME, email: ADMIN_EMAIL, password: ADMIN_PASSWORD },
);
console.log(
  outcome === "created" ? `Administrator '${ADMIN_USERNAME}' created in ${TABLE_NAME}` : `'${ADMIN_USERNAME}' already exists in ${TABLE_NAME}: left as it is`,
);
db.raw.destroy();
