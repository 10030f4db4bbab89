import { describe, expect, it } from "vitest";
import { Lru } from "./lru";

describe("Lru", () => {
  it("forgets the least recently used entry beyond its size, a read counting as a use", () => {
    const lru = new Lru<string, number>(2);
    lru.set("a", 1);
    lru.set("b", 2);
    expect(lru.get("a")).toBe(1);
    lru.set("c", 3);
    expect([lru.get("a"), lru.get("b"), lru.get("c")]).toEqual([1, undefined, 3]);
    expect(lru.size).toBe(2);
  });

  it("drops an entry once its ttl has passed, and lists only live values", () => {
    let now = 1_000;
    const lru = new Lru<string, string>(10, () => now);
    lru.set("short", "s", { ttl: 50 });
    lru.set("long", "l", { ttl: 500 });
    lru.set("forever", "f");
    now += 50;
    expect([...lru.values()]).toEqual(["l", "f"]);
    expect(lru.get("short")).toBeUndefined();
    now += 1_000_000;
    expect([lru.get("long"), lru.get("forever")]).toEqual([undefined, "f"]);
    expect(lru.delete("forever")).toBe(true);
    expect(lru.size).toBe(0);
  });
});
