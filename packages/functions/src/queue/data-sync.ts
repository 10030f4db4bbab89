import { DataSync, SyncMessage } from "@tp/core/data-sync/index";
import type { BatchResult, QueueRecord } from "@tp/core/jobs";
import { dataSync } from "@tp/adapters/compose/market";
import type { Services } from "@tp/adapters/services";
import { observed } from "../observability";
import { lambdaComposition } from "../runtime";
import { log } from "@tp/core/log";

/**
 * The data sync worker: each record advances one run of the service (settle pending symbols,
 * look at their backfill imports, move `sync_state`). A failure is reported per record so SQS
 * redelivers only that one; the step is idempotent.
 */
export function dataSyncHandler(services: () => Promise<Pick<Services, "dataSync">>) {
  return async (event: { Records: readonly QueueRecord[] }): Promise<BatchResult> => {
    const resolved = await services();
    const failures: BatchResult["batchItemFailures"] = [];
    for (const record of event.Records) {
      const parsed = SyncMessage.safeParse(JSON.parse(record.body));
      if (!parsed.success) {
        log.error("Malformed data-sync message", { body: record.body });
        continue;
      }
      try {
        await DataSync.advance(resolved.dataSync, parsed.data);
      } catch (error) {
        log.error("Data sync step failed", { generation: parsed.data.generation, error: String(error) });
        failures.push({ itemIdentifier: record.messageId });
      }
    }
    return { batchItemFailures: failures };
  };
}

export const handler = observed("queue", dataSyncHandler(lambdaComposition((c) => ({ dataSync: dataSync(c) }))));
