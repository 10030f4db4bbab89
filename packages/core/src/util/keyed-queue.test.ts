import { describe, expect, it } from "vitest";
import { KeyedQueue } from "./keyed-queue";

describe("KeyedQueue", () => {
  it("runs one batch of a key at a time, in arrival order, each batch what arrived while the last ran (up to take)", async () => {
    const batches: string[][] = [];
    const drains: number[] = [];
    let release!: () => void;
    const firstRuns = new Promise<void>((resolve) => (release = resolve));
    let drainCount = 0;
    const queue = new KeyedQueue<string, { id: number }>(
      (waiting) => Math.min(waiting.length, 2),
      async (key, batch, drain) => {
        batches.push(batch.map((item) => `${key}:${item}`));
        drains.push(drain.id);
        if (batch[0] === "a1") await firstRuns;
      },
      () => ({ id: ++drainCount }),
    );
    queue.push("a", "a1");
    queue.push("a", "a2");
    queue.push("a", "a3");
    queue.push("a", "a4");
    queue.push("b", "b1");
    await new Promise((resolve) => setTimeout(resolve, 0));
    // a1 runs alone (it was alone when it arrived); b drains beside a, with its own drain state.
    expect(batches).toEqual([["a:a1"], ["b:b1"]]);
    release();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(batches).toEqual([["a:a1"], ["b:b1"], ["a:a2", "a:a3"], ["a:a4"]]);
    expect(drains).toEqual([1, 2, 1, 1]);
    // The queue ran empty: the next item starts a new drain.
    queue.push("a", "a5");
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(batches.at(-1)).toEqual(["a:a5"]);
    expect(drains.at(-1)).toBe(3);
  });
});
