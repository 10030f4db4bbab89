import { logger } from "@tp/functions/observability";
import { lambdaServices } from "@tp/functions/runtime";
import { SessionWorker } from "./session-worker";

/**
 * The session worker as its own process (the Fargate task on AWS): the same composition root as
 * the functions (configuration from the environment, keys from Secrets Manager), one worker
 * until SIGTERM, which lets the current step finish. Everything it needs to resume is in the table.
 */
async function main() {
  const services = await lambdaServices();
  const worker = new SessionWorker(services, { marketData: await services.marketData() });
  await worker.start();
  logger.info("Session worker started", { source: "session-worker" });
  // The worker's own timers do not hold the process (npm start's server does); here this one does, until a signal.
  const alive = setInterval(() => undefined, 60_000);
  const shutdown = async (signal: string) => {
    logger.info(`${signal}: stopping`, { source: "session-worker" });
    clearInterval(alive);
    await worker.stop();
    logger.info("Session worker stopped", { source: "session-worker" });
    // Exit once the log lines are written (stdout is a pipe to the log driver; exit() would drop them).
    process.stdout.write("", () => process.exit(0));
  };
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));
}

main().catch((error) => {
  logger.error("Session worker failed to start", error as Error);
  process.exit(1);
});
