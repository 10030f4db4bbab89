import { DataSync } from "@tp/core/data-sync/index";
import { dataSync } from "@tp/adapters/compose/market";
import type { Services } from "@tp/adapters/services";
import { observed } from "../observability";
import { lambdaComposition } from "../runtime";
import { log } from "@tp/core/log";

/** The polling gap fill, invoked by an EventBridge schedule (locally, a timer): a ready service looks for gaps and imports them. */
export function dataSyncPollHandler(services: () => Promise<Pick<Services, "dataSync">>) {
  return async (): Promise<{ sync_state: string; started: boolean }> => {
    const result = await DataSync.poll((await services()).dataSync);
    // Logged when it starts a gap fill; a poll that finds nothing to do (not ready, no subscriptions) says nothing,
    // which under npm start's accelerated clock would be a line every few seconds.
    if (result.started) log.info("Polling gap fill", { source: "data-sync", ...result });
    return result;
  };
}

export const handler = observed("schedule", dataSyncPollHandler(lambdaComposition((c) => ({ dataSync: dataSync(c) }))));
