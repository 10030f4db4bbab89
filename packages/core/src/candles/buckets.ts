import { z } from "zod";

/** The periods the candle store keeps (the interface's 1m, 5m, 1h, 1d). */
export const StoredPeriod = z.enum(["1m", "5m", "1h", "1d"]).meta({ id: "StoredPeriod" });
export type StoredPeriod = z.infer<typeof StoredPeriod>;
export const StoredPeriods = StoredPeriod.options;

/**
 * Storage buckets: candles of one symbol and period are kept in one item per UTC day (1m, 5m),
 * month (1h) or year (1d), so each item stays well under DynamoDB's 400 KB and a year of
 * 1-minute candles is about 250 reads.
 */
const GRANULARITY: Record<StoredPeriod, "day" | "month" | "year"> = { "1m": "day", "5m": "day", "1h": "month", "1d": "year" };

export const Buckets = {
  /** The bucket (`2024-01-31`, `2024-01` or `2024`) holding a candle at `seconds`. */
  of(period: StoredPeriod, seconds: number): string {
    const iso = new Date(seconds * 1000).toISOString();
    const granularity = GRANULARITY[period];
    return granularity === "day" ? iso.slice(0, 10) : granularity === "month" ? iso.slice(0, 7) : iso.slice(0, 4);
  },

  /** UNIX seconds where a bucket starts and (exclusive) ends. */
  range(period: StoredPeriod, bucket: string): [number, number] {
    const granularity = GRANULARITY[period];
    const [year, month = 1, day = 1] = bucket.split("-").map(Number) as [number, number?, number?];
    const start = Date.UTC(year, month - 1, day) / 1000;
    const end =
      granularity === "day"
        ? Date.UTC(year, month - 1, day + 1) / 1000
        : granularity === "month"
          ? Date.UTC(year, month, 1) / 1000
          : Date.UTC(year + 1, 0, 1) / 1000;
    return [start, end];
  },

  /** Bucket names covering `[startSec, endSec]`, in order. */
  between(period: StoredPeriod, startSec: number, endSec: number): string[] {
    const out: string[] = [];
    let at = startSec;
    for (;;) {
      const bucket = Buckets.of(period, at);
      out.push(bucket);
      const [, next] = Buckets.range(period, bucket);
      if (next > endSec) return out;
      at = next;
    }
  },

  /** Period length in seconds (bars of a period start on multiples of it within their session). */
  seconds(period: StoredPeriod): number {
    return { "1m": 60, "5m": 300, "1h": 3600, "1d": 86_400 }[period];
  },
};
