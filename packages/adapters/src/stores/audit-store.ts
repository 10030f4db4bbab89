import type { AuditEntry, AuditFilter, AuditStore } from "@tp/core/audit";
import type { Db } from "../dynamo/db";
import { Keys } from "../dynamo/keys";
import { Repository } from "../dynamo/repository";
import type { IndexName } from "../dynamo/table";

/** The partitions a day's entries are spread over on gsi2 (by entry id): no index key takes every command. */
export const AUDIT_DAY_SHARDS = 8;

const DAY_MS = 86_400_000;
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const shardOf = (entryId: string) => {
  let hash = 0x811c9dc5;
  for (let at = 0; at < entryId.length; at++) hash = Math.imul(hash ^ entryId.charCodeAt(at), 0x01000193);
  return (hash >>> 0) % AUDIT_DAY_SHARDS;
};

interface StoredEntry extends AuditEntry {
  expires_at: number;
}

/** One group of partitions read together: a day's (or a session's), newest first. */
interface Source {
  index?: IndexName;
  partitions: string[];
}

/**
 * The audit trail in the table (docs/data-model.md): an item per command under its user's day,
 * indexed by session (gsi1) and by day shard (gsi2), expiring after the retention.
 */
export class DynamoAuditStore implements AuditStore {
  private readonly entries: Repository<StoredEntry>;
  constructor(db: Db) {
    this.entries = new Repository<StoredEntry>(db, {
      type: "AuditEntry",
      key: (entry) => Keys.auditEntry(entry.user_id, dayOf(Date.parse(entry.at)), entry.id),
      indexes: {
        gsi1: (entry) => (entry.session_id ? Keys.auditBySession(entry.session_id, entry.id) : undefined),
        gsi2: (entry) => Keys.auditByDay(dayOf(Date.parse(entry.at)), shardOf(entry.id), entry.id),
      },
      expiresAt: (entry) => entry.expires_at,
    });
  }

  async append(entry: AuditEntry, expiresAt: number): Promise<void> {
    await this.entries.put({ ...entry, expires_at: expiresAt });
  }

  /**
   * Newest first: a session's entries from its gsi1 partition; a user's from their day partitions,
   * a day at a time from `toMs` back; everyone's from each day's gsi2 shards (read side by side,
   * merged). The other filters are applied to what is read, reading on until a page is full.
   */
  async list(filter: AuditFilter): Promise<{ items: AuditEntry[]; more: boolean }> {
    const from = String(filter.fromMs).padStart(13, "0");
    const to = `${String(filter.toMs).padStart(13, "0")}~`;
    const upper = filter.before !== undefined && filter.before < to ? filter.before : to;
    const want = filter.limit + 1;
    const keep = (entry: AuditEntry) =>
      entry.id !== filter.before &&
      (!filter.kind || entry.kind === filter.kind) &&
      (!filter.userId || entry.user_id === filter.userId) &&
      (!filter.sessionId || entry.session_id === filter.sessionId);
    const out: AuditEntry[] = [];
    for (const source of this.sources(filter)) {
      const found = (
        await Promise.all(source.partitions.map((partition) => this.read(partition, source.index, [from, upper], want - out.length, keep)))
      ).flat();
      found.sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
      out.push(...found.slice(0, want - out.length));
      if (out.length >= want) break;
    }
    return { items: out.slice(0, filter.limit), more: out.length > filter.limit };
  }

  private *sources(filter: AuditFilter): Generator<Source> {
    if (filter.sessionId) {
      yield { index: "gsi1", partitions: [Keys.auditOfSession(filter.sessionId)] };
      return;
    }
    const first = Date.parse(dayOf(filter.fromMs));
    for (let day = Date.parse(dayOf(filter.toMs)); day >= first; day -= DAY_MS) {
      const name = dayOf(day);
      if (filter.userId) yield { partitions: [Keys.auditOfUserDay(filter.userId, name)] };
      else yield { index: "gsi2", partitions: Array.from({ length: AUDIT_DAY_SHARDS }, (_, shard) => Keys.auditOfDayShard(name, shard)) };
    }
  }

  /** Up to `need` kept entries of one partition between `range`, newest first. */
  private async read(partition: string, index: IndexName | undefined, range: [string, string], need: number, keep: (entry: AuditEntry) => boolean) {
    const kept: AuditEntry[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.entries.query(partition, { index, between: range, ascending: false, limit: Math.max(need, 25), cursor });
      for (const { expires_at: _expiresAt, ...entry } of page.items) if (keep(entry)) kept.push(entry);
      cursor = page.cursor;
    } while (cursor && kept.length < need);
    return kept.slice(0, need);
  }
}
