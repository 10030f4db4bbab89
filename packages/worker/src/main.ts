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
  console.log(JSON.stringify({ level: "INFO", source: "session-worker", message: "Session worker started" }));
  const shutdown = async (signal: string) => {
    console.log(JSON.stringify({ level: "INFO", source: "session-worker", message: `${signal}: stopping` }));
    await worker.stop();
    process.exit(0);
  };
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));
}

main().catch((error) => {
  console.error(JSON.stringify({ level: "ERROR", source: "session-worker", message: "Session worker failed to start", error: String(error) }));
  process.exit(1);
});
