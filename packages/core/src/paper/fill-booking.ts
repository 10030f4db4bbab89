import { book, type Position } from "../engine/ledger";
import { Fees } from "../fees/index";
import { Dec, money } from "../money/decimal";
import { Money } from "../money/money";
import type { PaperAccount, PaperOrder, PaperPosition } from "./types";

/**
 * A paper fill booked into the account: the cash line moved by the fill's value and fee (the fee
 * domain's rule, `fees/charge.ts`), the holding booked by the engine's ledger (`engine/ledger.ts`:
 * cost basis with fees, the share of it a sale releases, realised P&L) and stored back as text, and
 * the session's sleeve moved with the account (the same cash, the same shares). The paper book (`book.ts`) records the order's side of it.
 */

/** A stored holding as the engine's ledger position (holdings stored before the ledger kept no round trip: they start one). */
function ledgerPosition(p: PaperPosition): Position {
  const quantity = Number(p.quantity);
  return {
    symbol: p.symbol,
    quantity,
    cost: Money.of(p.cost_amount),
    realized: Money.of(p.realized ?? "0"),
    fees: Money.of(p.fees ?? "0"),
    opened_at: p.opened_at ?? 0,
    entry_price: p.entry_price ?? (quantity > 0 ? Number(p.cost_amount) / quantity : 0),
  };
}

const storedPosition = (p: Position): Pick<PaperPosition, "quantity" | "cost_amount" | "realized" | "fees" | "opened_at" | "entry_price"> => ({
  quantity: String(p.quantity),
  cost_amount: p.cost.toString(),
  realized: p.realized.toString(),
  fees: p.fees.toString(),
  opened_at: p.opened_at,
  entry_price: p.entry_price,
});

/** Books `quantity` shares of `order` filled at `price` for `amount` (settled) with `feeDelta` more in fees, at `at`. */
export function bookFill(account: PaperAccount, order: PaperOrder, quantity: Dec, price: Dec, amount: Dec, feeDelta: Dec, at: number): void {
  const line = account.cash[order.currency];
  const position = (account.positions[order.symbol] ??= {
    symbol: order.symbol,
    symbol_name: order.stock_name,
    market: order.market,
    currency: order.currency,
    quantity: "0",
    frozen: "0",
    cost_amount: "0.00",
  });
  // The cash it moves by the fee domain's rule (the engine's too); the engine's ledger books the holding (cost basis with fees, the share of it a sale releases, realised P&L).
  const fee = Money.fromDec(feeDelta);
  const cashFlow = Fees.cashMoved(order.side === "Buy" ? "buy" : "sell", Money.fromDec(amount), fee);
  const holding = ledgerPosition(position);
  book(holding, order.side === "Buy" ? quantity.toNumber() : -quantity.toNumber(), price.toNumber(), cashFlow, fee, at);
  Object.assign(position, storedPosition(holding));
  line.cash = money(new Dec(line.cash).plus(cashFlow.toDec()));
  // The session's sleeve moves with the account: the same cash, the same shares (a sleeve dissolved meanwhile has nothing to move).
  const part = order.sleeve === undefined ? undefined : account.sleeves?.[order.sleeve];
  if (part) {
    part.cash[order.currency] = money(new Dec(part.cash[order.currency] ?? "0").plus(cashFlow.toDec()));
    const shares = new Dec(part.positions[order.symbol] ?? "0").plus(order.side === "Buy" ? quantity : quantity.negated());
    if (shares.isZero()) delete part.positions[order.symbol];
    else part.positions[order.symbol] = shares.toFixed();
  }
}
