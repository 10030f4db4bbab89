import { Buckets, type StoredPeriod } from "@tp/core/candles/buckets";
import type { ClosedBar } from "@tp/core/trading/live";

/** Sessions fed (and leases taken or given up) at the same time (each feed a conditional save; bench/session.ts). */
export const FEED_CONCURRENCY = 8;

/** A feed's key: its symbol and period. */
export const feedKey = (symbol: string, timeframe: string) => `${symbol}|${timeframe}`;

/** Bars closing together go coarser period first: an MTF director's bar before its executors'. */
export const inFeedOrder = (a: ClosedBar, b: ClosedBar) =>
  a.close_ms - b.close_ms || Buckets.seconds(b.timeframe as StoredPeriod) - Buckets.seconds(a.timeframe as StoredPeriod);
