import { conflict } from "../errors";
import { Dec, money } from "../money/decimal";
import { freeCash, freeShares } from "./account-rules";
import type { PaperAccount, PaperAdjustment, PaperCurrency, PaperPosition } from "./types";

/**
 * The account's cash and holdings set by hand (`PUT /assets/simulated`, the positions routes),
 * refused with a 409 below what open orders and running sessions hold of them. Each edit changes
 * the account item alone and says what changed; the paper book (`book.ts`) records it as an adjustment.
 */

/** Cash held away from the account's free use in a currency: by its own working buys and by the sleeves. */
export function heldCash(account: PaperAccount, currency: PaperCurrency): Dec {
  return new Dec(account.cash[currency].cash).minus(freeCash(account, currency));
}

/** Sets a currency's cash to `amount`; the change (zero: none). Refused (409 `CASH_HELD`) below what is held. */
export function editCash(account: PaperAccount, currency: PaperCurrency, amount: Dec): Dec {
  const line = account.cash[currency];
  const held = heldCash(account, currency);
  if (amount.lt(held)) {
    throw conflict(
      "CASH_HELD",
      `${money(held)} ${currency} is held by open orders and running sessions; the cash cannot go below it (asked ${money(amount)})`,
      {
        currency,
        held: money(held),
        requested: money(amount),
      },
    );
  }
  const delta = amount.minus(line.cash);
  if (!delta.isZero()) line.cash = money(amount);
  return delta;
}

/**
 * Sets a holding to `quantity` shares at a cost basis of `cost` (0 removes it), opened at `now` if
 * new; the holding before and after. Refused (409 `SHARES_HELD`) below what is held of it.
 */
export function editHolding(
  account: PaperAccount,
  template: Pick<PaperPosition, "symbol" | "symbol_name" | "market" | "currency">,
  quantity: Dec,
  cost: Dec,
  now: number,
): NonNullable<PaperAdjustment["holding"]> {
  const before = account.positions[template.symbol];
  const heldShares = before ? new Dec(before.quantity).minus(freeShares(account, template.symbol)) : new Dec(0);
  if (quantity.lt(heldShares)) {
    throw conflict(
      "SHARES_HELD",
      `${heldShares.toFixed()} ${template.symbol} are held by open orders and running sessions; the holding cannot go below it (asked ${quantity.toFixed()})`,
      {
        symbol: template.symbol,
        held_quantity: heldShares.toFixed(),
        requested: quantity.toFixed(),
      },
    );
  }
  const holding = {
    symbol: template.symbol,
    quantity_before: before?.quantity ?? "0",
    quantity_after: quantity.toFixed(),
    cost_before: before?.cost_amount ?? "0.00",
    cost_after: money(cost),
  };
  if (quantity.isZero()) delete account.positions[template.symbol];
  else {
    account.positions[template.symbol] = {
      ...template,
      ...(before ?? {}),
      symbol_name: template.symbol_name || before?.symbol_name || template.symbol,
      quantity: quantity.toFixed(),
      frozen: before?.frozen ?? "0",
      cost_amount: money(cost),
      realized: "0",
      fees: "0",
      opened_at: before?.opened_at ?? now,
      entry_price: quantity.gt(0) ? cost.div(quantity).toNumber() : 0,
    };
  }
  return holding;
}
