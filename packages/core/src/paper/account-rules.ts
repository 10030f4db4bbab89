import { badRequest, conflict } from "../errors";
import { Dec, money } from "../money/decimal";
import { PaperCurrencies, type PaperAccount, type PaperAdjustment, type PaperCurrency, type PaperOrder, type PaperSleeve } from "./types";
import { iso } from "../util/time";

/**
 * The money rules of a paper account over its stored item alone (docs/accounts.md): what is free,
 * what running sessions' sleeves hold, opening and dissolving a sleeve. The paper book applies them
 * while it matches orders; the session API applies them without matching (a sleeve set aside
 * against the stored item is safe: matching since can only free more cash, never take what a
 * sleeve holds).
 */

const ZERO = new Dec(0);
const amount = (value: string | undefined) => new Dec(value ?? "0");

/** A new account holding `cash` per currency (currencies left out hold 0), and the record of its opening. */
export function newAccount(accountId: string, cash: Partial<Record<PaperCurrency, string>>, now: number): { account: PaperAccount; opened: PaperAdjustment } {
  const lines = Object.fromEntries(
    PaperCurrencies.map((c) => [c, { cash: money(amount(cash[c])), frozen: "0.00", frozen_fees: "0.00" }]),
  ) as PaperAccount["cash"];
  const account: PaperAccount = { account_id: accountId, version: 0, cash: lines, positions: {}, working: [], created_at: iso(now), updated_at: iso(now) };
  return { account, opened: adjustmentOf(account, "open", Object.fromEntries(PaperCurrencies.map((c) => [c, lines[c].cash])), "account opened", now, 1) };
}

/** A change of the account that is not a trade, as its record. Its id starts with its time and is unique per write of the account. */
export function adjustmentOf(
  account: PaperAccount,
  kind: PaperAdjustment["kind"],
  cash: PaperAdjustment["cash"],
  note: string,
  now: number,
  index: number,
  holding?: PaperAdjustment["holding"],
): PaperAdjustment {
  return {
    account_id: account.account_id,
    adjustment_id: `${String(now).padStart(13, "0")}-${account.version + 1}-${index}`,
    kind,
    cash,
    ...(holding ? { holding } : {}),
    note,
    at_ms: now,
    at: iso(now),
  };
}

/** A running session's sleeve; a refusal when the session has none in this account. */
export function sleeveOf(account: PaperAccount, sessionId: string): PaperSleeve {
  const part = account.sleeves?.[sessionId];
  // A refusal, not a conflict: trying again cannot help until the session is started again.
  if (!part)
    throw badRequest("SLEEVE_NOT_FOUND", `session ${sessionId} has no capital set aside in paper account ${account.account_id}; start the session first`, {
      session_id: sessionId,
    });
  return part;
}

/**
 * Cash free for new buys: of a session's sleeve (`sleeve`), its cash less what its working buys
 * hold; of the account, its cash less what its own working buys hold and less every sleeve's cash.
 */
export function freeCash(account: PaperAccount, currency: PaperCurrency, sleeve?: string): Dec {
  if (sleeve !== undefined) {
    const part = sleeveOf(account, sleeve);
    return amount(part.cash[currency]).minus(amount(part.held?.[currency]));
  }
  const line = account.cash[currency];
  let free = new Dec(line.cash).minus(line.frozen);
  // The account's frozen cash counts the sleeves' working buys too: their holds are inside the sleeves' cash.
  for (const part of Object.values(account.sleeves ?? {})) free = free.minus(amount(part.cash[currency])).plus(amount(part.held?.[currency]));
  return free;
}

/** Shares not promised to working sells: of a session's sleeve (`sleeve`), or of the account less what the sleeves hold. */
export function freeShares(account: PaperAccount, symbol: string, sleeve?: string): Dec {
  if (sleeve !== undefined) {
    const part = sleeveOf(account, sleeve);
    return amount(part.positions[symbol]).minus(amount(part.held_shares?.[symbol]));
  }
  const position = account.positions[symbol];
  if (!position) return ZERO;
  let free = new Dec(position.quantity).minus(position.frozen);
  for (const part of Object.values(account.sleeves ?? {})) free = free.minus(amount(part.positions[symbol])).plus(amount(part.held_shares?.[symbol]));
  return free;
}

/** Moves what a sleeve's working orders hold by the change of one order's hold (cash for buys, shares for sells). */
export function holdChanged(account: PaperAccount, order: Pick<PaperOrder, "sleeve" | "currency" | "symbol">, cash: Dec, shares: Dec): void {
  const part = order.sleeve === undefined ? undefined : account.sleeves?.[order.sleeve];
  if (!part) return;
  if (!cash.isZero()) part.held = { ...(part.held ?? {}), [order.currency]: money(amount(part.held?.[order.currency]).plus(cash)) };
  if (!shares.isZero()) {
    const held = amount(part.held_shares?.[order.symbol]).plus(shares);
    const { [order.symbol]: _gone, ...rest } = part.held_shares ?? {};
    part.held_shares = held.isZero() ? rest : { ...rest, [order.symbol]: held.toFixed() };
  }
}

/**
 * Sets capital aside for a session: `cash` per currency and `shares` per symbol, out of what is
 * free; its working orders (`working`, those marked with it) hold again what they held. False
 * when it has a sleeve already (a session started again before its stop was settled keeps it). A
 * refusal (409 `INSUFFICIENT_FREE_CASH`, `INSUFFICIENT_FREE_SHARES`) names what is free.
 */
export function openSleeve(
  account: PaperAccount,
  sessionId: string,
  cash: Partial<Record<PaperCurrency, Dec>>,
  shares: Record<string, Dec>,
  now: number,
  working: readonly PaperOrder[],
): boolean {
  if (account.sleeves?.[sessionId]) return false;
  for (const currency of PaperCurrencies) {
    const wanted = cash[currency] ?? ZERO;
    const free = Dec.max(freeCash(account, currency), ZERO);
    if (wanted.gt(free)) {
      throw conflict(
        "INSUFFICIENT_FREE_CASH",
        `the session needs ${money(wanted)} ${currency}; the simulated account has ${money(free)} ${currency} free (cash less what open orders and running sessions hold)`,
        {
          currency,
          required: money(wanted),
          free_cash: money(free),
        },
      );
    }
  }
  for (const [symbol, quantity] of Object.entries(shares)) {
    const free = freeShares(account, symbol);
    if (quantity.gt(free)) {
      throw conflict("INSUFFICIENT_FREE_SHARES", `the session holds ${quantity.toFixed()} ${symbol}; the simulated account has ${free.toFixed()} free`, {
        symbol,
        required: quantity.toFixed(),
        free_quantity: free.toFixed(),
      });
    }
  }
  account.sleeves = {
    ...(account.sleeves ?? {}),
    [sessionId]: {
      cash: Object.fromEntries(PaperCurrencies.map((c) => [c, money(cash[c] ?? ZERO)])) as Record<PaperCurrency, string>,
      positions: Object.fromEntries(
        Object.entries(shares)
          .filter(([, q]) => q.gt(0))
          .map(([symbol, q]) => [symbol, q.toFixed()]),
      ),
      held: {},
      held_shares: {},
      opened_at: iso(now),
    },
  };
  for (const order of working) if (order.sleeve === sessionId) holdChanged(account, order, new Dec(order.frozen_cash), new Dec(order.frozen_quantity));
  return true;
}

/** Dissolves a session's sleeve: its cash is free again, its shares stay in the holdings. Undefined when it had none. */
export function closeSleeve(account: PaperAccount, sessionId: string): PaperSleeve | undefined {
  const part = account.sleeves?.[sessionId];
  if (!part) return undefined;
  const { [sessionId]: _closed, ...rest } = account.sleeves!;
  account.sleeves = rest;
  return part;
}
