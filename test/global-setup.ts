import type { TestProject } from "vitest/node";
import { startDynamoDbLocal, type DynamoDbLocal } from "../packages/local/src/dynamodb-local";

let dynamo: DynamoDbLocal | undefined;

/** One in-memory DynamoDB Local for the whole run; each test file makes its own table. */
export async function setup(project: TestProject) {
  dynamo = await startDynamoDbLocal();
  project.provide("dynamoEndpoint", dynamo.endpoint);
}

export async function teardown() {
  await dynamo?.stop();
}

declare module "vitest" {
  export interface ProvidedContext {
    dynamoEndpoint: string;
  }
}
