import { ValidationError, conflict, forbidden, notFound } from "../errors";
import type { Actor } from "../users";
import {
  positionProblems,
  type CashByCurrency,
  type UserAssetCreate,
  type UserAssetResponse,
  type UserAssetUpdate,
  type UserPositionCreate,
  type UserPositionResponse,
  type UserPositionUpdate,
} from "./schemas";
import { type CurrencyType, DEFAULT_CURRENCY } from "../money/currency";
import { type AssetType, type MarketType, type OptionType, canonicalSymbol } from "./types";

/** A user has one real (broker-backed) and one simulated portfolio; positions belong to one of them. */
export type PortfolioMode = "real" | "simulated";

/** A cash account as stored; amounts are canonical decimal strings. */
export interface AssetRecord {
  id: string;
  user_id: string;
  mode: PortfolioMode;
  /** Cash in `currency`; when `cash_by_currency` is set, the sum of its lines converted at the service's rates. */
  cash_assets: string;
  currency: CurrencyType;
  /**
   * Cash per currency as a broker sync reported it (the overview values each line in its own
   * currency); null or absent for a single cash line in `currency`.
   */
  cash_by_currency?: CashByCurrency | null;
  total_assets: string | null;
  position_assets: string | null;
  today_pnl: string | null;
  created_at: string;
  updated_at: string;
}

/** A position as stored. Simulated positions keep `available_quantity` equal to `quantity`. */
export interface Position {
  id: string;
  user_id: string;
  mode: PortfolioMode;
  symbol: string;
  symbol_name: string;
  asset_type: AssetType;
  quantity: string;
  available_quantity: string;
  cost_price: string;
  current_price: string | null;
  market: MarketType;
  currency: CurrencyType;
  contract_multiplier: string;
  option_type: OptionType | null;
  strike_price: string | null;
  expiry_date: string | null;
  created_at: string;
  updated_at: string;
}

/** Storage port for cash accounts and positions. */
export interface PortfolioStore {
  getAsset(userId: string, mode: PortfolioMode): Promise<AssetRecord | undefined>;
  /** Writes a new account; throws `assetExists` when the user already has one in that mode. */
  createAsset(asset: AssetRecord): Promise<void>;
  putAsset(asset: AssetRecord): Promise<void>;
  deleteAsset(userId: string, mode: PortfolioMode): Promise<AssetRecord | undefined>;
  getPosition(id: string): Promise<Position | undefined>;
  /** A user's positions in one mode, oldest first. */
  listPositions(userId: string, mode: PortfolioMode): Promise<Position[]>;
  putPosition(position: Position): Promise<void>;
  deletePosition(position: Position): Promise<void>;
  /** Writes the account and makes `positions` the user's whole set in its mode, deleting the others. */
  replacePortfolio(asset: AssetRecord, positions: Position[]): Promise<void>;
}

export interface PortfolioDeps {
  portfolio: PortfolioStore;
  now: () => number;
  newId: () => string;
  userExists: (userId: string) => Promise<boolean>;
}

export const assetExists = (mode: PortfolioMode) =>
  conflict("ASSET_ALREADY_EXISTS", `You already have ${mode === "real" ? "an asset account" : "a simulated asset account"}; update it with PUT`);
const assetNotFound = (mode: PortfolioMode) =>
  notFound("ASSET_NOT_FOUND", `No ${mode === "real" ? "asset account" : "simulated asset account"} exists yet; create it with POST`);
const positionNotFound = (id: string) => notFound("POSITION_NOT_FOUND", `Position ${id} does not exist`);

const isAdmin = (actor: Actor) => actor.user_type === "admin";
const stamp = (deps: PortfolioDeps) => new Date(deps.now()).toISOString();

/** The user whose portfolio a request acts on: the caller, or anyone for an administrator. */
export async function portfolioOwner(deps: PortfolioDeps, actor: Actor, userId?: string | null): Promise<string> {
  const owner = userId ?? actor.id;
  if (owner === actor.id) return owner;
  if (!isAdmin(actor)) throw forbidden("You may only access your own assets and positions");
  if (!(await deps.userExists(owner))) throw notFound("USER_NOT_FOUND", `User ${owner} does not exist`);
  return owner;
}

const multiplierFor = (assetType: AssetType) => (assetType === "option" ? "100" : "1");

export const Assets = {
  toResponse(asset: AssetRecord): UserAssetResponse {
    return {
      id: asset.id,
      user_id: asset.user_id,
      cash_assets: asset.cash_assets,
      currency: asset.currency,
      cash_by_currency: asset.cash_by_currency ?? null,
      total_assets: asset.total_assets,
      position_assets: asset.position_assets,
      today_pnl: asset.today_pnl,
      created_at: asset.created_at,
      updated_at: asset.updated_at,
    };
  },

  /** A new account record (not yet stored). */
  newRecord(deps: PortfolioDeps, userId: string, mode: PortfolioMode, cash: string, currency: CurrencyType): AssetRecord {
    const now = stamp(deps);
    return {
      id: deps.newId(),
      user_id: userId,
      mode,
      cash_assets: cash,
      currency,
      cash_by_currency: null,
      total_assets: null,
      position_assets: null,
      today_pnl: null,
      created_at: now,
      updated_at: now,
    };
  },

  async create(deps: PortfolioDeps, actor: Actor, mode: PortfolioMode, input: UserAssetCreate): Promise<AssetRecord> {
    const owner = await portfolioOwner(deps, actor, input.user_id);
    const asset = Assets.newRecord(deps, owner, mode, input.cash_assets, input.currency ?? DEFAULT_CURRENCY);
    await deps.portfolio.createAsset(asset);
    return asset;
  },

  async get(deps: PortfolioDeps, actor: Actor, mode: PortfolioMode, userId?: string): Promise<AssetRecord> {
    const owner = await portfolioOwner(deps, actor, userId);
    const asset = await deps.portfolio.getAsset(owner, mode);
    if (!asset) throw assetNotFound(mode);
    return asset;
  },

  /**
   * Changes the given fields of the real account; `null` clears a reported figure. Setting the
   * cash or its currency makes the account one cash line again: a synced per-currency breakdown
   * would no longer add up to it.
   */
  async update(deps: PortfolioDeps, actor: Actor, input: UserAssetUpdate, userId?: string): Promise<AssetRecord> {
    const before = await Assets.get(deps, actor, "real", userId);
    const pick = <K extends "total_assets" | "position_assets" | "today_pnl">(field: K) => (input[field] === undefined ? before[field] : input[field]);
    const cashSet = input.cash_assets !== undefined || input.currency !== undefined;
    const after: AssetRecord = {
      ...before,
      cash_assets: input.cash_assets ?? before.cash_assets,
      currency: input.currency ?? before.currency,
      cash_by_currency: cashSet ? null : (before.cash_by_currency ?? null),
      total_assets: pick("total_assets"),
      position_assets: pick("position_assets"),
      today_pnl: pick("today_pnl"),
      updated_at: stamp(deps),
    };
    await deps.portfolio.putAsset(after);
    return after;
  },

  /** Deletes the real cash account; positions are separate resources and stay. */
  async delete(deps: PortfolioDeps, actor: Actor, userId?: string): Promise<AssetRecord> {
    const owner = await portfolioOwner(deps, actor, userId);
    const deleted = await deps.portfolio.deleteAsset(owner, "real");
    if (!deleted) throw assetNotFound("real");
    return deleted;
  },
};

const optionFields = (input: { option_type?: OptionType | null; strike_price?: string | null; expiry_date?: string | null }) => ({
  option_type: input.option_type ?? null,
  strike_price: input.strike_price ?? null,
  expiry_date: input.expiry_date ?? null,
});

export const Positions = {
  toResponse(position: Position): UserPositionResponse {
    const { mode: _mode, ...fields } = position;
    return fields;
  },

  async list(deps: PortfolioDeps, actor: Actor, mode: PortfolioMode, userId?: string): Promise<Position[]> {
    return deps.portfolio.listPositions(await portfolioOwner(deps, actor, userId), mode);
  },

  /** A position of `mode` the actor may touch: unknown ids and the other mode's ids are 404, others' 403. */
  async get(deps: PortfolioDeps, actor: Actor, mode: PortfolioMode, id: string): Promise<Position> {
    const position = await deps.portfolio.getPosition(id);
    if (!position || position.mode !== mode) throw positionNotFound(id);
    if (position.user_id !== actor.id && !isAdmin(actor)) throw forbidden("This position belongs to another user");
    return position;
  },

  async create(deps: PortfolioDeps, actor: Actor, input: UserPositionCreate): Promise<Position> {
    const owner = await portfolioOwner(deps, actor, input.user_id);
    return Positions.store(deps, owner, "real", input);
  },

  async store(deps: PortfolioDeps, owner: string, mode: PortfolioMode, input: Omit<UserPositionCreate, "user_id">): Promise<Position> {
    const canonical = canonicalSymbol(input.symbol, input.market);
    if ("problem" in canonical) throw new ValidationError([{ loc: ["body", "symbol"], msg: canonical.problem, type: "value_error" }]);
    const now = stamp(deps);
    const position: Position = {
      id: deps.newId(),
      user_id: owner,
      mode,
      symbol: canonical.symbol,
      symbol_name: input.symbol_name,
      asset_type: input.asset_type,
      quantity: input.quantity,
      available_quantity: input.available_quantity,
      cost_price: input.cost_price,
      current_price: input.current_price ?? null,
      market: input.market,
      currency: input.currency,
      contract_multiplier: input.contract_multiplier ?? multiplierFor(input.asset_type),
      ...optionFields(input),
      created_at: now,
      updated_at: now,
    };
    await deps.portfolio.putPosition(position);
    return position;
  },

  /** Applies the given fields; the result must still satisfy the cross-field rules (422 otherwise). */
  async update(deps: PortfolioDeps, actor: Actor, mode: PortfolioMode, id: string, input: UserPositionUpdate): Promise<Position> {
    const before = await Positions.get(deps, actor, mode, id);
    const given = <K extends keyof Position>(field: K): Position[K] =>
      (input as Record<string, unknown>)[field] === undefined ? before[field] : ((input as Record<string, unknown>)[field] as Position[K]);
    const after: Position = {
      ...before,
      symbol_name: given("symbol_name"),
      quantity: given("quantity"),
      available_quantity: given("available_quantity"),
      cost_price: given("cost_price"),
      current_price: given("current_price"),
      currency: given("currency"),
      contract_multiplier: given("contract_multiplier"),
      option_type: given("option_type"),
      strike_price: given("strike_price"),
      expiry_date: given("expiry_date"),
      updated_at: stamp(deps),
    };
    const problems = positionProblems(after);
    if (problems.length) {
      throw new ValidationError(problems.map((problem) => ({ loc: ["body", ...problem.path], msg: problem.message, type: "value_error" })));
    }
    await deps.portfolio.putPosition(after);
    return after;
  },

  async delete(deps: PortfolioDeps, actor: Actor, mode: PortfolioMode, id: string): Promise<Position> {
    const position = await Positions.get(deps, actor, mode, id);
    await deps.portfolio.deletePosition(position);
    return position;
  },
};
