import type { ChannelConfigStore, ConfigPointer, ConfigVersionRecord, StreamRecord, UpdateFeed } from "@tp/core/trading/channels";
import type { Db } from "../dynamo/db";
import { Keys } from "../dynamo/keys";
import { Repository, transactIfUnchanged, type TransactionStep } from "../dynamo/repository";

/** The pointer as stored: `version` is its revision (the attribute optimistic writes check). */
interface PointerItem {
  session_id: string;
  current_version: number;
  pending_version: number | null;
  version: number;
}

/**
 * Configuration versions of multi-channel sessions: one item per version under the session
 * (`Keys.channelConfigVersion`) and the pointer beside the session item; new versions and the
 * pointer are written in one transaction, conditional on the pointer's revision.
 */
export class DynamoChannelConfigStore implements ChannelConfigStore {
  private readonly pointers: Repository<PointerItem>;
  private readonly records: Repository<ConfigVersionRecord>;

  constructor(private readonly db: Db) {
    this.pointers = new Repository<PointerItem>(db, { type: "ChannelConfigPointer", key: (p) => Keys.channelConfigPointer(p.session_id) });
    this.records = new Repository<ConfigVersionRecord>(db, { type: "ChannelConfigVersion", key: (r) => Keys.channelConfigVersion(r.session_id, r.version) });
  }

  async pointer(sessionId: string): Promise<ConfigPointer | undefined> {
    const item = await this.pointers.get(Keys.channelConfigPointer(sessionId));
    return item ? { session_id: item.session_id, current_version: item.current_version, pending_version: item.pending_version, revision: item.version } : undefined;
  }

  versions(sessionId: string): Promise<ConfigVersionRecord[]> {
    return this.records.queryAll(Keys.channelConfigVersions(sessionId));
  }

  commit(pointer: ConfigPointer, expectedRevision: number, records: ConfigVersionRecord[]): Promise<boolean> {
    const item: PointerItem = { session_id: pointer.session_id, current_version: pointer.current_version, pending_version: pointer.pending_version, version: pointer.revision };
    const steps: TransactionStep[] = [
      expectedRevision === 0 ? { put: this.pointers.toItem(item), ifAbsent: true } : { put: this.pointers.toItem(item), ifVersion: expectedRevision },
      ...records.map((record): TransactionStep => ({ put: this.records.toItem(record), ifAbsent: true })),
    ];
    return transactIfUnchanged(this.db, steps);
  }
}

interface UpdateItem extends StreamRecord {
  session_id: string;
  at: number;
  expires_at: number;
}

/** How long a session's pushed updates stay readable through `/updates`. */
export const UPDATE_RETENTION_SECONDS = 24 * 3600;
/** TransactWriteItems takes at most 100 items. */
const CHUNK = 100;

/**
 * The feed behind `GET .../updates?since=`: one item per pushed record, keyed by a push time that
 * is unique per session (a record never shares its millisecond with another), expiring after a day.
 * Records are written ifAbsent in one transaction per 100; a concurrent publisher that took the
 * same milliseconds makes the batch move past the newest record and try again.
 */
export class DynamoUpdateFeed implements UpdateFeed {
  private readonly items: Repository<UpdateItem>;

  constructor(private readonly db: Db) {
    this.items = new Repository<UpdateItem>(db, {
      type: "SessionUpdate",
      key: (u) => Keys.sessionUpdate(u.session_id, u.at),
      expiresAt: (u) => u.expires_at,
    });
  }

  private async newest(sessionId: string): Promise<number> {
    const page = await this.items.query(Keys.sessionUpdates(sessionId), { ascending: false, limit: 1, projection: ["at"] });
    return page.items[0]?.at ?? 0;
  }

  async append(sessionId: string, messages: { type: string; data: Record<string, unknown> }[], now: number): Promise<StreamRecord[]> {
    const out: StreamRecord[] = [];
    let after = 0;
    for (let start = 0; start < messages.length; start += CHUNK) {
      const chunk = messages.slice(start, start + CHUNK);
      for (let attempt = 0; ; attempt++) {
        if (attempt > 0 || start === 0) after = Math.max(after, await this.newest(sessionId));
        const first = Math.max(now, after + 1);
        // Retention is measured on the wall clock, as the table's TTL and the reads' expiry check are (the service clock may be a test's).
        const expiry = Math.floor(Date.now() / 1000) + UPDATE_RETENTION_SECONDS;
        const items = chunk.map((message, index): UpdateItem => {
          const at = first + index;
          return { session_id: sessionId, at, type: message.type, data: message.data, timestamp: new Date(at).toISOString(), expires_at: expiry };
        });
        if (await transactIfUnchanged(this.db, items.map((item) => ({ put: this.items.toItem(item), ifAbsent: true })))) {
          out.push(...items.map(({ type, data, timestamp }) => ({ type, data, timestamp })));
          after = items[items.length - 1]!.at;
          break;
        }
        if (attempt >= 10) throw new Error(`The update feed of session ${sessionId} kept changing`);
      }
    }
    return out;
  }

  async since(sessionId: string, sinceMs: number | null, limit: number): Promise<StreamRecord[]> {
    const out: StreamRecord[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.items.query(Keys.sessionUpdates(sessionId), {
        ...(sinceMs !== null ? { between: Keys.sessionUpdatesAfter(sinceMs) } : {}),
        limit: limit - out.length,
        cursor,
      });
      out.push(...page.items.map(({ type, data, timestamp }) => ({ type, data, timestamp })));
      cursor = page.cursor;
    } while (cursor && out.length < limit);
    return out;
  }
}
