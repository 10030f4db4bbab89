import { z } from "zod";
import type { Feed } from "../../candles/bar-feed";
import type { Timeframe } from "../../strategies/definition";

// The state a stepped run's driver (replay.ts, mtf.ts) keeps in the run's progress: its own
// module, so that the run store's types (runs.ts) name it without importing the driver.

/** Where a replay is: `playing` (the worker advances it by `speed`), `paused`, or `finished` (the range is used up). */
export const ReplayStatus = z.enum(["playing", "paused", "finished"]).meta({ id: "ReplayState" });
export type ReplayStatus = z.infer<typeof ReplayStatus>;

/** The driver's part of a run's progress. */
export interface DriverState {
  kind: "replay" | "mtf";
  start_date: string;
  end_date: string;
  timezone: string;
  /** The range in epoch ms: bars opening from `start_ms` to `end_ms` (inclusive) are fed. */
  start_ms: number;
  end_ms: number;
  feeds: Feed[];
  /** One step is one bar of this period (the finest the configuration reads; an MTF session's executors'). */
  step_timeframe: Timeframe;
  state: ReplayStatus;
  /** Steps per second of wall time while playing (`DriverDeps.wallNow`). */
  speed: number;
  /** Steps fed since the start of the range, and how many the range holds (counted when the driver starts). */
  steps: number;
  steps_total: number;
  /** Wall time (ms, `DriverDeps.wallNow`) the playing loop last advanced it, and the fraction of a step it still owes. */
  played_at: number | null;
  carry: number;
}
