import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";

/** A written item's kind: the entity type the repositories stamp on it (`_type`), else its partition key's prefix. */
function kindOf(item: Record<string, unknown> | undefined): string {
  if (!item) return "?";
  if (typeof item._type === "string") return item._type;
  return typeof item.pk === "string" ? item.pk.split("#")[0]! : "?";
}

type Write = { Put?: { Item: Record<string, unknown> }; Update?: { Key: Record<string, unknown> }; Delete?: { Key: Record<string, unknown> } };
type Batch = { PutRequest?: { Item: Record<string, unknown> }; DeleteRequest?: { Key: Record<string, unknown> } };

/**
 * The items a client writes, by kind, while counting is on: every put, update and delete, alone,
 * in a `BatchWriteItem` or in a `TransactWriteItems` (a condition check is not a write). DynamoDB
 * Local's work grows with them (about 0.3 ms of its CPU an item in a transaction on the bench's
 * machine, whatever the item's indexes or attributes: docs/benchmarks.md), so they say where its time goes.
 */
export function countWrites(client: DynamoDBDocumentClient) {
  const counts = new Map<string, number>();
  let counting = false;
  const add = (kind: string) => counts.set(kind, (counts.get(kind) ?? 0) + 1);
  client.middlewareStack.add(
    (next, context) => (args) => {
      if (!counting) return next(args);
      const input = args.input as {
        TransactItems?: Write[];
        RequestItems?: Record<string, Batch[]>;
        Item?: Record<string, unknown>;
        Key?: Record<string, unknown>;
      };
      // The document client's commands run as the client's own (`PutItemCommand`…), their input not yet marshalled at this step.
      switch (context.commandName) {
        case "TransactWriteItemsCommand":
          for (const step of input.TransactItems!)
            if (step.Put || step.Update || step.Delete) add(kindOf(step.Put?.Item ?? step.Update?.Key ?? step.Delete?.Key));
          break;
        case "BatchWriteItemCommand":
          for (const requests of Object.values(input.RequestItems!))
            for (const request of requests) add(kindOf(request.PutRequest?.Item ?? request.DeleteRequest?.Key));
          break;
        case "PutItemCommand":
          add(kindOf(input.Item));
          break;
        case "UpdateItemCommand":
        case "DeleteItemCommand":
          add(kindOf(input.Key));
          break;
      }
      return next(args);
    },
    { step: "initialize", name: "benchWrites" },
  );
  return {
    /** Counts from now on, from zero. */
    start() {
      counts.clear();
      counting = true;
    },
    /** Stops counting; the items written per `per` (a session bar, a request) by kind, most first. */
    stop(per: number): Map<string, number> {
      counting = false;
      return new Map([...counts].sort(([, a], [, b]) => b - a).map(([kind, count]) => [kind, count / per]));
    },
  };
}
