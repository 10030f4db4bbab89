/**
 * All-or-nothing writes: a `TransactionStep` (a conditional put or delete), `transact` (steps as
 * one write, a failed condition named by its step's error), `transactIfUnchanged` (false when
 * someone else wrote first) and `transactGroups` (many groups, each all or nothing, packed into as
 * few TransactWriteItems as hold them, each group with its own outcome).
 */
import { DeleteCommand, PutCommand, TransactWriteCommand } from "@aws-sdk/lib-dynamodb";
import { ConditionalCheckFailedException, TransactionCanceledException } from "@aws-sdk/client-dynamodb";
import type { DomainError } from "@tp/core/errors";
import { inParallel } from "@tp/core/util/in-parallel";
import { approximateBytes, BATCH_WRITE_CONCURRENCY, packed } from "./batches";
import type { Db } from "./db";
import type { Key } from "./entity";
import { Table } from "./table";

/** One step of an all-or-nothing write. */
export type TransactionStep =
  | {
      put: Record<string, unknown>;
      /** Only if no item has this key. */
      ifAbsent?: boolean;
      /** Only if the stored item's `version` equals this (optimistic concurrency). */
      ifVersion?: number;
      /** Only if no item has this key or its `version` is below this (a copy never replaces a newer one). */
      ifOlder?: number;
      onConflict?: () => DomainError;
    }
  | {
      delete: Key;
      /** Only if the stored item's attribute has this value. */
      ifOwnedBy?: { attribute: string; value: unknown };
      /** With `ifOwnedBy`: an item that is already gone is fine too. */
      allowAbsent?: boolean;
      /** Only if the item exists. */
      ifPresent?: boolean;
    };

interface Condition {
  ConditionExpression?: string;
  ExpressionAttributeNames?: Record<string, string>;
  ExpressionAttributeValues?: Record<string, unknown>;
}

function condition(step: TransactionStep): Condition {
  if ("put" in step) {
    if (step.ifAbsent) return { ConditionExpression: `attribute_not_exists(${Table.partitionKey})` };
    if (step.ifVersion !== undefined) {
      return {
        ConditionExpression: "#version = :version",
        ExpressionAttributeNames: { "#version": "version" },
        ExpressionAttributeValues: { ":version": step.ifVersion },
      };
    }
    if (step.ifOlder !== undefined) {
      return {
        ConditionExpression: `attribute_not_exists(${Table.partitionKey}) OR #version < :version`,
        ExpressionAttributeNames: { "#version": "version" },
        ExpressionAttributeValues: { ":version": step.ifOlder },
      };
    }
    return {};
  }
  if (step.ifPresent) return { ConditionExpression: `attribute_exists(${Table.partitionKey})` };
  if (!step.ifOwnedBy) return {};
  return {
    ConditionExpression: step.allowAbsent ? `attribute_not_exists(#pk) OR #owner = :owner` : "#owner = :owner",
    ExpressionAttributeNames: { "#owner": step.ifOwnedBy.attribute, ...(step.allowAbsent ? { "#pk": Table.partitionKey } : {}) },
    ExpressionAttributeValues: { ":owner": step.ifOwnedBy.value },
  };
}

/**
 * Runs steps as one TransactWriteItems call. When a condition fails, the failing step's
 * `onConflict` names the error (which unique value was taken, for instance); without one the
 * SDK's TransactionCanceledException is thrown.
 */
export async function transact(db: Db, steps: TransactionStep[]): Promise<void> {
  try {
    await sendSteps(db, steps);
  } catch (error) {
    const step = steps[0]!;
    if (steps.length === 1 && error instanceof ConditionalCheckFailedException && "put" in step && step.onConflict) throw step.onConflict();
    if (error instanceof TransactionCanceledException) {
      const reasons = error.CancellationReasons ?? [];
      const failed = reasons.findIndex((reason) => reason.Code === "ConditionalCheckFailed");
      const step = steps[failed];
      if (step && "put" in step && step.onConflict) throw step.onConflict();
    }
    throw error;
  }
}

/**
 * The steps as one write: a single step as a plain PutItem or DeleteItem with its condition
 * (DynamoDB bills an item written in a transaction twice: docs/aws-costs.md), more as one
 * TransactWriteItems; the SDK's errors as they are.
 */
function sendSteps(db: Db, steps: TransactionStep[]) {
  if (steps.length !== 1) return sendTransaction(db, steps);
  const step = steps[0]!;
  return "put" in step
    ? db.client.send(new PutCommand({ TableName: db.tableName, Item: step.put, ...condition(step) }))
    : db.client.send(
        new DeleteCommand({ TableName: db.tableName, Key: { [Table.partitionKey]: step.delete.pk, [Table.sortKey]: step.delete.sk }, ...condition(step) }),
      );
}

/** The steps as one TransactWriteItems call, the SDK's errors as they are. */
function sendTransaction(db: Db, steps: TransactionStep[]) {
  return db.client.send(
    new TransactWriteCommand({
      TransactItems: steps.map((step) =>
        "put" in step
          ? { Put: { TableName: db.tableName, Item: step.put, ...condition(step) } }
          : {
              Delete: {
                TableName: db.tableName,
                Key: { [Table.partitionKey]: step.delete.pk, [Table.sortKey]: step.delete.sk },
                ...condition(step),
              },
            },
      ),
    }),
  );
}

/** Steps' size in a transaction, near enough to keep it under its limit (`approximateBytes` of each item or key). */
export const stepsBytes = (steps: readonly TransactionStep[]) => steps.reduce((sum, step) => sum + approximateBytes("put" in step ? step.put : step.delete), 0);

/** Whether an error is a transaction cancelled because one of its conditions failed. */
const conditionFailed = (error: unknown) =>
  error instanceof ConditionalCheckFailedException ||
  (error instanceof TransactionCanceledException && (error.CancellationReasons ?? []).some((reason) => reason.Code === "ConditionalCheckFailed"));

/**
 * Writes groups of steps, each group all or nothing and conditional on its own steps (one run's
 * save, one session's feed records), packed together into as few TransactWriteItems as hold them
 * (a group of more than `TRANSACTION_ITEMS` steps is the caller's to split). Per group, in order:
 * true when written, false when one of its conditions failed (another writer got there first), or
 * the error that kept it from being written. A transaction cancelled by some groups' conditions
 * names their items in its cancellation reasons: those groups lost, and the others of it are sent
 * again without them. One that fails otherwise (a conflict with another transaction in flight) is
 * sent again group by group, so each group gets its own outcome. `bytes`: each group's
 * `stepsBytes`, when the caller sized them already (a run's save, to know it fits one transaction).
 */
export async function transactGroups(
  db: Db,
  groups: readonly TransactionStep[][],
  bytes: readonly number[] = groups.map(stepsBytes),
): Promise<PromiseSettledResult<boolean>[]> {
  const outcomes: PromiseSettledResult<boolean>[] = groups.map(() => ({ status: "rejected", reason: new Error("not written") }));
  // A group of one step is written alone, as a plain conditional write (billed once, not twice as in a transaction).
  const singles = groups.flatMap((group, index) => (group.length === 1 ? [index] : []));
  const packs = packed(
    groups.flatMap((group, index) => (group.length === 1 ? [] : [index])),
    (index) => groups[index]!.length,
    (index) => bytes[index]!,
  );
  await inParallel(packs, BATCH_WRITE_CONCURRENCY, async (pack) => {
    let left = pack;
    while (left.length > 1) {
      try {
        await sendTransaction(
          db,
          left.flatMap((index) => groups[index]!),
        );
        for (const index of left) outcomes[index] = { status: "fulfilled", value: true };
        return;
      } catch (error) {
        if (!conditionFailed(error)) break;
        // The cancellation's reasons are the transaction's items in order: the groups owning a failed one lost.
        const reasons = (error as TransactionCanceledException).CancellationReasons!;
        const lost = new Set<number>();
        let offset = 0;
        for (const index of left) {
          const size = groups[index]!.length;
          if (reasons.slice(offset, offset + size).some((reason) => reason.Code === "ConditionalCheckFailed")) lost.add(index);
          offset += size;
        }
        if (lost.size === 0) break;
        for (const index of lost) outcomes[index] = { status: "fulfilled", value: false };
        left = left.filter((index) => !lost.has(index));
      }
    }
    const alone = await Promise.allSettled(left.map((index) => transactIfUnchanged(db, groups[index]!)));
    for (const [at, index] of left.entries()) outcomes[index] = alone[at]!;
  });
  await inParallel(singles, BATCH_WRITE_CONCURRENCY, async (index) => {
    [outcomes[index]] = await Promise.allSettled([transactIfUnchanged(db, groups[index]!)]);
  });
  return outcomes;
}

/** `transact` for optimistic writers: false when a condition failed (someone else wrote first). */
export async function transactIfUnchanged(db: Db, steps: TransactionStep[]): Promise<boolean> {
  try {
    await transact(db, steps);
    return true;
  } catch (error) {
    if (conditionFailed(error)) return false;
    throw error;
  }
}
