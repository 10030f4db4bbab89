import type { ChannelRunState } from "../../engine/engine";
import { badRequest, conflict } from "../../errors";
import { iso } from "../../util/time";
import type { Actor } from "../../users";
import { type ChannelCommand, deliver } from "./commands";
import { activate, currentPointer, pendingCommands } from "./config";
import type { ChannelDeps } from "./ports";
import { listChannels } from "./reads";
import type { ChannelAction } from "./schemas";
import { loadChannels, channelSession, requireChannel } from "./session";
import { publish, publishDelivered, streamMessagesOf } from "./stream";
import type { ViewDeps } from "../session/deps";
import { LiveRuns } from "../session/live-run";
import { engineOf } from "../run/update";
import { invalidTransition, isActiveOnWorker, isWorkerDriven, type SessionAction, type StoredSession, TRANSITIONS } from "../session/sessions";
import { transition } from "../session/lifecycle";

/**
 * Start, stop, pause and resume of one channel or of a whole channel session (docs/channels.md):
 * the channel's or the session's state machine, then the engine commands that carry it out, a
 * pending configuration version coming into force with a (re)start.
 */

/** Which channel operations are accepted from which state, and the answer otherwise (docs/channels.md). */
export const CHANNEL_TRANSITIONS: Readonly<Record<ChannelAction, { from: readonly ChannelRunState[]; to: ChannelRunState }>> = {
  start: { from: ["stopped"], to: "running" },
  pause: { from: ["running"], to: "paused" },
  resume: { from: ["paused"], to: "running" },
  stop: { from: ["paused"], to: "stopped" },
};

function refuse(sessionId: string, channelId: string, action: ChannelAction, state: ChannelRunState) {
  const current = { channel_id: channelId, current_status: state, action };
  if (state === "running" && (action === "start" || action === "resume")) {
    return badRequest("CHANNEL_ALREADY_RUNNING", `Channel ${channelId} of session ${sessionId} is already running`, current);
  }
  if (state === "running" && action === "stop") {
    return conflict("INVALID_STATE_TRANSITION", `Cannot stop channel ${channelId}: it is running; pause it first, then stop it`, current);
  }
  if (action === "pause" || action === "stop") {
    return badRequest("CHANNEL_NOT_RUNNING", `Channel ${channelId} of session ${sessionId} is ${state}: there is nothing to ${action}`, current);
  }
  return conflict(
    "INVALID_STATE_TRANSITION",
    `Cannot ${action} channel ${channelId}: it is ${state}; ${state === "paused" ? "use resume" : "use start"}`,
    current,
  );
}

/** A live session (simulation or live, running or paused) with its run attached; 409 otherwise. */
async function liveRun(deps: ViewDeps, session: StoredSession, what: string): Promise<string> {
  if (!isWorkerDriven(session)) {
    throw invalidTransition(session, what, `channels of a ${session.trading_mode} session run inside its backtest`);
  }
  if (!isActiveOnWorker(session)) throw invalidTransition(session, what, "start the session first");
  return (await LiveRuns.ensure(deps, session)).run_id;
}

/** Starts, stops, pauses or resumes one channel of a live session (the table in docs/channels.md). */
export async function channelAction(deps: ChannelDeps, actor: Actor, _by: string, sessionId: string, channelId: string, action: ChannelAction) {
  const loaded = await loadChannels(deps, actor, sessionId);
  requireChannel(loaded, channelId);
  const runId = await liveRun(deps, loaded.session, `${action} a channel of`);
  if (action === "start" || action === "resume") await deps.killSwitch?.check(loaded.session.user_id);
  const state = loaded.engine.view(channelId).state ?? "running";
  const rule = CHANNEL_TRANSITIONS[action];
  if (!rule.from.includes(state)) throw refuse(sessionId, channelId, action, state);
  // A restart or a resume reloads the channel: a pending configuration version comes into force with it.
  const reload = action === "start" || action === "resume" ? await pendingCommands(deps, loaded.session) : null;
  const commands: ChannelCommand[] = [...(reload?.commands ?? []), { kind: "set_channel_state", channel_id: channelId, state: rule.to }];
  const delivered = await deliver(deps, runId, commands);
  const version = reload ? await activate(deps, actor, loaded.session, reload) : (await currentPointer(deps, loaded.session)).current_version;
  await publishDelivered(deps, loaded.session, delivered);
  const at = iso(deps.now());
  const stamp = { start: { started_at: at }, stop: { stopped_at: at }, pause: { paused_at: at }, resume: { resumed_at: at } }[action];
  const verb = { start: "started", stop: "stopped", pause: "paused (positions kept, no new trades)", resume: "resumed" }[action];
  return { channel_id: channelId, status: rule.to, message: `Channel ${channelId} ${verb}`, ...stamp, current_config_version: version };
}

/** Session-level start, stop, pause and resume (second prefix): the session's state machine, and on start every channel running on the newest configuration. */
export async function sessionAction(deps: ChannelDeps, actor: Actor, sessionId: string, action: SessionAction) {
  const before = await channelSession(deps, actor, sessionId);
  const session = await transition(deps, actor, sessionId, action);
  if (action === "start" && isWorkerDriven(session)) {
    const { run: attached, created } = await LiveRuns.attach(deps, session);
    const runId = attached.run_id;
    // A run made here starts with its warm-up's log lines: the session's socket sees them first.
    if (created) await publish(deps, sessionId, streamMessagesOf(created.engine, session, created.events));
    const reload = await pendingCommands(deps, session);
    const run = (await deps.runs.get(runId))!;
    const engine = engineOf(run);
    const restart: ChannelCommand[] = engine
      .channelIds()
      .filter((id) => engine.view(id).state !== "running")
      .map((id) => ({ kind: "set_channel_state", channel_id: id, state: "running" }));
    const commands = [...(reload?.commands ?? []), ...restart];
    if (commands.length > 0) {
      const delivered = await deliver(deps, runId, commands);
      if (reload) await activate(deps, actor, session, reload);
      await publishDelivered(deps, session, delivered);
    }
  }
  // What the change did to each channel is in the run's log as `channel_status` events (written by
  // `transition`, or with the run made above), pushed with their `channel_update`s.
  const channels = await listChannels(deps, actor, sessionId);
  return {
    session_id: sessionId,
    status: session.status,
    previous_status: before.status,
    message: `Session ${sessionId} ${TRANSITIONS[action].to}`,
    timestamp: iso(deps.now()),
    current_config_version: (await currentPointer(deps, session)).current_version,
    channels: channels.channels,
  };
}
