import type { ChannelRunState, TradingEngine } from "../../engine/engine";
import type { EngineEvent } from "../../engine/events";
import type { EngineSetup } from "../../engine/setup";
import { notFound } from "../../errors";
import type * as Risk from "../../risk/risk";
import type { ViewDeps } from "../session/deps";
import { engineOf, updateRun } from "../run/update";

/**
 * A change to a running engine. Each is one engine operation; `deliver` applies a list of them to
 * a run in one conditional write (the path `POST /trading/orders/{id}/cancel` takes), so they can
 * be routed through a session command queue unchanged.
 */
export type ChannelCommand =
  | { kind: "set_channel_state"; channel_id: string; state: ChannelRunState }
  | { kind: "set_channel_limits"; channel_id: string; limits: Risk.Limits }
  | { kind: "acknowledge_alert"; channel_id: string | null; alert_sequence: number; by: string };

/** The setup a command leaves behind (limits live in the setup, which the snapshot does not carry). */
function setupAfter(setup: EngineSetup, command: ChannelCommand): EngineSetup {
  if (command.kind !== "set_channel_limits") return setup;
  return { ...setup, channels: setup.channels.map((c) => (c.channel_id === command.channel_id ? { ...c, limits: command.limits } : c)) };
}

function sameLimits(setup: EngineSetup, channelId: string, limits: Risk.Limits): boolean {
  const current = setup.channels.find((c) => c.channel_id === channelId)?.limits;
  return current !== undefined && (Object.keys(limits) as (keyof Risk.Limits)[]).every((k) => current[k] === limits[k]);
}

/** Applies one command to an engine at `at`; `before` is the setup the commands change (the limits a change replaces are logged). */
export function applyCommand(engine: TradingEngine, command: ChannelCommand, at: number, before?: EngineSetup): void {
  switch (command.kind) {
    case "set_channel_state":
      return engine.setChannelState(command.channel_id, command.state, at);
    case "set_channel_limits":
      return engine.setLimits(command.channel_id, command.limits, at, before?.channels.find((c) => c.channel_id === command.channel_id)?.limits);
    case "acknowledge_alert":
      return engine.acknowledgeAlert(command.channel_id, command.alert_sequence, command.by, at);
  }
}

export interface Delivered {
  engine: TradingEngine;
  events: EngineEvent[];
}

/** Applies commands to a run through `updateRun` (one conditional save; 503 `SERVICE_UNAVAILABLE` when the run keeps changing). */
export async function deliver(deps: ViewDeps, runId: string, commands: ChannelCommand[]): Promise<Delivered> {
  const delivered = await updateRun(
    deps,
    runId,
    (run) => {
      // Limits a channel already has are not set again (a reload or rollback names every channel).
      const effective = commands.filter((c) => c.kind !== "set_channel_limits" || !sameLimits(run.setup, c.channel_id, c.limits));
      const setup = effective.reduce(setupAfter, run.setup);
      const engine = engineOf(run, setup);
      const at = deps.now();
      for (const command of effective) applyCommand(engine, command, at, run.setup);
      return { engine, value: null, setup };
    },
    () => notFound("SESSION_NOT_FOUND", `The run ${runId} does not exist`),
  );
  // The step always saves: only a missing run gives null, and that throws.
  return delivered!;
}
