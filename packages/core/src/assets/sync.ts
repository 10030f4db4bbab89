import { SimulatedAccount, type SimulatedDeps } from "./simulated";
import { DomainError, ValidationError, notFound } from "../errors";
import { Dec } from "../money/decimal";
import type { AccountBalance, OrderGateway, StockPosition, StockPositionsResponse } from "../provider/order-gateway";
import type { Actor } from "../users";
import { Brokers, type Broker, type BrokerConfig, type BrokersDeps, type BrokerType } from "../brokers/index";
import { Overview, type OverviewDeps } from "./overview";
import { Assets, type AssetRecord, type Position, portfolioOwner } from "./portfolio";
import type { CashByCurrency, SyncRequest, SyncResponse } from "./schemas";
import { CurrencyType, DEFAULT_CURRENCY } from "../money/currency";
import { MarketType, canonicalSymbol, marketCurrency, marketOfSymbol, parseOptionSymbol } from "./types";

/**
 * Where asset sync finds accounts. Every account is an `OrderGateway` and is read the same way,
 * through `accountBalance()` and `stockPositions()`, whoever holds it.
 */
export interface AccountSource {
  /** Whether brokers of this type have an account the service can read. */
  supports(type: BrokerType): boolean;
  /** The account of a broker, `config` being its opened BrokerConfig. */
  ofBroker(broker: Broker, config: BrokerConfig): Promise<OrderGateway>;
  /** The account at the provider the settings select, for one user, and its name for messages. */
  ofProvider(userId: string): Promise<{ name: string; gateway: OrderGateway }>;
}

export interface SyncDeps extends OverviewDeps {
  brokers: BrokersDeps;
  accounts: AccountSource;
}

type HeldFields = Omit<Position, "id" | "created_at" | "updated_at" | "current_price">;

/**
 * Cash of each currency an account holds, from the balances' per-currency lines: available plus
 * frozen (held for working orders). Every balance entry repeats the same lines (LongPort answers
 * the whole account in each entry's currency, the paper broker one entry per currency), so a
 * currency counts once. Empty lines are left out; currencies the service does not know are
 * returned as `skipped`.
 */
export function cashOf(balances: AccountBalance[]): { cash: CashByCurrency; skipped: string[] } {
  const cash: CashByCurrency = {};
  const skipped: string[] = [];
  const seen = new Set<string>();
  for (const line of balances.flatMap((balance) => balance.cash_infos)) {
    const code = line.currency.toUpperCase();
    if (seen.has(code)) continue;
    seen.add(code);
    const amount = new Dec(line.available_cash).plus(line.frozen_cash);
    if (amount.isZero()) continue;
    const currency = CurrencyType.safeParse(code);
    if (currency.success) cash[currency.data] = amount.toFixed();
    else skipped.push(`${amount.toFixed()} ${code}`);
  }
  return { cash, skipped };
}

/**
 * Holdings as real positions. A symbol held in several channels becomes one position (quantities
 * added, cost averaged by quantity to 4 places). Holdings in markets the service does not know
 * (crypto...) are returned as `skipped`; US option symbols become `option` positions.
 */
export function heldToPositions(userId: string, holdings: StockPositionsResponse): { kept: HeldFields[]; skipped: string[] } {
  const bySymbol = new Map<string, { holding: StockPosition; market: MarketType; quantity: Dec; available: Dec; cost: Dec }>();
  const skipped: string[] = [];
  for (const holding of holdings.channels.flatMap((channel) => channel.positions)) {
    const reported = MarketType.safeParse(holding.market);
    const market = reported.success ? reported.data : marketOfSymbol(holding.symbol);
    const canonical = market ? canonicalSymbol(holding.symbol, market) : undefined;
    if (!market || !canonical || "problem" in canonical) {
      skipped.push(holding.symbol);
      continue;
    }
    const quantity = new Dec(holding.quantity);
    const same = bySymbol.get(canonical.symbol);
    bySymbol.set(canonical.symbol, {
      holding: same?.holding ?? holding,
      market,
      quantity: quantity.plus(same?.quantity ?? 0),
      available: new Dec(holding.available_quantity).plus(same?.available ?? 0),
      cost: quantity.times(holding.cost_price).plus(same?.cost ?? 0),
    });
  }
  const kept = [...bySymbol.entries()].map(([symbol, { holding, market, quantity, available, cost }]): HeldFields => {
    const currency = CurrencyType.safeParse(holding.currency.toUpperCase());
    const option = parseOptionSymbol(symbol);
    return {
      user_id: userId,
      mode: "real",
      symbol,
      symbol_name: holding.symbol_name,
      asset_type: option ? "option" : "stock",
      quantity: quantity.toFixed(),
      available_quantity: available.toFixed(),
      cost_price: quantity.isZero() ? new Dec(holding.cost_price).toFixed() : cost.dividedBy(quantity).toDecimalPlaces(4).toFixed(),
      market,
      currency: currency.success ? currency.data : marketCurrency[market],
      contract_multiplier: option ? "100" : "1",
      option_type: option?.option_type ?? null,
      strike_price: option?.strike_price ?? null,
      expiry_date: option?.expiry_date ?? null,
    };
  });
  return { kept, skipped };
}

/**
 * Lays `incoming` positions over `existing` ones matched by symbol: a match keeps its id,
 * creation time and stored `current_price`; holdings no longer present are dropped.
 */
function matchBySymbol(
  existing: Position[],
  incoming: HeldFields[],
  now: string,
  newId: () => string,
  prices: "keep" | "incoming",
  incomingPrices: (string | null)[] = [],
): Position[] {
  const bySymbol = new Map<string, Position>();
  for (const position of existing) if (!bySymbol.has(position.symbol)) bySymbol.set(position.symbol, position);
  return incoming.map((fields, index) => {
    const match = bySymbol.get(fields.symbol);
    bySymbol.delete(fields.symbol);
    const price = prices === "incoming" ? (incomingPrices[index] ?? null) : (match?.current_price ?? null);
    return {
      ...fields,
      id: match?.id ?? newId(),
      current_price: price,
      created_at: match?.created_at ?? now,
      updated_at: now,
    };
  });
}

const failed = (message: string): SyncResponse => ({ success: false, message, synced_assets: null, synced_positions: null });
const canonical = (amount: string) => new Dec(amount).toFixed();

/**
 * Replaces the owner's real cash and positions with what the account `open()` finds reports. A
 * refusal or outage of the account (a DomainError: provider unreachable, credentials refused,
 * config unreadable...) is an answer with `success: false` and changes nothing; faults stay
 * faults. `name` names the account in messages until `open()` names it better.
 */
async function syncAccount(deps: SyncDeps, owner: string, name: string, open: () => Promise<{ name: string; gateway: OrderGateway }>): Promise<SyncResponse> {
  let balances: AccountBalance[];
  let holdings: StockPositionsResponse;
  try {
    const account = await open();
    name = account.name;
    [balances, holdings] = await Promise.all([account.gateway.accountBalance(), account.gateway.stockPositions()]);
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    return failed(`Could not read ${name}: ${error.message} (${error.code})`);
  }
  const before = await deps.portfolio.getAsset(owner, "real");
  const now = new Date(deps.now()).toISOString();
  const cash = cashOf(balances);
  const held = heldToPositions(owner, holdings);
  const positions = matchBySymbol(await deps.portfolio.listPositions(owner, "real"), held.kept, now, deps.newId, "keep");
  const account: AssetRecord = {
    ...(before ?? Assets.newRecord(deps, owner, "real", "0", DEFAULT_CURRENCY)),
    cash_by_currency: cash.cash,
    updated_at: now,
  };
  // The totals in the account's currency are the overview's, taken at the moment of the sync.
  const valued = await Overview.value(deps, {
    userId: owner,
    mode: "real",
    asset: account,
    positions,
    baseCurrency: account.currency,
    includePositions: false,
  });
  const asset: AssetRecord = {
    ...account,
    cash_assets: canonical(valued.cash),
    total_assets: canonical(valued.total_assets),
    position_assets: canonical(valued.positions_value),
  };
  await deps.portfolio.replacePortfolio(asset, positions);
  const notes = [
    ...(held.skipped.length ? [`skipped ${held.skipped.length} holding(s) in markets the service does not support: ${held.skipped.join(", ")}`] : []),
    ...(cash.skipped.length ? [`skipped cash in currencies the service does not support: ${cash.skipped.join(", ")}`] : []),
  ];
  const currencies = Object.keys(cash.cash);
  return {
    success: true,
    message:
      `Synced cash in ${currencies.length} currenc${currencies.length === 1 ? "y" : "ies"}${currencies.length ? ` (${currencies.join(", ")})` : ""} ` +
      `and ${positions.length} position(s) from ${name}${notes.map((note) => `; ${note}`).join("")}`,
    synced_assets: Assets.toResponse(asset),
    synced_positions: positions.length,
  };
}

/** The user's first broker that is not switched off and can report an account. */
async function defaultBroker(deps: SyncDeps, owner: string): Promise<Broker | undefined> {
  const brokers = await deps.brokers.brokers.listByUser(owner);
  return brokers.find((broker) => broker.status !== "inactive" && deps.accounts.supports(broker.type));
}

export const AssetSync = {
  /** Replaces the user's real cash and positions with what their broker's account reports. */
  async fromBroker(deps: SyncDeps, actor: Actor, input: SyncRequest): Promise<SyncResponse> {
    const owner = await portfolioOwner(deps, actor, input.user_id);
    let broker: Broker | undefined;
    if (input.broker_id) {
      broker = await Brokers.get(deps.brokers, actor, input.broker_id);
      if (broker.user_id !== owner) {
        throw new ValidationError([{ loc: ["body", "broker_id"], msg: `broker ${broker.id} does not belong to user ${owner}`, type: "value_error" }]);
      }
      if (!deps.accounts.supports(broker.type)) {
        return failed(`Broker '${broker.name}' is of type ${broker.type}, which cannot report an account to sync from`);
      }
    } else {
      broker = await defaultBroker(deps, owner);
      if (!broker) return failed("No active broker that can report an account: add a longport or paper broker under /api/v1/brokers");
    }
    const chosen = broker;
    const name = `the account of broker '${chosen.name}'`;
    return syncAccount(deps, owner, name, async () => ({
      name,
      gateway: await deps.accounts.ofBroker(chosen, Brokers.openConfig(deps.brokers, chosen)),
    }));
  },

  /** Replaces the caller's real cash and positions with their account at the selected provider. */
  async fromProvider(deps: SyncDeps, actor: Actor): Promise<SyncResponse> {
    return syncAccount(deps, actor.id, "the selected provider's account", () => deps.accounts.ofProvider(actor.id));
  },

  /**
   * Copies the real cash account and stocks into the simulated account (docs/accounts.md): its
   * cash and holdings become the real ones, one recorded adjustment each; refused (409) where open
   * orders or running sessions hold more than the copy would leave.
   */
  async toSimulated(deps: SyncDeps & SimulatedDeps, actor: Actor, userId?: string): Promise<SyncResponse> {
    const owner = await portfolioOwner(deps, actor, userId);
    const real = await deps.portfolio.getAsset(owner, "real");
    if (!real) throw notFound("ASSET_NOT_FOUND", "No asset account exists yet to copy: create or sync it first");
    const realPositions = await deps.portfolio.listPositions(owner, "real");
    const view = await SimulatedAccount.copyFrom(deps, owner, real.currency, real.cash_by_currency ?? { [real.currency]: real.cash_assets }, realPositions);
    const copied = view.positions.length;
    const skipped = realPositions.length - realPositions.filter((p) => view.positions.some((h) => h.symbol === p.symbol)).length;
    return {
      success: true,
      message: `Copied the real cash (${Object.entries(real.cash_by_currency ?? { [real.currency]: real.cash_assets })
        .map(([c, a]) => `${a} ${c}`)
        .join(
          ", ",
        )}) and ${copied} stock position(s) into the simulated account${skipped ? `; ${skipped} position(s) it cannot hold (options, other markets or currencies) were left out` : ""}`,
      synced_assets: SimulatedAccount.toResponse(owner, view),
      synced_positions: copied,
    };
  },
};
