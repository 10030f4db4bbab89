import { randomInt } from "node:crypto";
import type { PaperAccountStore, PaperCommit } from "@tp/core/paper/broker";
import type { PaperAccount, PaperAdjustment, PaperExecution, PaperOrder } from "@tp/core/paper/types";
import type { Db } from "../../dynamo/db";
import { Keys } from "../../dynamo/keys";
import { Repository } from "../../dynamo/repository";
import { transactIfUnchanged } from "../../dynamo/transactions";

/**
 * A new paper order id: the submission time in 13-digit milliseconds, then 6 random digits.
 * Numeric like LongPort's ids, unique in practice (new orders are also written only if absent),
 * and sorting by submission time, which `Keys.paperOrdersSubmittedBetween` relies on.
 */
export function paperOrderId(now: number): string {
  return `${String(now).padStart(13, "0")}${String(randomInt(0, 1_000_000)).padStart(6, "0")}`;
}

/**
 * The paper broker's state in the table: the account item (`PAPER#<account>` / `ACCOUNT`), its
 * orders (`PAPER#<account>#ORDERS` / `<order id>`) and executions (`PAPER#<account>#EXECUTIONS`
 * / `<ms>#<trade id>`) and adjustments (`PAPER#<account>#ADJUSTMENTS` / `<ms>-<n>`). Every change is one transaction conditioned on the account's version.
 */
export class DynamoPaperAccountStore implements PaperAccountStore {
  private readonly accounts: Repository<PaperAccount>;
  private readonly orders: Repository<PaperOrder>;
  private readonly executions: Repository<PaperExecution>;
  private readonly adjustments: Repository<PaperAdjustment>;

  constructor(private readonly db: Db) {
    this.accounts = new Repository<PaperAccount>(db, { type: "PaperAccount", key: (a) => Keys.paperAccount(a.account_id) });
    this.orders = new Repository<PaperOrder>(db, { type: "PaperOrder", key: (o) => Keys.paperOrder(o.account_id, o.order_id) });
    this.executions = new Repository<PaperExecution>(db, {
      type: "PaperExecution",
      key: (e) => Keys.paperExecution(e.account_id, e.done_ms, e.trade_id),
    });
    this.adjustments = new Repository<PaperAdjustment>(db, { type: "PaperAdjustment", key: (a) => Keys.paperAdjustment(a.account_id, a.adjustment_id) });
  }

  async load(accountId: string): Promise<{ account: PaperAccount; working: PaperOrder[] } | undefined> {
    const account = await this.accounts.get(Keys.paperAccount(accountId));
    if (!account) return undefined;
    const found = account.working.length ? await this.orders.getMany(account.working.map((id) => Keys.paperOrder(accountId, id))) : [];
    const byId = new Map(found.map((order) => [order.order_id, order]));
    return { account, working: account.working.map((id) => byId.get(id)).filter((order): order is PaperOrder => order !== undefined) };
  }

  getOrder(accountId: string, orderId: string): Promise<PaperOrder | undefined> {
    return this.orders.get(Keys.paperOrder(accountId, orderId));
  }

  ordersSubmittedBetween(accountId: string, fromMs: number, toMs: number): Promise<PaperOrder[]> {
    return this.orders.queryAll(Keys.paperOrdersOf(accountId), { between: Keys.paperOrdersSubmittedBetween(fromMs, toMs) });
  }

  executionsBetween(accountId: string, fromMs: number, toMs: number): Promise<PaperExecution[]> {
    return this.executions.queryAll(Keys.paperExecutionsOf(accountId), { between: Keys.paperExecutionsBetween(fromMs, toMs) });
  }

  /**
   * One transaction: the account only if its stored version is the expected one (absent for a
   * new account), new orders only if absent, changed orders and executions as they are.
   */
  commit(change: PaperCommit): Promise<boolean> {
    const newOrders = new Set(change.newOrderIds);
    return transactIfUnchanged(this.db, [
      change.expectedVersion === 0
        ? { put: this.accounts.toItem(change.account), ifAbsent: true }
        : { put: this.accounts.toItem(change.account), ifVersion: change.expectedVersion },
      ...change.orders.map((order) => ({ put: this.orders.toItem(order), ifAbsent: newOrders.has(order.order_id) })),
      ...change.executions.map((execution) => ({ put: this.executions.toItem(execution) })),
      ...change.adjustments.map((adjustment) => ({ put: this.adjustments.toItem(adjustment), ifAbsent: true })),
    ]);
  }
}
