import { conflict } from "../errors";
import { Dec } from "../money/decimal";
import { closeSleeve, freeCash, newAccount, openSleeve } from "./account-rules";
import type { PaperAccountStore, PaperBrokerDeps } from "./broker";
import { PaperCurrencies, type PaperAccount, type PaperAdjustment, type PaperCurrency, type PaperOrder, type PaperSleeve } from "./types";

/**
 * Sessions' sleeves of a paper account, set aside and dissolved on the stored account item alone
 * (`account-rules.ts`), without matching its orders: what starting and stopping a session needs,
 * in the functions that start sessions (docs/accounts.md).
 */

export type SleeveDeps = Pick<PaperBrokerDeps, "store" | "clock" | "initialCash">;

const ATTEMPTS = 5;

/** Loads the account (opened with `PAPER_INITIAL_CASH` when it never was), changes it, and writes it if it did not change meanwhile. */
async function change<T>(deps: SleeveDeps, accountId: string, work: (account: PaperAccount, working: PaperOrder[], now: number) => T): Promise<T> {
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    const now = deps.clock.now();
    const loaded = await deps.store.load(accountId);
    const adjustments: PaperAdjustment[] = [];
    let account: PaperAccount;
    if (loaded) account = loaded.account;
    else {
      const opened = newAccount(accountId, deps.initialCash, now);
      account = opened.account;
      adjustments.push(opened.opened);
    }
    const before = JSON.stringify(account);
    const result = work(account, loaded?.working ?? [], now);
    if (JSON.stringify(account) === before && loaded) return result;
    if (await commit(deps.store, { ...account, version: account.version + 1, updated_at: new Date(now).toISOString() }, account.version, adjustments))
      return result;
  }
  throw conflict("PAPER_ACCOUNT_BUSY", `paper account ${accountId} kept changing under ${ATTEMPTS} attempts; try again`);
}

const commit = (store: PaperAccountStore, account: PaperAccount, expectedVersion: number, adjustments: PaperAdjustment[]) =>
  store.commit({ account, expectedVersion, orders: [], newOrderIds: [], executions: [], adjustments });

export const Sleeves = {
  /**
   * Sets a session's capital aside in the account (409 `INSUFFICIENT_FREE_CASH` /
   * `INSUFFICIENT_FREE_SHARES` naming what is free); a session that has a sleeve keeps it.
   */
  open(
    deps: SleeveDeps,
    accountId: string,
    sessionId: string,
    cash: Partial<Record<PaperCurrency, string>>,
    shares: Record<string, string>,
  ): Promise<PaperSleeve> {
    const amounts = Object.fromEntries(Object.entries(cash).map(([c, a]) => [c, new Dec(a!)]));
    const counts = Object.fromEntries(Object.entries(shares).map(([symbol, q]) => [symbol, new Dec(q)]));
    return change(deps, accountId, (account, working, now) => {
      openSleeve(account, sessionId, amounts, counts, now, working);
      return account.sleeves![sessionId]!;
    });
  },

  /** Free cash of a currency as the stored account has it (`PAPER_INITIAL_CASH` for an account never opened); null for a currency paper accounts do not keep. */
  async freeCash(deps: SleeveDeps, accountId: string, currency: string): Promise<Dec | null> {
    if (!(PaperCurrencies as readonly string[]).includes(currency)) return null;
    const loaded = await deps.store.load(accountId);
    return loaded ? freeCash(loaded.account, currency as PaperCurrency) : new Dec(deps.initialCash[currency as PaperCurrency] ?? "0");
  },

  /** Dissolves a session's sleeve (unused cash free again, shares left in the holdings); nothing when it has none. */
  async close(deps: SleeveDeps, accountId: string, sessionId: string): Promise<void> {
    if (!(await deps.store.load(accountId))) return;
    await change(deps, accountId, (account) => closeSleeve(account, sessionId));
  },
};
