import type { Config } from "longport";
import type { BrokerConfig } from "@tp/core/brokers/index";
import type { LanguageType, ProviderCredentials } from "@tp/core/settings/index";
import { loadLongport, longportConfig, withTimeout } from "./sdk";
import type { LongportHosts } from "../../config";
import { LongportRateLimits, PacingQueue, systemScheduler } from "../rate-limit";
import { LongportCodec, type LongportSdk } from "./codec";
import { longportError } from "./errors";

/**
 * What the LongPort adapters are configured from: the provider settings (ProviderConfig), or a
 * `longport` broker's config, which may also choose the access point (region or explicit hosts).
 */
export interface LongportSettings extends ProviderCredentials, Pick<BrokerConfig, "region" | "http_url" | "quote_ws_url" | "trade_ws_url"> {
  language: LanguageType;
  enable_overnight: boolean;
}

export interface LongportConnectionOptions {
  settings: LongportSettings;
  /** Longest wait for a connection or one call once it has started (queueing excluded). */
  timeoutMs: number;
  /** Paces the calls of this account; shared by every adapter of the same account in the process. */
  limiter: PacingQueue;
  /** The SDK module (default: loaded on first use, so runtimes that never select LongPort never load the native binary). */
  sdk?: () => Promise<LongportSdk>;
  /** The service's LongPort hosts (`LONGPORT_*_URL`), where the settings name none. */
  hosts?: LongportHosts;
}

/** A LongPort SDK `Config` from the settings and the service's hosts; the broker adapters' builder does the mapping. */
export function configFor(settings: LongportSettings, hosts: LongportHosts = {}): Promise<Config> {
  return longportConfig(
    {
      app_key: settings.app_key,
      app_secret: settings.app_secret,
      access_token: settings.access_token,
      language: settings.language,
      enable_overnight: settings.enable_overnight,
      region: settings.region,
      http_url: settings.http_url,
      quote_ws_url: settings.quote_ws_url,
      trade_ws_url: settings.trade_ws_url,
    },
    hosts,
  );
}

/**
 * One lazily opened SDK context (QuoteContext or TradeContext) with its pacing, timeouts and
 * error mapping. A failed connection is forgotten, so the next call tries again.
 */
export class LongportConnection<C> {
  private context?: Promise<C>;
  private codecPromise?: Promise<LongportCodec>;

  constructor(
    private readonly options: LongportConnectionOptions,
    private readonly open: (sdk: LongportSdk, config: Config) => Promise<C>,
    private readonly onOpen: (context: C, codec: LongportCodec) => void = () => undefined,
  ) {}

  private sdk(): Promise<LongportSdk> {
    return (this.options.sdk ?? loadLongport)();
  }

  /** The codec over the loaded SDK (enum tables are read once). */
  codec(): Promise<LongportCodec> {
    this.codecPromise ??= this.sdk().then((sdk) => new LongportCodec(sdk));
    return this.codecPromise;
  }

  /** The context, opened on first use. */
  private connect(): Promise<C> {
    this.context ??= (async () => {
      const [sdk, codec] = await Promise.all([this.sdk(), this.codec()]);
      const context = await withTimeout(
        this.open(sdk, await configFor(this.options.settings, this.options.hosts)),
        this.options.timeoutMs,
        "LongPort connection",
      );
      this.onOpen(context, codec);
      return context;
    })().catch((error: unknown) => {
      this.context = undefined;
      throw longportError(error, "the connection");
    });
    return this.context;
  }

  /** About how long (ms) a call asked for now would wait in the account's pacing queue. */
  backlogMs(): number {
    return this.options.limiter.backlogMs();
  }

  /** Runs one SDK call in the account's pacing queue; failures become DomainErrors naming `action`. */
  async call<T>(action: string, run: (context: C, codec: LongportCodec) => Promise<T>): Promise<T> {
    const context = await this.connect();
    const codec = await this.codec();
    return this.options.limiter.run(async () => {
      try {
        return await withTimeout(run(context, codec), this.options.timeoutMs, `LongPort ${action}`);
      } catch (error) {
        throw longportError(error, action);
      }
    });
  }
}

/** Pacing queues for one LongPort account, shared by the quote and trade adapters of a process. */
export function longportLimiters(scheduler = systemScheduler) {
  return { quote: new PacingQueue(LongportRateLimits.quote, scheduler), trade: new PacingQueue(LongportRateLimits.trade, scheduler) };
}
