import { describe, expect, it } from "vitest";
import type { RunSave, RunStore, StoredRun } from "@tp/core/trading/run/runs";
import { RunCache } from "./run-cache";

const runOf = (id: string, version: number) => ({ run_id: id, session_id: id, version }) as StoredRun;

/** A store that records how the saves reached it: `saveMany` batches, each save won unless its run is in `losing`. */
function storeOf(losing: Set<string>) {
  const batches: string[][] = [];
  const stored = new Map<string, StoredRun>();
  const store = {
    get: async (id: string) => stored.get(id),
    save: async () => {
      throw new Error("saved alone");
    },
    saveMany: async (saves: readonly RunSave[]) => {
      batches.push(saves.map((save) => save.run.run_id));
      return saves.map(({ run }) => {
        if (!losing.has(run.run_id)) stored.set(run.run_id, run);
        return { status: "fulfilled", value: !losing.has(run.run_id) } as const;
      });
    },
  } as unknown as RunStore;
  return { store, batches, stored };
}

describe("RunCache", () => {
  it("sends the saves of runs fed side by side to the store as one saveMany, and keeps only the runs whose save won", async () => {
    const { store, batches } = storeOf(new Set(["b"]));
    const cache = new RunCache(store);
    const saved = await Promise.all(["a", "b", "c"].map((id) => cache.save(runOf(id, 2), 1, [])));
    expect(saved).toEqual([true, false, true]);
    expect(batches).toEqual([["a", "b", "c"]]);
    // The winners are answered from memory; the loser is read from the store again.
    expect((await cache.get("a"))?.version).toBe(2);
    expect(await cache.get("b")).toBeUndefined();
    // A save made later goes in a batch of its own.
    expect(await cache.save(runOf("a", 3), 2, [])).toBe(true);
    expect(batches).toEqual([["a", "b", "c"], ["a"]]);
  });

  it("writes every save at once, with or without events (no save is held back): the table has each run as fed", async () => {
    const { store, stored } = storeOf(new Set());
    const cache = new RunCache(store);
    for (let version = 2; version <= 6; version++) expect(await cache.save(runOf("quiet", version), version - 1, [])).toBe(true);
    expect(stored.get("quiet")?.version).toBe(6);
    expect(cache.peek("quiet")?.version).toBe(6);
    cache.forget("quiet");
    expect(cache.peek("quiet")).toBeUndefined();
    expect((await cache.get("quiet"))?.version).toBe(6);
  });
});
