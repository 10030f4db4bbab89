import { describe, expect, it } from "vitest";
import { TurnBatch } from "./turn-batch";

describe("TurnBatch", () => {
  it("sends what was added in one turn as one batch, answers each item its own outcome, and starts a new batch for later items", async () => {
    const batches: number[][] = [];
    const batch = new TurnBatch<number, number>(async (items) => {
      batches.push(items);
      return items.map((item) => (item < 0 ? { status: "rejected", reason: new Error(`negative ${item}`) } : { status: "fulfilled", value: item * 10 }));
    });
    // Added from separate async paths within one turn (each after a microtask), as concurrent feeds do.
    const first = [1, 2, -3].map(async (item) => {
      await Promise.resolve();
      return batch.add(item);
    });
    const outcomes = await Promise.allSettled(first);
    expect(batches).toEqual([[1, 2, -3]]);
    expect(outcomes.map((o) => (o.status === "fulfilled" ? o.value : (o.reason as Error).message))).toEqual([10, 20, "negative -3"]);
    expect(await batch.add(4)).toBe(40);
    expect(batches).toEqual([[1, 2, -3], [4]]);
  });

  it("rejects every item of a batch whose call throws, and keeps serving later batches", async () => {
    let fail = true;
    const batch = new TurnBatch<string, string>(async (items) => {
      if (fail) throw new Error("table unreachable");
      return items.map((item) => ({ status: "fulfilled", value: item.toUpperCase() }));
    });
    const outcomes = await Promise.allSettled([batch.add("a"), batch.add("b")]);
    expect(outcomes.map((o) => o.status === "rejected" && (o.reason as Error).message)).toEqual(["table unreachable", "table unreachable"]);
    fail = false;
    expect(await Promise.all([batch.add("c"), batch.add("d")])).toEqual(["C", "D"]);
  });
});
