import { randomBytes } from "node:crypto";
import { z } from "zod";
import { conflict } from "../errors";
import { Dec } from "../money/decimal";
import { marketOf, Markets } from "../market/market";
import { dayNumberOf, isoDateOf, utcToZoned } from "../market/zoned-time";
import { allOf } from "../util/pages";
import type { Actor } from "../users";
import { finishedBacktest, runIdOf } from "./backtest-control";
import type { BacktestControlDeps } from "./backtest-model";
import { simulate } from "./monte-carlo";

/**
 * `POST /backtest/{backtest_id}/monte-carlo` (docs/backtests.md "Monte Carlo"): the finished
 * backtest's closed trades read from its run's log, each as its return on the equity before it,
 * run through `simulate`.
 */

/** The largest seed: seeds are 32-bit unsigned integers. */
const MAX_SEED = 4_294_967_295;

export const MonteCarloRequest = z
  .object({
    paths: z.int().min(1).max(100_000).default(1000).describe("How many paths to run (at most 100,000)"),
    seed: z
      .int()
      .min(0)
      .max(MAX_SEED)
      .optional()
      .describe("The PRNG's seed (a 32-bit unsigned integer): the same seed gives the same paths. Absent: one is drawn, and the answer names it"),
    method: z
      .enum(["reshuffle", "bootstrap"])
      .default("reshuffle")
      .describe("reshuffle: the trades' returns in a random order (every path ends at the same equity); bootstrap: as many trades drawn with replacement"),
  })
  .meta({ id: "MonteCarloRequest" });
export type MonteCarloRequest = z.infer<typeof MonteCarloRequest>;

const Money = z.string().describe("To the cent");
const MoneyPercentiles = z.object({ p5: Money, p25: Money, p50: Money, p75: Money, p95: Money });
const NumberPercentiles = z.object({ p5: z.number(), p25: z.number(), p50: z.number(), p75: z.number(), p95: z.number() });

export const MonteCarloResult = z
  .object({
    backtest_id: z.string(),
    method: z.enum(["reshuffle", "bootstrap"]),
    paths: z.int(),
    seed: z.int().describe("The seed used: pass it again for the same paths"),
    trades: z.int().describe("Closed trades per path"),
    initial_equity: Money,
    trades_final_equity: Money.describe(
      "The initial equity plus every closed trade's P&L: where every reshuffled path ends, and the backtest's final_capital when it ended flat",
    ),
    final_equity: MoneyPercentiles,
    total_return: NumberPercentiles.describe("Final equity over the initial equity, minus 1"),
    max_drawdown: NumberPercentiles.describe("The largest fall of a path's equity from a peak, as a fraction of the peak"),
    max_drawdown_trades: NumberPercentiles.describe("The most trades from a path's peak to a later trade still below it"),
    max_drawdown_days: NumberPercentiles.describe(
      "The same span in calendar days, step k of every path dated at the backtest's k-th exit (the start at start_date)",
    ),
    bands: z
      .array(z.object({ trade: z.int(), date: z.string(), p5: Money, p25: Money, p50: Money, p75: Money, p95: Money }))
      .describe(
        "The equity path's percentiles after `trade` trades (0: the start), at most 200 points spread over the trades, dated at that trade's exit in the backtest",
      ),
  })
  .meta({ id: "MonteCarloResult" });
export type MonteCarloResult = z.infer<typeof MonteCarloResult>;

/** Events read per page of the run's log. */
const LOG_PAGE = 5_000;

/** The closed trades of a backtest's run as returns on the equity before each, with their exit days. */
async function tradeReturns(deps: BacktestControlDeps, backtest: Awaited<ReturnType<typeof finishedBacktest>>) {
  const trades = await allOf((cursor) => deps.runs.events(runIdOf(backtest), { category: "trade", limit: LOG_PAGE, cursor }));
  const base = Markets[marketOf(backtest.symbols[0]!)].currency;
  // Units of the base currency per unit of a trade's (a backtest of several currencies marks at these rates).
  const rate = (currency: string) => (currency === base ? 1 : (deps.fx[currency] ?? 1) / (deps.fx[base] ?? 1));
  const initial = new Dec(backtest.result.performance_metrics.initial_equity);
  let equity = initial;
  const returns = new Float64Array(trades.length);
  const exitDays = new Int32Array(trades.length);
  trades.forEach((trade, i) => {
    const pnl = new Dec(String(trade.data.pnl)).times(rate(String(trade.data.currency ?? base)));
    if (equity.lte(0)) {
      throw conflict(
        "MONTE_CARLO_UNDEFINED",
        `Backtest ${backtest.id}'s equity was ${equity.toFixed(2)} before its trade ${i + 1}: a return on it is undefined`,
      );
    }
    const after = equity.plus(pnl);
    // The return as the ratio of the equities after and before, so a path's product telescopes to the final equity.
    returns[i] = after.div(equity).toNumber() - 1;
    exitDays[i] = utcToZoned(backtest.timezone, Number(trade.data.exit_time)).dayNumber;
    equity = after;
  });
  return { initial, final: equity, returns, exitDays };
}

/** A Monte Carlo of the caller's finished backtest (409 while it runs, after it failed, or without closed trades). */
export async function run(deps: BacktestControlDeps, actor: Actor, id: string, request: MonteCarloRequest): Promise<MonteCarloResult> {
  const backtest = await finishedBacktest(deps, actor, id);
  const { initial, final, returns, exitDays } = await tradeReturns(deps, backtest);
  if (returns.length === 0) throw conflict("MONTE_CARLO_UNDEFINED", `Backtest ${id} closed no trade: there is nothing to reshuffle or draw`);
  const seed = request.seed ?? randomBytes(4).readUInt32BE(0);
  const startDay = dayNumberOf(backtest.start_date);
  const figures = simulate({ initial: initial.toNumber(), returns, exitDays, startDay, paths: request.paths, seed, method: request.method });
  const cents = (value: number) => new Dec(value).toFixed(2);
  const money = (p: Record<string, number>) =>
    Object.fromEntries(Object.entries(p).map(([key, value]) => [key, cents(value)])) as z.infer<typeof MoneyPercentiles>;
  const rounded = (p: Record<string, number>) =>
    Object.fromEntries(Object.entries(p).map(([key, value]) => [key, Math.round(value * 1e6) / 1e6])) as z.infer<typeof NumberPercentiles>;
  return {
    backtest_id: id,
    method: request.method,
    paths: request.paths,
    seed,
    trades: returns.length,
    initial_equity: initial.toFixed(2),
    trades_final_equity: final.toFixed(2),
    final_equity: money(figures.final_equity),
    total_return: rounded(figures.total_return),
    max_drawdown: rounded(figures.max_drawdown),
    max_drawdown_trades: figures.max_drawdown_trades,
    max_drawdown_days: figures.max_drawdown_days,
    bands: figures.bands.map(({ trade, ...band }) => ({ trade, date: isoDateOf(trade === 0 ? startDay : exitDays[trade - 1]!), ...money(band) })),
  };
}
