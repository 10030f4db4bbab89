import { z } from "zod";

/**
 * The session a bar, trade or quote belongs to, named as LongPort's `TradeSession` enum:
 * `Intraday` (regular hours), `Pre` (US pre-market), `Post` (US after-hours) and `Overnight`
 * (US overnight session, which belongs to the next trading day).
 */
export const TradeSession = z.enum(["Intraday", "Pre", "Post", "Overnight"]);
export type TradeSession = z.infer<typeof TradeSession>;

/** Numeric session codes used in typed arrays; they equal LongPort's Node `TradeSession` numbers. */
export const TradeSessionCode: Readonly<Record<TradeSession, number>> = { Intraday: 0, Pre: 1, Post: 2, Overnight: 3 };

/** Session names by numeric code. */
export const TradeSessionByCode: readonly TradeSession[] = ["Intraday", "Pre", "Post", "Overnight"];
