import { calculate, chargesOn, totalFee, tradeDateOf } from "./calculate";
import { defaults, overrides, presetFor, resolve } from "./config";
import { inForce, statutorySchedules } from "./schedules";

/**
 * Broker fee configuration and the trading-fee calculator. Store `Fees.overrides(...)` per
 * broker, answer `Fees.resolve(...)`, price orders with `Fees.calculate(...)`.
 */
export const Fees = { calculate, chargesOn, totalFee, tradeDateOf, defaults, overrides, resolve, presetFor, inForce, statutorySchedules };

export { FeeCalculateInput, FeeCalculateResponse, HkTradingFee, TradingFee, UsTradingFee } from "./calculate";
export { FeeConfig, FeeConfigInput, HkFeeConfig, HkFeeConfigInput, UsFeeConfig, UsFeeConfigInput } from "./config";
export { FinraTafEntry, HkChargeEntry, SecFeeEntry } from "./schedules";
