import type { BacktestDeps } from "@tp/core/backtests/backtests";
import { Fees } from "@tp/core/fees/index";
import type { ImportDeps } from "@tp/core/imports/index";
import type { CandleStore } from "@tp/core/candles/index";
import type { MarketData } from "@tp/core/provider/market-data";
import { engineSetup, symbolsOf } from "@tp/core/trading/session-config";
import { baseCurrencyOf, capitalOf } from "@tp/core/trading/sessions";
import type { ViewDeps } from "@tp/core/trading/views";
import type { ChannelDeps } from "@tp/core/trading/channels";
import type { RealtimeDeps } from "@tp/core/realtime";
import { DynamoChannelConfigStore, DynamoUpdateFeed } from "./stores/channel-store";
import type { WorkflowStarter } from "@tp/core/workflows";
import { parseRatesPerUsd, REFERENCE_RATES_PER_USD } from "./accounts/reference-exchange-rates";
import type { ServiceConfig } from "./config";
import type { Db } from "./dynamo/db";
import { DynamoBacktestStore } from "./stores/backtest-store";
import { DynamoRunStore, DynamoSessionStore } from "./stores/session-store";
import { DynamoWorkerStore } from "./stores/worker-store";
import { DynamoReplayMarkers } from "./stores/replay-store";
import type { DriverDeps } from "@tp/core/trading/replay";

export interface TradingServices {
  /** Trading sessions and their views. */
  sessions: ViewDeps;
  /** Backtests and their workflow tasks. */
  backtests: BacktestDeps;
  /** Multi-channel sessions: the views plus configuration versions and the socket's update feed. */
  channels: ChannelDeps;
  /** Runs driven over stored candles: replays and historical MTF sessions (docs/mtf-and-replay.md). */
  drivers: DriverDeps;
}

/** Units of each currency per USD: the configured rates over the reference table. */
function ratesPerUsd(config: ServiceConfig): Record<string, number> {
  const merged = { ...REFERENCE_RATES_PER_USD, ...parseRatesPerUsd(config.fxRatesPerUsd) };
  return Object.fromEntries(Object.entries(merged).map(([currency, rate]) => [currency, Number(rate)]));
}

/** Wires sessions, their runs and backtests over the table, the candle store, the import worker and the workflow starter. */
export function createTradingServices(
  config: ServiceConfig,
  db: Db,
  base: { now: () => number; newId: () => string },
  deps: { candles: CandleStore; imports: ImportDeps; marketData: () => Promise<MarketData>; workflows: WorkflowStarter; realtime: RealtimeDeps },
): TradingServices {
  const runs = new DynamoRunStore(db);
  const sessions = new DynamoSessionStore(db, runs);
  const fx = ratesPerUsd(config);
  const lots = async (symbols: string[]): Promise<Record<string, number>> => {
    if (symbols.length === 0) return {};
    const infos = await (await deps.marketData()).staticInfo(symbols);
    return Object.fromEntries(infos.map((info) => [info.symbol, info.lot_size > 0 ? info.lot_size : 1]));
  };
  const fxToBase = (baseCurrency: string) =>
    Object.fromEntries(Object.keys(fx).map((currency) => [currency, (fx[baseCurrency] ?? 1) / (fx[currency] ?? 1)]));
  const workers = new DynamoWorkerStore(db);
  const views: ViewDeps = {
    sessions,
    runs,
    ...base,
    workerBeat: () => workers.last(),
    async setupFor(session, runId) {
      const symbols = symbolsOf(session.config);
      const baseCurrency = baseCurrencyOf(session, symbols);
      const commission = session.config.execution.commission;
      return engineSetup({
        run_id: runId,
        config: session.config,
        capital: capitalOf(session, baseCurrency),
        base_currency: baseCurrency,
        fx: fxToBase(baseCurrency),
        lots: await lots(symbols),
        fees: commission.model === "broker" ? Fees.defaults(commission.broker_type) : null,
        enforce_risk: true,
      });
    },
    async lastPrice(symbol) {
      const [quote] = await (await deps.marketData()).quote([symbol]);
      const price = quote ? Number(quote.last_done) : NaN;
      return Number.isFinite(price) && price > 0 ? price : null;
    },
  };
  const backtests: BacktestDeps = {
    sessions,
    runs,
    ...base,
    backtests: new DynamoBacktestStore(db),
    candles: deps.candles,
    imports: deps.imports,
    workflows: deps.workflows,
    lots,
    fx,
    fees: (brokerType) => Fees.defaults(brokerType),
    chunkBars: config.backtestChunkBars,
  };
  // The same record as `views` (not a copy), so a stand-in set on one (tests, the bench) is seen by both.
  const channels: ChannelDeps = Object.assign(views, { configs: new DynamoChannelConfigStore(db), feed: new DynamoUpdateFeed(db), realtime: deps.realtime });
  const drivers: DriverDeps = Object.assign(views, { candles: deps.candles, replays: new DynamoReplayMarkers(db) });
  return { sessions: views, backtests, channels, drivers };
}
