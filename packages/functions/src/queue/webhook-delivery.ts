import type { BatchResult, QueueRecord } from "@tp/core/jobs";
import { log } from "@tp/core/log";
import { DeliveryMessage, deliver } from "@tp/core/webhooks/index";
import { webhookDelivery } from "@tp/adapters/compose/webhooks";
import type { Services } from "@tp/adapters/services";
import { observed } from "../observability";
import { lambdaComposition } from "../runtime";

/**
 * The webhook delivery worker: each record is one try of one delivery, the batch's tries sent side
 * by side. A try that fails is recorded and its retry queued with its delay by `deliver` (the
 * record succeeds); only a fault of the worker itself (the table unreachable) is reported, so SQS
 * redelivers that record, and `deliver` sends nothing twice for a try it recorded.
 */
export function webhookDeliveryHandler(services: () => Promise<Pick<Services, "webhookDelivery">>) {
  return async (event: { Records: readonly QueueRecord[] }): Promise<BatchResult> => {
    const resolved = await services();
    const failures: BatchResult["batchItemFailures"] = [];
    await Promise.all(
      event.Records.map(async (record) => {
        const parsed = DeliveryMessage.safeParse(JSON.parse(record.body));
        if (!parsed.success) {
          log.error("Malformed webhook delivery message", { body: record.body });
          return;
        }
        try {
          await deliver(resolved.webhookDelivery, parsed.data);
        } catch (error) {
          log.error("Webhook delivery try failed", { delivery_id: parsed.data.delivery_id, webhook_id: parsed.data.webhook_id, error: String(error) });
          failures.push({ itemIdentifier: record.messageId });
        }
      }),
    );
    return { batchItemFailures: failures };
  };
}

export const handler = observed("queue", webhookDeliveryHandler(lambdaComposition((c) => ({ webhookDelivery: webhookDelivery(c) }))));
