import { CreateTableCommand, DescribeTableCommand, DynamoDBClient, ResourceNotFoundException, UpdateTimeToLiveCommand } from "@aws-sdk/client-dynamodb";
import { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { Table, tableSchema } from "./table";
import { awsClient } from "../aws-clients";

/** A document client bound to the one table. */
export interface Db {
  client: DynamoDBDocumentClient;
  raw: DynamoDBClient;
  tableName: string;
  /**
   * DynamoDB Local: its BatchWriteItem commits (and syncs to disk) item by item, a
   * TransactWriteItems request once, so bulk writes go there as transactions (docs/benchmarks-journal.md, "Backtest").
   */
  local?: boolean;
}

export interface DbConfig {
  tableName: string;
  /** Set for DynamoDB Local; unset on AWS. */
  endpoint?: string;
  region?: string;
}

/** Builds the client. Local endpoints get dummy credentials so no AWS profile is needed. */
export function createDb(config: DbConfig): Db {
  const raw = awsClient(
    new DynamoDBClient({
      region: config.region ?? process.env.AWS_REGION ?? "us-east-1",
      ...(config.endpoint ? { endpoint: config.endpoint, credentials: { accessKeyId: "local", secretAccessKey: "local" } } : {}),
      maxAttempts: 4,
    }),
  );
  const client = DynamoDBDocumentClient.from(raw, {
    marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
  });
  return { client, raw, tableName: config.tableName, local: config.endpoint !== undefined };
}

/** Creates the table, its indexes and TTL when absent (the local runtime and tests; CloudFormation does this on AWS). */
export async function ensureTable(db: Db): Promise<"created" | "exists"> {
  try {
    await db.raw.send(new DescribeTableCommand({ TableName: db.tableName }));
    return "exists";
  } catch (error) {
    if (!(error instanceof ResourceNotFoundException)) throw error;
  }
  const schema = tableSchema();
  await db.raw.send(
    new CreateTableCommand({
      TableName: db.tableName,
      BillingMode: "PAY_PER_REQUEST",
      AttributeDefinitions: schema.attributeDefinitions,
      KeySchema: schema.keySchema,
      GlobalSecondaryIndexes: schema.globalSecondaryIndexes,
    }),
  );
  await db.raw.send(
    new UpdateTimeToLiveCommand({
      TableName: db.tableName,
      TimeToLiveSpecification: { AttributeName: Table.ttlAttribute, Enabled: true },
    }),
  );
  return "created";
}
