import { log } from "../log";
import { publish, type StreamDeps } from "../trading/channels/stream";
import type { SweepControlDeps } from "./sweep-model";
import { progressOf } from "./sweep-control";

/**
 * Pushes a sweep's progress view on its session's stream as a `sweep_progress` message (kept in
 * the session's update feed like every push). Called once per chunk of a walk-forward's grid (its
 * points push nothing of their own: they are no backtests); a push that fails is logged and never
 * fails the chunk: `GET …/sweeps/{id}` still answers.
 */
export async function publishSweepProgress(
  deps: { sweeps: Pick<SweepControlDeps, "sweeps" | "backtests" | "grids">; stream: StreamDeps },
  sweepId: string,
): Promise<void> {
  try {
    const sweep = await deps.sweeps.sweeps.get(sweepId);
    if (!sweep) return;
    await publish(deps.stream, sweep.session_id, [{ type: "sweep_progress", data: await progressOf(deps.sweeps, sweep) }]);
  } catch (error) {
    log.error("Pushing a sweep's progress failed", { sweep_id: sweepId, error: String(error) });
  }
}
