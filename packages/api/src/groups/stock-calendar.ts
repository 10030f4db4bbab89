import { createRoute, z } from "@hono/zod-openapi";
import {
  CalendarQuery,
  GetCalendarResponse,
  InitCalendarRequest,
  InitCalendarResponse,
  MAX_CALENDAR_DAYS,
  MissingDatesQuery,
  MissingDatesResponse,
  TradingCalendar,
  VerifyDataRequest,
  VerifyDataResponse,
} from "@tp/core/trading-calendar/index";
import {
  bearer,
  createGroup,
  errorResponse,
  errorResponses,
  json,
  jsonBody,
  providerErrorResponses,
  requireAdmin,
  requireAuth,
  type GroupServices,
} from "../http/group";

const SymbolParam = z.object({ symbol: z.string().min(1).max(32) });
const tags = ["stock-calendar"];
const rangeNote = `Dates are exchange-local; a range is at most ${MAX_CALENDAR_DAYS} days and must lie inside the market calendar (2020–2028).`;
const symbolErrors = {
  400: errorResponse("INVALID_SYMBOL or MARKET_NOT_SUPPORTED"),
  ...errorResponses({ auth: true, notFound: true }),
  // The symbol is looked up at the provider, and its trading days asked of it.
  ...providerErrorResponses(),
};

/** Per-symbol trading calendars and the data-readiness checks built on them. */
export function stockCalendarGroup(services: GroupServices<"calendar">) {
  const app = createGroup();
  app.use("/api/v1/stock-calendar/*", requireAuth(services));

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/v1/stock-calendar/{symbol}/init",
      tags,
      summary: "Create the symbol's calendar entries for a range from the provider's trading days",
      description: `Idempotent: dates that already have an entry are left as they are and counted in \`skipped_count\`. Calendars are shared by every user: changing them is for administrators (403 \`ACCESS_DENIED\` otherwise; the data sync service settles subscribed symbols' calendars itself). ${rangeNote}`,
      security: bearer,
      middleware: [requireAdmin],
      request: { params: SymbolParam, ...jsonBody(InitCalendarRequest) },
      responses: { 200: json(InitCalendarResponse, "Created and skipped counts"), ...symbolErrors },
    }),
    async (c) => c.json(await TradingCalendar.init(services.calendar, c.req.valid("param").symbol, c.req.valid("json")), 200),
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/v1/stock-calendar/{symbol}/missing",
      tags,
      summary: "Trading dates whose regular-session bars in a period are incomplete",
      description: `Only days whose regular session has ended are checked. Without dates: the 30 days ending today; with one edge, 30 days from or to it. Dates without a stored entry use the market calendar (\`calendar_source\`). ${rangeNote}`,
      security: bearer,
      request: { params: SymbolParam, query: MissingDatesQuery },
      responses: { 200: json(MissingDatesResponse, "Missing dates, oldest first"), ...symbolErrors },
    }),
    async (c) => c.json(await TradingCalendar.missing(services.calendar, c.req.valid("param").symbol, c.req.valid("query")), 200),
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/v1/stock-calendar/{symbol}/verify",
      tags,
      summary: "Coverage of a range in each period (default all four)",
      description: `A day is ready when every requested period is. Dates without a stored entry use the market calendar. ${rangeNote}`,
      security: bearer,
      request: { params: SymbolParam, ...jsonBody(VerifyDataRequest) },
      responses: { 200: json(VerifyDataResponse, "Coverage"), ...symbolErrors },
    }),
    async (c) => c.json(await TradingCalendar.verify(services.calendar, c.req.valid("param").symbol, c.req.valid("json")), 200),
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/v1/stock-calendar/{symbol}",
      tags,
      summary: "The stored calendar entries of a range with their sessions and per-period data readiness",
      description: rangeNote,
      security: bearer,
      request: { params: SymbolParam, query: CalendarQuery },
      responses: { 200: json(GetCalendarResponse, "Entries in date order"), ...symbolErrors },
    }),
    async (c) => c.json(await TradingCalendar.get(services.calendar, c.req.valid("param").symbol, c.req.valid("query")), 200),
  );

  return app;
}
