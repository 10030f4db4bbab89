import type { TradingEngine } from "../../engine/engine";
import { badRequest, notFound } from "../../errors";
import type { Actor } from "../../users";
import type { ViewDeps } from "../session/deps";
import { allOf } from "../../util/pages";
import type { StoredEvent, StoredRun } from "../run/runs";
import { sessionEngine } from "../session/engine";
import { owned, type StoredSession } from "../session/sessions";

/** A channel session as the channel use cases read it: the session, its engine as of the latest snapshot, and its run. */
export interface Loaded {
  session: StoredSession;
  engine: TradingEngine;
  run: StoredRun | undefined;
}

/** The session if it exists, is the caller's and has channels: 404 `SESSION_NOT_FOUND`, 403 `ACCESS_DENIED`, 400 `CHANNEL_MANAGER_NOT_INITIALIZED`. */
export async function channelSession(deps: ViewDeps, actor: Actor, sessionId: string): Promise<StoredSession> {
  const session = await owned(deps, actor, sessionId);
  if (session.config.channels.length === 0) {
    throw badRequest(
      "CHANNEL_MANAGER_NOT_INITIALIZED",
      `Session ${sessionId} has no channels: create it with config.channels (a channel preset's content) or a strategy_name`,
    );
  }
  return session;
}

/**
 * The session's channels as its run has them. A run that did not run them (a backtest of a
 * strategy of its own, docs/backtests.md) leaves them as configured, not yet run: the views show
 * them at their starting capital rather than the run's one `main` channel.
 */
export async function loadChannels(deps: ViewDeps, actor: Actor, sessionId: string): Promise<Loaded> {
  const session = await channelSession(deps, actor, sessionId);
  const { engine, run } = await sessionEngine(deps, session);
  if (!run) return { session, engine, run };
  const ranChannels = session.config.channels.every((channel) => engine.channelIds().includes(channel.channel_id));
  if (ranChannels) return { session, engine, run };
  return { session, engine: (await sessionEngine(deps, session, null)).engine, run: undefined };
}

/** 404 `CHANNEL_NOT_FOUND` naming the session's channels unless it has `channelId`. */
export function requireChannel(loaded: Loaded, channelId: string) {
  if (!loaded.engine.channelIds().includes(channelId)) {
    throw notFound("CHANNEL_NOT_FOUND", `Session ${loaded.session.id} has no channel '${channelId}' (channels: ${loaded.engine.channelIds().join(", ")})`);
  }
}

/** Every event of one category of a run, oldest first. */
export const allEvents = (deps: Pick<ViewDeps, "runs">, runId: string, category: StoredEvent["category"]): Promise<StoredEvent[]> =>
  allOf((cursor) => deps.runs.events(runId, { category, limit: 500, cursor }));
