/**
 * The builders of the kill switches (docs/security.md "Kill switch"): their store and this
 * process's guard over it, and the simulated venue's orders outside any session, which a trip
 * withdraws (only the switch's function and the worker bundle the paper broker for it).
 */
import { DynamoKillSwitchStore } from "../stores/kill-switch-store";
import { KillSwitchGuard, type KillSwitchOrder, type KillSwitchStore, type OutsideOrderDesk } from "@tp/core/kill-switch";
import { PaperBroker } from "@tp/core/paper/broker";
import { isDone } from "@tp/core/paper/types";
import { simulatedAccountOf } from "@tp/core/trading/session/accounts";
import { type ServiceContext, once } from "./context";
import { userStore } from "./users";
import { paperAccounts } from "./market";

/** The kill switches' store and the process's guard over it (one per process: a trip made here holds here at once). */
export interface KillSwitchServices {
  store: KillSwitchStore;
  guard: KillSwitchGuard;
}

export function killSwitch(c: ServiceContext): KillSwitchServices {
  return once(c, killSwitch, () => {
    const store = new DynamoKillSwitchStore(c.db);
    return { store, guard: new KillSwitchGuard(store, c.now) };
  });
}

/**
 * The simulated venue's orders outside any session (docs/security.md "Kill switch"): a trip
 * withdraws each working order of the owners' simulated accounts that trades no session's sleeve.
 * The kill switch's function and the session worker (a risk trip) build it.
 */
export function outsideOrders(c: ServiceContext): OutsideOrderDesk {
  return once(c, outsideOrders, () => ({
    async withdraw(userIds) {
      const paper = paperAccounts(c);
      const owners = userIds ?? (await userStore(c).list()).map((user) => user.id);
      const out: KillSwitchOrder[] = [];
      for (const userId of owners) {
        const accountId = simulatedAccountOf(userId);
        for (const order of (await paper.store.load(accountId))?.working ?? []) {
          if (order.sleeve !== undefined || isDone(order)) continue;
          const listed = { session_id: null, account_id: accountId, order_id: order.order_id, symbol: order.symbol, side: order.side };
          // Filled or ended meanwhile (a refusal), or the account busy (a fault): listed with why (a second trip tries again).
          const failed = (error: string) =>
            out.push({
              ...listed,
              status: order.status,
              cancel_requested: false,
              cancel_failed: { error, attempts: 1, at: new Date(c.marketNow()).toISOString() },
            });
          try {
            const cancelled = await PaperBroker.cancelOrder(paper, accountId, order.order_id);
            if (cancelled.ok) out.push({ ...listed, status: "cancelled", cancel_requested: false, cancel_failed: null });
            else failed(cancelled.refusal.message);
          } catch (error) {
            failed(error instanceof Error ? error.message : String(error));
          }
        }
      }
      return out;
    },
  }));
}
