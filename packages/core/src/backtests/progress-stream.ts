import { publish, type StreamDeps } from "../trading/channels/stream";
import { progressOf, type BacktestControlDeps } from "./backtests";
import { log } from "../log";

/**
 * Pushes a backtest's progress view on its session's stream as a `backtest_progress` message
 * (kept in the session's update feed like every push, so a reconnecting client catches up on it).
 * Called after each task of the backtest's workflow, when the task has written its progress.
 * A push that fails is logged and never fails the backtest: `GET …/progress` still answers.
 */
export async function publishProgress(deps: { backtests: BacktestControlDeps; stream: StreamDeps }, backtestId: string): Promise<void> {
  try {
    const backtest = await deps.backtests.backtests.get(backtestId);
    if (!backtest) return;
    await publish(deps.stream, backtest.session_id, [{ type: "backtest_progress", data: await progressOf(deps.backtests, backtest) }]);
  } catch (error) {
    log.error("Pushing a backtest's progress failed", { backtest_id: backtestId, error: String(error) });
  }
}
