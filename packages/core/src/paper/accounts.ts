import { conflict } from "../errors";
import { Dec, money } from "../money/decimal";
import { assertSupportedMarket, marketOf, normalizeSymbol } from "../market/market";
import { withAccount, type PaperBrokerDeps } from "./broker";
import type { PaperBook } from "./book";
import { CurrencyOfMarket, PaperCurrencies, type PaperCurrency, type PaperMarket, type PaperPosition, type PaperSleeve } from "./types";

/**
 * A paper account as a user's simulated account (docs/accounts.md): the one book of the money its
 * trading moved. `/assets/simulated` and its positions show it, the api-test trade endpoints,
 * `POST /trading/simulation/orders` and simulation sessions trade it, and every change that is not
 * a trade is a recorded adjustment.
 */

/** One currency of an account: all of its cash, what is free, and what open orders and running sessions hold. */
export interface CashView {
  cash: string;
  free: string;
  held_by_orders: string;
  in_sessions: string;
}

/** A holding with the shares neither promised to working sells nor a running session's. */
export interface HoldingView extends PaperPosition {
  available: string;
}

export interface PaperAccountView {
  account_id: string;
  currency: PaperCurrency;
  cash: Record<PaperCurrency, CashView>;
  positions: HoldingView[];
  /** The running sessions' sleeves, by session id. */
  sleeves: Record<string, PaperSleeve>;
  created_at: string;
  updated_at: string;
}

/** What a holding set by hand names: the symbol, optionally its name, the shares and their cost per share. */
export interface HoldingInput {
  symbol: string;
  symbol_name?: string;
  quantity: string;
  cost_price: string;
}

function viewOf(book: PaperBook): PaperAccountView {
  const { account } = book;
  const cash = Object.fromEntries(
    PaperCurrencies.map((currency) => {
      const inSessions = Object.values(account.sleeves ?? {}).reduce((sum, part) => sum.plus(part.cash[currency] ?? "0"), new Dec(0));
      const free = book.available(currency);
      return [
        currency,
        {
          cash: account.cash[currency].cash,
          free: money(free),
          in_sessions: money(inSessions),
          held_by_orders: money(new Dec(account.cash[currency].cash).minus(free).minus(inSessions)),
        },
      ];
    }),
  ) as Record<PaperCurrency, CashView>;
  const positions = Object.values(account.positions)
    .filter((p) => new Dec(p.quantity).gt(0))
    .sort((a, b) => (a.symbol < b.symbol ? -1 : a.symbol > b.symbol ? 1 : 0))
    .map((p) => ({ ...p, available: book.positionAvailable(p.symbol).toFixed() }));
  return {
    account_id: account.account_id,
    currency: account.currency ?? "USD",
    cash,
    positions,
    sleeves: account.sleeves ?? {},
    created_at: account.created_at,
    updated_at: account.updated_at,
  };
}

const accountExists = () => conflict("ASSET_ALREADY_EXISTS", "You already have a simulated asset account; change its cash with PUT");

function tradable(symbol: string): { symbol: string; market: PaperMarket; currency: PaperCurrency } {
  const canonical = normalizeSymbol(symbol);
  const market = marketOf(canonical);
  assertSupportedMarket(market, "A simulated holding in market");
  return { symbol: canonical, market: market as PaperMarket, currency: CurrencyOfMarket[market as PaperMarket] };
}

const cashOf = (amounts: Partial<Record<PaperCurrency, string>>): Record<PaperCurrency, string> =>
  Object.fromEntries(PaperCurrencies.map((c) => [c, new Dec(amounts[c] ?? "0").toFixed()])) as Record<PaperCurrency, string>;

export const PaperAccounts = {
  /** The account as it stands (working orders matched up to now), or undefined when it was never opened. */
  async view(deps: PaperBrokerDeps, accountId: string): Promise<PaperAccountView | undefined> {
    if (!(await deps.store.load(accountId))) return undefined;
    return withAccount(deps, accountId, async (ctx) => viewOf(ctx.book));
  },

  /** Opens the account with `cash` per currency (others 0); 409 `ASSET_ALREADY_EXISTS` when it is open. */
  async open(deps: PaperBrokerDeps, accountId: string, cash: Partial<Record<PaperCurrency, string>>, currency: PaperCurrency): Promise<PaperAccountView> {
    return withAccount({ ...deps, initialCash: cashOf(cash) }, accountId, async (ctx) => {
      if (ctx.book.stored) throw accountExists();
      ctx.book.account.currency = currency;
      return viewOf(ctx.book);
    });
  },

  /**
   * Sets a currency's cash, a recorded deposit or withdrawal (409 `CASH_HELD` below what orders and
   * sessions hold); an account never opened is opened with that cash line alone.
   */
  async setCash(deps: PaperBrokerDeps, accountId: string, currency: PaperCurrency, amount: string): Promise<PaperAccountView> {
    const opening = !(await deps.store.load(accountId));
    return withAccount({ ...deps, initialCash: opening ? cashOf({ [currency]: amount }) : deps.initialCash }, accountId, async (ctx) => {
      if (!ctx.book.stored) ctx.book.account.currency = currency;
      else ctx.book.setCash(currency, new Dec(amount), "cash set with PUT /assets/simulated");
      return viewOf(ctx.book);
    });
  },

  /** Sets a holding by hand (recorded; `quantity` 0 removes it); 409 `SHARES_HELD` below what orders and sessions hold of it. */
  async setHolding(deps: PaperBrokerDeps, accountId: string, input: HoldingInput, note: string): Promise<PaperAccountView> {
    const { symbol, market, currency } = tradable(input.symbol);
    return withAccount(deps, accountId, async (ctx) => {
      const quantity = new Dec(input.quantity);
      ctx.book.setHolding({ symbol, market, currency, symbol_name: input.symbol_name ?? "" }, quantity, quantity.times(input.cost_price), note);
      return viewOf(ctx.book);
    });
  },

  /**
   * Makes the account hold `cash` and `holdings` and nothing else, one recorded adjustment (the
   * real account copied in); refused like `setCash` and `setHolding` where orders or sessions hold more.
   * An account never opened is opened first (at `PAPER_INITIAL_CASH`, recorded), as a first trade would.
   */
  async replace(
    deps: PaperBrokerDeps,
    accountId: string,
    cash: Partial<Record<PaperCurrency, string>>,
    holdings: HoldingInput[],
    note: string,
    currency?: PaperCurrency,
  ): Promise<PaperAccountView> {
    const wanted = holdings.map((h) => ({ ...h, ...tradable(h.symbol) }));
    return withAccount(deps, accountId, async (ctx) => {
      const { book } = ctx;
      if (currency) book.account.currency = currency;
      for (const currency of PaperCurrencies) book.setCash(currency, new Dec(cash[currency] ?? "0"), note);
      const kept = new Set(wanted.map((h) => h.symbol));
      for (const symbol of Object.keys(book.account.positions)) {
        if (!kept.has(symbol)) book.setHolding(book.account.positions[symbol]!, new Dec(0), new Dec(0), note);
      }
      for (const h of wanted) {
        const quantity = new Dec(h.quantity);
        book.setHolding(
          { symbol: h.symbol, market: h.market, currency: h.currency, symbol_name: h.symbol_name ?? "" },
          quantity,
          quantity.times(h.cost_price),
          note,
        );
      }
      return viewOf(book);
    });
  },

  /** A session's sleeve as it stands (the account's working orders matched up to now), undefined when it has none. */
  async sleeve(deps: PaperBrokerDeps, accountId: string, sessionId: string): Promise<PaperSleeve | undefined> {
    if (!(await deps.store.load(accountId))) return undefined;
    return withAccount(deps, accountId, async (ctx) => ctx.book.account.sleeves?.[sessionId]);
  },
};
