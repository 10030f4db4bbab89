import { calculate, chargesOn, totalFee, tradeDateOf } from "./calculate";
import { beyondCharged, cashMoved, chargedAsPart, feeModel, feeSoFar, orderFee, partFee, settledValue, settlesInCents } from "./charge";
import { defaults, overrides, presetFor, resolve } from "./config";
import { inForce, statutorySchedules } from "./schedules";

/**
 * Broker fee configuration, the trading-fee calculator and how a fee is charged. Store
 * `Fees.overrides(...)` per broker, answer `Fees.resolve(...)`, price orders with
 * `Fees.calculate(...)`; the engine and the paper broker charge fills and hold for buys with
 * `Fees.orderFee`, `Fees.partFee`, `Fees.feeSoFar` and settle a trade's value and the cash it moves with `Fees.settledValue` and `Fees.cashMoved` (`charge.ts`).
 */
export const Fees = {
  calculate,
  chargesOn,
  totalFee,
  tradeDateOf,
  defaults,
  overrides,
  resolve,
  presetFor,
  inForce,
  statutorySchedules,
  feeModel,
  settlesInCents,
  settledValue,
  cashMoved,
  chargedAsPart,
  orderFee,
  feeSoFar,
  beyondCharged,
  partFee,
};

export { FeeCalculateInput, FeeCalculateResponse, HkTradingFee, TradingFee, UsTradingFee } from "./calculate";
export type { FeeMemo, FeeModel } from "./charge";
export { FeeConfig, FeeConfigInput, HkFeeConfig, HkFeeConfigInput, UsFeeConfig, UsFeeConfigInput } from "./config";
export { FinraTafEntry, HkChargeEntry, SecFeeEntry } from "./schedules";
