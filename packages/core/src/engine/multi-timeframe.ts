import type { Timeframe } from "../strategies/definition";
import type { Bar } from "../strategies/strategy";
import type { ChannelRuntime, EngineCore, Sleeve } from "./runtime";

// Multi-timeframe sleeves (docs/mtf-and-replay.md): a director's bias and the executors trading under it.

/** A director sleeve's current bias in one of its symbols. */
export interface DirectorBias {
  channel_id: string;
  sleeve: string;
  strategy: string;
  timeframe: Timeframe;
  symbol: string;
  bias: string;
}

/**
 * A bar of a multi-timeframe sleeve: a director's bar may move its bias (`bias_changed`) and
 * places no orders; an executor's bar runs under the director's current bias. With `trace`,
 * every such bar writes a `strategy_output` (bar, indicator values, stance, bias) and every
 * executor signal a `signal` event: the MTF session's `outputs`.
 */
export function multiTimeframeBar(engine: EngineCore, channel: ChannelRuntime, sleeve: Sleeve, bar: Bar, timeframe: Timeframe, closeTime: number) {
  const strategy = sleeve.strategy!;
  const id = channel.setup.channel_id;
  engine.time = closeTime;
  if (sleeve.role === "director") {
    const before = strategy.bias(bar.symbol);
    strategy.onBar(bar);
    const after = strategy.bias(bar.symbol);
    if (engine.setup.trace) traceOutput(engine, id, sleeve, bar, timeframe, after);
    if (after !== before) {
      engine.emit("bias_changed", id, {
        symbol: bar.symbol,
        timeframe,
        sleeve: sleeve.key,
        strategy: strategy.id,
        bias: after,
        previous: before,
        reason: strategy.inspect?.(bar.symbol).reason ?? "",
      });
    }
    return;
  }
  const bias = sleeve.director ? sleeve.director.strategy!.bias(bar.symbol) : undefined;
  const signals = strategy.onBar(bar, bias === undefined ? undefined : { bias });
  if (engine.setup.trace) traceOutput(engine, id, sleeve, bar, timeframe, bias ?? null);
  for (const signal of signals) {
    if (engine.setup.trace) engine.emit("signal", id, { ...signal, timeframe, sleeve: sleeve.key, bias: bias ?? null });
    engine.onSignal(channel, sleeve, signal, bar.close);
  }
}

function traceOutput(engine: EngineCore, channelId: string, sleeve: Sleeve, bar: Bar, timeframe: Timeframe, bias: string | null) {
  const state = sleeve.strategy!.inspect?.(bar.symbol);
  engine.emit("strategy_output", channelId, {
    symbol: bar.symbol,
    timeframe,
    sleeve: sleeve.key,
    strategy: sleeve.strategy!.id,
    role: sleeve.role,
    bar: { timestamp: bar.timestamp, open: bar.open, high: bar.high, low: bar.low, close: bar.close, volume: bar.volume },
    indicators: state?.indicators ?? {},
    stance: state?.stance ?? null,
    position: state?.position ?? null,
    reason: state?.reason ?? "",
    bias,
  });
}

/** The current bias of every director sleeve for each of its symbols (MTF status). */
export function biasesOf(engine: EngineCore): DirectorBias[] {
  const out: DirectorBias[] = [];
  for (const channel of engine.channels) {
    channel.setup.strategies.forEach((slot, index) => {
      const sleeve = channel.sleeves[index];
      if (sleeve.role !== "director") return;
      for (const symbol of slot.symbols)
        out.push({
          channel_id: channel.setup.channel_id,
          sleeve: sleeve.key,
          strategy: slot.strategy_name,
          timeframe: slot.timeframe,
          symbol,
          bias: sleeve.strategy!.bias(symbol),
        });
    });
  }
  return out;
}
