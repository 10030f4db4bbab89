import { createRoute, z } from "@hono/zod-openapi";
import { Sweeps } from "@tp/core/backtests/index";
import { type AppEnv, bearer, createGroup, errorResponse, errorResponses, json, jsonBody, requireAuth, type GroupServices } from "../http/group";
import { checkingFurther } from "../http/errors";

const SweepIdParam = z.object({ sweep_id: z.string().min(1).max(128) });
const tags = ["backtest"];
const owned = { auth: true, notFound: true } as const;
const transitionConflict = { 409: errorResponse("INVALID_STATE_TRANSITION: not allowed in the sweep's state (`current_status` names it)") };

/**
 * Parameter sweeps (docs/backtests.md "Parameter sweeps"): a grid of a strategy's parameters, each
 * point a backtest, fanned out by the sweep state machine, ranked by a metric, the best run again
 * out of sample. A group of its own (its own function, beside the backtest group's): mounted before
 * the backtest group, since `/api/v1/backtest/sweeps/...` is a sweep's, never a backtest id's.
 */
export function sweepsGroup(services: GroupServices & { trading: { backtests: Sweeps.SweepControlDeps } }) {
  const app = createGroup();
  for (const path of ["/api/v1/backtest/sweeps", "/api/v1/backtest/sweeps/*"]) app.use(path, requireAuth(services));
  const deps = services.trading.backtests;
  app.openapi(
    createRoute({
      method: "post",
      path: "/api/v1/backtest/sweeps",
      tags,
      summary: "Start a parameter sweep: one backtest per point of a grid",
      description:
        "The backtest request's fields (its `strategy_config` the base each point changes) plus `parameters` (per parameter a list of values or `{min, max, step}`), `metric` to rank by (default `sharpe_ratio`), `max_runs` (at most 1,000; a larger grid answers 422 stating its size) and an optional `out_of_sample` window `{start_date, end_date, top}` over which the best `top` runs (default 5) run again, or a `walk_forward` plan `{windows, mode (rolling or anchored), in_sample_days and out_of_sample_days, or ratio}`: the range cut into windows of trading days, the grid run on each in-sample part (windows × points at most `max_runs`), each window's best point on its out-of-sample part, the result's `walk_forward` listing the windows, the out-of-sample runs stitched into one curve and the walk-forward efficiency. Values outside the strategy's parameter ranges answer 422 naming them; points the strategy refuses as a whole (a fast period not below the slow one) are skipped and listed in the result.",
      security: bearer,
      request: jsonBody(Sweeps.SweepRequest),
      responses: {
        200: json(Sweeps.SweepStarted, "Started"),
        ...transitionConflict,
        ...errorResponses({ auth: true, notFound: ["SESSION_NOT_FOUND"], unavailable: ["SERVICE_UNAVAILABLE"] }),
      },
    }),
    async (c) => {
      const sweep = await Sweeps.start(deps, c.get("principal").user, c.req.valid("json"));
      return c.json(
        {
          success: true,
          message: `Sweep ${sweep.id} started: ${sweep.runs.length} runs`,
          sweep_id: sweep.id,
          runs: sweep.runs.length,
          skipped: sweep.skipped.length,
        },
        200,
      );
    },
    // A body its schema refuses is checked further on its well-formed fields: one 422 lists every problem.
    checkingFurther<AppEnv>((body, issues, c) => Sweeps.invalidRequest(deps, c.get("principal").user, body, issues)),
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/v1/backtest/sweeps/{sweep_id}",
      tags,
      summary: "A sweep's progress: runs done, failed and stopped, in and out of sample",
      security: bearer,
      request: { params: SweepIdParam },
      responses: { 200: json(Sweeps.SweepProgress, "Progress"), ...errorResponses(owned) },
    }),
    async (c) => c.json(await Sweeps.progress(deps, c.get("principal").user, c.req.valid("param").sweep_id), 200),
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/v1/backtest/sweeps/{sweep_id}/result",
      tags,
      summary:
        "The runs ranked by the sweep's metric, with their parameters and metrics, and the best runs' out-of-sample metrics (a walk-forward's windows, stitched curve and efficiency)",
      security: bearer,
      request: { params: SweepIdParam },
      responses: {
        200: json(Sweeps.SweepResult, "The ranking"),
        409: errorResponse("SWEEP_NOT_FINISHED while it runs; SWEEP_FAILED with the reason"),
        ...errorResponses(owned),
      },
    }),
    async (c) => c.json(await Sweeps.result(deps, c.get("principal").user, c.req.valid("param").sweep_id), 200),
  );

  const controls = { pause: Sweeps.pause, resume: Sweeps.resume, stop: Sweeps.stop } as const;
  const summaries = {
    pause: "Pause every run at its next checkpoint; the checkpoints survive restarts",
    resume: "Continue a paused sweep: its runs go on from their checkpoints",
    stop: "Stop: running runs stop at their next checkpoint, runs not started do not run; the result ranks what completed",
  };
  for (const [action, run] of Object.entries(controls) as [keyof typeof controls, (typeof controls)[keyof typeof controls]][]) {
    app.openapi(
      createRoute({
        method: "post",
        path: `/api/v1/backtest/sweeps/{sweep_id}/${action}`,
        tags,
        summary: summaries[action],
        security: bearer,
        request: { params: SweepIdParam },
        responses: { 200: json(Sweeps.SweepControlResult, "The sweep's new status"), ...transitionConflict, ...errorResponses(owned) },
      }),
      async (c) => c.json(await run(deps, c.get("principal").user, c.req.valid("param").sweep_id), 200),
    );
  }
  return app;
}
