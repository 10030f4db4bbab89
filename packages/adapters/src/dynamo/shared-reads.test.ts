import { describe, expect, it } from "vitest";
import { SharedReads } from "./shared-reads";

/** A loader whose reads the test ends one at a time, each answering the value current when it began. */
function gatedStore() {
  let value = { version: 1 };
  const pending: (() => void)[] = [];
  let loads = 0;
  const load = () => {
    loads++;
    const seen = structuredClone(value);
    return new Promise<{ version: number }>((resolve) => pending.push(() => resolve(seen)));
  };
  const endRead = async () => {
    pending.shift()!();
    await new Promise((resolve) => setTimeout(resolve, 0));
  };
  return { load, endRead, write: (version: number) => (value = { version }), loads: () => loads };
}

describe("SharedReads", () => {
  it("answers the reads that arrived while one was under way with one read begun after them", async () => {
    const store = gatedStore();
    const reads = new SharedReads<{ version: number }>();
    const first = reads.read("k", store.load);
    // Written after the first read began: the later callers must see it.
    store.write(2);
    const later = Array.from({ length: 10 }, () => reads.read("k", store.load));
    await store.endRead();
    await store.endRead();
    expect(await first).toEqual({ version: 1 });
    const answers = await Promise.all(later);
    expect(answers).toEqual(Array(10).fill({ version: 2 }));
    expect(store.loads()).toBe(2);
    // Each caller has its own copy.
    answers[0]!.version = 99;
    expect(answers[1]!.version).toBe(2);
  });

  it("reads each key apart, and passes a failed read to the callers that shared it", async () => {
    const reads = new SharedReads<string>();
    const failing = () => Promise.reject(new Error("unreachable"));
    const [a, b, c] = await Promise.allSettled([reads.read("a", failing), reads.read("a", failing), reads.read("b", async () => "b")]);
    expect([a.status, b.status]).toEqual(["rejected", "rejected"]);
    expect(c).toEqual({ status: "fulfilled", value: "b" });
    expect(await reads.read("a", async () => "again")).toBe("again");
  });
});
