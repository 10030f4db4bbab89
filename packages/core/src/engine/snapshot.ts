import type { StrategyState } from "../strategies/strategy";
import { recountHolds } from "./cash";
import { enterDay } from "./days";
import type { EngineOrder } from "./events";
import { restorePosition, savePosition, type SavedPosition } from "./ledger";
import { Money } from "../money/money";
import { cloneTracker, newStats, type EngineCore, type Halt, type Stats, type Tracker, type ChannelRunState } from "./runtime";

/** The engine's whole state as plain JSON, and back (docs/trading-engine.md "Snapshots"). */

export interface EngineSnapshot {
  version: 1;
  sequence: number;
  order_counter: number;
  time: number;
  day: number;
  pending: EngineOrder[];
  /** A broker's orders that are over, kept for their late executions (absent in snapshots taken before: none). */
  ended?: EngineOrder[];
  last_price: Record<string, number>;
  session: SavedTracker;
  channels: Record<string, SavedChannel>;
}

export type SavedTracker = Tracker;

export interface SavedChannel {
  state: ChannelRunState;
  halt: Halt;
  cash: Record<string, string>;
  initial_equity: number;
  daily_trades: number;
  tracker: SavedTracker;
  stats: Record<keyof Stats, string | number>;
  sleeves: { key: string; strategy: StrategyState | null; positions: SavedPosition[] }[];
}

/** The engine's whole state as plain JSON. */
export function snapshotOf(e: EngineCore): EngineSnapshot {
  const channels: Record<string, SavedChannel> = {};
  for (const channel of e.channels) {
    const stats = Object.fromEntries(
      Object.entries(channel.stats).map(([key, value]) => [key, typeof value === "number" ? value : (value as Money).toString()]),
    ) as SavedChannel["stats"];
    channels[channel.setup.channel_id] = {
      state: channel.state,
      halt: channel.halt,
      cash: Object.fromEntries([...channel.cash].map(([currency, amount]) => [currency, amount.toString()])),
      initial_equity: channel.initial_equity,
      daily_trades: channel.daily_trades,
      tracker: cloneTracker(channel.tracker),
      stats,
      sleeves: [...channel.sleeves, channel.manual].map((sleeve) => ({
        key: sleeve.key,
        strategy: sleeve.strategy ? sleeve.strategy.saveState() : null,
        positions: [...sleeve.positions.values()].map(savePosition),
      })),
    };
  }
  return {
    version: 1,
    sequence: e.sequence,
    order_counter: e.orderCounter,
    time: e.time,
    day: e.day,
    pending: e.pending.map((order) => ({ ...order })),
    ...(e.ended.length > 0 ? { ended: e.ended.map((order) => ({ ...order })) } : {}),
    last_price: Object.fromEntries([...e.symbols].filter(([, info]) => !Number.isNaN(info.last)).map(([symbol, info]) => [symbol, info.last])),
    session: cloneTracker(e.session),
    channels,
  };
}

/** Puts an engine just made for the snapshot's setup where `snapshot` was taken. */
export function restoreInto(engine: EngineCore, snapshot: EngineSnapshot): void {
  engine.sequence = snapshot.sequence;
  engine.orderCounter = snapshot.order_counter;
  engine.time = snapshot.time;
  engine.pending = snapshot.pending.map((order) => ({ ...order }));
  engine.ended = (snapshot.ended ?? []).map((order) => ({ ...order }));
  recountHolds(engine);
  for (const [symbol, last] of Object.entries(snapshot.last_price)) engine.info(symbol).last = last;
  engine.session = cloneTracker(snapshot.session);
  if (snapshot.day >= 0) enterDay(engine, snapshot.day);
  for (const channel of engine.channels) {
    const saved = snapshot.channels[channel.setup.channel_id];
    if (!saved) continue;
    channel.state = saved.state;
    channel.halt = saved.halt;
    channel.cash = new Map(Object.entries(saved.cash).map(([currency, amount]) => [currency, Money.of(amount)]));
    channel.initial_equity = saved.initial_equity;
    channel.daily_trades = saved.daily_trades;
    channel.tracker = cloneTracker(saved.tracker);
    const stats = newStats() as unknown as Record<string, unknown>;
    for (const [key, value] of Object.entries(saved.stats)) stats[key] = typeof value === "number" ? value : Money.of(value);
    channel.stats = stats as unknown as Stats;
    for (const sleeve of [...channel.sleeves, channel.manual]) {
      const savedSleeve = saved.sleeves.find((s) => s.key === sleeve.key);
      if (!savedSleeve) continue;
      if (sleeve.strategy && savedSleeve.strategy) sleeve.strategy.restoreState(savedSleeve.strategy);
      sleeve.positions = new Map();
      sleeve.holdings = [];
      for (const saved of savedSleeve.positions) {
        const position = engine.positionOf(sleeve, saved.symbol);
        Object.assign(position, restorePosition(saved));
        if (position.quantity !== 0) engine.info(position.symbol).held += 1;
      }
    }
    engine.refreshCash(channel);
  }
}
