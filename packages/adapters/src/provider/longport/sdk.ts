import type { Config, ConfigParams, Language } from "longport";
import type { BrokerConfig } from "@tp/core/brokers/index";
import type { LongportHosts } from "../../config";

// The SDK declares its enums `const`, which isolated modules cannot read; these are their values.
const languages: Record<NonNullable<BrokerConfig["language"]>, number> = { "zh-CN": 0, "zh-HK": 1, en: 2 };

// LongPort's mainland China access points (the SDK's LONGPORT_REGION=cn); `hk` is the default global host.
const chinaHosts = {
  httpUrl: "https://openapi.longportapp.cn",
  quoteWsUrl: "wss://openapi-quote.longportapp.cn/v2",
  tradeWsUrl: "wss://openapi-trade.longportapp.cn/v2",
};

/** The SDK module, loaded on first use so runtimes that never talk to LongPort do not load the native binary. */
export const loadLongport = () => import("longport");

/**
 * A LongPort SDK `Config` from a broker's config (credentials, region or explicit hosts,
 * language). Its own hosts win; else the service's (`LONGPORT_*_URL`, `defaults`); else its region's.
 */
export async function longportConfig(config: BrokerConfig, defaults: LongportHosts = {}): Promise<Config> {
  const { Config } = await loadLongport();
  const hosts = {
    ...(config.region === "cn" ? chinaHosts : {}),
    ...(defaults.http_url ? { httpUrl: defaults.http_url } : {}),
    ...(defaults.quote_ws_url ? { quoteWsUrl: defaults.quote_ws_url } : {}),
    ...(defaults.trade_ws_url ? { tradeWsUrl: defaults.trade_ws_url } : {}),
  };
  const params: ConfigParams = {
    appKey: config.app_key ?? "",
    appSecret: config.app_secret ?? "",
    accessToken: config.access_token ?? "",
    ...hosts,
    ...(config.http_url ? { httpUrl: config.http_url } : {}),
    ...(config.quote_ws_url ? { quoteWsUrl: config.quote_ws_url } : {}),
    ...(config.trade_ws_url ? { tradeWsUrl: config.trade_ws_url } : {}),
    ...(config.language ? { language: languages[config.language] as unknown as Language } : {}),
    enableOvernight: config.enable_overnight ?? false,
    enablePrintQuotePackages: false,
  };
  return new Config(params);
}

/** Settles with `promise`, or rejects after `ms`. A late result is dropped (the SDK call cannot be cancelled). */
export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms);
  });
  promise.catch(() => undefined);
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** The SDK's errors carry the provider's code and message in `message`; keep it on one line. */
export const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error)).replace(/\s+/g, " ").trim();
