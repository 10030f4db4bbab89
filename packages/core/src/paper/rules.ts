import { DomainError } from "../errors";
import * as OrderRules from "../engine/order-rules";
import type { TickTable } from "../market/tick-size";
import type { OrderType, TimeInForce } from "../provider/order-types";
import { tradingDayOnOrBefore } from "./sessions";
import type { PaperMarket } from "./types";

/**
 * The paper broker's checks on top of LongPort's order-type table (`checkOrderRules`), in its
 * LongPort-shaped words: the order-term rules are the engine's (`engine/order-rules.ts`: whole
 * shares, board lots and odd lots, the tick grid, trailing percentages), to which the broker adds
 * how to send the order instead, and `GTD` dates. Each returns every problem it finds; an empty
 * list means acceptable.
 */

/** A reason the broker refuses a request, with a stable code. */
export interface BrokerProblem {
  field: string | null;
  code: string;
  message: string;
}

/**
 * A broker refusal as data, as the engine's denials are: a stable code, why, the numbers behind it
 * (`details`: `order_id` when the refused order was kept, `required`/`available`, `problems`...) and
 * the HTTP status an edge that throws answers with (`refusalError`).
 */
export interface BrokerRefusal {
  status: number;
  code: string;
  message: string;
  details: Record<string, unknown>;
}

/** What an order operation answers: its value, or the broker's refusal. */
export type BrokerResult<T> = { ok: true; value: T } | { ok: false; refusal: BrokerRefusal };

/** The one way to build a refusal: 400 unless told (an unknown order is 404). */
export function refusal(code: string, message: string, details: Record<string, unknown> = {}, status = 400): BrokerRefusal {
  return { status, code, message, details };
}

/** One refusal for a list of problems: the first problem's code, every message, and the list itself. */
export function refusalOf(problems: BrokerProblem[]): BrokerRefusal {
  return refusal(problems[0].code, problems.map((p) => p.message).join("; "), { problems });
}

/** An operation's value as its result. */
export function accepted(): BrokerResult<void>;
export function accepted<T>(value: T): BrokerResult<T>;
export function accepted<T>(value?: T): BrokerResult<T | undefined> {
  return { ok: true, value };
}

/** A refusal as an operation's result. */
export const refused = (refusal: BrokerRefusal): { ok: false; refusal: BrokerRefusal } => ({ ok: false, refusal });

/**
 * A refusal as the domain error that answers it where a call must throw: the `OrderGateway` port
 * (LongPort's gateway throws its refusals too) and the reads. The pass-through endpoints turn it
 * back into data (`success: false`); other endpoints answer its status.
 */
export function refusalError({ status, code, message, details }: BrokerRefusal): DomainError {
  return new DomainError(status, code, message, details);
}

/** The result's value, or its refusal thrown (`refusalError`). */
export function valueOrThrow<T>(result: BrokerResult<T>): T {
  if (!result.ok) throw refusalError(result.refusal);
  return result.value;
}

const problemOf = ({ field, code, message }: OrderRules.TermProblem): BrokerProblem => ({ field, code, message });

/** Quantity rules: whole shares; in HK a multiple of the board lot, except `ODD` orders, which are for fewer shares than one lot. */
export function quantityProblems(market: PaperMarket, orderType: OrderType, quantity: string, lotSize: number, field = "submitted_quantity"): BrokerProblem[] {
  const odd = market === "HK" && orderType === "ODD";
  return OrderRules.quantityProblems(quantity, market === "HK" ? lotSize : 1, odd, field).map((problem) => {
    const { values } = problem;
    if (problem.code === "INVALID_ODD_LOT_QUANTITY") return problemOf({ ...problem, message: `${problem.message}: send whole lots as LO` });
    if (problem.code !== "INVALID_LOT_SIZE") return problemOf(problem);
    return problemOf({
      ...problem,
      message: `${problem.message}; send ${values.whole_lots} as ${orderType} and the ${values.odd_shares} odd shares as an ODD order`,
    });
  });
}

/** Prices must lie on the exchange's tick grid for their price band. */
export function tickProblems(table: TickTable, prices: { field: string; value: string | null | undefined }[]): BrokerProblem[] {
  return OrderRules.tickProblems(table, prices).map(problemOf);
}

/** `TSLPPCT` trails by a percentage strictly between 0 and 100. */
export function trailingProblems(orderType: OrderType, trailingPercent: string | null | undefined): BrokerProblem[] {
  return orderType === "TSLPPCT" ? OrderRules.trailingPercentProblems(trailingPercent).map(problemOf) : [];
}

/** A `GTD` order's `expire_date` must be a trading date at or after the date the order is accepted for. */
export function expireDateProblems(market: PaperMarket, timeInForce: TimeInForce, expireDate: string | null | undefined, tradingDate: string): BrokerProblem[] {
  if (timeInForce !== "GTD" || !expireDate) return [];
  let lastDay: string | null;
  try {
    lastDay = tradingDayOnOrBefore(market, expireDate);
  } catch (error) {
    if (error instanceof DomainError) return [{ field: "expire_date", code: "EXPIRE_DATE_INVALID", message: `expire_date: ${error.message}` }];
    throw error;
  }
  if (!lastDay || lastDay < tradingDate) {
    return [
      {
        field: "expire_date",
        code: "EXPIRE_DATE_INVALID",
        message: `expire_date=${expireDate} leaves no trading day from ${tradingDate} for the order to work`,
      },
    ];
  }
  return [];
}
