import type { TradeSession } from "../market/trade-session";
import type { TradingFee } from "../fees/index";
import type { Execution, OrderHistoryDetail } from "../provider/order-gateway";
import type { OrderSide, OrderStatus, OrderTag, OrderType, OutsideRth, TimeInForce, TriggerStatus } from "../provider/order-types";

/**
 * The paper broker's state, as stored. Quantities, prices and money are decimal strings
 * (decimal.js inside); instants are epoch milliseconds where the broker computes with them and
 * ISO strings where they are shown.
 */

/** Markets the paper broker trades (those with calendars and a simulated market). */
export type PaperMarket = "US" | "HK";

/** Cash currencies of a paper account: each market settles in its own, and the broker never converts. */
export const PaperCurrencies = ["USD", "HKD"] as const;
export type PaperCurrency = (typeof PaperCurrencies)[number];

export const CurrencyOfMarket: Readonly<Record<PaperMarket, PaperCurrency>> = { US: "USD", HK: "HKD" };

/** Cash of one currency: `cash` is the total (frozen included); `frozen` is held for working buy orders, fees included. */
export interface CashLine {
  cash: string;
  frozen: string;
  /** The part of `frozen` that is estimated fees. */
  frozen_fees: string;
}

/**
 * A holding, booked by the engine's ledger (`engine/ledger.ts`). `frozen` shares are promised to
 * working sell orders; `cost_amount` is the exact cost basis of the shares held, buy fees included
 * (a sale releases its share of it).
 */
export interface PaperPosition {
  symbol: string;
  symbol_name: string;
  market: PaperMarket;
  currency: PaperCurrency;
  quantity: string;
  frozen: string;
  cost_amount: string;
  /** The round trip so far: realised P&L of partial sales and fees paid (absent on holdings stored before the ledger kept them). */
  realized?: string;
  fees?: string;
  /** When the round trip opened (epoch ms) and its average entry price. */
  opened_at?: number;
  entry_price?: number;
}

/**
 * A running session's part of the account (docs/accounts.md): the cash it took when it started,
 * moved since by its own fills, and the shares its fills left it. Only the session's orders
 * trade it; the rest of the account cannot spend it. Stopping the session dissolves it: the cash
 * is free again and the shares stay in the account's holdings.
 */
export interface PaperSleeve {
  cash: Record<PaperCurrency, string>;
  /** Shares per symbol (whole, never negative: the paper broker does not sell short). */
  positions: Record<string, string>;
  /** What the session's working orders hold of it: cash per currency (buys, fees included) and shares per symbol (sells). */
  held?: Partial<Record<PaperCurrency, string>>;
  held_shares?: Record<string, string>;
  opened_at: string;
}

/**
 * One account: cash by currency, holdings, and the ids of its working orders. Every change is
 * written with `version` + 1, only if the stored version is still `version`.
 */
export interface PaperAccount {
  account_id: string;
  version: number;
  cash: Record<PaperCurrency, CashLine>;
  positions: Record<string, PaperPosition>;
  /** Orders that can still fill, oldest first. */
  working: string[];
  /** The sleeves of the running sessions that trade this account, by session id. */
  sleeves?: Record<string, PaperSleeve>;
  /** The currency the account was opened in (its `cash_assets` as `/assets/simulated` shows it); USD when absent. */
  currency?: PaperCurrency;
  created_at: string;
  updated_at: string;
}

/**
 * A change of the account that is not a trade, kept as a record: the cash it was opened with, a
 * deposit or withdrawal (`PUT /assets/simulated`), a holding set by hand, the real account copied in.
 */
export interface PaperAdjustment {
  account_id: string;
  adjustment_id: string;
  kind: "open" | "deposit" | "withdrawal" | "holding" | "sync";
  /** Cash moved per currency (signed decimal strings). */
  cash: Partial<Record<PaperCurrency, string>>;
  /** A holding set by hand: its symbol and the quantity and cost basis before and after. */
  holding?: { symbol: string; quantity_before: string; quantity_after: string; cost_before: string; cost_after: string };
  note: string;
  /** Epoch ms (the storage sort key) and its ISO form. */
  at_ms: number;
  at: string;
}

/**
 * What a working order waits for: the opening auction (`AO`/`ALO`), its trigger (`LIT`, `MIT`,
 * trailing types), a price (limit orders) or nothing (market orders fill at each minute's open).
 */
export type OrderPhase = "auction" | "trigger" | "limit" | "market" | "done";

/** Whether an order can no longer fill (a function, so checks after a mutation are not narrowed away). */
export function isDone(order: { phase: OrderPhase }): boolean {
  return order.phase === "done";
}

/** A paper order: LongPort's order fields plus what the broker needs to keep matching it. */
export interface PaperOrder {
  account_id: string;
  order_id: string;
  symbol: string;
  stock_name: string;
  market: PaperMarket;
  currency: PaperCurrency;
  lot_size: number;
  order_type: OrderType;
  side: OrderSide;
  time_in_force: TimeInForce;
  outside_rth: OutsideRth | null;
  expire_date: string | null;
  remark: string;
  /** Why the order was rejected, withdrawn or expired; empty otherwise. */
  msg: string;
  status: OrderStatus;
  tag: OrderTag;
  quantity: string;
  executed_quantity: string;
  /** Σ price × quantity of the fills, unrounded. */
  executed_amount: string;
  /** The limit price (for trailing types: set when triggered). */
  price: string | null;
  submitted_price: string | null;
  trigger_price: string | null;
  limit_offset: string | null;
  trailing_amount: string | null;
  trailing_percent: string | null;
  trigger_status: TriggerStatus;
  trigger_at: string | null;
  /** `LIT`/`MIT`: whether the market must fall (`down`) or rise (`up`) to the trigger, from where it was at submission. */
  touch: "up" | "down" | null;
  /** Trailing types: the highest (sell) or lowest (buy) price seen since submission. */
  trailing_reference: string | null;
  phase: OrderPhase;
  /** `AO`/`ALO`: the opening the order waits for (epoch ms). */
  auction_at: number | null;
  /** Sessions whose minutes the order trades in. */
  sessions: TradeSession[];
  /** The exchange trading date the order was accepted for. */
  trading_date: string;
  /** When a `Day`/`GTD` order stops working (epoch ms); null for `GTC`. */
  expires_at: number | null;
  /** Buys: the price per share the cash reservation is computed at. */
  reserve_price: string | null;
  /** Cash held for this order (buys), fees included. */
  frozen_cash: string;
  frozen_fees: string;
  /** Shares held for this order (sells). */
  frozen_quantity: string;
  /** The session whose sleeve the order trades (absent: the account's free cash and shares). */
  sleeve?: string;
  /** Fees charged so far: the fee calculator applied to the executed quantity at its average price. */
  fees_charged: string;
  fee_details: TradingFee | null;
  last_done: string | null;
  submitted_at: string;
  updated_at: string;
  /** Minutes completing at or before this instant (epoch ms) have been matched. */
  matched_until: number;
  fills: number;
  history: OrderHistoryDetail[];
}

/** A fill, as stored: LongPort's execution fields plus the account, market, side and amount. */
export interface PaperExecution extends Execution {
  account_id: string;
  market: PaperMarket;
  side: OrderSide;
  /** `trade_done_at` in epoch milliseconds (the storage sort key). */
  done_ms: number;
  /** Cash moved for the trade value (price × quantity to the cent), fees not included. */
  amount: string;
}

/** A one-minute bar of the market the broker matches against. */
export interface MinuteBar {
  start: number;
  end: number;
  open: string;
  high: string;
  low: string;
  close: string;
  volume: number;
  session: TradeSession;
}
