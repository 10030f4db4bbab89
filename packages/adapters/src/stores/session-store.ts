import { randomUUID } from "node:crypto";
import type { SessionStatus, SessionStore, StoredSession } from "@tp/core/trading/session/sessions";
import { isListed } from "@tp/core/trading/session/sessions";
import { replayRunId } from "@tp/core/trading/drivers/replay";
import type { Db } from "../dynamo/db";
import { Keys, LIVE_SHARDS, shardOf } from "../dynamo/keys";
import { Repository } from "../dynamo/repository";
import { transactIfUnchanged, type TransactionStep } from "../dynamo/transactions";
import { deleteChannelItems } from "./channel-store";
import type { DynamoRunStore } from "./run-store";

/**
 * Trading sessions on the single table: one item per session, listed per owner through gsi1
 * and per owner and status through gsi2 (both by `created_at#id`, read backwards for newest
 * first). Replacements are conditional on `version`.
 */
export class DynamoSessionStore implements SessionStore {
  private readonly sessions: Repository<StoredSession>;
  private readonly markers: Repository<LiveMarker>;
  private readonly stamps: Repository<{ stamp: string }>;
  /** The listed sessions as this process last read them: a refresh reads again only those whose marker names another version. */
  private readonly listed = new Map<string, StoredSession>();

  constructor(
    db: Db,
    private readonly runs: DynamoRunStore,
  ) {
    this.sessions = new Repository<StoredSession>(db, {
      type: "TradingSession",
      key: (s) => Keys.tradingSession(s.id),
      indexes: {
        gsi1: (s) => Keys.sessionOfUser(s.user_id, s.created_at, s.id),
        gsi2: (s) => Keys.sessionOfUserByStatus(s.user_id, s.status, s.created_at, s.id),
      },
    });
    this.markers = new Repository<LiveMarker>(db, { type: "LiveSessionMarker", key: (m) => Keys.liveSession(m.session_id) });
    this.stamps = new Repository<{ stamp: string }>(db, { type: "LiveSessionsStamp", key: () => Keys.liveSessionsStamp });
  }

  async create(session: StoredSession): Promise<void> {
    await this.sessions.put(session, { ifAbsent: true });
  }

  /** The marker step that keeps the live list in line with the session, written in the session's transaction. */
  private markerStep(session: StoredSession): TransactionStep {
    const key = Keys.liveSession(session.id);
    return isListed(session)
      ? { put: { pk: key.pk, sk: key.sk, _type: "LiveSessionMarker", session_id: session.id, version: session.version } }
      : { delete: key };
  }

  get(id: string) {
    return this.sessions.get(Keys.tradingSession(id));
  }

  /**
   * Replaces `current` with `session` and its marker, conditionally on current's version; then the
   * live list's stamp only when the list changed: the session is listed now or was (`current`, what
   * the table held at that version). A session never listed (a backtest's, a created one) is its
   * item alone, written once (no transaction, which bills an item twice), and costs no stamp: its
   * marker, written and deleted with the session, is absent.
   */
  async replace(session: StoredSession, current: StoredSession): Promise<boolean> {
    // A session neither listed before nor now has no marker to write: its item alone, a plain conditional put.
    const listChanges = isListed(session) || isListed(current);
    const replaced = await transactIfUnchanged(this.sessions.db, [
      { put: this.sessions.toItem(session), ifVersion: current.version },
      ...(listChanges ? [this.markerStep(session)] : []),
    ]);
    if (replaced && listChanges) await this.stamp();
    return replaced;
  }

  /**
   * Replaces the live list's stamp, after a write of a marker that changed the list (a plain put,
   * not in the session's transaction, where every replacement would conflict on it): a process that
   * dies between the two leaves the change to the worker's next full refresh (`FULL_REFRESH_MS`).
   */
  private stamp() {
    return this.stamps.put({ stamp: randomUUID() });
  }

  async liveStamp(): Promise<string | undefined> {
    return (await this.stamps.get(Keys.liveSessionsStamp))?.stamp;
  }

  /**
   * The running, paused and stopping sessions: their markers (one statement over the shards), and
   * of the sessions only those whose version this process has not read yet; the others as it read
   * them (a session changes only with its marker, in one transaction).
   */
  readonly liveShards = LIVE_SHARDS;

  async listLive(shard?: number): Promise<StoredSession[]> {
    const partitions = shard === undefined ? Keys.liveSessionsPartitions : [Keys.liveSessionsPartitions[shard]!];
    const markers = await this.markers.queryPartitions(partitions);
    const stale = markers.filter((marker) => this.listed.get(marker.session_id)?.version !== marker.version);
    const read = await this.sessions.getMany(stale.map((marker) => Keys.tradingSession(marker.session_id)));
    const marked = new Set(markers.map((marker) => marker.session_id));
    for (const id of this.listed.keys()) if (!marked.has(id) && (shard === undefined || shardOf(id) === shard)) this.listed.delete(id);
    for (const session of read) this.listed.set(session.id, session);
    return markers.flatMap((marker) => this.listed.get(marker.session_id) ?? []).filter(isListed);
  }

  listByUser(userId: string, status?: SessionStatus) {
    return status
      ? this.sessions.queryAll(Keys.sessionsOfUserByStatus(userId, status), { index: "gsi2", ascending: false })
      : this.sessions.queryAll(Keys.sessionsOfUser(userId), { index: "gsi1", ascending: false });
  }

  async delete(session: StoredSession): Promise<void> {
    // The runs first: a session item is the only way to find them again.
    for (const runId of new Set([session.id, replayRunId(session.id), ...(session.run_id ? [session.run_id] : [])])) await this.runs.delete(runId);
    await deleteChannelItems(this.sessions.db, session.id);
    await this.sessions.delete(Keys.tradingSession(session.id));
    await this.markers.delete(Keys.liveSession(session.id));
    await this.stamp();
  }
}

/** A live session's marker: its id and the version of the session item written with it. */
interface LiveMarker {
  session_id: string;
  version: number;
}
