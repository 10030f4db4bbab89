import type { LongportSettings } from "../../packages/adapters/src/provider/longport/connection";
import { DomainError } from "../../packages/core/src/errors";
import type { FakeLongport } from "../support/fake-longport/index";

/**
 * What the contract tests share: the provider settings that point the project's LongPort adapters
 * at a fake LongPort, a poll for pushes, and the DomainError a call fails with.
 */

/** The adapters' settings for `fake`: its credentials and hosts, as the provider settings name them. */
export function settingsFor(fake: FakeLongport, overrides: Partial<LongportSettings> = {}): LongportSettings {
  const config = fake.config();
  return {
    app_key: config.appKey,
    app_secret: config.appSecret,
    access_token: config.accessToken,
    language: "en",
    enable_overnight: false,
    http_url: config.httpUrl,
    quote_ws_url: config.quoteWsUrl,
    trade_ws_url: config.tradeWsUrl,
    ...overrides,
  };
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `read` until it returns something (not undefined or false); throws after `ms`. */
export async function until<T>(read: () => T | undefined | false, ms = 8_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = read();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > end) throw new Error("timed out waiting");
    await sleep(20);
  }
}

/** A failure as the port reports it. */
export interface PortFailure {
  status: number;
  code: string;
  extra: Record<string, unknown>;
}

/** The DomainError `call` fails with, as status, code and extra; anything else (a success, another error) fails the test. */
export async function failureOf(call: Promise<unknown>): Promise<PortFailure> {
  let outcome: unknown;
  try {
    outcome = await call;
  } catch (error) {
    if (!(error instanceof DomainError)) throw new Error(`expected a DomainError, got ${String(error)}`);
    return { status: error.status, code: error.code, extra: error.extra };
  }
  throw new Error(`expected the call to fail, it answered ${JSON.stringify(outcome)}`);
}
