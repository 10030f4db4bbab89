import type { Context } from "aws-lambda";
import { Imports, ImportMessage } from "@tp/core/imports/index";
import type { BatchResult, QueueRecord } from "@tp/core/jobs";
import { imports } from "@tp/adapters/compose/market";
import type { Services } from "@tp/adapters/services";
import { observed } from "../observability";
import { lambdaComposition } from "../runtime";
import { log } from "@tp/core/log";

/** Leaves this much of the invocation for the last chunk, the follow-up message and the batch answer. */
const SAFETY_MARGIN_MS = 60_000;
/** Without a Lambda context (the local runner), work this long before handing over to a follow-up message. */
const LOCAL_BUDGET_MS = 40_000;

/**
 * The import worker over a composition root: each record is one task's next chunks; a failure
 * is reported per record so SQS redelivers only that one.
 */
export function stockImportHandler(services: () => Promise<Pick<Services, "imports" | "now">>) {
  return async (event: { Records: readonly QueueRecord[] }, context?: Pick<Context, "getRemainingTimeInMillis">): Promise<BatchResult> => {
    const resolved = await services();
    const failures: BatchResult["batchItemFailures"] = [];
    for (const record of event.Records) {
      const deadline = resolved.now() + (context ? context.getRemainingTimeInMillis() - SAFETY_MARGIN_MS : LOCAL_BUDGET_MS);
      const parsed = ImportMessage.safeParse(JSON.parse(record.body));
      if (!parsed.success) {
        // A malformed message can never succeed: log it and let it go rather than poison the queue.
        log.error("Malformed import message", { body: record.body });
        continue;
      }
      try {
        await Imports.work(resolved.imports, parsed.data, deadline, Number(record.attributes.ApproximateReceiveCount));
      } catch (error) {
        log.error("Import chunk failed", { task_id: parsed.data.task_id, error: String(error) });
        failures.push({ itemIdentifier: record.messageId });
      }
    }
    return { batchItemFailures: failures };
  };
}

export const handler = observed("queue", stockImportHandler(lambdaComposition((c) => ({ imports: imports(c), now: c.now }))));
