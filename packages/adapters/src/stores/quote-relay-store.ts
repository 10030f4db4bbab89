import { randomUUID } from "node:crypto";
import type { PushCandlestickEvent } from "@tp/core/provider/quote-types";
import type { Db } from "../dynamo/db";
import { gunzipJson, gzipJson } from "../dynamo/gzip-json";
import { Keys } from "../dynamo/keys";
import { Repository } from "../dynamo/repository";

/**
 * The quote relay's items (docs/live-trading.md "One quote connection"): LongPort allows one quote
 * connection per account, held by one worker task; every other process asks it through the table.
 * A request is an item in one partition, oldest first; the owner takes it (an atomic delete, so one
 * owner answers it), answers it in an item of its own, and publishes the bars it closed in one item
 * the other tasks read each step. Everything expires within minutes (TTL).
 */

/** A call of a `MarketData` method by name with its arguments (plain JSON). */
export interface RelayRequest {
  id: string;
  method: string;
  args: unknown[];
  /** Wall ms after which nobody waits for the answer: the owner drops it. */
  deadline: number;
}

/** The owner's answer: the method's result, or its error as the service answers errors. */
export interface RelayAnswer {
  id: string;
  result?: unknown;
  error?: { status: number; code: string; message: string; extra: Record<string, unknown> };
}

/** The bars the owner closed lately, as candlestick pushes (the newest few of each feed). */
export interface RelayedBars {
  at: number;
  pushes: PushCandlestickEvent[];
}

interface RequestItem {
  id: string;
  body: Uint8Array;
}

interface AnswerItem {
  id: string;
  body: Uint8Array;
}

interface BarsItem {
  body: Uint8Array;
}

/** How long a relay item is kept (s): far longer than anyone waits for it. */
const KEPT_S = 300;

export class DynamoQuoteRelayStore {
  private readonly requests: Repository<RequestItem>;
  private readonly answers: Repository<AnswerItem>;
  private readonly bars: Repository<BarsItem>;

  constructor(
    db: Db,
    private readonly wall: () => number = Date.now,
  ) {
    const expiresAt = () => Math.ceil(this.wall() / 1000) + KEPT_S;
    this.requests = new Repository<RequestItem>(db, { type: "QuoteRelayRequest", key: (item) => Keys.quoteRelayRequest(item.id), expiresAt });
    this.answers = new Repository<AnswerItem>(db, { type: "QuoteRelayAnswer", key: (item) => Keys.quoteRelayAnswer(item.id), expiresAt });
    this.bars = new Repository<BarsItem>(db, { type: "QuoteRelayBars", key: () => Keys.quoteRelayBars(), expiresAt });
  }

  /** A new request's id: its time first, so the owner takes the oldest first. */
  newId(): string {
    return `${String(this.wall()).padStart(13, "0")}#${randomUUID()}`;
  }

  async ask(request: RelayRequest): Promise<void> {
    await this.requests.put({ id: request.id, body: gzipJson(request) });
  }

  /** The owner takes up to `limit` requests, oldest first: each is deleted as it is taken, so no two owners answer one. */
  async take(limit: number): Promise<RelayRequest[]> {
    const { items } = await this.requests.query(Keys.quoteRelayRequestsPartition, { limit, consistent: true });
    const taken: RelayRequest[] = [];
    for (const item of items) {
      const claimed = await this.requests.delete(Keys.quoteRelayRequest(item.id));
      if (claimed) taken.push(gunzipJson<RelayRequest>(claimed.body));
    }
    return taken;
  }

  async answer(answer: RelayAnswer): Promise<void> {
    await this.answers.put({ id: answer.id, body: gzipJson(answer) });
  }

  /** The answer to a request, once the owner wrote it. */
  async answerOf(id: string): Promise<RelayAnswer | undefined> {
    const item = await this.answers.get(Keys.quoteRelayAnswer(id), { consistent: true });
    return item && gunzipJson<RelayAnswer>(item.body);
  }

  async publishBars(bars: RelayedBars): Promise<void> {
    await this.bars.put({ body: gzipJson(bars) });
  }

  /** The bars the owner published last (an eventually consistent read: a step late at worst). */
  async latestBars(): Promise<RelayedBars | undefined> {
    const item = await this.bars.get(Keys.quoteRelayBars());
    return item && gunzipJson<RelayedBars>(item.body);
  }
}
