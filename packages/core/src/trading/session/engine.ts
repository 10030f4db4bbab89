import { TradingEngine } from "../../engine/engine";
import type { ViewDeps } from "./deps";
import { engineOf } from "../run/update";
import type { StoredRun } from "../run/runs";
import type { StoredSession } from "./sessions";

/**
 * The engine as of a run's latest snapshot (the session's current run unless another of its
 * runs is named), and that run; a session that has not run yet gets a fresh engine at its
 * starting capital and no run. Every view of a session's figures starts here.
 */
export async function sessionEngine(
  deps: Pick<ViewDeps, "runs" | "setupFor">,
  session: StoredSession,
  runId: string | null = session.run_id,
): Promise<{ engine: TradingEngine; run: StoredRun | undefined }> {
  const run = runId ? await deps.runs.get(runId) : undefined;
  if (run) return { engine: engineOf(run), run };
  return { engine: new TradingEngine(await deps.setupFor(session, session.id)), run: undefined };
}
