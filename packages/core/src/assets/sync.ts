import { ValidationError, notFound } from "../errors";
import { Dec } from "../fees/money";
import type { Actor } from "../users";
import { Brokers, type Broker, type BrokerConfig, type BrokersDeps, type BrokerType } from "../brokers/index";
import { Assets, type AssetRecord, type PortfolioDeps, type PortfolioMode, type Position, portfolioOwner } from "./portfolio";
import type { SyncRequest, SyncResponse } from "./schemas";
import {
  CurrencyType,
  DEFAULT_CURRENCY,
  MarketType,
  canonicalSymbol,
  marketCurrency,
  marketOfSymbol,
  parseOptionSymbol,
} from "./types";

/** One holding as a broker reports it; currencies and markets are the broker's spelling until checked. */
export interface HeldPosition {
  symbol: string;
  symbol_name: string;
  quantity: string;
  available_quantity: string;
  cost_price: string;
  currency: string;
  market?: string;
}

/** A broker account's cash (in the requested currency) and holdings at one moment. */
export interface AccountSnapshot {
  currency: CurrencyType;
  cash: string;
  /** Cash plus holdings as the broker values them, when it says. */
  net_assets?: string;
  positions: HeldPosition[];
}

/** Reads broker accounts (LongPort's TradeContext `accountBalance` and `stockPositions`, the paper broker...). */
export interface AccountSource {
  supports(type: BrokerType): boolean;
  /** Throws when the broker cannot be reached or refuses; the message is shown to the user. */
  snapshot(type: BrokerType, config: BrokerConfig, currency: CurrencyType): Promise<AccountSnapshot>;
}

export interface SyncDeps extends PortfolioDeps {
  brokers: BrokersDeps;
  accounts: AccountSource;
}

/**
 * Lays `incoming` positions over `existing` ones matched by symbol: a match keeps its id,
 * creation time and stored `current_price`; holdings no longer present are dropped.
 */
function matchBySymbol(existing: Position[], incoming: Omit<Position, "id" | "created_at" | "updated_at" | "current_price">[], now: string, newId: () => string, prices: "keep" | "incoming", incomingPrices: (string | null)[] = []): Position[] {
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

/** Turns a broker's holdings into positions; holdings in markets or currencies the service does not know are skipped. */
function heldToPositions(userId: string, held: HeldPosition[]) {
  const kept: Omit<Position, "id" | "created_at" | "updated_at" | "current_price">[] = [];
  const skipped: string[] = [];
  for (const holding of held) {
    const market = MarketType.safeParse(holding.market ?? marketOfSymbol(holding.symbol));
    const canonical = market.success ? canonicalSymbol(holding.symbol, market.data) : undefined;
    if (!market.success || !canonical || "problem" in canonical) {
      skipped.push(holding.symbol);
      continue;
    }
    const currency = CurrencyType.safeParse(holding.currency.toUpperCase());
    const option = parseOptionSymbol(canonical.symbol);
    kept.push({
      user_id: userId,
      mode: "real",
      symbol: canonical.symbol,
      symbol_name: holding.symbol_name,
      asset_type: option ? "option" : "stock",
      quantity: new Dec(holding.quantity).toFixed(),
      available_quantity: new Dec(holding.available_quantity).toFixed(),
      cost_price: new Dec(holding.cost_price).toFixed(),
      market: market.data,
      currency: currency.success ? currency.data : marketCurrency[market.data],
      contract_multiplier: option ? "100" : "1",
      option_type: option?.option_type ?? null,
      strike_price: option?.strike_price ?? null,
      expiry_date: option?.expiry_date ?? null,
    });
  }
  return { kept, skipped };
}

const failed = (message: string): SyncResponse => ({ success: false, message, synced_assets: null, synced_positions: null });

async function syncBroker(deps: SyncDeps, owner: string, broker: Broker): Promise<SyncResponse> {
  if (!deps.accounts.supports(broker.type)) {
    return failed(`Broker '${broker.name}' is of type ${broker.type}, which cannot report an account to sync from`);
  }
  const before = await deps.portfolio.getAsset(owner, "real");
  const currency = before?.currency ?? DEFAULT_CURRENCY;
  let snapshot: AccountSnapshot;
  try {
    snapshot = await deps.accounts.snapshot(broker.type, Brokers.openConfig(deps.brokers, broker), currency);
  } catch (error) {
    return failed(`Could not read the account of broker '${broker.name}': ${error instanceof Error ? error.message : String(error)}`);
  }
  const now = new Date(deps.now()).toISOString();
  const cash = new Dec(snapshot.cash);
  const asset: AssetRecord = {
    ...(before ?? Assets.newRecord(deps, owner, "real", "0", snapshot.currency)),
    cash_assets: cash.toFixed(),
    currency: snapshot.currency,
    total_assets: snapshot.net_assets !== undefined ? new Dec(snapshot.net_assets).toFixed() : null,
    position_assets: snapshot.net_assets !== undefined ? new Dec(snapshot.net_assets).minus(cash).toFixed() : null,
    updated_at: now,
  };
  const { kept, skipped } = heldToPositions(owner, snapshot.positions);
  const positions = matchBySymbol(await deps.portfolio.listPositions(owner, "real"), kept, now, deps.newId, "keep");
  await deps.portfolio.replacePortfolio(asset, positions);
  const note = skipped.length ? `; skipped ${skipped.length} holding(s) in markets the service does not support: ${skipped.join(", ")}` : "";
  return {
    success: true,
    message: `Synced cash and ${positions.length} position(s) from broker '${broker.name}'${note}`,
    synced_assets: Assets.toResponse(asset),
    synced_positions: positions.length,
  };
}

/** The user's first broker that is not switched off and can report an account, optionally of one type. */
async function defaultBroker(deps: SyncDeps, owner: string, type?: BrokerType): Promise<Broker | undefined> {
  const brokers = await deps.brokers.brokers.listByUser(owner);
  return brokers.find((broker) => broker.status !== "inactive" && deps.accounts.supports(broker.type) && (!type || broker.type === type));
}

export const AssetSync = {
  /** Replaces the user's real cash and positions with what their broker reports. */
  async fromBroker(deps: SyncDeps, actor: Actor, input: SyncRequest): Promise<SyncResponse> {
    const owner = await portfolioOwner(deps, actor, input.user_id);
    let broker: Broker | undefined;
    if (input.broker_id) {
      broker = await Brokers.get(deps.brokers, actor, input.broker_id);
      if (broker.user_id !== owner) {
        throw new ValidationError([{ loc: ["body", "broker_id"], msg: `broker ${broker.id} does not belong to user ${owner}`, type: "value_error" }]);
      }
    } else {
      broker = await defaultBroker(deps, owner);
      if (!broker) return failed("No active broker that can report an account: add a longport broker under /api/v1/brokers");
    }
    return syncBroker(deps, owner, broker);
  },

  /** The manual sync of the caller's real assets from the market-data provider's account (their LongPort broker). */
  async fromProvider(deps: SyncDeps, actor: Actor): Promise<SyncResponse> {
    const broker = await defaultBroker(deps, actor.id, "longport");
    if (!broker) return failed("No active longport broker: add one under /api/v1/brokers with its app key, secret and access token");
    return syncBroker(deps, actor.id, broker);
  },

  /** Copies the real cash account and positions into the simulated portfolio, replacing what it held. */
  async toSimulated(deps: SyncDeps, actor: Actor, userId?: string): Promise<SyncResponse> {
    const owner = await portfolioOwner(deps, actor, userId);
    const real = await deps.portfolio.getAsset(owner, "real");
    if (!real) throw notFound("ASSET_NOT_FOUND", "No asset account exists yet to copy: create or sync it first");
    const [realPositions, simulatedPositions, simulatedBefore] = await Promise.all([
      deps.portfolio.listPositions(owner, "real"),
      deps.portfolio.listPositions(owner, "simulated"),
      deps.portfolio.getAsset(owner, "simulated"),
    ]);
    const now = new Date(deps.now()).toISOString();
    const simulated: AssetRecord = {
      ...(simulatedBefore ?? Assets.newRecord(deps, owner, "simulated", real.cash_assets, real.currency)),
      cash_assets: real.cash_assets,
      currency: real.currency,
      updated_at: now,
    };
    const mode: PortfolioMode = "simulated";
    const copies = realPositions.map(({ id: _id, created_at: _created, updated_at: _updated, current_price: _price, ...fields }) => ({
      ...fields,
      mode,
      // Everything a simulated position holds can be sold.
      available_quantity: fields.quantity,
    }));
    const positions = matchBySymbol(simulatedPositions, copies, now, deps.newId, "incoming", realPositions.map((p) => p.current_price));
    await deps.portfolio.replacePortfolio(simulated, positions);
    return {
      success: true,
      message: `Copied cash ${real.cash_assets} ${real.currency} and ${positions.length} position(s) into the simulated portfolio`,
      synced_assets: Assets.toSimulatedResponse(simulated),
      synced_positions: positions.length,
    };
  },
};
