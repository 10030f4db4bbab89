import { forbidden, notFound, ValidationError, type ValidationIssue } from "../errors";
import { Dec } from "../money/decimal";
import { PaperAccounts, type HoldingView, type PaperAccountView } from "../paper/accounts";
import type { PaperBrokerDeps } from "../paper/broker";
import { PaperCurrencies, type PaperCurrency } from "../paper/types";
import type { Actor } from "../users";
import { portfolioOwner, type AssetRecord, type PortfolioDeps, type Position } from "./portfolio";
import type {
  CashByCurrency,
  SimulatedAssetResponse,
  SimulatedAssetUpdate,
  SimulatedPositionInput,
  SimulatedPositionResponse,
  SimulatedPositionUpdate,
  UserAssetCreate,
} from "./schemas";
import { canonicalSymbol } from "./types";
import { Overview, type AssetOverview, type OverviewDeps, type OverviewQuery } from "./overview";

/**
 * The simulated account of `/assets/simulated` and its positions (docs/accounts.md): the user's
 * paper account, the one book that simulated trading moves. Cash is kept per currency (USD, HKD);
 * `cash_assets` is the line of the currency it was opened in. Setting cash or a holding is a
 * recorded adjustment of that account, refused (409) where open orders or running sessions hold more.
 */

export interface SimulatedDeps extends PortfolioDeps {
  paper: PaperBrokerDeps;
}

const accountNotFound = () => notFound("ASSET_NOT_FOUND", "No simulated asset account exists yet; create it with POST (a first simulated trade also opens it)");

/** A holding's id in the API: the owner and the symbol (an account holds one line per symbol). */
const holdingId = (userId: string, symbol: string) => `${userId}:${symbol}`;

function paperCurrency(currency: string, loc: (string | number)[]): PaperCurrency {
  if ((PaperCurrencies as readonly string[]).includes(currency)) return currency as PaperCurrency;
  throw new ValidationError([{ loc, msg: `the simulated account keeps cash in ${PaperCurrencies.join(" and ")}, not ${currency}`, type: "value_error" }]);
}

const byCurrency = (view: PaperAccountView, figure: "cash" | "free" | "in_sessions" | "held_by_orders"): CashByCurrency =>
  Object.fromEntries(PaperCurrencies.map((c) => [c, view.cash[c][figure]]));

/** The account as the asset record the overview values (cash per currency, one line each). */
function assetOf(userId: string, view: PaperAccountView): AssetRecord {
  return {
    id: view.account_id,
    user_id: userId,
    mode: "simulated",
    cash_assets: view.cash[view.currency].cash,
    currency: view.currency,
    cash_by_currency: byCurrency(view, "cash"),
    total_assets: null,
    position_assets: null,
    today_pnl: null,
    created_at: view.created_at,
    updated_at: view.updated_at,
  };
}

function positionOf(userId: string, view: PaperAccountView, holding: HoldingView): Position {
  const quantity = new Dec(holding.quantity);
  return {
    id: holdingId(userId, holding.symbol),
    user_id: userId,
    mode: "simulated",
    symbol: holding.symbol,
    symbol_name: holding.symbol_name || holding.symbol,
    asset_type: "stock",
    quantity: holding.quantity,
    available_quantity: holding.available,
    cost_price: quantity.gt(0) ? new Dec(holding.cost_amount).div(quantity).toDecimalPlaces(4).toFixed() : "0",
    current_price: null,
    market: holding.market,
    currency: holding.currency,
    contract_multiplier: "1",
    option_type: null,
    strike_price: null,
    expiry_date: null,
    created_at: holding.opened_at !== undefined ? new Date(holding.opened_at).toISOString() : view.created_at,
    updated_at: view.updated_at,
  };
}

/** Problems of a holding the paper broker cannot keep: options and anything but a US or HK stock. */
function holdingProblems(input: { asset_type?: string; option_type?: unknown; strike_price?: unknown; expiry_date?: unknown }): ValidationIssue[] {
  const option = input.asset_type === "option" || input.option_type != null || input.strike_price != null || input.expiry_date != null;
  return option
    ? [{ loc: ["body", "asset_type"], msg: "the simulated account holds stocks only (the paper broker trades US and HK stocks)", type: "value_error" }]
    : [];
}

export const SimulatedAccount = {
  toResponse(userId: string, view: PaperAccountView): SimulatedAssetResponse {
    const { mode: _mode, total_assets: _t, position_assets: _p, today_pnl: _d, ...fields } = assetOf(userId, view);
    return {
      ...fields,
      cash_by_currency: fields.cash_by_currency ?? null,
      free_cash_by_currency: byCurrency(view, "free"),
      in_sessions_by_currency: byCurrency(view, "in_sessions"),
      held_by_orders_by_currency: byCurrency(view, "held_by_orders"),
    };
  },

  positionResponse(position: Position): SimulatedPositionResponse {
    const { mode: _mode, available_quantity: _available, ...fields } = position;
    return fields;
  },

  /** The owner's account, or 404 when it was never opened. */
  async get(deps: SimulatedDeps, actor: Actor, userId?: string | null): Promise<{ owner: string; view: PaperAccountView }> {
    const owner = await portfolioOwner(deps, actor, userId);
    const view = await PaperAccounts.view(deps.paper, owner);
    if (!view) throw accountNotFound();
    return { owner, view };
  },

  /** Opens the account with its cash (409 `ASSET_ALREADY_EXISTS` when it is open). */
  async create(deps: SimulatedDeps, actor: Actor, input: UserAssetCreate): Promise<{ owner: string; view: PaperAccountView }> {
    const owner = await portfolioOwner(deps, actor, input.user_id);
    const currency = paperCurrency(input.currency ?? "USD", ["body", "currency"]);
    return { owner, view: await PaperAccounts.open(deps.paper, owner, { [currency]: input.cash_assets }, currency) };
  },

  /** Sets the cash of a currency: a recorded deposit or withdrawal (opens the account when absent). */
  async setCash(deps: SimulatedDeps, actor: Actor, input: SimulatedAssetUpdate, userId?: string | null): Promise<{ owner: string; view: PaperAccountView }> {
    const owner = await portfolioOwner(deps, actor, userId);
    const currency = paperCurrency(input.currency, ["body", "currency"]);
    return { owner, view: await PaperAccounts.setCash(deps.paper, owner, currency, input.cash_assets) };
  },

  /** The holdings as positions, by symbol. */
  async positions(deps: SimulatedDeps, actor: Actor, userId?: string | null): Promise<Position[]> {
    const owner = await portfolioOwner(deps, actor, userId);
    const view = await PaperAccounts.view(deps.paper, owner);
    return view ? view.positions.map((holding) => positionOf(owner, view, holding)) : [];
  },

  /** Sets a holding by hand (a recorded adjustment); a symbol already held is set to the new figures. */
  async addPosition(deps: SimulatedDeps, actor: Actor, input: SimulatedPositionInput, userId?: string | null): Promise<Position> {
    const owner = await portfolioOwner(deps, actor, userId);
    const problems = holdingProblems(input);
    const canonical = canonicalSymbol(input.symbol, input.market);
    if ("problem" in canonical) problems.push({ loc: ["body", "symbol"], msg: canonical.problem, type: "value_error" });
    if (!new Dec(input.quantity).gt(0))
      problems.push({ loc: ["body", "quantity"], msg: "a holding is added with more than 0 shares (DELETE removes one)", type: "value_error" });
    if (problems.length || "problem" in canonical) throw new ValidationError(problems);
    const holding = { symbol: canonical.symbol, symbol_name: input.symbol_name, quantity: input.quantity, cost_price: input.cost_price };
    const view = await PaperAccounts.setHolding(deps.paper, owner, holding, "holding set with POST /assets/simulated/positions");
    return positionOf(owner, view, view.positions.find((h) => h.symbol === canonical.symbol)!);
  },

  /** Changes a holding's quantity, cost or name (a recorded adjustment). */
  async updatePosition(deps: SimulatedDeps, actor: Actor, id: string, input: SimulatedPositionUpdate): Promise<Position> {
    const { owner, before } = await SimulatedAccount.position(deps, actor, id);
    const problems = holdingProblems(input);
    if (problems.length) throw new ValidationError(problems);
    const holding = {
      symbol: before.symbol,
      symbol_name: input.symbol_name ?? before.symbol_name,
      quantity: input.quantity ?? before.quantity,
      cost_price: input.cost_price ?? before.cost_price,
    };
    const view = await PaperAccounts.setHolding(deps.paper, owner, holding, "holding set with PUT /assets/simulated/positions");
    const after = view.positions.find((h) => h.symbol === before.symbol);
    // Set to 0 shares, the holding is gone: the answer says so.
    return after ? positionOf(owner, view, after) : { ...before, quantity: "0", available_quantity: "0", updated_at: view.updated_at };
  },

  /** Removes a holding (a recorded adjustment); 409 `SHARES_HELD` while orders or sessions hold some of it. */
  async deletePosition(deps: SimulatedDeps, actor: Actor, id: string): Promise<Position> {
    const { owner, before } = await SimulatedAccount.position(deps, actor, id);
    await PaperAccounts.setHolding(
      deps.paper,
      owner,
      { symbol: before.symbol, quantity: "0", cost_price: "0" },
      "holding removed with DELETE /assets/simulated/positions",
    );
    return before;
  },

  /** A holding by its id: 404 for an unknown one, 403 for another user's (administrators excepted). */
  async position(deps: SimulatedDeps, actor: Actor, id: string): Promise<{ owner: string; before: Position }> {
    const split = id.lastIndexOf(":");
    const owner = split > 0 ? id.slice(0, split) : "";
    const missing = notFound("POSITION_NOT_FOUND", `Position ${id} does not exist`);
    if (!owner) throw missing;
    if (owner !== actor.id && actor.user_type !== "admin") throw forbidden("This position belongs to another user");
    const view = await PaperAccounts.view(deps.paper, owner);
    const holding = view?.positions.find((h) => holdingId(owner, h.symbol) === id);
    if (!view || !holding) throw missing;
    return { owner, before: positionOf(owner, view, holding) };
  },

  /** The account valued as `/assets/overview` values the real one. */
  async overview(deps: SimulatedDeps & OverviewDeps, actor: Actor, query: OverviewQuery): Promise<AssetOverview> {
    const owner = await portfolioOwner(deps, actor, query.user_id);
    const view = await PaperAccounts.view(deps.paper, owner);
    return Overview.value(deps, {
      userId: owner,
      mode: "simulated",
      asset: view ? assetOf(owner, view) : undefined,
      positions: view ? view.positions.map((holding) => positionOf(owner, view, holding)) : [],
      baseCurrency: query.currency,
      includePositions: query.include_positions !== "false",
    });
  },

  /** Makes the account hold the real account's cash and stocks (one recorded adjustment per change). */
  async copyFrom(deps: SimulatedDeps, owner: string, currency: string, cash: CashByCurrency, positions: Position[]): Promise<PaperAccountView> {
    const lines: Partial<Record<PaperCurrency, string>> = {};
    for (const [currency, amount] of Object.entries(cash))
      if ((PaperCurrencies as readonly string[]).includes(currency) && amount !== undefined) lines[currency as PaperCurrency] = amount;
    const stocks = positions.filter((p) => p.asset_type === "stock" && (p.market === "US" || p.market === "HK"));
    const holdings = stocks.map((p) => ({ symbol: p.symbol, symbol_name: p.symbol_name, quantity: p.quantity, cost_price: p.cost_price }));
    const main = (PaperCurrencies as readonly string[]).includes(currency) ? (currency as PaperCurrency) : undefined;
    return PaperAccounts.replace(deps.paper, owner, lines, holdings, "real account copied in with POST /assets/sync-to-simulated", main);
  },
};
