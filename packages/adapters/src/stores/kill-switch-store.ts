import {
  KILL_SWITCH_MAX_ORDERS,
  switchName,
  type KillSwitchOrder,
  type KillSwitchScope,
  type KillSwitchState,
  type KillSwitchStore,
  type KillSwitchTrip,
} from "@tp/core/kill-switch";
import type { Db } from "../dynamo/db";
import { Keys } from "../dynamo/keys";
import { Repository } from "../dynamo/repository";
import { transact } from "../dynamo/transactions";

/**
 * The kill switches in the table (docs/data-model.md): each switch's state under `KILLSWITCH`
 * (kept after a release: its last trip and what it cancelled), and while it is tripped a small item
 * under `KILLSWITCH#TRIPPED`, written in the same transaction, which every process reads in one
 * Query (`tripped`) however many users there are.
 */
export class DynamoKillSwitchStore implements KillSwitchStore {
  private readonly states: Repository<KillSwitchState>;
  private readonly trips: Repository<KillSwitchTrip>;
  constructor(db: Db) {
    this.states = new Repository<KillSwitchState>(db, { type: "KillSwitch", key: (state) => Keys.killSwitch(switchName(state.scope, state.user_id)) });
    this.trips = new Repository<KillSwitchTrip>(db, {
      type: "KillSwitchTripped",
      key: (trip) => Keys.killSwitchTripped(switchName(trip.scope, trip.user_id)),
    });
  }

  get(scope: KillSwitchScope, userId: string | null) {
    return this.states.get(Keys.killSwitch(switchName(scope, userId)));
  }

  async tripped() {
    return this.trips.queryAll(Keys.killSwitchesTripped);
  }

  async save(state: KillSwitchState) {
    const name = switchName(state.scope, state.user_id);
    const stored = { ...state, orders: state.orders.slice(0, KILL_SWITCH_MAX_ORDERS) };
    await transact(this.states.db, [
      { put: this.states.toItem(stored) },
      state.active && state.trip ? { put: this.trips.toItem(state.trip) } : { delete: Keys.killSwitchTripped(name) },
    ]);
  }

  async cancelFailed(scope: KillSwitchScope, userId: string | null, order: KillSwitchOrder) {
    const state = await this.get(scope, userId);
    if (!state) return;
    const others = state.orders.filter((known) => known.order_id !== order.order_id);
    await this.states.put({ ...state, orders: [order, ...others].slice(0, KILL_SWITCH_MAX_ORDERS) });
  }
}
