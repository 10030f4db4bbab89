/**
 * One session worker task as its own process, for test/infra/worker-tasks.test.ts: the worker's
 * composition root (packages/worker/src/runtime.ts) on the table the environment names, its
 * market clock shared with the other tasks through `CLOCK_START` (the market's instant at wall
 * instant `CLOCK_ANCHOR`) and `CLOCK_SPEED`, and `LEASE_MS` as its lease. Stops on SIGTERM.
 */
import { logger, startWorker } from "../../packages/worker/src/runtime";

const start = Number(process.env.CLOCK_START);
const anchor = Number(process.env.CLOCK_ANCHOR);
const speed = Number(process.env.CLOCK_SPEED ?? "1");
const marketNow = () => start + (Date.now() - anchor) * speed;
const worker = await startWorker(
  process.env,
  { marketNow },
  { taskId: process.env.TASK_ID, leaseMs: Number(process.env.LEASE_MS ?? "15000"), tickMs: 250, refreshMs: 500 },
);
logger.info("Session worker started", { source: "session-worker", task_id: process.env.TASK_ID });
const alive = setInterval(() => undefined, 60_000);
process.on("SIGTERM", () => {
  clearInterval(alive);
  void worker.stop().then(() => process.stdout.write("", () => process.exit(0)));
});
