import { describe, expect, it } from "vitest";
import { DynamoLeaseStore } from "../../packages/adapters/src/stores/lease-store";
import { FULL_REFRESH_MS } from "../../packages/worker/src/ownership";
import { SessionWorker } from "../../packages/worker/src/session-worker";
import { barsSessionConfig, WorkerHarness } from "../support/worker-harness";

/**
 * The session worker's periodic refresh reads the live list and the leases over their shards only
 * when something changed (docs/session-worker.md "More than one worker"): the live list's stamp, the
 * set of live tasks, or `FULL_REFRESH_MS` of the wall clock since the last full read.
 */
const h = WorkerHarness.forSuite("2024-03-15T13:30:00Z");

/** How many reads of the live list's and the leases' shards (PartiQL statements over their partitions) `work` sent. */
async function statements(work: () => Promise<void>): Promise<number> {
  let sent = 0;
  const client = h.api.services.db.client;
  client.middlewareStack.add(
    (next, context) => (args) => {
      const shards = /"(SESSIONS#LIVE|WORKER#LEASES)#/.test(JSON.stringify(args.input));
      sent += context.commandName === "ExecuteStatementCommand" && shards ? 1 : 0;
      return next(args);
    },
    { step: "initialize", name: "countStatements" },
  );
  try {
    await work();
  } finally {
    client.middlewareStack.remove("countStatements");
  }
  return sent;
}

describe("the worker's periodic refresh", () => {
  it("reads the live list and the leases only when the list's stamp or the live tasks changed, or 30 s passed", async () => {
    let wall = Date.now();
    const worker = new SessionWorker(h.api.services, { tickMs: 1e9, refreshMs: 1e9, beatMs: 0, wall: () => wall });
    h.workers.push(worker);
    await worker.start();
    // Nothing changed since the start's full refresh: the stamp and the beats only.
    expect(await statements(() => worker.refreshIfChanged())).toBe(0);
    expect(await statements(() => worker.refreshIfChanged())).toBe(0);

    // A session started (its replacement writes its marker, then the stamp): read in full, and driven.
    const session = await h.startSession("refreshed", barsSessionConfig);
    expect(await statements(() => worker.refreshIfChanged())).toBe(2);
    expect((await new DynamoLeaseStore(h.api.services.db).leases()).find((lease) => lease.session_id === session.id)?.owner).toBeTruthy();
    // Taking it up, the worker named the session's run in the session (a replacement: the stamp again), so once more; then quiet.
    expect(await statements(() => worker.refreshIfChanged())).toBe(2);
    expect(await statements(() => worker.refreshIfChanged())).toBe(0);

    // Another task beats: the live tasks changed.
    const other = new SessionWorker(h.api.services, { tickMs: 1e9, refreshMs: 1e9, beatMs: 0, wall: () => wall });
    h.workers.push(other);
    await other.start();
    expect(await statements(() => worker.refreshIfChanged())).toBe(2);
    expect(await statements(() => worker.refreshIfChanged())).toBe(0);

    // Nothing changed, but FULL_REFRESH_MS passed.
    wall += FULL_REFRESH_MS - 1_000;
    await other.refresh();
    expect(await statements(() => worker.refreshIfChanged())).toBe(0);
    wall += 1_000;
    await other.refresh();
    expect(await statements(() => worker.refreshIfChanged())).toBe(2);
  });
});
