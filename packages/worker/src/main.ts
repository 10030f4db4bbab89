import { logger, startWorker } from "./runtime";

/**
 * The session worker as its own process (the Fargate task on AWS), on its own composition root
 * (`runtime.ts`): one worker until SIGTERM, which lets the current step finish and gives up its
 * leases. Everything it needs to resume is in the table.
 */
async function main() {
  const worker = await startWorker(
    process.env,
    {},
    {
      // A task that lost the quote lease while it ran keeps a quote connection it cannot close: it ends, and the service starts a new one.
      onQuoteLeaseLost: () => void shutdown("QUOTE_LEASE_LOST"),
    },
  );
  logger.info("Session worker started", { source: "session-worker" });
  // The worker's own timers do not hold the process (npm start's server does); here this one does, until a signal.
  const alive = setInterval(() => undefined, 60_000);
  async function shutdown(signal: string) {
    logger.info(`${signal}: stopping`, { source: "session-worker" });
    clearInterval(alive);
    await worker.stop();
    logger.info("Session worker stopped", { source: "session-worker" });
    // Exit once the log lines are written (stdout is a pipe to the log driver; exit() would drop them).
    process.stdout.write("", () => process.exit(0));
  }
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));
}

main().catch((error) => {
  logger.error("Session worker failed to start", error as Error);
  process.exit(1);
});
