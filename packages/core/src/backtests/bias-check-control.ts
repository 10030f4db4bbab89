import { z } from "zod";
import type { CandleStore } from "../candles/index";
import { forbidden, notFound, ValidationError, type ValidationIssue } from "../errors";
import { Dec, DecimalInput, IsoDate } from "../money/decimal";
import { marketOf, Markets, normalizeSymbol } from "../market/market";
import { dayNumberOf, zonedTimeToUtc } from "../market/zoned-time";
import { Strategies } from "../strategies/index";
import type { Timeframe } from "../strategies/definition";
import { iso, TimeZone } from "../util/time";
import { normalizeConfig } from "../trading/session/config";
import { runSetup, type SetupSources } from "../trading/session/run-setup";
import type { Actor } from "../users";
import { checkBias } from "./bias-check";

/**
 * The bias checks' endpoints (docs/backtests.md "Bias checks"): a request checked and bounded,
 * answered synchronously with the report (the runs are in-process engine runs over stored
 * candles, a few seconds at the bounds), which is stored for its owner to read back.
 */

/** The bounds of one request: past them it answers 422 before anything runs. */
export const BIAS_CHECK_LIMITS = { symbols: 5, bars: 2_000, cuts: 10, starts: 5 } as const;

export const BiasCheckRequest = z
  .object({
    strategy_name: z.string().min(1).max(64),
    strategy_config: z
      .record(z.string(), z.unknown())
      .default({})
      .describe("The strategy's parameters (or `{parameters: {...}}`), plus optional `execution`, `risk_config` and `timeframe` as a backtest takes them"),
    symbols: z.array(z.string().min(1).max(32)).min(1).max(BIAS_CHECK_LIMITS.symbols),
    start_date: IsoDate,
    end_date: IsoDate,
    timezone: TimeZone.optional(),
    initial_capital: DecimalInput.refine((v) => new Dec(v).gt(0), "must be greater than zero").default("100000"),
    cuts: z.int().min(1).max(BIAS_CHECK_LIMITS.cuts).default(5).describe("Instants the candles are cut at for the look-ahead check, spread over the range"),
    starts: z
      .int()
      .min(1)
      .max(BIAS_CHECK_LIMITS.starts)
      .default(3)
      .describe("Later bars the recursive check starts fresh from, spread over each symbol's bars"),
    tolerance: z
      .number()
      .gt(0)
      .max(1)
      .default(0.001)
      .describe("How far an indicator may differ after its declared settle bars, relative to its mean absolute value over the bars compared"),
  })
  .meta({ id: "BiasCheckRequest" });
export type BiasCheckRequest = z.infer<typeof BiasCheckRequest>;

const Value = z.unknown().describe("The value as the run held it (NaN and infinities as text)");

export const BiasCheckReport = z
  .object({
    check_id: z.string(),
    strategy_name: z.string(),
    parameters: z.record(z.string(), z.unknown()),
    symbols: z.array(z.string()),
    timeframe: z.string(),
    start_date: z.string(),
    end_date: z.string(),
    warmup_bars: z.int().describe("The strategy's declared warm-up with these parameters (`min_history_bars`): the look-ahead check cuts after it"),
    settle_bars: z
      .int()
      .describe("The bars its indicators declare they need to settle with these parameters (`settle_bars`): the recursive check compares after them"),
    bars: z.record(z.string(), z.int()).describe("Stored regular-session bars of each symbol inside the range"),
    tolerance: z.number(),
    cuts: z.array(z.string()).describe("The instants (bar opens) the look-ahead runs' candles end at"),
    starts: z.record(z.string(), z.array(z.string())).describe("Per symbol, the bars the recursive runs start from"),
    lookahead: z.object({
      passed: z.boolean(),
      findings: z.array(
        z.object({
          symbol: z.string(),
          cut_at: z.string(),
          kind: z.enum(["signal", "order", "indicator"]),
          bar_time: z.string().describe("The first bar (signal, indicator) or event time (order) at or before the cut where the runs differ"),
          field: z.string().describe("`signals`; the order event's type; or the path of the strategy's state value (`indicators.rsi`, `fast.sum`)"),
          full_value: Value,
          cut_value: Value,
        }),
      ),
    }),
    recursive: z.object({
      passed: z.boolean(),
      findings: z.array(
        z.object({
          symbol: z.string(),
          indicator: z.string(),
          start_at: z.string(),
          first_difference_at: z.string(),
          bars_after_start: z.int(),
          full_value: z.number().nullable(),
          value: z.number().nullable(),
          max_relative_difference: z.number(),
          bars_needed: z
            .int()
            .nullable()
            .describe("Bars from the start after which every value agrees within the tolerance; null when it still differs at the range's end"),
        }),
      ),
    }),
    passed: z.boolean(),
    created_at: z.string(),
  })
  .meta({ id: "BiasCheckReport" });
export type BiasCheckReport = z.infer<typeof BiasCheckReport>;

/** A report as stored: its owner beside it. */
export interface StoredBiasCheck {
  id: string;
  user_id: string;
  report: BiasCheckReport;
  created_at: string;
}

export interface BiasCheckStore {
  create(check: StoredBiasCheck): Promise<void>;
  get(id: string): Promise<StoredBiasCheck | undefined>;
}

export interface BiasCheckDeps extends SetupSources {
  candles: Pick<CandleStore, "loadBetween">;
  checks: BiasCheckStore;
  now: () => number;
  newId: () => string;
}

/** Every problem of a request's fields, each at its field; the plan when there is none. */
function planOf(request: BiasCheckRequest) {
  const issues: ValidationIssue[] = [];
  const symbols: string[] = [];
  request.symbols.forEach((symbol, index) => {
    try {
      const normal = normalizeSymbol(symbol);
      if (!Markets[marketOf(normal)].supported) throw new Error(`${normal}: the ${marketOf(normal)} market has no calendar here`);
      if (!symbols.includes(normal)) symbols.push(normal);
    } catch (error) {
      issues.push({ loc: ["body", "symbols", index], msg: (error as Error).message, type: "invalid_symbol" });
    }
  });
  if (request.start_date > request.end_date) issues.push({ loc: ["body", "end_date"], msg: "end_date is before start_date", type: "value_error" });
  const { execution, risk_config, timeframe, parameters, ...rest } = request.strategy_config;
  const strategyParameters = (parameters && typeof parameters === "object" ? parameters : rest) as Record<string, unknown>;
  let config: ReturnType<typeof normalizeConfig> | undefined;
  if (!Strategies.exists(request.strategy_name)) {
    issues.push({ loc: ["body", "strategy_name"], msg: `strategy '${request.strategy_name}' does not exist`, type: "strategy_not_found" });
  } else if (symbols.length > 0) {
    try {
      config = normalizeConfig(
        {
          strategy_name: request.strategy_name,
          parameters: strategyParameters,
          risk_config: risk_config ?? {},
          symbols,
          ...(timeframe !== undefined ? { timeframe } : {}),
          execution: execution ?? {},
        },
        symbols,
        { backtest: true },
      );
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      for (const i of error.issues) issues.push({ ...i, loc: ["body", "strategy_config", ...i.loc.slice(1)] });
    }
  }
  if (issues.length > 0 || !config) throw new ValidationError(issues);
  const zone = request.timezone ?? Markets[marketOf(symbols[0]!)].timeZone;
  const window: [number, number] = [
    Math.floor(zonedTimeToUtc(zone, dayNumberOf(request.start_date), 0) / 1000),
    Math.floor(zonedTimeToUtc(zone, dayNumberOf(request.end_date) + 1, 0) / 1000) - 1,
  ];
  return { symbols, config, window, parameters: config.channels[0]!.strategies[0]!.parameters, enforceRisk: risk_config !== undefined && risk_config !== null };
}

/** Runs both checks of a request and stores the report (docs/backtests.md "Bias checks"). */
export async function run(deps: BiasCheckDeps, actor: Actor, request: BiasCheckRequest): Promise<BiasCheckReport> {
  const plan = planOf(request);
  const timeframe: Timeframe = plan.config.timeframe;
  const base = Markets[marketOf(plan.symbols[0]!)].currency;
  const setup = await runSetup(deps, {
    run_id: "bias-check",
    config: plan.config,
    symbols: plan.symbols,
    base_currency: base,
    capital: { [base]: new Dec(request.initial_capital).toFixed() },
    enforce_risk: plan.enforceRisk,
  });
  const findings = await checkBias(deps.candles, {
    strategy_name: request.strategy_name,
    parameters: plan.parameters,
    setup,
    symbols: plan.symbols,
    timeframe,
    window: plan.window,
    cuts: request.cuts,
    starts: request.starts,
    tolerance: request.tolerance,
    beforeRuns: (bars, settleBars) => {
      const issues: ValidationIssue[] = [];
      plan.symbols.forEach((symbol, index) => {
        const stored = bars[symbol] ?? 0;
        if (stored === 0)
          issues.push({
            loc: ["body", "symbols", index],
            msg: `no stored ${timeframe} candles of ${symbol} from ${request.start_date} to ${request.end_date}: import them first (POST /api/v1/stock-import/import)`,
            type: "no_candles",
          });
        // A fresh start needs a bar before it and its settle bars after it, plus one bar to compare.
        else if (stored < settleBars + 2)
          issues.push({
            loc: ["body", "end_date"],
            msg: `the range holds ${stored} stored ${timeframe} bars of ${symbol}; the recursive check starts the strategy fresh after the first bar and compares after the ${settleBars} bars its indicators need to settle, so it needs at least ${settleBars + 2}: lengthen the range`,
            type: "too_few_bars",
          });
      });
      const total = Object.values(bars).reduce((sum, n) => sum + n, 0);
      if (total > BIAS_CHECK_LIMITS.bars)
        issues.push({
          loc: ["body", "end_date"],
          msg: `the range holds ${total} stored ${timeframe} bars of the symbols, more than the ${BIAS_CHECK_LIMITS.bars} a check runs over: shorten the range or take fewer symbols`,
          type: "too_many_bars",
        });
      if (issues.length > 0) throw new ValidationError(issues);
    },
  });
  const now = iso(deps.now());
  const report: BiasCheckReport = {
    check_id: deps.newId(),
    strategy_name: request.strategy_name,
    parameters: plan.parameters,
    symbols: plan.symbols,
    timeframe,
    start_date: request.start_date,
    end_date: request.end_date,
    tolerance: request.tolerance,
    ...findings,
    created_at: now,
  };
  await deps.checks.create({ id: report.check_id, user_id: actor.id, report, created_at: now });
  return report;
}

/** A stored report, to its owner (or an administrator). */
export async function get(deps: Pick<BiasCheckDeps, "checks">, actor: Actor, id: string): Promise<BiasCheckReport> {
  const check = await deps.checks.get(id);
  if (!check) throw notFound("BIAS_CHECK_NOT_FOUND", `Bias check ${id} does not exist`);
  if (check.user_id !== actor.id && actor.user_type !== "admin") throw forbidden(`Bias check ${id} belongs to another user`);
  return check.report;
}
