import { Dec, money } from "../../money/decimal";
import type { EngineView } from "../../engine/engine";
import { Sleeves, type SleeveDeps } from "../../paper/sleeves";
import { PaperCurrencies, type PaperCurrency, type PaperSleeve } from "../../paper/types";
import type { StoredSession } from "./sessions";

/**
 * Where a session's money lives (docs/accounts.md). A simulation session in `simulated` asset mode
 * whose venue is its broker trades its owner's simulated account (the paper account under the
 * user's id): starting it sets its capital aside there as a sleeve, every fill moves both, and
 * stopping it dissolves the sleeve (unused cash free again, shares left in the holdings).
 */

/** How a start that the account cannot fund is refused, for the API's descriptions. */
export const FUNDING_CONFLICTS =
  "INSUFFICIENT_FREE_CASH (`currency`, `required`, `free_cash`) or INSUFFICIENT_FREE_SHARES (`symbol`, `required`, `free_quantity`): a simulation session's start that its owner's simulated account cannot fund; INSUFFICIENT_BUYING_POWER (`currency`, `required`, `buying_power`): a live session's start that its account's buying power does not cover (docs/accounts.md); KILL_SWITCH_ACTIVE (`kill_switch`): the owner's or the stage's kill switch is tripped";

/** Whether a session draws its capital from its owner's simulated account. */
export const drawsFromSimulatedAccount = (session: Pick<StoredSession, "trading_mode" | "asset_mode" | "config">) =>
  session.trading_mode === "simulation" && session.asset_mode === "simulated" && (session.config.venue ?? "bars") === "broker";

/** The simulated account of a user: the paper account under the user's id. */
export const simulatedAccountOf = (userId: string) => userId;

/** What a session holds, as the engine's view of the whole session shows it: cash per currency and shares per symbol. */
export interface SessionHoldings {
  cash: Partial<Record<PaperCurrency, string>>;
  shares: Record<string, string>;
}

export function holdingsOf(view: Pick<EngineView, "cash" | "positions">): SessionHoldings {
  const cash: Partial<Record<PaperCurrency, string>> = {};
  for (const currency of PaperCurrencies) if (view.cash[currency] !== undefined) cash[currency] = view.cash[currency];
  const shares: Record<string, string> = {};
  for (const position of view.positions) shares[position.symbol] = new Dec(shares[position.symbol] ?? "0").plus(position.quantity).toFixed();
  return { cash, shares };
}

/** One difference between a session's sleeve as the engine books it and as the account does. */
export interface SleeveDifference {
  what: string;
  session: string;
  account: string;
}

/** Compares the engine's figures of a session with its sleeve in the account, to the cent and the share. */
export function sleeveDifferences(engine: SessionHoldings, sleeve: PaperSleeve): SleeveDifference[] {
  const out: SleeveDifference[] = [];
  for (const currency of PaperCurrencies) {
    const mine = new Dec(engine.cash[currency] ?? "0");
    const theirs = new Dec(sleeve.cash[currency] ?? "0");
    if (!mine.toDecimalPlaces(2).eq(theirs)) out.push({ what: `cash ${currency}`, session: money(mine), account: money(theirs) });
  }
  for (const symbol of new Set([...Object.keys(engine.shares), ...Object.keys(sleeve.positions)])) {
    const mine = new Dec(engine.shares[symbol] ?? "0");
    const theirs = new Dec(sleeve.positions[symbol] ?? "0");
    if (!mine.eq(theirs)) out.push({ what: `shares ${symbol}`, session: mine.toFixed(), account: theirs.toFixed() });
  }
  return out;
}

export const SessionAccounts = {
  /** Sets the session's holdings aside in its owner's simulated account (409 naming the free cash when it lacks them). */
  async reserve(
    paper: SleeveDeps,
    session: Pick<StoredSession, "id" | "user_id">,
    holdings: SessionHoldings,
  ): Promise<{ account_id: string; sleeve: PaperSleeve }> {
    const accountId = simulatedAccountOf(session.user_id);
    return { account_id: accountId, sleeve: await Sleeves.open(paper, accountId, session.id, holdings.cash, holdings.shares) };
  },

  /** Dissolves the session's sleeve in `accountId`; nothing when it has none. */
  async release(paper: SleeveDeps, accountId: string, sessionId: string): Promise<void> {
    await Sleeves.close(paper, accountId, sessionId);
  },
};
