import { beforeAll, describe, expect, it } from "vitest";
import { DynamoCandleStore } from "../../packages/adapters/src/stores/candle-store";
import { CandleBatches } from "../../packages/core/src/candles/candle-batch";
import { createTestApi, type TestApi } from "../support/harness";

let api: TestApi;
beforeAll(async () => {
  api = await createTestApi();
});

const minute = (index: number) => ({
  timestamp: Date.parse("2024-03-15T13:30:00Z") / 1000 + index * 60,
  open: 100 + index,
  high: 101 + index,
  low: 99 + index,
  close: 100.5 + index,
  volume: 1000,
  turnover: 100_000,
  trade_session: "Intraday" as const,
});

describe("concurrent candle writes", () => {
  it("all succeed when many writers hit one bucket at once: each re-reads, merges and retries", async () => {
    // Separate store instances, as separate Lambda containers would be.
    const writers = Array.from({ length: 12 }, () => new DynamoCandleStore(api.services.db));
    const results = await Promise.all(writers.map((store, index) => store.upsert("AAPL.US", "1m", CandleBatches.fromCandles([minute(index)]))));
    expect(results.every((result) => result.added === 1)).toBe(true);
    const stored = (await api.services.candles.load("AAPL.US", "1m", ["2024-03-15"])).get("2024-03-15")!;
    expect(Array.from(stored.timestamp)).toEqual(Array.from({ length: 12 }, (_, index) => minute(index).timestamp));
  });

  it("all succeed for whole-bucket replacements racing each other, the last one standing whole", async () => {
    const writers = Array.from({ length: 8 }, () => new DynamoCandleStore(api.services.db));
    await Promise.all(
      writers.map((store, index) => store.replace("MSFT.US", "1m", "2024-03-15", CandleBatches.fromCandles([minute(index), minute(index + 20)]))),
    );
    const stored = (await api.services.candles.load("MSFT.US", "1m", ["2024-03-15"])).get("2024-03-15")!;
    expect(stored.length).toBe(2);
    expect(stored.timestamp[1]! - stored.timestamp[0]!).toBe(20 * 60);
  });
});
