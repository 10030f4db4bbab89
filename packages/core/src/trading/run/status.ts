import type { ChannelRunState, TradingEngine } from "../../engine/engine";
import type { EngineEvent } from "../../engine/events";
import type { RunStore } from "./runs";
import { engineOf, updateRun } from "./update";

/**
 * A channel's status as the session's life moves it (docs/channels.md "Channel status events"):
 * a session's start, pause, resume and stop change what each of its channels does, so each is a
 * `channel_status` event in the run's log, written with the run like a channel's own start or
 * pause, and pushed like any other event. In the run's folder, below the session and the channels:
 * the session's lifecycle, the live run and the channels' figures all record or read it.
 */

/** What a session's lifecycle action is (`start`, `pause`, `resume`, `stop`), and the statuses it moves between. */
export interface SessionStatusChange {
  action: string;
  /** The session's status before and after (`created`, `running`, `paused`, `stopped`, …). */
  previous: string;
  status: string;
}

/**
 * What a channel is doing, as shown: its engine state while the session is live; `paused` for a
 * running channel of a paused session; `stopped` while the session is not running or paused
 * (nothing trades it).
 */
export function effectiveStatus(session: { status: string }, state: ChannelRunState | null): ChannelRunState {
  if (session.status !== "running" && session.status !== "paused") return "stopped";
  if (session.status === "paused" && state === "running") return "paused";
  return state ?? "running";
}

/**
 * Writes a `channel_status` event (`{status, previous, session_action, session_status}`) for
 * every channel whose shown status the session's change changes, at `at`.
 */
export function emitSessionStatus(engine: TradingEngine, change: SessionStatusChange, at: number): void {
  for (const channelId of engine.channelIds()) {
    const state = engine.view(channelId).state;
    const previous = effectiveStatus({ status: change.previous }, state);
    const status = effectiveStatus({ status: change.status }, state);
    if (previous === status) continue;
    engine.time = Math.max(engine.time, at);
    engine.emit("channel_status", channelId, { status, previous, session_action: change.action, session_status: change.status });
  }
}

/**
 * Records a session's change on its run (one conditional save, `updateRun`): the events written,
 * none when the session has no run yet (its first start: the run is made with them, `LiveRuns.attach`).
 */
export async function recordSessionStatus(deps: { runs: RunStore; now: () => number }, runId: string, change: SessionStatusChange): Promise<EngineEvent[]> {
  const done = await updateRun(deps, runId, (run) => {
    const engine = engineOf(run);
    const before = engine.lastSequence;
    emitSessionStatus(engine, change, deps.now());
    return engine.lastSequence === before ? null : { engine, value: null };
  });
  return done?.events ?? [];
}
