import type { EngineSetup } from "../../engine/setup";
import type { Timeframe } from "../../strategies/definition";
import type { Bar } from "../../strategies/strategy";
import type { RunStore } from "../run/runs";
import type { SessionDeps, StoredSession } from "./sessions";
import type { WorkerBeat } from "../worker/status";

/**
 * The dependencies record every trading use case takes (views, orders, live runs, replays, the
 * day rollover, channels): the session store and command sink, the run store, and the lookups
 * the adapters provide. In its own module so that the use cases share it without importing
 * each other.
 */
export interface ViewDeps extends SessionDeps {
  runs: RunStore;
  /** The engine setup of a session's configuration (lot sizes, fees and rates looked up). */
  setupFor: (session: StoredSession, runId: string) => Promise<EngineSetup>;
  /** The latest price of a symbol, for checking an order of a session that has seen no bar of it. */
  lastPrice: (symbol: string) => Promise<number | null>;
  /** The session worker's last heartbeat (simulation and live sessions run there). */
  workerBeat: () => Promise<WorkerBeat | undefined>;
  /** A fresh run's strategy warm-up: the last `count` closed regular-session bars of a feed before `beforeMs`, oldest first (`warm-up.ts`). */
  history: (symbol: string, timeframe: Timeframe, count: number, beforeMs: number) => Promise<Bar[]>;
}
