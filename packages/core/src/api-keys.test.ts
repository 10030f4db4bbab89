import { describe, expect, it } from "vitest";
import { KeyRateLimit, type KeyRateStore, type KeyWindow } from "./api-keys";

/** A store whose counts the test answers one at a time, recording what each asked. */
function gatedStore() {
  const asked: { window: number; limit: number; expiresAt: number; answer: (admitted: boolean) => void }[] = [];
  const store: KeyRateStore = {
    count: (_id, window, limit, expiresAt) => new Promise((resolve) => asked.push({ window, limit, expiresAt, answer: resolve })),
  };
  return { store, asked };
}

describe("KeyRateLimit", () => {
  it("asks the store for the window of the instant, and answers the seconds to its end when refused", async () => {
    const { store, asked } = gatedStore();
    const limit = new KeyRateLimit(3, 0.5, store); // windows of 6 s
    const seen: KeyWindow = { window: -1, requests: 0 };
    const admitted = limit.take("k", seen, 60_500);
    asked[0]!.answer(true);
    expect(await admitted).toBe(0);
    expect(asked[0]).toMatchObject({ window: 10, limit: 3, expiresAt: 66 });
    const refused = limit.take("k", seen, 61_200);
    asked[1]!.answer(false);
    expect(await refused).toBe(5);
    expect(seen).toEqual({ window: 10, requests: 3 });
    // Known full: no further count in this window, and at least a second to wait at its very end.
    expect(await limit.take("k", seen, 65_999)).toBe(1);
    expect(asked).toHaveLength(2);
  });

  it("leaves the new window's count alone when a request of the old one is answered after the window turned", async () => {
    const { store, asked } = gatedStore();
    const limit = new KeyRateLimit(2, 1, store); // windows of 2 s
    const seen: KeyWindow = { window: -1, requests: 0 };
    const old = limit.take("k", seen, 1_999);
    const next = limit.take("k", seen, 2_000);
    asked[1]!.answer(true);
    asked[0]!.answer(false);
    expect(await next).toBe(0);
    expect(await old).toBe(1);
    // The old window's refusal did not mark the new one full.
    expect(seen).toEqual({ window: 1, requests: 1 });
  });
});
