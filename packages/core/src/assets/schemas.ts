import { z } from "zod";
import { evenWithIssues } from "../errors";
import { Dec, DecimalInput, NonNegativeDecimalInput, PositiveDecimalInput } from "../money/decimal";
import { CurrencyType } from "../money/currency";
import { AssetType, DateInput, MarketType, OptionType, canonicalSymbol } from "./types";

const UserId = z.string().trim().min(1).max(64);
const Nullable = <T extends z.ZodType>(schema: T) => schema.nullable().optional();

// ---- cash accounts -------------------------------------------------------------------------

export const UserAssetCreate = z
  .object({
    user_id: UserId.describe("Owner; a non-administrator may only name themself"),
    cash_assets: DecimalInput.describe("Cash, a decimal (number or string); negative on a margin debit"),
    currency: CurrencyType.optional().describe("Default USD"),
  })
  .meta({ id: "UserAssetCreate" });
export type UserAssetCreate = z.infer<typeof UserAssetCreate>;

export const SimulatedAssetCreate = UserAssetCreate.meta({ id: "SimulatedAssetCreate" });
export type SimulatedAssetCreate = UserAssetCreate;

/** Every field optional; `total_assets`, `position_assets`, `today_pnl` are figures as reported (null clears). */
export const UserAssetUpdate = z
  .object({
    total_assets: Nullable(DecimalInput),
    cash_assets: DecimalInput.optional(),
    position_assets: Nullable(DecimalInput),
    today_pnl: Nullable(DecimalInput),
    currency: CurrencyType.optional(),
  })
  .meta({ id: "UserAssetUpdate" });
export type UserAssetUpdate = z.infer<typeof UserAssetUpdate>;

/** Sets the simulated account's cash; creates the account when it does not exist yet. */
export const SimulatedAssetUpdate = z.object({ cash_assets: DecimalInput, currency: CurrencyType }).meta({ id: "SimulatedAssetUpdate" });
export type SimulatedAssetUpdate = z.infer<typeof SimulatedAssetUpdate>;

/** Cash held in each currency, as a broker reported it (decimal strings). */
export const CashByCurrency = z.partialRecord(CurrencyType, z.string()).meta({ id: "CashByCurrency" });
export type CashByCurrency = z.infer<typeof CashByCurrency>;

const assetResponseShape = {
  id: z.string(),
  user_id: z.string(),
  cash_assets: z.string().describe("Cash in `currency`; with `cash_by_currency`, all of it converted at the service's rates"),
  currency: CurrencyType,
  cash_by_currency: CashByCurrency.nullable().describe(
    "Cash in each currency when a sync reported several; null for a single cash line (set by create or update)",
  ),
  created_at: z.string(),
  updated_at: z.string(),
};

export const UserAssetResponse = z
  .object({
    ...assetResponseShape,
    total_assets: z.string().nullable().describe("As last reported by a sync or an update; the overview computes live values"),
    position_assets: z.string().nullable(),
    today_pnl: z.string().nullable(),
  })
  .meta({ id: "UserAssetResponse" });
export type UserAssetResponse = z.infer<typeof UserAssetResponse>;

export const SimulatedAssetResponse = z
  .object({
    ...assetResponseShape,
    cash_by_currency: CashByCurrency.nullable().describe("All the cash of each currency the simulated account keeps (USD, HKD)"),
    free_cash_by_currency: CashByCurrency.describe(
      "Cash free for new orders and sessions: not held by open orders nor set aside for running sessions (docs/accounts.md)",
    ),
    in_sessions_by_currency: CashByCurrency.describe("Cash set aside for running simulation sessions (their sleeves), as their fills have moved it"),
    held_by_orders_by_currency: CashByCurrency.describe("Cash held for open buy orders placed outside sessions, estimated fees included"),
  })
  .meta({ id: "SimulatedAssetResponse" });
export type SimulatedAssetResponse = z.infer<typeof SimulatedAssetResponse>;

// ---- positions -----------------------------------------------------------------------------

/** Cross-field rules of a position, checked on raw input (create) and on the merged result (update). */
export function positionProblems(input: object): { path: string[]; message: string }[] {
  const candidate = input as Record<string, unknown>;
  const problems: { path: string[]; message: string }[] = [];
  const market = MarketType.safeParse(candidate.market);
  if (typeof candidate.symbol === "string" && market.success) {
    const canonical = canonicalSymbol(candidate.symbol, market.data);
    if ("problem" in canonical) problems.push({ path: ["symbol"], message: canonical.problem });
  }
  const decimal = (value: unknown) => {
    try {
      return typeof value === "string" || typeof value === "number" ? new Dec(value) : undefined;
    } catch {
      return undefined;
    }
  };
  const quantity = decimal(candidate.quantity);
  const available = decimal(candidate.available_quantity);
  if (quantity && available?.greaterThan(quantity)) {
    problems.push({ path: ["available_quantity"], message: "cannot exceed quantity" });
  }
  const assetType = candidate.asset_type;
  if (typeof assetType === "string" && assetType !== "option") {
    for (const field of ["option_type", "strike_price", "expiry_date"]) {
      if (candidate[field] !== undefined && candidate[field] !== null) {
        problems.push({ path: [field], message: `only options have ${field}; asset_type is ${assetType}` });
      }
    }
  }
  return problems;
}

const crossCheck = (value: Record<string, unknown>, ctx: z.RefinementCtx) => {
  for (const problem of positionProblems(value)) ctx.addIssue({ code: "custom", path: problem.path, message: problem.message });
};

const positionInputShape = {
  symbol: z.string().trim().min(1).max(40).describe("TICKER.REGION, e.g. AAPL.US or 700.HK; a bare ticker gets its market's suffix"),
  symbol_name: z.string().trim().max(200),
  asset_type: AssetType,
  quantity: NonNegativeDecimalInput,
  available_quantity: NonNegativeDecimalInput,
  cost_price: NonNegativeDecimalInput,
  current_price: Nullable(NonNegativeDecimalInput),
  market: MarketType,
  currency: CurrencyType,
  contract_multiplier: PositiveDecimalInput.optional().describe("Units per contract: default 100 for options, 1 otherwise"),
  option_type: Nullable(OptionType),
  strike_price: Nullable(PositiveDecimalInput),
  expiry_date: Nullable(DateInput),
};

export const UserPositionCreate = z
  .object({ user_id: UserId, ...positionInputShape })
  .superRefine(crossCheck, evenWithIssues)
  .meta({ id: "UserPositionCreate" });
export type UserPositionCreate = z.infer<typeof UserPositionCreate>;

// Simulated positions have no separate available quantity: everything held can be sold.
const { available_quantity: _availableIsReal, ...simulatedInputShape } = positionInputShape;

/** The interface's fields, plus the optional `asset_type` (default stock) and option fields real positions have. */
export const SimulatedPositionInput = z
  .object({
    ...simulatedInputShape,
    asset_type: AssetType.optional().describe("Default stock, or option when option fields are given"),
  })
  .superRefine(crossCheck, evenWithIssues)
  .meta({ id: "SimulatedPositionInput" });
export type SimulatedPositionInput = z.infer<typeof SimulatedPositionInput>;

const positionUpdateShape = {
  symbol_name: z.string().trim().max(200).optional(),
  quantity: NonNegativeDecimalInput.optional(),
  available_quantity: NonNegativeDecimalInput.optional(),
  cost_price: NonNegativeDecimalInput.optional(),
  current_price: Nullable(NonNegativeDecimalInput),
  currency: CurrencyType.optional(),
  contract_multiplier: PositiveDecimalInput.optional(),
  option_type: Nullable(OptionType),
  strike_price: Nullable(PositiveDecimalInput),
  expiry_date: Nullable(DateInput),
};

/** Every field optional; `null` clears `current_price` and the option fields. */
export const UserPositionUpdate = z.object(positionUpdateShape).meta({ id: "UserPositionUpdate" });
export type UserPositionUpdate = z.infer<typeof UserPositionUpdate>;

const { available_quantity: _realOnly, ...simulatedUpdateShape } = positionUpdateShape;
export const SimulatedPositionUpdate = z.object(simulatedUpdateShape).meta({ id: "SimulatedPositionUpdate" });
export type SimulatedPositionUpdate = z.infer<typeof SimulatedPositionUpdate>;

const positionResponseShape = {
  id: z.string(),
  user_id: z.string(),
  symbol: z.string(),
  symbol_name: z.string(),
  asset_type: AssetType,
  quantity: z.string(),
  cost_price: z.string(),
  current_price: z.string().nullable(),
  market: MarketType,
  currency: CurrencyType,
  contract_multiplier: z.string(),
  option_type: OptionType.nullable(),
  strike_price: z.string().nullable(),
  expiry_date: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
};

export const UserPositionResponse = z.object({ ...positionResponseShape, available_quantity: z.string() }).meta({ id: "UserPositionResponse" });
export type UserPositionResponse = z.infer<typeof UserPositionResponse>;

export const SimulatedPositionResponse = z.object(positionResponseShape).meta({ id: "SimulatedPositionResponse" });
export type SimulatedPositionResponse = z.infer<typeof SimulatedPositionResponse>;

// ---- sync ----------------------------------------------------------------------------------

export const SyncRequest = z
  .object({
    user_id: UserId,
    broker_id: z.string().trim().min(1).max(64).nullable().optional().describe("Default: the user's first active broker that can report an account"),
  })
  .meta({ id: "SyncRequest" });
export type SyncRequest = z.infer<typeof SyncRequest>;

/** `success: false` with a `message` when the broker could not be read; nothing is changed then. */
export const SyncResponse = z
  .object({
    success: z.boolean(),
    message: z.string(),
    synced_assets: z.record(z.string(), z.unknown()).nullable().optional().describe("The cash account as written"),
    synced_positions: z.number().int().nullable().optional().describe("How many positions the account now holds"),
  })
  .meta({ id: "SyncResponse" });
export type SyncResponse = z.infer<typeof SyncResponse>;
