/**
 * What moves a run forward beside the live bars: a replay over stored candles (replay), the multi-timeframe
 * session (mtf), the day rollover, the broker venue's exchange and reconciliation, and warm-up from the
 * candle store.
 */
export * as Mtf from "./mtf";
export * as Replay from "./replay";
export { DayRollover } from "./rollover";
export * as Venue from "./venue";
export * as VenueReconcile from "./venue-reconcile";
export * as WarmUp from "./warm-up";
