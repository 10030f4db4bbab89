import { beforeAll, describe, expect, it } from "vitest";
import { PutCommand, QueryCommand } from "@aws-sdk/lib-dynamodb";
import { Keys } from "../../packages/adapters/src/dynamo/keys";
import { Repository } from "../../packages/adapters/src/dynamo/repository";
import { DynamoCandleStore } from "../../packages/adapters/src/stores/candle-store";
import { CandleBatches } from "../../packages/core/src/candles/candle-batch";
import { createTestApi, type TestApi } from "../support/harness";

let api: TestApi;
beforeAll(async () => {
  api = await createTestApi();
});

const minute = (index: number) => ({
  timestamp: Date.parse("2024-03-15T13:30:00Z") / 1000 + index * 60,
  open: 100 + index,
  high: 101 + index,
  low: 99 + index,
  close: 100.5 + index,
  volume: 1000,
  turnover: 100_000,
  trade_session: "Intraday" as const,
});

describe("concurrent candle writes", () => {
  it("all succeed when many writers hit one bucket at once: each re-reads, merges and retries", async () => {
    // Separate store instances, as separate Lambda containers would be.
    const writers = Array.from({ length: 12 }, () => new DynamoCandleStore(api.services.db));
    const results = await Promise.all(writers.map((store, index) => store.upsert("AAPL.US", "1m", CandleBatches.fromCandles([minute(index)]))));
    expect(results.every((result) => result.added === 1)).toBe(true);
    const stored = (await api.services.candles.load("AAPL.US", "1m", ["2024-03-15"])).get("2024-03-15")!;
    expect(Array.from(stored.timestamp)).toEqual(Array.from({ length: 12 }, (_, index) => minute(index).timestamp));
  });

  it("all succeed for whole-bucket replacements racing each other, the last one standing whole", async () => {
    const writers = Array.from({ length: 8 }, () => new DynamoCandleStore(api.services.db));
    await Promise.all(
      writers.map((store, index) => store.replace("MSFT.US", "1m", "2024-03-15", CandleBatches.fromCandles([minute(index), minute(index + 20)]))),
    );
    const stored = (await api.services.candles.load("MSFT.US", "1m", ["2024-03-15"])).get("2024-03-15")!;
    expect(stored.length).toBe(2);
    expect(stored.timestamp[1]! - stored.timestamp[0]!).toBe(20 * 60);
  });
});

describe("the buckets a store wrote last", () => {
  it("are merged into without a read, and read again once another process wrote them since", async () => {
    const mine = new DynamoCandleStore(api.services.db);
    const other = new DynamoCandleStore(api.services.db);
    const reads: string[] = [];
    api.services.db.client.middlewareStack.add(
      (next, context) => (args) => {
        const input = args.input as { RequestItems?: Record<string, { Keys: { pk: string }[] }>; Key?: { pk: string } };
        const keys = input.RequestItems ? Object.values(input.RequestItems).flatMap((request) => request.Keys.map((key) => key.pk)) : [input.Key?.pk];
        const command = String(context.commandName);
        if (/^(BatchGetItem|GetItem)Command$/.test(command) && keys.some((pk) => pk?.startsWith("CANDLES#NVDA.US"))) reads.push(command);
        return next(args);
      },
      { step: "initialize", name: "candleReads" },
    );
    try {
      await mine.upsert("NVDA.US", "1m", CandleBatches.fromCandles([minute(0)]));
      expect(reads).toEqual(["BatchGetItemCommand"]);
      // Its own bucket again: merged into what it wrote, no read.
      await mine.upsert("NVDA.US", "1m", CandleBatches.fromCandles([minute(1)]));
      expect(reads).toHaveLength(1);
      // Another process writes the bucket: the next upsert's write loses its condition, reads the bucket and merges into it.
      await other.upsert("NVDA.US", "1m", CandleBatches.fromCandles([minute(2)]));
      reads.length = 0;
      await mine.upsert("NVDA.US", "1m", CandleBatches.fromCandles([minute(3)]));
      expect(reads).toEqual(["GetItemCommand"]);
    } finally {
      api.services.db.client.middlewareStack.remove("candleReads");
    }
    const stored = (await api.services.candles.load("NVDA.US", "1m", ["2024-03-15"])).get("2024-03-15")!;
    expect(Array.from(stored.timestamp)).toEqual([0, 1, 2, 3].map((index) => minute(index).timestamp));
  });
});

describe("bucket summaries", () => {
  const day = (date: string, minutes: number[]) =>
    CandleBatches.fromCandles(minutes.map((m) => ({ ...minute(m), timestamp: Date.parse(`${date}T13:30:00Z`) / 1000 + m * 60 })));
  /** A bucket item as the store wrote it before summaries existed (no summary item beside it). */
  const legacyBucket = (code: string, bucket: string, batch: ReturnType<typeof day>) =>
    new Repository<Record<string, unknown>>(api.services.db, { type: "CandleBucket", key: () => Keys.candleBucket(code, "1m", bucket) }).put({
      code,
      period: "1m",
      bucket,
      count: batch.length,
      sessions: { Intraday: batch.length },
      data: CandleBatches.pack(batch),
      version: 1,
    });

  it("follow every write and delete of a bucket, from a fresh store too", async () => {
    const store = new DynamoCandleStore(api.services.db);
    await store.upsert("NVDA.US", "1m", day("2024-04-01", [0, 1, 2]));
    // A symbol and period first written now has nothing from before summaries: marked complete at once.
    const marker = await api.services.db.client.send(
      new QueryCommand({
        TableName: api.services.db.tableName,
        KeyConditionExpression: "pk = :pk AND sk = :sk",
        ExpressionAttributeValues: { ":pk": Keys.candleSummaryPartition("NVDA.US", "1m"), ":sk": "~complete" },
      }),
    );
    expect(marker.Items).toHaveLength(1);
    await store.upsert("NVDA.US", "1m", day("2024-04-02", [0]));
    await store.upsert("NVDA.US", "1m", day("2024-04-01", [2, 3]));
    const counts = async (s: DynamoCandleStore) => (await s.summaries("NVDA.US", "1m", ["2024-04-01", "2024-04-30"])).map((x) => [x.bucket, x.count]);
    expect(await counts(store)).toEqual([
      ["2024-04-01", 4],
      ["2024-04-02", 1],
    ]);
    await store.replace("NVDA.US", "1m", "2024-04-02", CandleBatches.empty());
    expect(await counts(store)).toEqual([["2024-04-01", 4]]);
    await store.replace("NVDA.US", "1m", "2024-04-02", day("2024-04-02", [5, 6]));
    expect(await counts(new DynamoCandleStore(api.services.db))).toEqual([
      ["2024-04-01", 4],
      ["2024-04-02", 2],
    ]);
  });

  it("are written once for candles stored before them, never over a later write's", async () => {
    await legacyBucket("AMD.US", "2024-05-01", day("2024-05-01", [0, 1]));
    await legacyBucket("AMD.US", "2024-05-02", day("2024-05-02", [0, 1, 2]));
    // An emptying of 2024-05-02 that raced the first read: its summary (version 2) is there, the bucket as that read saw it too.
    await api.services.db.client.send(
      new PutCommand({
        TableName: api.services.db.tableName,
        Item: { ...Keys.candleSummary("AMD.US", "1m", "2024-05-02"), _type: "CandleSummary", bucket: "2024-05-02", count: 0, sessions: {}, version: 2 },
      }),
    );
    const first = await new DynamoCandleStore(api.services.db).summaries("AMD.US", "1m", ["2024-05-01", "2024-05-31"]);
    expect(first.map((x) => [x.bucket, x.count])).toEqual([
      ["2024-05-01", 2],
      ["2024-05-02", 3],
    ]);
    const written = await api.services.db.client.send(
      new QueryCommand({
        TableName: api.services.db.tableName,
        KeyConditionExpression: "pk = :pk",
        ExpressionAttributeValues: { ":pk": Keys.candleSummaryPartition("AMD.US", "1m") },
      }),
    );
    expect(written.Items?.map((item) => [item.sk, item.count, item.version])).toEqual([
      ["2024-05-01", 2, 1],
      ["2024-05-02", 0, 2],
      ["~complete", undefined, undefined],
    ]);
    const again = await new DynamoCandleStore(api.services.db).summaries("AMD.US", "1m");
    expect(again.map((x) => [x.bucket, x.count])).toEqual([["2024-05-01", 2]]);
  });

  it("an emptied bucket loads as absent and counts on from its version when filled again", async () => {
    const store = new DynamoCandleStore(api.services.db);
    await store.upsert("TSLA.US", "1m", day("2024-06-03", [0, 1]));
    await store.replace("TSLA.US", "1m", "2024-06-03", CandleBatches.empty());
    expect((await store.load("TSLA.US", "1m", ["2024-06-03"])).size).toBe(0);
    expect(await store.loadBetween("TSLA.US", "1m", "2024-06-01", "2024-06-30")).toEqual([]);
    expect(await store.summaries("TSLA.US", "1m")).toEqual([]);
    expect((await store.upsert("TSLA.US", "1m", day("2024-06-03", [4]))).added).toBe(1);
    expect((await store.summaries("TSLA.US", "1m")).map((x) => [x.bucket, x.count])).toEqual([["2024-06-03", 1]]);
    await store.upsert("TSLA.US", "1m", day("2024-06-05", [7, 8]));
    await store.upsert("TSLA.US", "1m", day("2024-07-01", [9]));
    const june = await store.loadBetween("TSLA.US", "1m", "2024-06-01", "2024-06-30");
    expect(june.map((batch) => Array.from(batch.timestamp))).toEqual([
      [Date.parse("2024-06-03T13:34:00Z") / 1000],
      [Date.parse("2024-06-05T13:37:00Z") / 1000, Date.parse("2024-06-05T13:38:00Z") / 1000],
    ]);
    const summary = await api.services.db.client.send(
      new QueryCommand({
        TableName: api.services.db.tableName,
        KeyConditionExpression: "pk = :pk AND sk = :sk",
        ExpressionAttributeValues: { ":pk": Keys.candleSummaryPartition("TSLA.US", "1m"), ":sk": "2024-06-03" },
      }),
    );
    expect(summary.Items?.[0]?.version).toBe(3);
  });
});

describe("a bucket's sessions kept apart", () => {
  /** A day of minutes around the regular session: two pre-market, three regular, two after-hours. */
  const sessions = ["Pre", "Pre", "Intraday", "Intraday", "Intraday", "Post", "Post"] as const;
  const mixedDay = (date: string) =>
    CandleBatches.fromCandles(
      sessions.map((trade_session, index) => ({ ...minute(index), timestamp: Date.parse(`${date}T12:00:00Z`) / 1000 + index * 1800, trade_session })),
    );
  const timesOf = (batches: { timestamp: Float64Array }[]) => batches.map((batch) => Array.from(batch.timestamp));

  it("stores the regular session and the extended hours as two blocks: every read gives both in time order, a regular read only the one", async () => {
    const store = new DynamoCandleStore(api.services.db);
    const day = mixedDay("2024-08-01");
    await store.upsert("META.US", "1m", day);
    const stored = await api.services.db.client.send(
      new QueryCommand({
        TableName: api.services.db.tableName,
        KeyConditionExpression: "pk = :pk",
        ExpressionAttributeValues: { ":pk": Keys.candlePartition("META.US", "1m") },
      }),
    );
    const item = stored.Items![0]!;
    expect([item.split, CandleBatches.unpack(item.data).length, CandleBatches.unpack(item.extended).length]).toEqual([true, 3, 4]);

    const all = Array.from(day.timestamp);
    expect(timesOf(await store.loadBetween("META.US", "1m", "2024-08-01", "2024-08-01"))).toEqual([all]);
    expect(timesOf([...(await store.load("META.US", "1m", ["2024-08-01"])).values()])).toEqual([all]);
    const [regular] = await store.loadBetween("META.US", "1m", "2024-08-01", "2024-08-01", "regular");
    expect([Array.from(regular!.timestamp), Array.from(regular!.session)]).toEqual([all.slice(2, 5), [0, 0, 0]]);
    expect(Array.from(regular!.close)).toEqual([102.5, 103.5, 104.5]);

    // A merge into the bucket keeps both blocks whole; a day without extended hours drops its block.
    const more = CandleBatches.fromCandles([{ ...minute(0), timestamp: all[6]! + 60, trade_session: "Post" }]);
    expect((await store.upsert("META.US", "1m", more)).added).toBe(1);
    const [merged] = await store.loadBetween("META.US", "1m", "2024-08-01", "2024-08-01");
    expect(Array.from(merged!.timestamp)).toEqual([...all, all[6]! + 60]);
    await store.replace("META.US", "1m", "2024-08-01", CandleBatches.slice(day, 2, 5));
    expect(timesOf(await store.loadBetween("META.US", "1m", "2024-08-01", "2024-08-01"))).toEqual([all.slice(2, 5)]);
  });

  it("reads a bucket written before them (every session in one block) as it was, and its regular session alone when asked", async () => {
    const day = mixedDay("2024-08-02");
    await new Repository<Record<string, unknown>>(api.services.db, { type: "CandleBucket", key: () => Keys.candleBucket("AMZN.US", "1m", "2024-08-02") }).put({
      code: "AMZN.US",
      period: "1m",
      bucket: "2024-08-02",
      count: day.length,
      sessions: { Pre: 2, Intraday: 3, Post: 2 },
      data: CandleBatches.pack(day),
      version: 1,
    });
    const store = new DynamoCandleStore(api.services.db);
    const all = Array.from(day.timestamp);
    expect(timesOf(await store.loadBetween("AMZN.US", "1m", "2024-08-02", "2024-08-02"))).toEqual([all]);
    expect(timesOf(await store.loadBetween("AMZN.US", "1m", "2024-08-02", "2024-08-02", "regular"))).toEqual([all.slice(2, 5)]);
  });
});

describe("the regular-session reads' cache", () => {
  const dayOf = (date: string, minutes: number[]) =>
    CandleBatches.fromCandles(minutes.map((m) => ({ ...minute(m), timestamp: Date.parse(`${date}T14:30:00Z`) / 1000 + m * 60 })));
  const closes = (batches: { close: Float64Array }[]) => batches.map((batch) => Array.from(batch.close));
  /** Counts the store's reads of bucket items (the cache is asked first). */
  const bucketReads = (store: DynamoCandleStore) => {
    const buckets = (store as any).buckets;
    const queryAll = buckets.queryAll.bind(buckets);
    const counted = { reads: 0 };
    buckets.queryAll = (...args: unknown[]) => {
      counted.reads++;
      return queryAll(...args);
    };
    return counted;
  };

  it("serves a range read again from memory while the buckets' summaries name the versions it read, and reads a bucket another process wrote since", async () => {
    const writer = new DynamoCandleStore(api.services.db);
    await writer.upsert("NFLX.US", "1m", dayOf("2024-09-03", [0, 1]));
    await writer.upsert("NFLX.US", "1m", dayOf("2024-09-04", [0]));
    const reader = new DynamoCandleStore(api.services.db);
    const counted = bucketReads(reader);
    // A range none of whose buckets are held is read without asking the summaries first.
    const summaries = (reader as any).summaryItems;
    const querySummaries = summaries.queryAll.bind(summaries);
    let asked = 0;
    summaries.queryAll = (...args: unknown[]) => {
      asked++;
      return querySummaries(...args);
    };
    const first = await reader.loadBetween("NFLX.US", "1m", "2024-09-01", "2024-09-30", "regular");
    expect(asked).toBe(0);
    const again = await reader.loadBetween("NFLX.US", "1m", "2024-09-01", "2024-09-30", "regular");
    expect(closes(again)).toEqual([[100.5, 101.5], [100.5]]);
    expect(again[0]).toBe(first[0]);
    expect(counted.reads).toBe(1);
    expect(reader.cache.size).toBe(3);

    // Another store (another Lambda's) changes a bucket: its summary's version moves, the read goes to the table.
    await writer.upsert("NFLX.US", "1m", dayOf("2024-09-04", [5]));
    expect(closes(await reader.loadBetween("NFLX.US", "1m", "2024-09-01", "2024-09-30", "regular"))).toEqual([
      [100.5, 101.5],
      [100.5, 105.5],
    ]);
    expect(counted.reads).toBe(2);
    await writer.replace("NFLX.US", "1m", "2024-09-03", CandleBatches.empty());
    expect(closes(await reader.loadBetween("NFLX.US", "1m", "2024-09-01", "2024-09-30", "regular"))).toEqual([[100.5, 105.5]]);
    expect(counted.reads).toBe(2);
  });

  it("keeps at most its capacity of candles, the least recently used out first, and nothing at 0", async () => {
    const store = new DynamoCandleStore(api.services.db, { cacheCandles: 3 });
    await store.upsert("INTC.US", "1m", dayOf("2024-10-01", [0, 1]));
    await store.upsert("INTC.US", "1m", dayOf("2024-10-02", [0, 1]));
    const counted = bucketReads(store);
    await store.loadBetween("INTC.US", "1m", "2024-10-01", "2024-10-01", "regular");
    await store.loadBetween("INTC.US", "1m", "2024-10-02", "2024-10-02", "regular");
    expect(store.cache.size).toBe(2);
    await store.loadBetween("INTC.US", "1m", "2024-10-02", "2024-10-02", "regular");
    expect(counted.reads).toBe(2);
    await store.loadBetween("INTC.US", "1m", "2024-10-01", "2024-10-01", "regular");
    expect(counted.reads).toBe(3);

    const none = new DynamoCandleStore(api.services.db, { cacheCandles: 0 });
    const uncached = bucketReads(none);
    await none.loadBetween("INTC.US", "1m", "2024-10-01", "2024-10-02", "regular");
    await none.loadBetween("INTC.US", "1m", "2024-10-01", "2024-10-02", "regular");
    expect([uncached.reads, none.cache.size]).toEqual([2, 0]);
  });
});
