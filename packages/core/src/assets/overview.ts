import Decimal from "decimal.js";
import { z } from "zod";
import { Dec, money } from "../money/decimal";
import type { Actor } from "../users";
import { type AssetRecord, type PortfolioDeps, type PortfolioMode, type Position, portfolioOwner } from "./portfolio";
import { CurrencyType, DEFAULT_CURRENCY } from "../money/currency";
import { AssetType, MarketType } from "./types";

/** Last prices by symbol, from the market-data provider. */
export interface PriceSource {
  lastPrices(symbols: string[]): Promise<Record<string, string>>;
}

/** Exchange rates as units of each currency per US dollar, and where the figures come from. */
export interface ExchangeRates {
  perUsd(): Promise<{ source: string; rates: Record<CurrencyType, string> }>;
}

export const OverviewQuery = z.object({
  currency: CurrencyType.optional().describe("Currency of the totals; default the account's currency (USD without an account)"),
  include_positions: z.enum(["true", "false"]).optional().describe("Whether to list each position's valuation (default true)"),
  user_id: z.string().trim().min(1).max(64).optional().describe("Administrators only: another user's portfolio"),
});
export type OverviewQuery = z.infer<typeof OverviewQuery>;

/** Where a position's price came from: a live quote, the stored `current_price`, or its cost (no price known). */
export const PriceOrigin = z.enum(["quote", "stored", "cost"]).meta({ id: "PriceOrigin" });
export type PriceOrigin = z.infer<typeof PriceOrigin>;

const Money = z.string().describe("Decimal string, two places");
const Ratio = z.string().nullable().describe("Fraction (0.05 = 5%), four places; null when the cost is zero");

export const PositionValuation = z
  .object({
    id: z.string(),
    symbol: z.string(),
    symbol_name: z.string(),
    asset_type: AssetType,
    market: MarketType,
    currency: CurrencyType,
    quantity: z.string(),
    contract_multiplier: z.string(),
    cost_price: z.string(),
    price: z.string(),
    price_source: PriceOrigin,
    market_value: Money,
    cost_value: Money,
    unrealized_pnl: Money,
    unrealized_pnl_ratio: Ratio,
  })
  .meta({ id: "PositionValuation" });
export type PositionValuation = z.infer<typeof PositionValuation>;

export const CurrencyBreakdown = z
  .object({
    currency: CurrencyType,
    cash: Money,
    positions_value: Money,
    cost_value: Money,
    unrealized_pnl: Money,
    total_assets: Money,
    fx_rate: z.string().describe("Value of one unit of this currency in the base currency"),
  })
  .meta({ id: "CurrencyBreakdown" });
export type CurrencyBreakdown = z.infer<typeof CurrencyBreakdown>;

export const AssetOverview = z
  .object({
    user_id: z.string(),
    mode: z.enum(["real", "simulated"]),
    base_currency: CurrencyType,
    as_of: z.string(),
    cash: Money,
    positions_value: Money,
    cost_value: Money,
    total_assets: Money,
    unrealized_pnl: Money,
    unrealized_pnl_ratio: Ratio,
    position_count: z.number().int(),
    by_currency: z.array(CurrencyBreakdown).describe("Amounts in each currency held, in that currency"),
    positions: z.array(PositionValuation).optional(),
    fx_source: z.string(),
    has_account: z.boolean().describe("false when no cash account exists yet: cash counts as 0"),
  })
  .meta({ id: "AssetOverview" });
export type AssetOverview = z.infer<typeof AssetOverview>;

const ZERO = new Dec(0);
const ratio = (pnl: Decimal, cost: Decimal) => (cost.isZero() ? null : pnl.dividedBy(cost).toFixed(4, Decimal.ROUND_HALF_UP));

export interface ValuationInput {
  userId: string;
  mode: PortfolioMode;
  asset?: AssetRecord;
  positions: Position[];
  quotes: Record<string, string>;
  perUsd: Record<CurrencyType, string>;
  fxSource: string;
  baseCurrency?: CurrencyType;
  includePositions: boolean;
  asOf: string;
}

/**
 * Values a portfolio: each position at its quote, else its stored price, else its cost; totals
 * per currency held and, converted through US-dollar rates, in the base currency. Sums are
 * exact and rounded to the cent once, at the end.
 */
export function valuePortfolio(input: ValuationInput): AssetOverview {
  const base = input.baseCurrency ?? input.asset?.currency ?? DEFAULT_CURRENCY;
  const toBase = (currency: CurrencyType) => new Dec(input.perUsd[base]).dividedBy(input.perUsd[currency]);
  const sums = new Map<CurrencyType, { cash: Decimal; value: Decimal; cost: Decimal }>();
  const bucket = (currency: CurrencyType) => {
    let found = sums.get(currency);
    if (!found) sums.set(currency, (found = { cash: ZERO, value: ZERO, cost: ZERO }));
    return found;
  };
  if (input.asset?.cash_by_currency) {
    for (const [currency, cash] of Object.entries(input.asset.cash_by_currency) as [CurrencyType, string][]) bucket(currency).cash = new Dec(cash);
  } else if (input.asset) {
    bucket(input.asset.currency).cash = new Dec(input.asset.cash_assets);
  }

  const valuations: PositionValuation[] = input.positions.map((position) => {
    const quoted = input.quotes[position.symbol];
    const [price, source]: [string, PriceOrigin] =
      quoted !== undefined ? [quoted, "quote"] : position.current_price !== null ? [position.current_price, "stored"] : [position.cost_price, "cost"];
    const units = new Dec(position.quantity).times(position.contract_multiplier);
    const value = units.times(price);
    const cost = units.times(position.cost_price);
    const sum = bucket(position.currency);
    sum.value = sum.value.plus(value);
    sum.cost = sum.cost.plus(cost);
    return {
      id: position.id,
      symbol: position.symbol,
      symbol_name: position.symbol_name,
      asset_type: position.asset_type,
      market: position.market,
      currency: position.currency,
      quantity: position.quantity,
      contract_multiplier: position.contract_multiplier,
      cost_price: position.cost_price,
      price: new Dec(price).toFixed(),
      price_source: source,
      market_value: money(value),
      cost_value: money(cost),
      unrealized_pnl: money(value.minus(cost)),
      unrealized_pnl_ratio: ratio(value.minus(cost), cost),
    };
  });

  let cash = ZERO;
  let value = ZERO;
  let cost = ZERO;
  const byCurrency: CurrencyBreakdown[] = [...sums.entries()]
    .sort(([a], [b]) => (a === base ? -1 : b === base ? 1 : a.localeCompare(b)))
    .map(([currency, sum]) => {
      const rate = toBase(currency);
      cash = cash.plus(sum.cash.times(rate));
      value = value.plus(sum.value.times(rate));
      cost = cost.plus(sum.cost.times(rate));
      return {
        currency,
        cash: money(sum.cash),
        positions_value: money(sum.value),
        cost_value: money(sum.cost),
        unrealized_pnl: money(sum.value.minus(sum.cost)),
        total_assets: money(sum.cash.plus(sum.value)),
        fx_rate: rate.toSignificantDigits(10).toFixed(),
      };
    });

  return {
    user_id: input.userId,
    mode: input.mode,
    base_currency: base,
    as_of: input.asOf,
    cash: money(cash),
    positions_value: money(value),
    cost_value: money(cost),
    total_assets: money(cash.plus(value)),
    unrealized_pnl: money(value.minus(cost)),
    unrealized_pnl_ratio: ratio(value.minus(cost), cost),
    position_count: input.positions.length,
    by_currency: byCurrency,
    ...(input.includePositions ? { positions: valuations } : {}),
    fx_source: input.fxSource,
    has_account: input.asset !== undefined,
  };
}

export interface OverviewDeps extends PortfolioDeps {
  rates: ExchangeRates;
  /** Live prices; when absent or failing, each position's stored `current_price` is used. */
  prices?: PriceSource;
}

export const Overview = {
  /** The valued portfolio of the caller (or, for an administrator, of `query.user_id`). */
  async of(deps: OverviewDeps, actor: Actor, mode: PortfolioMode, query: OverviewQuery): Promise<AssetOverview> {
    const owner = await portfolioOwner(deps, actor, query.user_id);
    const [asset, positions] = await Promise.all([deps.portfolio.getAsset(owner, mode), deps.portfolio.listPositions(owner, mode)]);
    return Overview.value(deps, { userId: owner, mode, asset, positions, baseCurrency: query.currency, includePositions: query.include_positions !== "false" });
  },

  /** Values a portfolio as given (stored or about to be) at the provider's prices and the service's rates. */
  async value(
    deps: OverviewDeps,
    portfolio: Pick<ValuationInput, "userId" | "mode" | "asset" | "positions" | "baseCurrency" | "includePositions">,
  ): Promise<AssetOverview> {
    const { positions } = portfolio;
    const fx = await deps.rates.perUsd();
    let quotes: Record<string, string> = {};
    if (deps.prices && positions.length) {
      try {
        quotes = await deps.prices.lastPrices([...new Set(positions.map((position) => position.symbol))]);
      } catch {
        // A provider outage must not hide the portfolio: stored prices stand in (price_source says so).
        quotes = {};
      }
    }
    return valuePortfolio({ ...portfolio, quotes, perUsd: fx.rates, fxSource: fx.source, asOf: new Date(deps.now()).toISOString() });
  },
};
