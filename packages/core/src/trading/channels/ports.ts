import type { RealtimeDeps } from "../../realtime";
import type { ViewDeps } from "../session/deps";
import type { SessionChannel } from "../session/config";

/**
 * The storage ports of multi-channel sessions (docs/channels.md): configuration versions and the
 * short-lived feed of the session's socket, and the dependencies record of the channel use cases.
 */

/** One version of a session's channel configuration. */
export interface ConfigVersionRecord {
  session_id: string;
  version: number;
  timestamp: string;
  /** Per channel, per field: `{from, to}`. */
  changes: Record<string, Record<string, unknown>>;
  changed_by: string;
  channels: SessionChannel[];
}

/** Which version is in force and which waits for the channels to reload. `revision` rises with every write. */
export interface ConfigPointer {
  session_id: string;
  current_version: number;
  pending_version: number | null;
  revision: number;
}

/** Storage port of configuration versions. */
export interface ChannelConfigStore {
  pointer(sessionId: string): Promise<ConfigPointer | undefined>;
  /** Every version, oldest first. */
  versions(sessionId: string): Promise<ConfigVersionRecord[]>;
  /** Writes new version records and the pointer together if the stored pointer's revision is still `expectedRevision` (0: none yet). */
  commit(pointer: ConfigPointer, expectedRevision: number, records: ConfigVersionRecord[]): Promise<boolean>;
}

/** A message on a session's socket, as pushed and as `/updates` returns it. */
export interface StreamRecord {
  type: string;
  data: Record<string, unknown>;
  timestamp: string;
}

/** One `UpdateFeed.append`'s arguments. */
export interface FeedAppend {
  sessionId: string;
  messages: { type: string; data: Record<string, unknown> }[];
  now: number;
}

/** The short-lived feed of everything pushed on a session's socket. */
export interface UpdateFeed {
  /**
   * Stores messages with strictly increasing timestamps per session (never before `now`, never
   * equal to an earlier record's), so `since` a record's timestamp means exactly the records after it.
   */
  append(sessionId: string, messages: { type: string; data: Record<string, unknown> }[], now: number): Promise<StreamRecord[]>;
  /**
   * `append` for many sessions in as few requests as hold them (the session worker's step); a
   * session's appends stay in their order. Per append, in order: its records, or the error that
   * kept them from being stored.
   */
  appendMany?(appends: readonly FeedAppend[]): Promise<PromiseSettledResult<StreamRecord[]>[]>;
  /** Records with a timestamp after `sinceMs` (all kept ones when null), oldest first, at most `limit`. */
  since(sessionId: string, sinceMs: number | null, limit: number): Promise<StreamRecord[]>;
}

/**
 * Told of every batch of messages published on a session's stream, after they were stored and
 * pushed: the webhooks' notifier (docs/security.md "Webhooks"), where the runtime wires it. Never throws.
 */
export type StreamListener = (sessionId: string, messages: readonly { type: string; data: Record<string, unknown> }[]) => Promise<void>;

export interface ChannelDeps extends ViewDeps {
  configs: ChannelConfigStore;
  feed: UpdateFeed;
  realtime: RealtimeDeps;
  notify?: StreamListener;
}
