import type { EngineSetup } from "../../engine/setup";
import type { FeeConfig } from "../../fees/index";
import { engineSetup, type SessionConfig } from "./config";

/** Where a run's setup looks up what its configuration does not hold: lot sizes, exchange rates and fee schedules. */
export interface SetupSources {
  /** Board lots by symbol (from the provider's static information). */
  lots: (symbols: string[]) => Promise<Record<string, number>>;
  /** Units of each currency per USD, for marking. */
  fx: Record<string, number>;
  /** Fee schedule of a broker type, for the `broker` commission model. */
  fees: (brokerType: string) => FeeConfig;
}

/**
 * The engine's setup of a run (a session's, a backtest's): its configuration with the lot sizes of
 * `symbols`, the exchange rates into `base_currency` and the broker's fee schedule looked up.
 */
export async function runSetup(
  sources: SetupSources,
  options: { run_id: string; config: SessionConfig; symbols: string[]; base_currency: string; capital: Record<string, string>; enforce_risk: boolean },
): Promise<EngineSetup> {
  const commission = options.config.execution.commission;
  return engineSetup({
    run_id: options.run_id,
    config: options.config,
    capital: options.capital,
    base_currency: options.base_currency,
    fx: fxToBase(sources.fx, options.base_currency),
    lots: await sources.lots(options.symbols),
    fees: commission.model === "broker" ? sources.fees(commission.broker_type) : null,
    enforce_risk: options.enforce_risk,
  });
}

/** Base-currency units per unit of each currency, from rates quoted per USD. */
function fxToBase(perUsd: Record<string, number>, base: string): Record<string, number> {
  const rate = (currency: string) => (currency === "USD" ? 1 : (perUsd[currency] ?? 1));
  return Object.fromEntries(Object.keys({ USD: 1, ...perUsd }).map((currency) => [currency, rate(base) / rate(currency)]));
}
