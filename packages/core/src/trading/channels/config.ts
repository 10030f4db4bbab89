import { conflict, notFound, parseOrThrow } from "../../errors";
import * as Risk from "../../risk/risk";
import { iso } from "../../util/time";
import type { Actor } from "../../users";
import { type ChannelCommand, deliver } from "./commands";
import type { ChannelConfigStore, ChannelDeps, ConfigPointer, ConfigVersionRecord } from "./ports";
import { ConfigHistoryQuery, RollbackBody } from "./schemas";
import { channelSession, loadChannels, requireChannel } from "./session";
import { publishDelivered } from "./stream";
import { LiveRuns } from "../session/live-run";
import { isActiveOnWorker, isWorkerDriven, mutate, type StoredSession } from "../session/sessions";

/**
 * A channel session's configuration versions (docs/channels.md): a pointer to the version in force
 * and the one pending, every version as its own record. A change of a channel's risk limits is a
 * new version; a live session's engine takes it at once, an idle one when it (re)starts.
 */

/** The pointer, or version 1 (the configuration the session was created with) before any change. */
export async function currentPointer(deps: { configs: ChannelConfigStore }, session: StoredSession): Promise<ConfigPointer> {
  return (await deps.configs.pointer(session.id)) ?? { session_id: session.id, current_version: 1, pending_version: null, revision: 0 };
}

/** Every version; before the first change, version 1 made from the session's configuration. */
async function versionsOf(deps: { configs: ChannelConfigStore }, session: StoredSession): Promise<ConfigVersionRecord[]> {
  const stored = await deps.configs.versions(session.id);
  return stored.length > 0 ? stored : [firstVersion(session)];
}

const firstVersion = (session: StoredSession): ConfigVersionRecord => ({
  session_id: session.id,
  version: 1,
  timestamp: session.created_at,
  changes: Object.fromEntries(session.config.channels.map((c) => [c.channel_id, { created: true }])),
  changed_by: session.user_id,
  channels: session.config.channels,
});

export interface Reload {
  pointer: ConfigPointer;
  target: ConfigVersionRecord;
  commands: ChannelCommand[];
}

/** The commands that bring the engine to the pending version (null when nothing is pending). */
export async function pendingCommands(deps: { configs: ChannelConfigStore }, session: StoredSession): Promise<Reload | null> {
  const pointer = await currentPointer(deps, session);
  if (pointer.pending_version === null) return null;
  const target = (await versionsOf(deps, session)).find((v) => v.version === pointer.pending_version);
  if (!target) return null;
  return { pointer, target, commands: limitCommands(target) };
}

const limitCommands = (target: ConfigVersionRecord): ChannelCommand[] =>
  target.channels.map((c) => ({ kind: "set_channel_limits", channel_id: c.channel_id, limits: c.risk_limits }));

/** Makes a version current: the pointer moves and the session's stored configuration follows. */
export async function activate(deps: ChannelDeps, actor: Actor, session: StoredSession, reload: Pick<Reload, "pointer" | "target">): Promise<number> {
  const pointer = { ...reload.pointer, current_version: reload.target.version, pending_version: null, revision: reload.pointer.revision + 1 };
  if (!(await deps.configs.commit(pointer, reload.pointer.revision, []))) {
    throw conflict("CONFIG_CHANGED", `The configuration of session ${session.id} changed meanwhile; read its history and retry`);
  }
  await mutate(deps, actor, session.id, (current) => ({ ...current, config: { ...current.config, channels: reload.target.channels } }));
  return reload.target.version;
}

/**
 * Changes a channel's risk limits: a new configuration version. A live session's engine reloads
 * it at once (it becomes current, `effective_at` now); otherwise it waits as the pending version
 * until the session or the channel starts. Out-of-range values: 400 `INVALID_PARAMETER` naming each.
 */
export async function updateRiskLimits(deps: ChannelDeps, actor: Actor, by: string, sessionId: string, channelId: string, input: unknown) {
  const loaded = await loadChannels(deps, actor, sessionId);
  requireChannel(loaded, channelId);
  const session = loaded.session;
  const pointer = await currentPointer(deps, session);
  const versions = await versionsOf(deps, session);
  const base = versions.find((v) => v.version === (pointer.pending_version ?? pointer.current_version)) ?? versions[versions.length - 1]!;
  const before = base.channels.find((c) => c.channel_id === channelId)!.risk_limits;
  const limits = Risk.updateLimits(before, input);
  const changed = Object.fromEntries(
    (Object.keys(limits) as (keyof Risk.Limits)[]).filter((k) => limits[k] !== before[k]).map((k) => [k, { from: before[k], to: limits[k] }]),
  );
  const latest = versions[versions.length - 1]!.version;
  const record: ConfigVersionRecord = {
    session_id: sessionId,
    version: latest + 1,
    timestamp: iso(deps.now()),
    changes: { [channelId]: { risk_limits: changed } },
    changed_by: by,
    channels: base.channels.map((c) => (c.channel_id === channelId ? { ...c, risk_limits: limits } : c)),
  };
  const pending: ConfigPointer = { ...pointer, pending_version: record.version, revision: pointer.revision + 1 };
  const records = pointer.revision === 0 ? [versions[0]!, record] : [record];
  if (!(await deps.configs.commit(pending, pointer.revision, records))) {
    throw conflict("CONFIG_CHANGED", `The configuration of session ${sessionId} changed meanwhile; read its history and retry`);
  }
  if (isWorkerDriven(session) && isActiveOnWorker(session)) {
    const runId = (await LiveRuns.ensure(deps, session)).run_id;
    const delivered = await deliver(deps, runId, limitCommands(record));
    await activate(deps, actor, session, { pointer: pending, target: record });
    await publishDelivered(deps, session, delivered);
    // The instant the engine took them, as its event stores it (the run's clock, as every event and alert it raises).
    const changed = delivered.events.find((event) => event.type === "risk_event" && event.data.kind === "limits_changed" && event.channel_id === channelId);
    return {
      channel_id: channelId,
      updated_limits: limits,
      effective_at: iso(changed?.time ?? deps.now()),
      message: `Risk limits of channel ${channelId} are in force (configuration version ${record.version})`,
      config_version: record.version,
      current_config_version: record.version,
      pending_config_version: null,
    };
  }
  return {
    channel_id: channelId,
    updated_limits: limits,
    effective_at: null,
    message: `Risk limits of channel ${channelId} saved as pending configuration version ${record.version}; they come into force when the session or the channel starts`,
    config_version: record.version,
    current_config_version: pointer.current_version,
    pending_config_version: record.version,
  };
}

/** The configuration versions, newest first (optionally only those changing one channel). */
export async function configHistory(deps: ChannelDeps, actor: Actor, sessionId: string, input: unknown) {
  const query = parseOrThrow(ConfigHistoryQuery, input, ["query"]);
  const session = await channelSession(deps, actor, sessionId);
  const pointer = await currentPointer(deps, session);
  const versions = await versionsOf(deps, session);
  const shown = versions.filter((v) => query.channel_id === undefined || query.channel_id in v.changes).reverse();
  return {
    session_id: sessionId,
    current_version: pointer.current_version,
    pending_version: pointer.pending_version,
    history: shown.slice(0, query.limit).map((v) => ({
      version: v.version,
      timestamp: v.timestamp,
      changes: v.changes,
      changed_by: v.changed_by,
      is_current: v.version === pointer.current_version,
      is_pending: v.version === pointer.pending_version,
    })),
    total_versions: versions.length,
  };
}

/**
 * Makes an earlier (or any existing) version current again. Refused with 409 `SESSION_RUNNING`
 * while the session is running or paused, 404 `CONFIG_VERSION_NOT_FOUND` naming the version.
 */
export async function rollback(deps: ChannelDeps, actor: Actor, sessionId: string, input: unknown) {
  const body = parseOrThrow(RollbackBody, input, ["body"]);
  const session = await channelSession(deps, actor, sessionId);
  const versions = await versionsOf(deps, session);
  const target = versions.find((v) => v.version === body.target_version);
  if (!target) {
    throw notFound(
      "CONFIG_VERSION_NOT_FOUND",
      `Configuration version ${body.target_version} of session ${sessionId} does not exist (versions 1 to ${versions.length})`,
    );
  }
  if (session.status === "running" || session.status === "paused") {
    throw conflict("SESSION_RUNNING", `Session ${sessionId} is ${session.status}: stop it before rolling its configuration back`, {
      current_status: session.status,
    });
  }
  const pointer = await currentPointer(deps, session);
  if (pointer.revision === 0 && !(await deps.configs.commit({ ...pointer, revision: 1 }, 0, versions))) {
    throw conflict("CONFIG_CHANGED", `The configuration of session ${sessionId} changed meanwhile; retry`);
  }
  const stored = pointer.revision === 0 ? { ...pointer, revision: 1 } : pointer;
  await activate(deps, actor, session, { pointer: stored, target });
  // The run is idle (the session is not running): its engine takes the version's limits now.
  if (session.run_id && (await deps.runs.get(session.run_id))) await deliver(deps, session.run_id, limitCommands(target));
  return {
    session_id: sessionId,
    previous_version: pointer.current_version,
    current_version: target.version,
    rollback_time: iso(deps.now()),
    message: `Configuration of session ${sessionId} rolled back from version ${pointer.current_version} to ${target.version}`,
  };
}
