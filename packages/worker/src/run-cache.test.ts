import { describe, expect, it } from "vitest";
import type { RunSave, RunStore, StoredRun } from "@tp/core/trading/runs";
import { HOLD_SAVES, RunCache } from "./run-cache";

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
});

describe("RunCache's held saves", () => {
  const event = { type: "log", sequence: 1 } as never;

  it("holds up to HOLD_SAVES saves without events, then writes the run on the version the table has, with every held save in it", async () => {
    const { store, batches, stored } = storeOf(new Set());
    const cache = new RunCache(store, () => true);
    stored.set("a", runOf("a", 1));
    const expected: number[] = [];
    const saveMany = store.saveMany!.bind(store);
    store.saveMany = (saves) => (expected.push(...saves.map((save) => save.expectedVersion)), saveMany(saves));
    for (let version = 2; version <= 1 + HOLD_SAVES; version++) expect(await cache.save(runOf("a", version), version - 1, [])).toBe(true);
    // Held: nothing reached the store, and the cache answers the run as fed.
    expect(batches).toEqual([]);
    expect((await cache.get("a"))?.version).toBe(1 + HOLD_SAVES);
    expect(stored.get("a")?.version).toBe(1);
    // The next one is written, conditional on the version the table still has.
    expect(await cache.save(runOf("a", 2 + HOLD_SAVES), 1 + HOLD_SAVES, [])).toBe(true);
    expect(batches).toEqual([["a"]]);
    expect(expected).toEqual([1]);
    expect(stored.get("a")?.version).toBe(2 + HOLD_SAVES);
  });

  it("writes a save with events at once, and what release lets go, each on the stored version; never holds what mayHold refuses", async () => {
    const { store, batches, stored } = storeOf(new Set());
    const cache = new RunCache(store, (run) => run.run_id !== "never");
    const expected: Record<string, number> = {};
    const saveMany = store.saveMany!.bind(store);
    store.saveMany = (saves) => {
      for (const save of saves) expected[save.run.run_id] = save.expectedVersion;
      return saveMany(saves);
    };
    await cache.save(runOf("a", 6), 5, []);
    expect(await cache.save(runOf("a", 7), 6, [event])).toBe(true);
    expect(expected.a).toBe(5);
    expect(await cache.save(runOf("never", 3), 2, [])).toBe(true);
    expect(expected.never).toBe(2);
    await Promise.all([cache.save(runOf("b", 4), 3, []), cache.save(runOf("c", 9), 8, [])]);
    expect(batches).toEqual([["a"], ["never"]]);
    // Released but for the runs fed this step: c stays held.
    expect(await cache.release((id) => id !== "c")).toEqual(["b"]);
    expect(batches).toEqual([["a"], ["never"], ["b"]]);
    expect([expected.b, stored.get("b")?.version, stored.get("c")]).toEqual([3, 4, undefined]);
    expect([cache.holds("c"), await cache.release(), cache.holds("c")]).toEqual([true, ["c"], false]);
    expect([expected.c, stored.get("c")?.version]).toEqual([8, 9]);
  });

  it("drops a held run whose release lost to another writer: the next get reads the table", async () => {
    const { store } = storeOf(new Set(["a"]));
    const cache = new RunCache(store, () => true);
    await cache.save(runOf("a", 2), 1, []);
    expect((await cache.get("a"))?.version).toBe(2);
    expect(await cache.release()).toEqual([]);
    expect(await cache.get("a")).toBeUndefined();
  });
});
