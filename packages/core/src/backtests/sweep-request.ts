import type { z } from "zod";
import { ValidationError, type ValidationIssue } from "../errors";
import { type ParameterValue, resolveParameters } from "../strategies/parameter";
import { Strategies } from "../strategies/index";
import type { StoredSession } from "../trading/session/sessions";
import type { Actor } from "../users";
import type { BacktestRequest } from "./backtest-model";
import { requestIssues, requestSymbols, sessionOrNone, unknownOf, wellFormed } from "./backtest-request";
import { MAX_SWEEP_RUNS, type ParameterValues, type Point, type SweepControlDeps, SweepRequest } from "./sweep-model";
import { cutWindows, planIssues, tradingDaysOf, type StoredWalkForward, type WalkForwardPlan } from "./walk-forward";

/**
 * A sweep request checked: its grid of parameter points (`grid`: the values of each parameter,
 * checked against the strategy's definitions, within `max_runs`), the backtest request of one
 * point (`requestOf`), every problem of the request as a whole at its field (the grid, what every
 * run shares, the out-of-sample window, a walk-forward plan and the windows it cuts), and the 422 of
 * a body that failed its schema. Starting a sweep is sweep-control.ts's.
 */

/** The values of one parameter's spec: a list as given, a range stepped from min to max (rounded to 10 decimals against float drift). */
function valuesOf(spec: z.infer<typeof ParameterValues>): ParameterValue[] {
  if (Array.isArray(spec)) return [...new Map(spec.map((v) => [JSON.stringify(v), v])).values()];
  const count = Math.floor((spec.max - spec.min) / spec.step + 1e-9) + 1;
  return Array.from({ length: count }, (_, i) => Number((spec.min + i * spec.step).toFixed(10)));
}

/** How many values a spec gives, without listing them (a range may be asked for millions). */
function countOf(spec: z.infer<typeof ParameterValues>): number {
  return Array.isArray(spec) ? valuesOf(spec).length : spec.max < spec.min ? 0 : Math.floor((spec.max - spec.min) / spec.step + 1e-9) + 1;
}

/**
 * The grid's points, the first parameter changing slowest; 422 for unknown parameters, values
 * outside the strategy's ranges, a grid over `max_runs` (run on each of `windows` walk-forward
 * windows: their in-sample runs together over it).
 */
export function grid(request: Pick<SweepRequest, "strategy_name" | "parameters" | "max_runs">, windows = 1): Point[] {
  const issues: ValidationIssue[] = [];
  if (!Strategies.exists(request.strategy_name)) {
    throw new ValidationError([
      {
        loc: ["body", "strategy_name"],
        msg: `strategy '${request.strategy_name}' does not exist (a sweep runs one catalog strategy)`,
        type: "strategy_not_found",
      },
    ]);
  }
  const definitions = Strategies.parameters(request.strategy_name).parameters;
  const names = Object.keys(request.parameters);
  let size = 1;
  for (const name of names) {
    const spec = request.parameters[name]!;
    if (!definitions.some((d) => d.name === name)) {
      issues.push({
        loc: ["body", "parameters", name],
        msg: `${name} is not a parameter of ${request.strategy_name}; expected one of ${definitions.map((d) => d.name).join(", ")}`,
        type: "unknown_parameter",
      });
      continue;
    }
    const count = countOf(spec);
    if (count === 0) issues.push({ loc: ["body", "parameters", name, "max"], msg: "max is below min", type: "value_error" });
    size *= Math.max(1, count);
    // Each value alone against the strategy's definition (a range's ends bound every value between).
    const checked: { value: ParameterValue; loc: (string | number)[] }[] = Array.isArray(spec)
      ? spec.map((value, index) => ({ value, loc: ["body", "parameters", name, index] }))
      : [
          { value: spec.min, loc: ["body", "parameters", name, "min"] },
          { value: spec.max, loc: ["body", "parameters", name, "max"] },
          ...(count > 1 ? [{ value: Number((spec.min + spec.step).toFixed(10)), loc: ["body", "parameters", name, "step"] }] : []),
        ];
    for (const { value, loc } of checked) {
      const problem = resolveParameters(definitions, { [name]: value }).errors.find((e) => e.field === `parameters.${name}`);
      if (problem) issues.push({ loc, msg: `${name} = ${JSON.stringify(value)}: ${problem.message}`, type: problem.code.toLowerCase() });
    }
  }
  if (issues.length === 0 && size * windows > request.max_runs) {
    const runs = windows > 1 ? `${windows} windows × ${size} points = ${size * windows} in-sample runs` : `${size} runs`;
    issues.push({
      loc: ["body", "parameters"],
      msg: `the ${windows > 1 ? "walk-forward" : "grid"} has ${runs}, more than max_runs (${request.max_runs}; at most ${MAX_SWEEP_RUNS})`,
      type: "grid_too_large",
    });
  }
  if (issues.length > 0) throw new ValidationError(issues);
  let points: Point[] = [{}];
  for (const name of names) {
    const values = valuesOf(request.parameters[name]!);
    points = points.flatMap((point) => values.map((value) => ({ ...point, [name]: value })));
  }
  return points;
}

/** The backtest request of one point of the grid: the base `strategy_config` with the point's values (inside `parameters` when the base nests them there). */
export function requestOf(base: BacktestRequest, point: Point, window?: { start_date: string; end_date: string }): BacktestRequest {
  const config = base.strategy_config as Record<string, unknown>;
  const nested = config.parameters && typeof config.parameters === "object";
  const strategy_config = nested ? { ...config, parameters: { ...(config.parameters as object), ...point } } : { ...config, ...point };
  return { ...base, strategy_config, ...(window ?? {}) };
}

/**
 * The problems of a sweep request that concern it as a whole, each at its field: the out-of-sample
 * window (its order, the calendar), the grid (`grid`: parameters, ranges, size) and the backtest
 * request's own (symbols, dates, the calendar), checked as `POST /backtest/start` checks them;
 * fields absent from `request` (malformed, already reported) are not looked at.
 */
export function sweepIssues(
  deps: SweepControlDeps,
  session: StoredSession | undefined,
  request: Partial<SweepRequest>,
  unknown: ReadonlySet<string>,
): ValidationIssue[] {
  const { parameters, metric: _metric, max_runs, out_of_sample, walk_forward, ...base } = request;
  const issues: ValidationIssue[] = [];
  if (base.strategy_name !== undefined && parameters !== undefined) {
    try {
      grid({ strategy_name: base.strategy_name, parameters, max_runs: max_runs ?? MAX_SWEEP_RUNS }, walk_forward?.windows ?? 1);
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      issues.push(...error.issues);
    }
  }
  // The strategy and its configuration are a point's (the grid reports an unknown strategy): what every run shares is checked here.
  const shared = requestIssues(deps, session, { ...base, strategy_name: undefined, strategy_config: undefined }, unknown);
  issues.push(...shared);
  if (walk_forward) issues.push(...walkForwardIssues(deps, session, base, walk_forward, out_of_sample !== undefined, shared.length > 0, unknown));
  if (out_of_sample) {
    if (out_of_sample.start_date > out_of_sample.end_date) {
      issues.push({ loc: ["body", "out_of_sample", "end_date"], msg: "end_date is before start_date", type: "value_error" });
    } else {
      const window = { symbols: base.symbols, timezone: base.timezone, start_date: out_of_sample.start_date, end_date: out_of_sample.end_date };
      for (const issue of requestIssues(deps, session, window, unknown)) {
        if (issue.loc[1] === "start_date" || issue.loc[1] === "end_date") issues.push({ ...issue, loc: ["body", "out_of_sample", ...issue.loc.slice(1)] });
      }
    }
  }
  return issues;
}

/**
 * The problems of a walk-forward plan: its sizes given one way and not beside `out_of_sample`, the
 * windows it cuts of the range's trading days (each part with at least one), and each part as a
 * backtest's range (the calendar, a session begun: `POST /backtest/start`'s checks), at
 * `body.walk_forward.windows.<k>.<part>`. The range is not cut when its own fields have problems.
 */
function walkForwardIssues(
  deps: SweepControlDeps,
  session: StoredSession | undefined,
  base: Partial<BacktestRequest>,
  plan: WalkForwardPlan,
  withOutOfSample: boolean,
  rangeRefused: boolean,
  unknown: ReadonlySet<string>,
): ValidationIssue[] {
  const issues = planIssues(plan, withOutOfSample);
  if (issues.some((issue) => issue.loc[1] === "walk_forward") || rangeRefused || !base.symbols || !base.start_date || !base.end_date) return issues;
  const cut = cutWindows(plan, tradingDaysOf(base.symbols, { start_date: base.start_date, end_date: base.end_date }));
  issues.push(...cut.issues);
  cut.windows.forEach((window, k) => {
    for (const part of ["in_sample", "out_of_sample"] as const) {
      const range = { symbols: base.symbols, timezone: base.timezone, start_date: window[part].start_date, end_date: window[part].end_date };
      for (const issue of requestIssues(deps, session, range, unknown)) {
        if (issue.loc[1] === "start_date" || issue.loc[1] === "end_date") issues.push({ ...issue, loc: ["body", "walk_forward", "windows", k, part] });
      }
    }
  });
  return issues;
}

/** A valid request's walk-forward plan with the windows it cuts; null without one. */
export function walkForwardOf(request: Pick<SweepRequest, "walk_forward" | "symbols" | "start_date" | "end_date">): StoredWalkForward | null {
  if (!request.walk_forward) return null;
  return { plan: request.walk_forward, windows: cutWindows(request.walk_forward, tradingDaysOf(request.symbols, request)).windows };
}

/**
 * A sweep request whose body failed its schema (`issues`, the schema's): the sweep's checks run on
 * the fields that are well formed, so the 422 lists every problem of the request at once.
 */
export async function invalidRequest(deps: SweepControlDeps, actor: Actor, body: unknown, issues: ValidationIssue[]): Promise<ValidationError> {
  const request = wellFormed(SweepRequest, body);
  const [session, unknown] = await Promise.all([sessionOrNone(deps, actor, request.session_id), unknownOf(deps, requestSymbols(request), true)]);
  return new ValidationError([...issues, ...sweepIssues(deps, session, request, unknown)]);
}
