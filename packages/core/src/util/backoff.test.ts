import { describe, expect, it } from "vitest";
import { retrying } from "./backoff";

describe("retrying", () => {
  const options = (waits: number[]) => ({
    attempts: 4,
    baseMs: 10,
    maxMs: 50,
    retryable: (error: unknown) => (error as Error).message === "race",
    random: () => 0.99,
    sleep: async (ms: number) => void waits.push(ms),
  });

  it("retries a lost race with growing, capped waits and returns the first success", async () => {
    const waits: number[] = [];
    let calls = 0;
    const result = await retrying(async (attempt) => {
      calls++;
      if (attempt < 4) throw new Error("race");
      return "written";
    }, options(waits));
    expect(result).toBe("written");
    expect(calls).toBe(4);
    expect(waits).toEqual([19, 39, 49]);
  });

  it("gives up after the last attempt and never retries other errors", async () => {
    const waits: number[] = [];
    await expect(retrying(async () => Promise.reject(new Error("race")), options(waits))).rejects.toThrow("race");
    expect(waits).toHaveLength(3);
    let calls = 0;
    await expect(retrying(async () => (calls++, Promise.reject(new Error("boom"))), options([]))).rejects.toThrow("boom");
    expect(calls).toBe(1);
  });
});
