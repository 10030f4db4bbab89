import { SWEEP_RUN_TTL_DAYS, type SweepControlDeps, type SweepDeps } from "@tp/core/backtests/sweeps";
import { Fees } from "@tp/core/fees/index";
import type { ImportDeps } from "@tp/core/imports/index";
import type { CandleStore } from "@tp/core/candles/index";
import type { MarketData } from "@tp/core/provider/market-data";
import { symbolsOf } from "@tp/core/trading/session/config";
import { runSetup } from "@tp/core/trading/session/run-setup";
import { baseCurrencyOf, capitalOf } from "@tp/core/trading/session/sessions";
import { recentBars } from "@tp/core/trading/drivers/warm-up";
import { drawsFromSimulatedAccount, holdingsOf, SessionAccounts } from "@tp/core/trading/session/accounts";
import { TradingEngine } from "@tp/core/engine/engine";
import type { PaperBrokerDeps } from "@tp/core/paper/broker";
import { conflict, DomainError } from "@tp/core/errors";
import { Dec, money } from "@tp/core/money/decimal";
import type { StoredSession } from "@tp/core/trading/session/sessions";
import type { ViewDeps } from "@tp/core/trading/session/deps";
import type { ChannelDeps } from "@tp/core/trading/channels/ports";
import type { RealtimeDeps } from "@tp/core/realtime";
import { DynamoChannelConfigStore, DynamoUpdateFeed } from "./stores/channel-store";
import type { WorkflowStarter } from "@tp/core/workflows";
import { parseRatesPerUsd, REFERENCE_RATES_PER_USD } from "./accounts/reference-exchange-rates";
import type { ServiceConfig } from "./config";
import type { Db } from "./dynamo/db";
import { DynamoBacktestStore } from "./stores/backtest-store";
import { DynamoSweepStore } from "./stores/sweep-store";
import { DynamoSweepGridStore } from "./stores/sweep-grid-store";
import { DynamoBiasCheckStore } from "./stores/bias-check-store";
import type { BiasCheckDeps } from "@tp/core/backtests/bias-check-control";
import { DynamoRunStore } from "./stores/run-store";
import { DynamoSessionStore } from "./stores/session-store";
import { DynamoWorkerStore } from "./stores/worker-store";
import { DynamoReplayMarkers } from "./stores/replay-store";
import type { DriverDeps } from "@tp/core/trading/drivers/replay";
import type { KillSwitchGuard } from "@tp/core/kill-switch";

export interface TradingServices {
  /** Trading sessions and their views. */
  sessions: ViewDeps;
  /** Backtests, parameter sweeps and their workflow tasks. */
  backtests: SweepDeps;
  /** Multi-channel sessions: the views plus configuration versions and the socket's update feed. */
  channels: ChannelDeps;
  /** Runs driven over stored candles: replays and historical MTF sessions (docs/mtf-and-replay.md). */
  drivers: DriverDeps;
  /** Bias checks of a strategy over stored candles (docs/backtests.md "Bias checks"). */
  biasChecks: BiasCheckDeps;
}

/** Units of each currency per USD: the configured rates over the reference table. */
function ratesPerUsd(config: ServiceConfig): Record<string, number> {
  const merged = { ...REFERENCE_RATES_PER_USD, ...parseRatesPerUsd(config.fxRatesPerUsd) };
  return Object.fromEntries(Object.entries(merged).map(([currency, rate]) => [currency, Number(rate)]));
}

/** The lot size of each symbol, from the market-data provider's static info (1 when it has none). */
function lotsFrom(marketData: () => Promise<MarketData>) {
  return async (symbols: string[]): Promise<Record<string, number>> => {
    if (symbols.length === 0) return {};
    const infos = await (await marketData()).staticInfo(symbols);
    return Object.fromEntries(infos.map((info) => [info.symbol, info.lot_size > 0 ? info.lot_size : 1]));
  };
}

/**
 * Which of `symbols` the market-data provider does not know. The simulated market refuses a list
 * naming one it lacks (SYMBOL_NOT_FOUND), so a refused list is asked again a symbol at a time;
 * LongPort answers the static information of those it has.
 */
function unknownFrom(marketData: () => Promise<MarketData>) {
  const unknown = async (symbols: string[]): Promise<string[]> => {
    if (symbols.length === 0) return [];
    let infos: { symbol: string }[];
    try {
      infos = await (await marketData()).staticInfo(symbols);
    } catch (error) {
      if (!(error instanceof DomainError) || error.code !== "SYMBOL_NOT_FOUND") throw error;
      if (symbols.length === 1) return symbols;
      const answers = await Promise.all(symbols.map((symbol) => unknown([symbol])));
      return answers.flat();
    }
    const known = new Set(infos.map((info) => info.symbol));
    return symbols.filter((symbol) => !known.has(symbol));
  };
  return unknown;
}

/** Wires trading sessions, their runs and views over the table and the market-data provider. No I/O happens here. */
export function createSessionServices(
  config: ServiceConfig,
  db: Db,
  base: { now: () => number; newId: () => string },
  deps: {
    marketData: () => Promise<MarketData>;
    paper?: PaperBrokerDeps;
    /** The buying power of a user's account at the selected provider in a currency (null: not known); live sessions are checked against it when they start. */
    buyingPower?: (userId: string, currency: string) => Promise<string | null>;
    /** The tripped kill switches, checked by every order, start and resume (docs/security.md "Kill switch"). */
    killSwitch?: KillSwitchGuard;
  },
): ViewDeps {
  const runs = new DynamoRunStore(db);
  const sessions = new DynamoSessionStore(db, runs);
  const fx = ratesPerUsd(config);
  const lots = lotsFrom(deps.marketData);
  const sources = { lots, fx, fees: (brokerType: string) => Fees.defaults(brokerType) };
  const workers = new DynamoWorkerStore(db);
  const views: ViewDeps = {
    sessions,
    runs,
    ...base,
    workerBeat: () => workers.last(),
    ...(deps.killSwitch ? { killSwitch: deps.killSwitch } : {}),
    async setupFor(session, runId) {
      const symbols = symbolsOf(session.config);
      const baseCurrency = baseCurrencyOf(session, symbols);
      return runSetup(sources, {
        run_id: runId,
        config: session.config,
        symbols,
        capital: capitalOf(session, baseCurrency),
        base_currency: baseCurrency,
        enforce_risk: true,
      });
    },
    async history(symbol, timeframe, count, beforeMs) {
      return recentBars(await deps.marketData(), symbol, timeframe, count, beforeMs);
    },
    async lastPrice(symbol) {
      const [quote] = await (await deps.marketData()).quote([symbol]);
      const price = quote ? Number(quote.last_done) : NaN;
      return Number.isFinite(price) && price > 0 ? price : null;
    },
  };
  /** A live session starts only if its account's buying power covers its capital, line by line (docs/accounts.md). */
  const checkBuyingPower = async (session: StoredSession, capital: Record<string, string>) => {
    if (!deps.buyingPower) return;
    for (const [currency, required] of Object.entries(capital)) {
      const power = await deps.buyingPower(session.user_id, currency);
      if (power !== null && new Dec(required).gt(power)) {
        throw conflict(
          "INSUFFICIENT_BUYING_POWER",
          `the live session needs ${money(new Dec(required))} ${currency}; the account at the selected provider has ${money(new Dec(power))} ${currency} of buying power`,
          {
            currency,
            required: money(new Dec(required)),
            buying_power: money(new Dec(power)),
          },
        );
      }
    }
  };
  const paper = deps.paper;
  if (paper) {
    views.accounts = {
      // What the session holds: its run's cash and shares when it has run before, else its starting capital.
      async reserve(session) {
        if (session.trading_mode === "live") {
          await checkBuyingPower(session, (await views.setupFor(session, session.id)).capital);
          return null;
        }
        if (!drawsFromSimulatedAccount(session)) return null;
        const run = await runs.get(session.id);
        const holdings = run?.snapshot
          ? holdingsOf(TradingEngine.restore(run.setup, run.snapshot).view(null))
          : { cash: (await views.setupFor(session, session.id)).capital, shares: {} };
        return (await SessionAccounts.reserve(paper, session, holdings)).account_id;
      },
      async release(session) {
        if (session.funded_by !== undefined) await SessionAccounts.release(paper, session.funded_by, session.id);
      },
    };
  }
  return views;
}

/** Wires starting, controlling and reading backtests over the table, the candle store and the workflow starter. No I/O happens here. */
export function createBacktestControl(
  config: ServiceConfig,
  db: Db,
  base: { now: () => number; newId: () => string },
  deps: { candles: CandleStore; marketData: () => Promise<MarketData>; workflows: WorkflowStarter },
): SweepControlDeps & Pick<SweepDeps, "sweepConcurrency" | "sweepRunTtlDays"> {
  const runs = new DynamoRunStore(db);
  return {
    sessions: new DynamoSessionStore(db, runs),
    runs,
    ...base,
    backtests: new DynamoBacktestStore(db),
    sweeps: new DynamoSweepStore(db),
    grids: new DynamoSweepGridStore(db),
    sweepConcurrency: config.sweepMaxConcurrency,
    sweepRunTtlDays: config.sweepRunTtlDays ?? SWEEP_RUN_TTL_DAYS,
    candles: deps.candles,
    workflows: deps.workflows,
    fx: ratesPerUsd(config),
    fees: (brokerType) => Fees.defaults(brokerType),
    chunkBars: config.backtestChunkBars,
    unknownSymbols: unknownFrom(deps.marketData),
  };
}

/** Backtests with their workflow tasks: the above, the import worker and the provider's lot sizes. No I/O happens here. */
export function createBacktestServices(
  config: ServiceConfig,
  db: Db,
  base: { now: () => number; newId: () => string },
  deps: { candles: CandleStore; imports: ImportDeps; marketData: () => Promise<MarketData>; workflows: WorkflowStarter },
): SweepDeps {
  return { ...createBacktestControl(config, db, base, deps), imports: deps.imports, lots: lotsFrom(deps.marketData) };
}

/** Multi-channel sessions over the session views: the same record as `views` (not a copy), so a stand-in set on one (tests, the bench) is seen by both. */
export function withChannels(views: ViewDeps, db: Db, realtime: RealtimeDeps): ChannelDeps {
  return Object.assign(views, { configs: new DynamoChannelConfigStore(db), feed: new DynamoUpdateFeed(db), realtime });
}

/** Runs driven over stored candles (replays, historical MTF sessions) over the session views: the same record as `views`; `wallNow` is the clock a playing run's speed counts seconds of. */
export function withDrivers(views: ViewDeps, db: Db, candles: CandleStore, wallNow: () => number): DriverDeps {
  return Object.assign(views, { candles, replays: new DynamoReplayMarkers(db), wallNow });
}

/** Bias checks (docs/backtests.md "Bias checks"): the candles, the reports' store and what a run's setup looks up. No I/O happens here. */
export function createBiasChecks(
  config: ServiceConfig,
  db: Db,
  base: { now: () => number; newId: () => string },
  deps: { candles: CandleStore; marketData: () => Promise<MarketData> },
): BiasCheckDeps {
  return {
    ...base,
    candles: deps.candles,
    checks: new DynamoBiasCheckStore(db),
    fx: ratesPerUsd(config),
    fees: (brokerType) => Fees.defaults(brokerType),
    lots: lotsFrom(deps.marketData),
  };
}
