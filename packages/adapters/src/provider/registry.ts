import { randomBytes } from "node:crypto";
import { DomainError } from "@tp/core/errors";
import type { Clock } from "@tp/core/provider/clock";
import type { MarketData } from "@tp/core/provider/market-data";
import type { OrderGateway } from "@tp/core/provider/order-gateway";
import { Settings, type ProviderSelection, type ProviderType, type SettingsDeps } from "@tp/core/settings/index";
import type { LongportHosts, QuoteConnectionMode, ServiceConfig } from "../config";
import { DynamoQuoteRelayStore } from "../stores/quote-relay-store";
import { relayedMarketData } from "./relay/relayed-market-data";
import { AesGcmSecretBox } from "../crypto/aes-gcm-secret-box";
import type { Db } from "../dynamo/db";
import { DynamoSettingsStore } from "../stores/settings-store";
import { LongportMarketData, LongportOrderGateway, LongportTokenRefresher, longportLimiters } from "./longport/index";
import type { PacingQueue } from "./rate-limit";
import { SimulatedMarketData } from "./simulated/index";

/** An order for the simulated provider in a runtime (or function) that has no paper broker wired. */
export function paperGatewayUnavailable(): DomainError {
  return new DomainError(503, "ORDER_GATEWAY_UNAVAILABLE", "No paper broker is wired for the simulated provider in this runtime", { retry_after: 60 });
}

/** The provider in use: its adapters, built for one settings selection. */
export interface ActiveProvider {
  type: ProviderType;
  /** The settings version the adapters were built from. */
  version: number;
  marketData: MarketData;
  /** The order gateway of an account: LongPort's one account, or the caller's paper account. */
  orderGateway(accountId: string): Promise<OrderGateway>;
}

export interface ProviderRegistryOptions {
  /** Reads the current selection (one GetItem on the settings item). */
  select: () => Promise<ProviderSelection>;
  /** The simulated market with overnight off; the overnight variant shares its engine. */
  simulated: SimulatedMarketData;
  /** "Now" of the simulated markets. */
  clock: Clock;
  /** Time used to age the cached selection (the services' clock). */
  now: () => number;
  /** How long a selection is trusted before the settings item is read again (ms). */
  ttlMs: number;
  /** Longest wait for a LongPort connection or call (ms). */
  timeoutMs: number;
  /** The service's LongPort hosts (`LONGPORT_*_URL`). */
  longportHosts?: LongportHosts;
  /** Whether this process opens LongPort's one quote connection (`ServiceConfig.quoteConnection`; default `own`). */
  quoteConnection?: QuoteConnectionMode;
  /** Where a process that does not hold the quote connection asks the one that does. */
  quoteRelay?: DynamoQuoteRelayStore;
  /** Pacing of the LongPort account; default a quote and a trade queue for this process. */
  limiters?: { quote: PacingQueue; trade: PacingQueue };
  /** The paper broker's gateway of an account, used while the simulated provider is selected. */
  paperGateway?: (accountId: string) => OrderGateway;
}

interface Cached {
  /** What the adapters depend on: a change rebuilds them, anything else keeps them (and their subscriptions). */
  key: string;
  provider: ActiveProvider;
  checkedAt: number;
  /** Set by `invalidate`: read the settings again before the next use. */
  stale: boolean;
}

/**
 * The adapters depend on the type, and for LongPort on every stored field (credentials, language,
 * overnight) and on whether this process holds the quote connection.
 */
const keyOf = (selection: ProviderSelection, ownsQuotes: boolean) =>
  selection.type === "simulated" ? `simulated:${selection.enable_overnight}` : `longport:${selection.version}:${ownsQuotes ? "own" : "relay"}`;

/**
 * Resolves the provider the settings select, without a restart. The selection is cached for
 * `ttlMs` and re-read after; the adapters are rebuilt only when what they depend on changed, so
 * simulated subscriptions survive unrelated changes. A change made through this instance applies
 * at once (`invalidate`); other instances see it within `ttlMs`.
 */
export class ProviderRegistry {
  private cached?: Cached;
  private loading?: Promise<Cached>;
  private readonly limiters: { quote: PacingQueue; trade: PacingQueue };
  private readonly simulatedByOvernight = new Map<boolean, SimulatedMarketData>();
  /** Bumped by `invalidate`, so a read that started before a change cannot pass for a fresh one. */
  private generation = 0;
  /** Whether this worker task holds the quote lease (`quoteConnection: "lease"`). */
  private quoteLease = false;

  constructor(private readonly options: ProviderRegistryOptions) {
    this.limiters = options.limiters ?? longportLimiters();
    this.simulatedByOvernight.set(options.simulated.overnight, options.simulated);
  }

  /** The provider in use now. */
  async active(): Promise<ActiveProvider> {
    const cached = this.cached;
    // A clock moved backwards (tests, replays) counts as expired too.
    if (cached && !cached.stale && Math.abs(this.options.now() - cached.checkedAt) < this.options.ttlMs) return cached.provider;
    this.loading ??= this.reload().finally(() => (this.loading = undefined));
    return (await this.loading).provider;
  }

  /** The selected market-data adapter. */
  async marketData(): Promise<MarketData> {
    return (await this.active()).marketData;
  }

  /**
   * The selected order gateway for an account: LongPort's (the service's one LongPort account,
   * whatever the id) or, for the simulated provider, the paper broker's account `accountId`.
   */
  async orderGateway(accountId: string): Promise<OrderGateway> {
    return (await this.active()).orderGateway(accountId);
  }

  /** The quote relay's items (the lease holder answers them, `serveQuoteRelay`). */
  get quoteRelay(): DynamoQuoteRelayStore {
    if (!this.options.quoteRelay) throw new Error("This provider registry has no quote relay");
    return this.options.quoteRelay;
  }

  /** Whether this process opens LongPort's quote connection itself (rather than asking the process that does). */
  ownsQuoteConnection(): boolean {
    const mode = this.options.quoteConnection ?? "own";
    return mode === "own" || (mode === "lease" && this.quoteLease);
  }

  /** A worker task took or lost the quote lease: the next use builds the adapters that fit (the connection, or the relay). */
  setQuoteLease(held: boolean): void {
    if (held === this.quoteLease) return;
    this.quoteLease = held;
    this.invalidate();
  }

  /** Marks the cached selection stale: the next call reads the settings again (and keeps adapters that still fit). */
  invalidate(): void {
    this.generation += 1;
    if (this.cached) this.cached.stale = true;
  }

  private async reload(): Promise<Cached> {
    const generation = this.generation;
    const selection = await this.options.select();
    const key = keyOf(selection, this.ownsQuoteConnection());
    const checkedAt = this.options.now();
    const stale = generation !== this.generation;
    const previous = this.cached;
    this.cached = previous?.key === key ? { ...previous, checkedAt, stale } : { key, provider: this.build(selection), checkedAt, stale };
    return this.cached;
  }

  private build(selection: ProviderSelection): ActiveProvider {
    if (selection.type === "longport") {
      const connection = {
        settings: { ...selection.credentials!, language: selection.language, enable_overnight: selection.enable_overnight },
        timeoutMs: this.options.timeoutMs,
        hosts: this.options.longportHosts,
      };
      let gateway: LongportOrderGateway | undefined;
      return {
        type: "longport",
        version: selection.version,
        marketData:
          this.ownsQuoteConnection() || !this.options.quoteRelay
            ? new LongportMarketData({ ...connection, limiter: this.limiters.quote })
            : relayedMarketData(this.options.quoteRelay, { timeoutMs: this.options.timeoutMs }),
        orderGateway: async () => (gateway ??= new LongportOrderGateway({ ...connection, limiter: this.limiters.trade })),
      };
    }
    return {
      type: "simulated",
      version: selection.version,
      marketData: this.simulated(selection.enable_overnight),
      orderGateway: async (accountId) => {
        if (!this.options.paperGateway) throw paperGatewayUnavailable();
        return this.options.paperGateway(accountId);
      },
    };
  }

  /** One simulated market per overnight setting, kept for the process: switching back finds its subscriptions. */
  private simulated(overnight: boolean): SimulatedMarketData {
    let market = this.simulatedByOvernight.get(overnight);
    if (!market) {
      market = new SimulatedMarketData({ clock: this.options.clock, overnight, engine: this.options.simulated.engine });
      this.simulatedByOvernight.set(overnight, market);
    }
    return market;
  }
}

/**
 * Settings use cases and the provider registry over the table, wired to each other. No I/O
 * happens here. The simulated provider's orders go to `paperGateway` (the composition root's
 * paper broker); without one they are a 503.
 */
export function createProviderServices(
  config: ServiceConfig,
  db: Db,
  clock: { now: () => number },
  simulated: SimulatedMarketData,
  overrides: { paperGateway?: (accountId: string) => OrderGateway } = {},
): { settings: SettingsDeps; providers: ProviderRegistry } {
  const settings: SettingsDeps = {
    store: new DynamoSettingsStore(db),
    secrets: new AesGcmSecretBox(config.encryptionKey),
    tokens: new LongportTokenRefresher(config.providerTimeoutMs, config.longportHosts),
    now: clock.now,
    newToken: () => `sim_${randomBytes(24).toString("base64url")}`,
    onProviderChanged: () => providers.invalidate(),
  };
  const providers: ProviderRegistry = new ProviderRegistry({
    select: () => Settings.selection(settings),
    simulated,
    clock: { now: clock.now },
    now: clock.now,
    ttlMs: config.providerSettingsTtlMs,
    timeoutMs: config.providerTimeoutMs,
    longportHosts: config.longportHosts,
    quoteConnection: config.quoteConnection,
    quoteRelay: new DynamoQuoteRelayStore(db),
    paperGateway: overrides.paperGateway,
  });
  return { settings, providers };
}
