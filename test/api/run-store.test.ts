import { randomBytes } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import type { EngineEvent } from "../../packages/core/src/engine/events";
import type { RunStore, StoredRun } from "../../packages/core/src/trading/runs";
import { createTestApi, type TestApi } from "../support/harness";

/**
 * A run's save is all or nothing (docs/session-worker.md "One order of events"): the writer that
 * loses the version race leaves no event and no order behind, and a save too large for one
 * transaction is not lost when the process dies after its state was written.
 */
let api: TestApi;
let runs: RunStore;
beforeAll(async () => {
  api = await createTestApi();
  runs = api.services.trading.sessions.runs;
});

const runOf = (id: string, version: number, sequence: number): StoredRun => ({
  run_id: id,
  session_id: id,
  user_id: "u1",
  setup: {} as StoredRun["setup"],
  snapshot: { sequence } as StoredRun["snapshot"],
  progress: null,
  version,
  updated_at: "2024-03-15T14:30:00.000Z",
});
const log = (sequence: number, message: string): EngineEvent => ({
  sequence,
  time: Date.parse("2024-03-15T14:30:00Z"),
  type: "log",
  channel_id: null,
  data: { level: "info", message },
});
const listed = async (id: string) => (await runs.events(id, { limit: 1000 })).items.map((e) => [e.sequence, e.data.message]);

describe("the run store's save", () => {
  it("writes the events of the winner only when two writers save the same version", async () => {
    await runs.save(runOf("r-race", 1, 0), 0, []);
    const [a, b] = await Promise.all([
      runs.save(runOf("r-race", 2, 1), 1, [log(1, "from a")]),
      runs.save(runOf("r-race", 2, 2), 1, [log(1, "from b"), log(2, "from b")]),
    ]);
    expect([a, b].filter(Boolean)).toHaveLength(1);
    expect(await listed("r-race")).toEqual(
      a
        ? [[1, "from a"]]
        : [
            [1, "from b"],
            [2, "from b"],
          ],
    );
    expect((await runs.get("r-race"))!.snapshot!.sequence).toBe(a ? 1 : 2);
  });

  it("keeps a save larger than one transaction when the process dies after its state was written", async () => {
    await runs.save(runOf("r-big", 1, 0), 0, []);
    const many = Array.from({ length: 150 }, (_, i) => log(i + 1, `line ${i + 1}`));
    const events = (runs as any).events_;
    const putMany = events.putMany;
    events.putMany = async () => {
      throw new Error("killed");
    };
    try {
      await expect(runs.save(runOf("r-big", 2, 150), 1, many)).rejects.toThrow("killed");
    } finally {
      events.putMany = putMany;
    }
    // The state was committed; the next reader writes the events it carries before answering.
    expect((await runs.get("r-big"))!.version).toBe(2);
    expect(await listed("r-big")).toEqual(many.map((e) => [e.sequence, e.data.message]));
    // A later save clears it and adds its own.
    expect(await runs.save(runOf("r-big", 3, 151), 2, [log(151, "after")])).toBe(true);
    expect((await listed("r-big")).length).toBe(151);
  });

  it("saves a chunk whose events would not fit in the run's item (a year of a busy backtest) by writing them first", async () => {
    await runs.save(runOf("r-huge", 1, 0), 0, []);
    // Incompressible lines: gzipped, far more than an item's 400 KB.
    const noise = () => randomBytes(200).toString("base64");
    const many = Array.from({ length: 3000 }, (_, i) => log(i + 1, noise()));
    expect(await runs.save(runOf("r-huge", 2, 3000), 1, many)).toBe(true);
    expect((await runs.get("r-huge"))!.version).toBe(2);
    let count = 0;
    for (let cursor: string | undefined, page = 0; page === 0 || cursor; page++) {
      const next = await runs.events("r-huge", { limit: 500, cursor });
      count += next.items.length;
      cursor = next.cursor;
    }
    expect(count).toBe(3000);
  });
});
