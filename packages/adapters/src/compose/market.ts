/**
 * The builders of the market side: stored candles, settings and the provider registry (market
 * data and order gateways), the paper broker and its accounts, candle imports, trading calendars
 * and the data sync service. They read the market's clock (`marketNow`).
 */
import type { CandleStore } from "@tp/core/candles/index";
import type { ImportDeps } from "@tp/core/imports/index";
import { importProgress, type DataSyncDeps } from "@tp/core/data-sync/index";
import type { TradingCalendarDeps } from "@tp/core/trading-calendar/index";
import type { MarketData } from "@tp/core/provider/market-data";
import { DynamoCandleStore } from "../stores/candle-store";
import { DynamoImportTaskStore } from "../stores/import-task-store";
import { DynamoCalendarStore } from "../stores/calendar-store";
import { DynamoCorporateActionStore } from "../stores/corporate-action-store";
import { DynamoSyncStore } from "../stores/sync-store";
import { SimulatedMarketData } from "../provider/simulated";
import { createPaperBroker, paperBrokerDeps, type PaperBrokerHandle } from "../provider/paper";
import type { PaperBrokerDeps } from "@tp/core/paper/broker";
import { createProviderServices, paperGatewayUnavailable, type ProviderRegistry } from "../provider/registry";
import type { SettingsDeps } from "@tp/core/settings/index";
import { DynamoWorkerStore } from "../stores/worker-store";
import { type ServiceContext, once } from "./context";
import { jobs, realtime } from "./platform";

export function candles(c: ServiceContext): CandleStore {
  return once(c, candles, () => new DynamoCandleStore(c.db, { cacheCandles: c.config.candleCacheCandles }));
}

/**
 * Settings and the provider registry. The simulated provider's orders go to the paper broker
 * when a service that trades has built it (`paperBroker`); functions that only read market data
 * never load it, and an order there would be a 503.
 */
function providerServices(c: ServiceContext): { settings: SettingsDeps; providers: ProviderRegistry } {
  return once(c, providerServices, () =>
    createProviderServices(c.config, c.db, { now: c.marketNow }, new SimulatedMarketData({ clock: { now: c.marketNow } }), {
      paperGateway: (accountId) => {
        if (!c.paperGateway) throw paperGatewayUnavailable();
        return c.paperGateway(accountId);
      },
    }),
  );
}

export function settings(c: ServiceContext): SettingsDeps {
  return providerServices(c).settings;
}

export function marketData(c: ServiceContext): () => Promise<MarketData> {
  return once(c, marketData, () => () => providerServices(c).providers.marketData());
}

/** The paper broker's deps: its accounts (the simulated accounts and sessions' sleeves) without its order gateway. */
export function paperAccounts(c: ServiceContext): PaperBrokerDeps {
  return once(c, paperAccounts, () =>
    paperBrokerDeps(c.db, { clock: { now: c.marketNow }, marketData: marketData(c), initialCash: c.config.paperInitialCash }),
  );
}

/** The paper broker; building it makes it the simulated provider's order gateway. */
export function paperBroker(c: ServiceContext): PaperBrokerHandle {
  return once(c, paperBroker, () => {
    const broker = createPaperBroker(paperAccounts(c));
    c.paperGateway = broker;
    return broker;
  });
}

/** The provider registry for market data: orders under the simulated provider are a 503 unless `paperBroker` is built too. */
export function marketProviders(c: ServiceContext): ProviderRegistry {
  return providerServices(c).providers;
}

/** The provider registry with orders: the selected provider's gateway, the paper broker's under the simulated provider. */
export function providers(c: ServiceContext): ProviderRegistry {
  paperBroker(c);
  return providerServices(c).providers;
}

export function imports(c: ServiceContext): ImportDeps {
  return once(c, imports, () => {
    // An import's progress goes to its symbol's data-sync log stream.
    const stream = { store: new DynamoSyncStore(c.db), realtime: realtime(c), now: c.marketNow };
    return {
      tasks: new DynamoImportTaskStore(c.db),
      candles: candles(c),
      corporateActions: new DynamoCorporateActionStore(c.db),
      marketData: marketData(c),
      jobs: jobs(c),
      now: c.marketNow,
      newId: c.newId,
      progress: (view) => importProgress(stream, view),
    };
  });
}

export function calendar(c: ServiceContext): TradingCalendarDeps {
  return once(c, calendar, () => ({ entries: new DynamoCalendarStore(c.db), candles: candles(c), marketData: marketData(c), now: c.marketNow }));
}

export function dataSync(c: ServiceContext): DataSyncDeps {
  return once(c, dataSync, () => {
    const workers = new DynamoWorkerStore(c.db);
    return {
      store: new DynamoSyncStore(c.db),
      workerBeat: () => workers.last(),
      imports: imports(c),
      calendar: calendar(c),
      jobs: jobs(c),
      realtime: realtime(c),
      now: c.marketNow,
    };
  });
}
