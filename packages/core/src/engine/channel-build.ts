import { Dec } from "../money/decimal";
import { Money } from "../money/money";
import { Strategies } from "../strategies/index";
import { activeExits } from "./exits";
import { newStats, newTracker, type ChannelRuntime, type Sleeve } from "./runtime";
import type { ChannelSetup, EngineSetup } from "./setup";

/**
 * A channel's runtime built from its setup when the engine starts: its share of every cash line
 * of the session (`capital_allocation`, exact), one sleeve per strategy (`<channel_id>/<index>`,
 * with its multi-timeframe role and its executors pointing at their director), the manual sleeve
 * (`<channel_id>/manual`), and fresh counters, tracker and stats. The engine then refreshes its
 * cash figures, anchors its equity and routes its strategies' symbols (`TradingEngine`'s constructor).
 */
export function newChannel(setup: EngineSetup, channel: ChannelSetup): ChannelRuntime {
  const cash = new Map<string, Money>();
  for (const [currency, amount] of Object.entries(setup.capital)) {
    cash.set(currency, Money.fromDec(new Dec(amount).times(channel.capital_allocation)));
  }
  const sleeves = channel.strategies.map(
    (slot, index): Sleeve => ({
      key: `${channel.channel_id}/${index}`,
      strategy: Strategies.create(slot.strategy_name, slot.parameters),
      weight: slot.weight,
      positions: new Map(),
      role: slot.role ?? null,
      director: null,
      holdings: [],
      exits: activeExits(slot.exits ?? setup.exits),
    }),
  );
  const director = sleeves.find((sleeve) => sleeve.role === "director") ?? null;
  for (const sleeve of sleeves) if (sleeve.role === "executor") sleeve.director = director;
  return {
    setup: channel,
    state: "running",
    halt: null,
    cash,
    cash_numbers: new Map(),
    cash_value: 0,
    sleeves,
    manual: {
      key: `${channel.channel_id}/manual`,
      strategy: null,
      weight: 1,
      positions: new Map(),
      role: null,
      director: null,
      holdings: [],
      exits: activeExits(setup.exits),
    },
    initial_equity: 0,
    daily_trades: 0,
    tracker: newTracker(0),
    stats: newStats(),
  };
}
