import { RemovalPolicy } from "aws-cdk-lib";
import type { IGrantable } from "aws-cdk-lib/aws-iam";
import { Secret } from "aws-cdk-lib/aws-secretsmanager";
import { Script, Table, type StackContext } from "sst/constructs";
import { Table as Layout } from "../packages/adapters/src/dynamo/table";
import { isProductionStage } from "../packages/adapters/src/config";

/** The single table (generic keys, the GSIs from the shared layout, TTL, PITR), the token-signing secret and the credential key. */
export function Storage({ stack, app }: StackContext) {
  const production = isProductionStage(app.stage);
  const indexes = Object.values(Layout.indexes);
  const fields: Record<string, "string"> = { [Layout.partitionKey]: "string", [Layout.sortKey]: "string" };
  for (const index of indexes) {
    fields[index.partitionKey] = "string";
    fields[index.sortKey] = "string";
  }
  const table = new Table(stack, "Table", {
    fields,
    primaryIndex: { partitionKey: Layout.partitionKey, sortKey: Layout.sortKey },
    globalIndexes: Object.fromEntries(indexes.map((index) => [index.name, { partitionKey: index.partitionKey, sortKey: index.sortKey }])),
    timeToLiveAttribute: Layout.ttlAttribute,
    cdk: { table: { pointInTimeRecovery: true, deletionProtection: production, ...(production ? { removalPolicy: RemovalPolicy.RETAIN } : {}) } },
  });

  const jwtSecret = new Secret(stack, "JwtSecret", {
    description: `Signs access tokens (${app.stage})`,
    generateSecretString: { passwordLength: 64, excludePunctuation: true },
    removalPolicy: production ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
  });
  const encryptionSecret = new Secret(stack, "EncryptionKey", {
    description: `Encrypts stored broker and provider credentials (${app.stage})`,
    generateSecretString: { passwordLength: 64, excludePunctuation: true },
    // Losing it would make every stored credential unreadable.
    removalPolicy: production ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
  });

  // A captcha code the smoke test (scripts/smoke.ts) logs in with: generated, and never on a production stage.
  const captchaTestCode = production
    ? undefined
    : new Secret(stack, "CaptchaTestCode", {
        description: `Captcha test code for smoke tests (${app.stage}; production stages have none)`,
        generateSecretString: { passwordLength: 24, excludePunctuation: true },
      });

  /** What every function needs to reach the secrets: their ARNs in its environment and read access. */
  const secrets = {
    environment: {
      JWT_SECRET_ARN: jwtSecret.secretArn,
      ENCRYPTION_KEY_ARN: encryptionSecret.secretArn,
      ...(captchaTestCode ? { CAPTCHA_TEST_CODE_ARN: captchaTestCode.secretArn } : {}),
    },
    grantRead(grantee: IGrantable) {
      jwtSecret.grantRead(grantee);
      encryptionSecret.grantRead(grantee);
      captchaTestCode?.grantRead(grantee);
    },
  };
  if (captchaTestCode) stack.addOutputs({ CaptchaTestCodeSecretArn: captchaTestCode.secretArn });

  // Stored shapes brought to the newest on every deploy (packages/adapters/src/migrations/migrate.ts), before the stacks that use the table are updated.
  const migrations = {
    handler: "packages/functions/src/deploy/migrate.handler",
    timeout: 900,
    environment: { TABLE_NAME: table.tableName },
    permissions: [table],
  };
  new Script(stack, "Migrations", { onCreate: migrations, onUpdate: migrations });

  stack.addOutputs({ TableName: table.tableName });
  return { table, secrets };
}
