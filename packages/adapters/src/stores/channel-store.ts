import type { ChannelConfigStore, ConfigPointer, ConfigVersionRecord, FeedAppend, StreamRecord, UpdateFeed } from "@tp/core/trading/channels/ports";
import type { Db } from "../dynamo/db";
import { jsonArrays } from "@tp/core/util/json-parts";
import { Keys } from "../dynamo/keys";
import { Repository } from "../dynamo/repository";
import { transactGroups, transactIfUnchanged, type TransactionStep } from "../dynamo/transactions";

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
    return item
      ? { session_id: item.session_id, current_version: item.current_version, pending_version: item.pending_version, revision: item.version }
      : undefined;
  }

  versions(sessionId: string): Promise<ConfigVersionRecord[]> {
    return this.records.queryAll(Keys.channelConfigVersions(sessionId));
  }

  commit(pointer: ConfigPointer, expectedRevision: number, records: ConfigVersionRecord[]): Promise<boolean> {
    const item: PointerItem = {
      session_id: pointer.session_id,
      current_version: pointer.current_version,
      pending_version: pointer.pending_version,
      version: pointer.revision,
    };
    const steps: TransactionStep[] = [
      expectedRevision === 0 ? { put: this.pointers.toItem(item), ifAbsent: true } : { put: this.pointers.toItem(item), ifVersion: expectedRevision },
      ...records.map((record): TransactionStep => ({ put: this.records.toItem(record), ifAbsent: true })),
    ];
    return transactIfUnchanged(this.db, steps);
  }
}

/**
 * Removes what a deleted session leaves here: its configuration pointer and versions, and the
 * feed's head (the feed's records expire by themselves within a day).
 */
export async function deleteChannelItems(db: Db, sessionId: string): Promise<void> {
  const records = new Repository<ConfigVersionRecord>(db, { type: "ChannelConfigVersion", key: (r) => Keys.channelConfigVersion(r.session_id, r.version) });
  const versions = await records.queryAll(Keys.channelConfigVersions(sessionId), { projection: ["version"] });
  await records.deleteMany([
    ...versions.map((v) => Keys.channelConfigVersion(sessionId, v.version)),
    Keys.channelConfigPointer(sessionId),
    Keys.sessionUpdatesHead(sessionId),
  ]);
}

/**
 * An item of the feed: the records of one append (or of one part of it), as the JSON text of their
 * array, under the instant of the last. Items written before blocks hold one record each, its
 * fields in the item.
 */
interface UpdateItem extends Partial<StreamRecord> {
  session_id: string;
  /** The instant of the item's last record (its sort key). */
  at: number;
  expires_at: number;
  /** The records, oldest first: `[{type, data, timestamp}, …]` as JSON text. */
  records?: string;
}

/** What one feed item holds at most: records, and bytes of their JSON (an item is at most 400 KB); a larger record goes alone. */
const ITEM_RECORDS = 50;
const ITEM_BYTES = 64 * 1024;

/** The records an item holds; the head (it has a `version`), those riding in it. */
const recordsIn = (item: UpdateItem | HeadItem): StreamRecord[] => {
  if (item.records !== undefined) return JSON.parse(item.records) as StreamRecord[];
  if ("version" in item) return [];
  return [{ type: item.type!, data: item.data!, timestamp: item.timestamp! }];
};

/** The head's records with `texts` after them, when all fit in the head; else null. */
function joined(pending: NonNullable<Head["pending"]>, texts: readonly string[]): Head["pending"] {
  let bytes = pending.bytes;
  for (const text of texts) bytes += Buffer.byteLength(text) + 1;
  if (pending.count + texts.length > HEAD_RECORDS || bytes > HEAD_BYTES) return null;
  return { text: `${pending.text.slice(0, -1)},${texts.join(",")}]`, count: pending.count + texts.length, bytes };
}

/**
 * The head of a session's feed: the newest record's instant, `version` guarding it, and the newest
 * records not yet in an item of their own (`records`, the JSON text of their array, and `count` of
 * them, both absent in heads written before the records rode in it).
 */
interface HeadItem {
  session_id: string;
  at: number;
  version: number;
  records?: string;
  count?: number;
}

/** A head as this process knows it: the records riding in it (null when none), as their array's JSON text and its UTF-8 bytes. */
interface Head {
  at: number;
  version: number;
  pending: { text: string; count: number; bytes: number } | null;
}

const NO_HEAD: Head = { at: 0, version: 0, pending: null };

const headOf = (item: HeadItem | undefined): Head =>
  item
    ? {
        at: item.at,
        version: item.version,
        pending: item.records ? { text: item.records, count: item.count!, bytes: Buffer.byteLength(item.records) } : null,
      }
    : NO_HEAD;

/**
 * What the head carries at most of the newest records: few and small, so that the head, written at
 * every append, stays about as cheap to write as an item without them (DynamoDB Local's cost per item
 * grows past a few KB: docs/benchmarks.md "DynamoDB Local").
 */
const HEAD_RECORDS = ITEM_RECORDS;
const HEAD_BYTES = 8 * 1024;

/** How long a session's pushed updates stay readable through `/updates`. */
export const UPDATE_RETENTION_SECONDS = 24 * 3600;
/**
 * Records appended in one transaction at most (TransactWriteItems takes 100): the head, the records
 * it carried moved to an item, and up to 98 items, one record each at worst (records each larger
 * than `ITEM_BYTES`), the last one riding in the head.
 */
const CHUNK = 99;

/**
 * The feed behind `GET .../updates?since=`: records with a push time that is unique and increasing
 * per session (a record never shares its millisecond with another, and never precedes an earlier
 * one), expiring after a day. A head item holds the newest instant and the newest records
 * (`HEAD_RECORDS`, `HEAD_BYTES`): an append that fits beside them writes the head alone, one item;
 * one that does not moves the head's records to an item of their own (keyed by the time of their
 * last) and stores its own as few items as hold them (`ITEM_RECORDS`, `ITEM_BYTES`), the last of
 * them riding in the head when small enough. The records and the head move together in one
 * transaction conditional on the head's version, so `since` reads the items keyed after it and then
 * the head, and drops their records before it. This process remembers the head it last wrote, so a
 * publisher that is the session's only writer (the usual case) appends in one round trip; a stale
 * guess costs one read and a retry.
 */
export class DynamoUpdateFeed implements UpdateFeed {
  private readonly items: Repository<UpdateItem>;
  private readonly headItems: Repository<HeadItem>;
  /** The head this process last wrote per session: a guess, checked by the transaction's condition. */
  private readonly heads = new Map<string, Head>();

  constructor(private readonly db: Db) {
    this.items = new Repository<UpdateItem>(db, {
      type: "SessionUpdate",
      key: (u) => Keys.sessionUpdate(u.session_id, u.at),
      expiresAt: (u) => u.expires_at,
    });
    this.headItems = new Repository<HeadItem>(db, { type: "SessionUpdateHead", key: (h) => Keys.sessionUpdatesHead(h.session_id) });
  }

  async append(sessionId: string, messages: { type: string; data: Record<string, unknown> }[], now: number): Promise<StreamRecord[]> {
    const out: StreamRecord[] = [];
    for (let start = 0; start < messages.length; start += CHUNK) {
      const chunk = messages.slice(start, start + CHUNK);
      for (let attempt = 0; ; attempt++) {
        let head = attempt === 0 ? this.heads.get(sessionId) : undefined;
        head ??= headOf(await this.headItems.get(Keys.sessionUpdatesHead(sessionId)));
        const write = this.recordsOf(sessionId, chunk, now, head);
        if (await transactIfUnchanged(this.db, write.steps)) {
          out.push(...this.written(sessionId, write));
          break;
        }
        this.heads.delete(sessionId);
        if (attempt >= 10) throw new Error(`The update feed of session ${sessionId} kept changing`);
      }
    }
    return out;
  }

  /**
   * `append` for many sessions at once (the worker's step): each session's records and head are
   * one group of `transactGroups`, packed with the others into as few transactions as hold them,
   * the heads this process does not know read together first. A session whose head another writer
   * moved meanwhile, one with more records than one transaction holds, and a session's later
   * appends in the batch are appended after, one by one in order, as `append` does.
   */
  async appendMany(appends: readonly FeedAppend[]): Promise<PromiseSettledResult<StreamRecord[]>[]> {
    const outcomes: PromiseSettledResult<StreamRecord[]>[] = new Array(appends.length);
    const bySession = new Map<string, number[]>();
    for (const [index, { sessionId }] of appends.entries()) bySession.set(sessionId, [...(bySession.get(sessionId) ?? []), index]);
    const unknown = [...bySession.keys()].filter((id) => !this.heads.has(id));
    const stored = new Map((await this.headItems.getMany(unknown.map(Keys.sessionUpdatesHead))).map((head) => [head.session_id, head]));
    const grouped = [...bySession.values()].flatMap(([index]) => {
      const { sessionId, messages, now } = appends[index!]!;
      if (messages.length === 0 || messages.length > CHUNK) return [];
      const head = this.heads.get(sessionId) ?? headOf(stored.get(sessionId));
      return [{ index: index!, write: this.recordsOf(sessionId, messages, now, head) }];
    });
    const written = await transactGroups(
      this.db,
      grouped.map(({ write }) => write.steps),
    );
    const done = new Set<number>();
    for (const [at, { index, write }] of grouped.entries()) {
      const outcome = written[at]!;
      const { sessionId } = appends[index]!;
      // A head another writer moved: appended again below, from the head as stored.
      if (outcome.status === "fulfilled" && !outcome.value) this.heads.delete(sessionId);
      else {
        outcomes[index] = outcome.status === "rejected" ? outcome : { status: "fulfilled", value: this.written(sessionId, write) };
        done.add(index);
      }
    }
    await Promise.all(
      [...bySession.values()].map(async (indexes) => {
        for (const index of indexes.filter((i) => !done.has(i))) {
          const { sessionId, messages, now } = appends[index]!;
          [outcomes[index]] = await Promise.allSettled([this.append(sessionId, messages, now)]);
        }
      }),
    );
    return outcomes;
  }

  /** Up to `CHUNK` messages as the feed's records after `head`, and the transaction's steps that write them and move the head. */
  private recordsOf(sessionId: string, messages: readonly { type: string; data: Record<string, unknown> }[], now: number, head: Head) {
    const first = Math.max(now, head.at + 1);
    // Retention is measured on the wall clock, as the table's TTL and the reads' expiry check are (the service clock may be a test's).
    const expiry = Math.floor(Date.now() / 1000) + UPDATE_RETENTION_SECONDS;
    const records = messages.map(
      (message, index): StreamRecord => ({ type: message.type, data: message.data, timestamp: new Date(first + index).toISOString() }),
    );
    const texts = records.map((record) => JSON.stringify(record));
    const items: UpdateItem[] = [];
    let pending = head.pending && joined(head.pending, texts);
    if (!pending) {
      // The head's records go to an item of their own, under their last record's instant (the head's).
      if (head.pending) items.push({ session_id: sessionId, at: head.at, expires_at: expiry, records: head.pending.text });
      // The new records in items of at most ITEM_RECORDS and ITEM_BYTES of JSON, in order, each under its last record's instant; the last one in the head if it fits.
      let last = first - 1;
      const arrays = jsonArrays(texts, { bytes: ITEM_BYTES, count: ITEM_RECORDS });
      const tail = arrays[arrays.length - 1]!;
      const bytes = Buffer.byteLength(tail.text);
      if (tail.count <= HEAD_RECORDS && bytes <= HEAD_BYTES) {
        arrays.pop();
        pending = { text: tail.text, count: tail.count, bytes };
      }
      for (const { text, count } of arrays) items.push({ session_id: sessionId, at: (last += count), expires_at: expiry, records: text });
    }
    const next: Head = { at: first + records.length - 1, version: head.version + 1, pending };
    const headItem = this.headItems.toItem({
      session_id: sessionId,
      at: next.at,
      version: next.version,
      ...(pending ? { records: pending.text, count: pending.count } : {}),
    });
    const headStep: TransactionStep = head.version === 0 ? { put: headItem, ifAbsent: true } : { put: headItem, ifVersion: head.version };
    return { records, next, steps: [headStep, ...items.map((item): TransactionStep => ({ put: this.items.toItem(item), ifAbsent: true }))] };
  }

  /** The records of a write that went through, its head remembered. */
  private written(sessionId: string, write: ReturnType<DynamoUpdateFeed["recordsOf"]>): StreamRecord[] {
    if (this.heads.size > 10_000) this.heads.clear();
    this.heads.set(sessionId, write.next);
    return write.records;
  }

  async since(sessionId: string, sinceMs: number | null, limit: number): Promise<StreamRecord[]> {
    const out: StreamRecord[] = [];
    let cursor: string | undefined;
    do {
      // The items keyed after `since`, then the head with the newest records.
      const page = await this.items.query(Keys.sessionUpdates(sessionId), {
        between: Keys.sessionUpdatesAfter(sinceMs),
        limit: limit - out.length,
        cursor,
      });
      for (const item of page.items) {
        for (const record of recordsIn(item)) if (sinceMs === null || Date.parse(record.timestamp) > sinceMs) out.push(record);
      }
      cursor = page.cursor;
    } while (cursor && out.length < limit);
    // An item holds several records: the page ends at `limit` (the next one's `since` is the last record answered).
    return out.slice(0, limit);
  }
}
