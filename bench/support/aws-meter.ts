/**
 * What DynamoDB on AWS would bill for the requests a client sends: every request priced by AWS's
 * rules (on-demand capacity), whatever the emulator it runs against charges or reports. Attached
 * to the service's document client with the SDK's middleware stack, so no service code changes:
 *
 *   const meter = AwsMeter.attach(services.db);   // every request from now on is recorded
 *   …
 *   const report = meter.report();                // priced: units by operation and by kind, dollars, busiest keys
 *
 * The rules (docs/aws-costs.md names their sources and what the meter assumes where AWS does not say):
 *
 *  - An item's size is the sum of its attribute names (UTF-8 bytes) and values: strings their
 *    UTF-8 bytes, binaries their raw bytes, numbers one byte per two significant digits (pairs
 *    aligned on the decimal point) plus one, and one more when negative, booleans and nulls one
 *    byte, lists and maps 3 bytes plus one per element (and a map's element names).
 *  - A write costs one write request unit (WRU) per KB (1,024 bytes) of the item, rounded up,
 *    per item: the larger of the item before and after (a put over an item, an update), the
 *    deleted item for a delete (one unit when there was none). A write in a transaction costs
 *    twice that (its index entries do not double). A conditional write whose condition fails
 *    still costs the units of the item it found (one when there was none), and writes no index
 *    entry.
 *  - Each global secondary index the item is in costs one more write of the index entry, a KB a
 *    unit (the indexes project ALL: the entry is the item): one when the item enters the index,
 *    leaves it, or stays under the same index key; two (a delete and a put) when its index key
 *    changes. An item is in an index when it carries both of the index's key attributes.
 *  - A read costs one read request unit (RRU) per 4 KB, strongly consistent; half that
 *    eventually consistent (an index is always), twice that transactional. GetItem and each key
 *    of a BatchGetItem round each item up, an absent item costing one 4 KB unit; a Query sums
 *    the items it read and rounds the sum up once, at least one unit. A projection does not
 *    shrink the units: the whole item is counted.
 *
 * Item sizes before a write (a delete in a transaction, a put over an item) are taken from the
 * meter's image of the table, learnt from every item it saw written or read whole: attach it
 * before the items you price are written. A key it never saw is priced as absent. The item an
 * UpdateItem leaves is the one it answers with `ReturnValues: "ALL_NEW"` (the service's only update,
 * `Repository.increment`, asks for it); without that answer, and for an Update in a transaction,
 * the meter does not evaluate the update expression: it prices the item as it was before, and
 * counts the request under `approximations`. So is a Query or Scan with a filter, priced on the
 * items it answered (AWS bills those it read before filtering; the service sends no filter).
 *
 * Requests are recorded as they complete and priced later (`settle`, or `report`, which
 * settles), so a bench can keep the pricing's CPU out of the work it times.
 */
import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { emulatorBulkWrites } from "../../packages/adapters/src/dynamo/batches";
import { Table } from "../../packages/adapters/src/dynamo/table";

/**
 * DynamoDB on-demand prices, us-east-1, Standard table class: in effect since 2024-11-01 (the
 * on-demand throughput price cut by half), taken on 2026-11-29 from stored copies of pages that
 * quote them (AWS's live price list was not reachable): docs/aws-costs.md names them.
 */
export const AWS_PRICES = {
  region: "us-east-1",
  /** Dollars per write request unit ($0.625 per million). */
  write: 0.625 / 1e6,
  /** Dollars per read request unit ($0.125 per million). */
  read: 0.125 / 1e6,
  since: "2024-11-01",
  /** When they were taken (docs/aws-costs.md). */
  checked: "2026-11-29",
} as const;

/** A session-month: 30 days of the US regular session (6.5 h) of 1-minute bars, and 30 days of the wall clock for what runs all the time. */
export const SESSION_MONTH = { barsPerSession: 30 * 6.5 * 60, seconds: 30 * 86_400 } as const;

const KB = 1024;
const READ_UNIT = 4 * KB;

// ---- Item sizes -------------------------------------------------------------------------

const utf8Bytes = (text: string) => Buffer.byteLength(text, "utf8");

/** A number's decimal digits without exponent or sign: the integer part without leading zeros, the fraction without trailing ones. */
function plainDigits(text: string): { negative: boolean; integer: string; fraction: string } {
  let s = text.trim().toLowerCase();
  const negative = s.startsWith("-");
  if (negative || s.startsWith("+")) s = s.slice(1);
  const [mantissa = "", exponent] = s.split("e");
  const [whole = "", part = ""] = mantissa.split(".");
  const digits = whole + part;
  const point = whole.length + (exponent === undefined ? 0 : Number(exponent));
  let integer: string;
  let fraction: string;
  if (point <= 0) [integer, fraction] = ["", "0".repeat(-point) + digits];
  else if (point >= digits.length) [integer, fraction] = [digits + "0".repeat(point - digits.length), ""];
  else [integer, fraction] = [digits.slice(0, point), digits.slice(point)];
  return { negative, integer: integer.replace(/^0+/, ""), fraction: fraction.replace(/0+$/, "") };
}

/**
 * A number's bytes: DynamoDB keeps its significant digits in pairs aligned on the decimal point
 * (base 100), without the all-zero pairs at either end, plus a byte of exponent, plus one when
 * negative; 21 bytes at most (38 digits). Zero is one byte.
 */
export function numberBytes(text: string): number {
  const { negative, integer, fraction } = plainDigits(text);
  if (integer === "" && fraction === "") return 1;
  const pairs = (integer.length % 2 === 1 ? `0${integer}` : integer) + (fraction.length % 2 === 1 ? `${fraction}0` : fraction);
  let first = 0;
  let last = pairs.length;
  while (first < last && pairs.startsWith("00", first)) first += 2;
  while (last > first && pairs.startsWith("00", last - 2)) last -= 2;
  return Math.min(21, (last - first) / 2 + 1 + (negative ? 1 : 0));
}

/** The number a JavaScript value is sent as (the document client sends `String(n)`). */
const numberText = (value: number | bigint) => String(value);

/** A value's bytes as DynamoDB counts them (its name not included); undefined: not sent (the service's client drops them). */
export function valueBytes(value: unknown): number {
  if (value === null) return 1;
  switch (typeof value) {
    case "string":
      return utf8Bytes(value);
    case "number":
    case "bigint":
      return numberBytes(numberText(value));
    case "boolean":
      return 1;
    case "undefined":
      return 0;
  }
  if (value instanceof Uint8Array) return value.byteLength;
  if (value instanceof ArrayBuffer) return value.byteLength;
  if (value instanceof Set) {
    let bytes = 0;
    for (const element of value) bytes += valueBytes(element);
    return bytes;
  }
  if (Array.isArray(value)) {
    let bytes = 3;
    for (const element of value) if (element !== undefined) bytes += 1 + valueBytes(element);
    return bytes;
  }
  if (typeof value === "object") {
    // lib-dynamodb's NumberValue (a number kept as its text).
    const text = (value as { value?: unknown }).value;
    if (value.constructor?.name === "NumberValue" && typeof text === "string") return numberBytes(text);
    let bytes = 3;
    for (const [name, element] of Object.entries(value)) if (element !== undefined) bytes += 1 + utf8Bytes(name) + valueBytes(element);
    return bytes;
  }
  return 0;
}

/** An item's bytes as DynamoDB counts them: each attribute's name and value. */
export function itemBytes(item: Record<string, unknown>): number {
  let bytes = 0;
  for (const [name, value] of Object.entries(item)) if (value !== undefined) bytes += utf8Bytes(name) + valueBytes(value);
  return bytes;
}

/** Write units of an item of `bytes` (at least one). */
export const writeUnits = (bytes: number) => Math.max(1, Math.ceil(bytes / KB));

/** Read units of `bytes` read at once (a GetItem's item, a Query's sum), strongly consistent: at least one. */
export const readUnits = (bytes: number) => Math.max(1, Math.ceil(bytes / READ_UNIT));

/** Dollars of `wru` write and `rru` read request units at the prices above. */
export const dollars = (wru: number, rru: number) => wru * AWS_PRICES.write + rru * AWS_PRICES.read;

// ---- The meter --------------------------------------------------------------------------

type Item = Record<string, unknown>;

/** What the meter knows of a stored item. */
interface Image {
  bytes: number;
  kind: string;
  /** Per index, the item's index key (partition, then sort), when it carries both. */
  index: Record<string, [string, string] | undefined>;
}

const INDEXES = Object.values(Table.indexes);

/** An item's kind: the entity the repositories stamp on it (`_type`), else its partition key's prefix. */
function kindOf(item: Item | undefined, fallback = "?"): string {
  if (item && typeof item._type === "string") return item._type;
  const pk = item?.[Table.partitionKey];
  return typeof pk === "string" ? prefixOf(pk) : fallback;
}
const prefixOf = (key: string) => key.split("#")[0]!;

function imageOf(item: Item): Image {
  const index: Image["index"] = {};
  for (const { name, partitionKey, sortKey } of INDEXES) {
    const [pk, sk] = [item[partitionKey], item[sortKey]];
    index[name] = typeof pk === "string" && typeof sk === "string" ? [pk, sk] : undefined;
  }
  return { bytes: itemBytes(item), kind: kindOf(item), index };
}

/** Counts of one operation or kind. */
export interface Tally {
  requests: number;
  /** Items written or read (a Query's items, a batch's or a transaction's). */
  items: number;
  wru: number;
  rru: number;
}
const tally = (): Tally => ({ requests: 0, items: 0, wru: 0, rru: 0 });

/** A request as it completed, before it is priced. */
interface Recorded {
  command: string;
  input: any;
  output: any;
  error: unknown;
  at: number;
  window: number;
}

export interface MeterReport {
  requests: number;
  wru: number;
  rru: number;
  dollars: number;
  /** By operation (`PutItem`, `TransactWriteItems`, …), most write units first. */
  byOperation: [string, Tally][];
  /** By kind of item (`_type`, else the partition key's prefix), most write units first. */
  byKind: [string, Tally][];
  /**
   * The partition key written most in any second (a sliding 1 s window on the meter's clock):
   * a table key as it is, an index's as `<index> <key>`. DynamoDB serves at most 1,000 write
   * units a second per partition.
   */
  busiestPerSecond?: { key: string; wru: number };
  /**
   * The partition key with the most write units over the whole report, and its mean units per
   * second from the meter's attach (or last `reset`) to the report: a key written once a second
   * shows its rate here, where the sliding window above may catch two writes 999 ms apart.
   */
  busiestMean?: { key: string; wru: number };
  /** Seconds on the meter's clock from its attach (or last `reset`) to the report. */
  seconds: number;
  /** The partition key written most within one window of `window()` marks (a bench's step), and its units. */
  busiestPerWindow?: { key: string; wru: number };
  /** The largest item written (bytes as DynamoDB counts them; DynamoDB takes at most 400 KB), its kind and partition key. */
  largestItem?: { kind: string; key: string; bytes: number };
  /** What was priced less exactly than the rules allow, by reason (counts of requests or items). */
  approximations: Record<string, number>;
  /** Transactions cancelled (a condition failed, a conflict): not in the totals (AWS's guide does not say what they cost), what they would have cost. */
  cancelled: { transactions: number; wru: number };
  /** Milliseconds the meter spent pricing (in `settle`, outside the requests). */
  pricingMs: number;
}

export interface AwsMeterOptions {
  /** The clock of the per-second windows (ms), `performance.now` by default. */
  now?: () => number;
  /** Keeps each request's charge (`charges`), for tests. */
  keepCharges?: boolean;
  /**
   * Kinds of item left unpriced: what stands in for another AWS service in the embedded runtime
   * (its queue in the table, SQS on AWS), neither counted in the units nor in the busiest keys.
   */
  unpricedKinds?: readonly string[];
}

/** One request's price (kept with `keepCharges`). */
export interface Charge {
  command: string;
  wru: number;
  rru: number;
}

let attached = 0;

/** A bulk write's transaction (puts and deletes, no conditions) as the BatchWriteItem request it stands in for. */
function asBatchWrite(input: any): { RequestItems: Record<string, unknown[]> } {
  const RequestItems: Record<string, unknown[]> = {};
  for (const action of input.TransactItems as { Put?: { TableName: string; Item: Item }; Delete?: { TableName: string; Key: Item } }[]) {
    const table = (action.Put ?? action.Delete)!.TableName;
    (RequestItems[table] ??= []).push(action.Put ? { PutRequest: { Item: action.Put.Item } } : { DeleteRequest: { Key: action.Delete!.Key } });
  }
  return { RequestItems };
}

/** Prices every DynamoDB request of a document client as AWS bills it (module comment). */
export class AwsMeter {
  private readonly images = new Map<string, Image>();
  private queue: Recorded[] = [];
  private readonly operations = new Map<string, Tally>();
  private readonly kinds = new Map<string, Tally>();
  /** Per partition key, its writes as [at, units, at, units, …] in completion order. */
  private readonly keyWrites = new Map<string, number[]>();
  /** Per window and partition key, the units written. */
  private readonly windowWrites = new Map<string, number>();
  private approximate: Record<string, number> = {};
  private cancelled = { transactions: 0, wru: 0 };
  private largestItem: MeterReport["largestItem"];
  private pricingMs = 0;
  private windowIndex = 0;
  /** When the report's span began (the meter's clock). */
  private since: number;
  private recording = true;
  readonly charges: Charge[] = [];
  private readonly now: () => number;
  private readonly name = `awsMeter${++attached}`;

  private constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly options: AwsMeterOptions,
  ) {
    this.now = options.now ?? (() => performance.now());
    this.since = this.now();
  }

  /** A meter recording every request `db.client` sends from now on (the service's `Db`, or any holder of a document client). */
  static attach(db: { client: DynamoDBDocumentClient }, options: AwsMeterOptions = {}): AwsMeter {
    const meter = new AwsMeter(db.client, options);
    db.client.middlewareStack.add(
      (next, context) => async (args) => {
        if (!meter.recording) return next(args);
        const named = String(context.commandName ?? "").replace(/Command$/, "");
        if (!AwsMeter.pricers.has(named)) return next(args);
        // DynamoDB Local's stand-in for a BatchWriteItem (dynamo/batches.ts) is priced as the BatchWriteItem AWS is sent.
        const bulk = named === "TransactWriteItems" && emulatorBulkWrites.has(args.input as object);
        const [command, input] = bulk ? ["BatchWriteItem", asBatchWrite(args.input)] : [named, args.input];
        try {
          const result = await next(args);
          meter.queue.push({ command, input, output: bulk ? {} : result.output, error: undefined, at: meter.now(), window: meter.windowIndex });
          return result;
        } catch (error) {
          meter.queue.push({ command, input, output: undefined, error, at: meter.now(), window: meter.windowIndex });
          throw error;
        }
      },
      // The document client's commands at this step: their input and output are plain values, not yet marshalled.
      { step: "initialize", name: meter.name },
    );
    return meter;
  }

  /** Stops recording and takes the meter off the client. */
  detach(): void {
    this.recording = false;
    this.client.middlewareStack.remove(this.name);
  }

  /** Stops (or resumes) recording; the image of the table is kept up to date either way only from what is recorded. */
  pause(paused = true): void {
    this.recording = !paused;
  }

  /** Ends the current window (a bench's step) and starts the next: `busiestPerWindow` is the most any key took in one. */
  window(): void {
    this.windowIndex += 1;
  }

  /** Forgets what was priced so far (the image of the table stays): the next report covers what follows. */
  reset(): void {
    this.settle();
    this.operations.clear();
    this.kinds.clear();
    this.keyWrites.clear();
    this.windowWrites.clear();
    this.approximate = {};
    this.cancelled = { transactions: 0, wru: 0 };
    this.largestItem = undefined;
    this.pricingMs = 0;
    this.charges.length = 0;
    this.since = this.now();
  }

  /** Prices the requests recorded since the last time, in the order they completed. */
  settle(): void {
    if (this.queue.length === 0) return;
    const started = performance.now();
    const queue = this.queue;
    this.queue = [];
    for (const recorded of queue) this.price(recorded);
    this.pricingMs += performance.now() - started;
  }

  /** Everything priced since the last `reset`. */
  report(): MeterReport {
    this.settle();
    const byWru = (a: [string, Tally], b: [string, Tally]) => b[1].wru - a[1].wru || b[1].rru - a[1].rru;
    const byOperation = [...this.operations].sort(byWru);
    const sum = (field: keyof Tally) => byOperation.reduce((total, [, counts]) => total + counts[field], 0);
    const [wru, rru] = [sum("wru"), sum("rru")];
    const seconds = (this.now() - this.since) / 1000;
    let busiestPerSecond: MeterReport["busiestPerSecond"];
    let busiestMean: MeterReport["busiestMean"];
    for (const [key, writes] of this.keyWrites) {
      let total = 0;
      for (let at = 1; at < writes.length; at += 2) total += writes[at]!;
      if (seconds > 0 && (!busiestMean || total / seconds > busiestMean.wru)) busiestMean = { key, wru: total / seconds };
      // The most units within any 1,000 ms: a window ending at each write.
      let [start, inWindow, most] = [0, 0, 0];
      for (let end = 0; end < writes.length; end += 2) {
        inWindow += writes[end + 1]!;
        while (writes[start]! <= writes[end]! - 1000) {
          inWindow -= writes[start + 1]!;
          start += 2;
        }
        most = Math.max(most, inWindow);
      }
      if (!busiestPerSecond || most > busiestPerSecond.wru) busiestPerSecond = { key, wru: most };
    }
    let busiestPerWindow: MeterReport["busiestPerWindow"];
    for (const [windowKey, units] of this.windowWrites)
      if (!busiestPerWindow || units > busiestPerWindow.wru) busiestPerWindow = { key: windowKey.slice(windowKey.indexOf("\u0000") + 1), wru: units };
    return {
      requests: sum("requests"),
      wru,
      rru,
      dollars: dollars(wru, rru),
      byOperation,
      byKind: [...this.kinds].sort(byWru),
      busiestPerSecond,
      busiestMean,
      seconds,
      busiestPerWindow,
      largestItem: this.largestItem && { ...this.largestItem },
      approximations: { ...this.approximate },
      cancelled: { ...this.cancelled },
      pricingMs: this.pricingMs,
    };
  }

  // ---- pricing ----

  private price(recorded: Recorded): void {
    const before = this.charges.length;
    const operation = this.tallyOf(this.operations, recorded.command);
    const [wru0, rru0] = [operation.wru, operation.rru];
    operation.requests += 1;
    AwsMeter.pricers.get(recorded.command)!(this, recorded);
    if (this.options.keepCharges && this.charges.length === before)
      this.charges.push({ command: recorded.command, wru: operation.wru - wru0, rru: operation.rru - rru0 });
  }

  private tallyOf(map: Map<string, Tally>, key: string): Tally {
    let counts = map.get(key);
    if (!counts) map.set(key, (counts = tally()));
    return counts;
  }

  private note(reason: string, count = 1): void {
    this.approximate[reason] = (this.approximate[reason] ?? 0) + count;
  }

  private keyOf(table: string, item: Item): string | undefined {
    const [pk, sk] = [item[Table.partitionKey], item[Table.sortKey]];
    return typeof pk === "string" && typeof sk === "string" ? `${table}\u0000${pk}\u0000${sk}` : undefined;
  }

  /** Remembers an item read or written whole (or its absence). */
  private learn(table: string, key: Item, item: Item | undefined): void {
    const id = this.keyOf(table, key);
    if (id === undefined) return;
    if (item) this.images.set(id, imageOf(item));
    else this.images.delete(id);
  }

  private imageAt(table: string, key: Item): Image | undefined {
    const id = this.keyOf(table, key);
    return id === undefined ? undefined : this.images.get(id);
  }

  private addWrite(command: string, kind: string, units: number, partition: string, recorded: Recorded): void {
    if (this.options.unpricedKinds?.includes(kind)) return;
    this.tallyOf(this.operations, command).wru += units;
    this.tallyOf(this.kinds, kind).wru += units;
    let writes = this.keyWrites.get(partition);
    if (!writes) this.keyWrites.set(partition, (writes = []));
    writes.push(recorded.at, units);
    const windowKey = `${recorded.window}\u0000${partition}`;
    this.windowWrites.set(windowKey, (this.windowWrites.get(windowKey) ?? 0) + units);
  }

  private addRead(command: string, kind: string, units: number, items: number): void {
    if (this.options.unpricedKinds?.includes(kind)) return;
    const operation = this.tallyOf(this.operations, command);
    operation.rru += units;
    operation.items += items;
    const counts = this.tallyOf(this.kinds, kind);
    counts.rru += units;
    counts.items += items;
  }

  /**
   * One item written: `before` and `after` its images (undefined: absent), the table's arm at
   * the larger of the two (twice in a transaction), and each index's entries. With `failed`
   * (its condition did not hold) the table's arm alone at the size of the item found (`before`),
   * and nothing changes.
   */
  private writeItem(
    command: string,
    recorded: Recorded,
    table: string,
    key: Item,
    before: Image | undefined,
    after: Image | undefined,
    options: { transactional: boolean; failed?: boolean },
  ): number {
    const kind = after?.kind ?? before?.kind ?? kindOf(key);
    const pk = String(key[Table.partitionKey]);
    const bytes = options.failed ? (before?.bytes ?? 0) : Math.max(before?.bytes ?? 0, after?.bytes ?? 0);
    const tableUnits = writeUnits(bytes) * (options.transactional ? 2 : 1);
    this.addWrite(command, kind, tableUnits, pk, recorded);
    if (after && !options.failed && after.bytes > (this.largestItem?.bytes ?? 0)) this.largestItem = { kind, key: pk, bytes: after.bytes };
    this.tallyOf(this.operations, command).items += 1;
    this.tallyOf(this.kinds, kind).items += 1;
    let units = tableUnits;
    if (options.failed) return units;
    for (const { name } of INDEXES) {
      const [was, now] = [before?.index[name], after?.index[name]];
      if (was && now && was[0] === now[0] && was[1] === now[1]) {
        const entry = writeUnits(after!.bytes);
        this.addWrite(command, kind, entry, `${name} ${now[0]}`, recorded);
        units += entry;
        continue;
      }
      if (was) {
        const entry = writeUnits(before!.bytes);
        this.addWrite(command, kind, entry, `${name} ${was[0]}`, recorded);
        units += entry;
      }
      if (now) {
        const entry = writeUnits(after!.bytes);
        this.addWrite(command, kind, entry, `${name} ${now[0]}`, recorded);
        units += entry;
      }
    }
    const id = this.keyOf(table, key);
    if (id !== undefined) {
      if (after) this.images.set(id, after);
      else this.images.delete(id);
    }
    return units;
  }

  /** The item an update leaves: the answer's `ALL_NEW`, else the item before (approximate: the update's own values are not applied). */
  private afterUpdate(input: any, output: any, before: Image | undefined): Image | undefined {
    if (input.ReturnValues === "ALL_NEW" && output?.Attributes) return imageOf(output.Attributes);
    this.note("update priced on the item before it (no ALL_NEW answer)");
    return before ?? imageOf({ ...input.Key });
  }

  /** Read units of items read one by one (GetItem, BatchGetItem): each rounded up, an absent one a unit. */
  private readEach(command: string, table: string, projected: boolean, items: (Item | undefined)[], keys: Item[], factor: number): void {
    items.forEach((item, at) => {
      const key = keys[at]!;
      let bytes = 0;
      let kind = kindOf(key);
      if (item) {
        const known = projected ? this.imageAt(table, key) : undefined;
        if (projected && !known) this.note("projected read sized on what it answered");
        bytes = known?.bytes ?? itemBytes(item);
        kind = known?.kind ?? kindOf(item, kind);
        if (!projected) this.learn(table, key, item);
      }
      this.addRead(command, kind, readUnits(bytes) * factor, item ? 1 : 0);
    });
  }

  /**
   * Read units of a Query's (or a partition's) items: their sizes summed, rounded up once, at
   * least one unit. A projected read is sized on the items as the meter knows them whole.
   */
  private readSum(command: string, table: string, projected: boolean, items: Item[], partition: string, factor: number, onTable = true): void {
    let bytes = 0;
    for (const item of items) {
      // A projection may leave the partition key out: the Query's own is the item's.
      const known = projected ? this.imageAt(table, onTable ? { [Table.partitionKey]: partition, ...item } : item) : undefined;
      if (projected && !known) this.note("projected read sized on what it answered");
      bytes += known?.bytes ?? itemBytes(item);
      if (!projected) this.learn(table, item, item);
    }
    const kind = items.length > 0 ? (this.imageAt(table, items[0]!)?.kind ?? kindOf(items[0])) : prefixOf(partition);
    this.addRead(command, kind, readUnits(bytes) * factor, items.length);
  }

  /** The operations priced, by the SDK's command name without `Command`. */
  private static readonly pricers = new Map<string, (meter: AwsMeter, recorded: Recorded) => void>([
    ["GetItem", (meter, recorded) => meter.priceGet(recorded)],
    ["BatchGetItem", (meter, recorded) => meter.priceBatchGet(recorded)],
    ["Query", (meter, recorded) => meter.priceQuery(recorded)],
    ["Scan", (meter, recorded) => meter.priceQuery(recorded)],
    ["ExecuteStatement", (meter, recorded) => meter.priceStatement(recorded)],
    ["PutItem", (meter, recorded) => meter.pricePut(recorded)],
    ["UpdateItem", (meter, recorded) => meter.priceUpdate(recorded)],
    ["DeleteItem", (meter, recorded) => meter.priceDelete(recorded)],
    ["BatchWriteItem", (meter, recorded) => meter.priceBatchWrite(recorded)],
    ["TransactWriteItems", (meter, recorded) => meter.priceTransactWrite(recorded)],
    ["TransactGetItems", (meter, recorded) => meter.priceTransactGet(recorded)],
    ["BatchExecuteStatement", (meter, recorded) => meter.priceUnknown(recorded)],
    ["ExecuteTransaction", (meter, recorded) => meter.priceUnknown(recorded)],
  ]);

  private priceGet(recorded: Recorded): void {
    const { input, output } = recorded;
    if (recorded.error) return;
    const item = output?.Item as Item | undefined;
    if (!input.ProjectionExpression) this.learn(input.TableName, input.Key, item);
    this.readEach(recorded.command, input.TableName, Boolean(input.ProjectionExpression), [item], [input.Key], input.ConsistentRead ? 1 : 0.5);
  }

  private priceBatchGet(recorded: Recorded): void {
    const { input, output } = recorded;
    if (recorded.error) return;
    for (const [table, request] of Object.entries(
      input.RequestItems as Record<string, { Keys: Item[]; ConsistentRead?: boolean; ProjectionExpression?: string }>,
    )) {
      const unprocessed = new Set(((output?.UnprocessedKeys?.[table]?.Keys ?? []) as Item[]).map((key) => this.keyOf(table, key)));
      const keys = request.Keys.filter((key) => !unprocessed.has(this.keyOf(table, key)));
      const found = new Map(((output?.Responses?.[table] ?? []) as Item[]).map((item) => [this.keyOf(table, item), item]));
      const items = keys.map((key) => found.get(this.keyOf(table, key)));
      // An absent key of a whole-item read: the item is not there.
      if (!request.ProjectionExpression) for (const [at, key] of keys.entries()) if (items[at] === undefined) this.learn(table, key, undefined);
      this.readEach(recorded.command, table, Boolean(request.ProjectionExpression), items, keys, request.ConsistentRead ? 1 : 0.5);
    }
  }

  private priceQuery(recorded: Recorded): void {
    const { input, output } = recorded;
    if (recorded.error) return;
    // An index is read eventually consistent, whatever the request says.
    const factor = input.ConsistentRead && !input.IndexName ? 1 : 0.5;
    const values = (input.ExpressionAttributeValues ?? {}) as Record<string, unknown>;
    const partition = String(values[":pk"] ?? Object.values(values).find((value) => typeof value === "string") ?? "?");
    const projected = Boolean(input.ProjectionExpression) || (input.Select !== undefined && input.Select !== "ALL_ATTRIBUTES");
    if (input.FilterExpression) this.note("filtered Query or Scan priced on the items it answered");
    this.readSum(recorded.command, input.TableName, projected, (output?.Items ?? []) as Item[], partition, factor, !input.IndexName);
  }

  /**
   * PartiQL: a SELECT naming its partitions (`= ?` or `IN [?, …]` on a partition key) priced as a
   * Query of each partition (each at least one unit); any other statement as one Query of what
   * it answered (a lower bound), noted.
   */
  private priceStatement(recorded: Recorded): void {
    const { input, output } = recorded;
    if (recorded.error) return;
    const statement = String(input.Statement);
    const match = /^\s*SELECT\s+\*\s+FROM\s+"([^"]+)"(?:\."([^"]+)")?\s+WHERE\s+"([^"]+)"\s+(?:IN\s+\[([^\]]*)\]|=\s*\?)\s*$/i.exec(statement);
    const items = (output?.Items ?? []) as Item[];
    if (!match) {
      this.note("PartiQL statement priced as one Query of what it answered");
      const bytes = items.reduce((sum, item) => sum + itemBytes(item), 0);
      this.addRead(recorded.command, kindOf(items[0], "PartiQL"), readUnits(bytes) * (input.ConsistentRead ? 1 : 0.5), items.length);
      return;
    }
    const [, table, index, attribute] = match;
    const factor = input.ConsistentRead && !index ? 1 : 0.5;
    const partitions = ((input.Parameters ?? []) as unknown[]).map(String);
    const byPartition = new Map<string, Item[]>(partitions.map((partition) => [partition, []]));
    for (const item of items) byPartition.get(String(item[attribute!]))?.push(item);
    // A page after the first reads on where the last stopped: only the partitions it answered from are priced again.
    for (const [partition, read] of byPartition)
      if (read.length > 0 || !input.NextToken) this.readSum(recorded.command, table!, false, read, partition, factor);
  }

  private pricePut(recorded: Recorded): void {
    const { input, output, error } = recorded;
    if (error && !conditionFailed(error)) return;
    const before =
      input.ReturnValues === "ALL_OLD" && output ? (output.Attributes ? imageOf(output.Attributes) : undefined) : this.imageAt(input.TableName, input.Item);
    this.writeItem(recorded.command, recorded, input.TableName, input.Item, before, imageOf(input.Item), { transactional: false, failed: Boolean(error) });
  }

  private priceUpdate(recorded: Recorded): void {
    const { input, output, error } = recorded;
    if (error && !conditionFailed(error)) return;
    const before =
      input.ReturnValues === "ALL_OLD" && output ? (output.Attributes ? imageOf(output.Attributes) : undefined) : this.imageAt(input.TableName, input.Key);
    const after = error ? before : this.afterUpdate(input, output, before);
    this.writeItem(recorded.command, recorded, input.TableName, input.Key, before, after, { transactional: false, failed: Boolean(error) });
  }

  private priceDelete(recorded: Recorded): void {
    const { input, output, error } = recorded;
    if (error && !conditionFailed(error)) return;
    const returned = input.ReturnValues === "ALL_OLD" && output;
    const before = returned ? (output.Attributes ? imageOf(output.Attributes) : undefined) : this.imageAt(input.TableName, input.Key);
    this.writeItem(recorded.command, recorded, input.TableName, input.Key, before, undefined, { transactional: false, failed: Boolean(error) });
  }

  private priceBatchWrite(recorded: Recorded): void {
    const { input, output, error } = recorded;
    if (error) return;
    for (const [table, requests] of Object.entries(input.RequestItems as Record<string, { PutRequest?: { Item: Item }; DeleteRequest?: { Key: Item } }[]>)) {
      const unprocessed = new Set(
        ((output?.UnprocessedItems?.[table] ?? []) as typeof requests).map((r) => this.keyOf(table, r.PutRequest?.Item ?? r.DeleteRequest!.Key)),
      );
      for (const request of requests) {
        const key = request.PutRequest?.Item ?? request.DeleteRequest!.Key;
        if (unprocessed.has(this.keyOf(table, key))) continue;
        const after = request.PutRequest ? imageOf(request.PutRequest.Item) : undefined;
        this.writeItem(recorded.command, recorded, table, key, this.imageAt(table, key), after, { transactional: false });
      }
    }
  }

  /**
   * A transaction: each action's table arm twice (a condition check at the size of the item it
   * checks), its index entries once. A cancelled one writes nothing; what it would have cost is
   * counted apart (`cancelled`), not in the totals.
   */
  private priceTransactWrite(recorded: Recorded): void {
    const { input, error } = recorded;
    type Action = {
      Put?: { TableName: string; Item: Item };
      Update?: any;
      Delete?: { TableName: string; Key: Item };
      ConditionCheck?: { TableName: string; Key: Item };
    };
    const actions = input.TransactItems as Action[];
    if (error) {
      if ((error as { name?: string }).name !== "TransactionCanceledException") return;
      this.cancelled.transactions += 1;
      for (const action of actions) {
        const { TableName, key, after } = actionParts(action);
        const before = this.imageAt(TableName, key);
        this.cancelled.wru += writeUnits(Math.max(before?.bytes ?? 0, after?.bytes ?? 0)) * 2;
      }
      return;
    }
    for (const action of actions) {
      const { TableName, key, after } = actionParts(action);
      const before = this.imageAt(TableName, key);
      if (action.ConditionCheck) {
        this.writeItem(recorded.command, recorded, TableName, key, before, before, { transactional: true, failed: true });
        continue;
      }
      const next = action.Update ? this.afterUpdate(action.Update, undefined, before) : after;
      this.writeItem(recorded.command, recorded, TableName, key, before, next, { transactional: true });
    }
  }

  private priceTransactGet(recorded: Recorded): void {
    const { input, output } = recorded;
    if (recorded.error) return;
    (input.TransactItems as { Get: { TableName: string; Key: Item; ProjectionExpression?: string } }[]).forEach(({ Get }, at) => {
      const item = output?.Responses?.[at]?.Item as Item | undefined;
      this.readEach(recorded.command, Get.TableName, Boolean(Get.ProjectionExpression), [item], [Get.Key], 2);
    });
  }

  private priceUnknown(recorded: Recorded): void {
    this.note(`${recorded.command} not priced`);
  }
}

/** Whether a single write failed on its condition (which AWS still bills). */
const conditionFailed = (error: unknown) => (error as { name?: string })?.name === "ConditionalCheckFailedException";

/** A transaction action's table, key and the item it leaves (a put's). */
function actionParts(action: { Put?: { TableName: string; Item: Item }; Update?: any; Delete?: { TableName: string; Key: Item }; ConditionCheck?: any }) {
  if (action.Put) return { TableName: action.Put.TableName, key: action.Put.Item, after: imageOf(action.Put.Item) };
  const step = action.Update ?? action.Delete ?? action.ConditionCheck;
  return { TableName: step.TableName as string, key: step.Key as Item, after: undefined };
}

// ---- Per session-bar and per session-month ----------------------------------------------

/** Units per one of `count` (a session bar, a request). */
export function per(report: Pick<MeterReport, "wru" | "rru">, count: number): { wru: number; rru: number } {
  return { wru: report.wru / count, rru: report.rru / count };
}

/**
 * A session-month's dollars: `bar` units per session bar times the month's bars
 * (`SESSION_MONTH.barsPerSession`), and `time`, the units per wall second the worker spends
 * whatever the bars (its bookkeeping), times the month's seconds, shared by `sessions`.
 */
export function sessionMonth(bar: { wru: number; rru: number }, time: { wru: number; rru: number }, sessions: number) {
  const bars = dollars(bar.wru, bar.rru) * SESSION_MONTH.barsPerSession;
  const bookkeeping = (dollars(time.wru, time.rru) * SESSION_MONTH.seconds) / sessions;
  return { bars, bookkeeping, total: bars + bookkeeping };
}
