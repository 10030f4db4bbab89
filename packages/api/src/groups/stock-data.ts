import { createRoute, z } from "@hono/zod-openapi";
import {
  Candles,
  MAX_PAGE_SIZE,
  StockData,
  StockDataCreate,
  StockDataDeleteQuery,
  StockDataQuery,
  StockDataResponse,
  StoredPeriod,
} from "@tp/core/candles/index";
import { bearer, createGroup, errorResponses, json, jsonBody, requireAdmin, requireAuth, type GroupServices } from "../http/group";

const CodeParam = z.object({
  code: z
    .string()
    .min(1)
    .max(32)
    .transform((code) => code.toUpperCase()),
});

const CreateResult = z
  .object({ success: z.boolean(), message: z.string(), created: z.boolean(), period: StoredPeriod, data: StockData })
  .meta({ id: "StockDataCreateResult" });

const DeleteResult = z
  .object({
    success: z.boolean(),
    message: z.string(),
    code: z.string(),
    deleted_count: z.number().int(),
    deleted_by_period: z.record(z.string(), z.number().int()),
  })
  .meta({ id: "StockDataDeleteResult" });

const tags = ["stock-data"];

/** Candle storage: create (upsert), list with exact paging, one candle, codes, delete a range. */
export function stockDataGroup(services: GroupServices<"candles">) {
  const app = createGroup();
  app.use("/api/v1/stock-data", requireAuth(services));
  app.use("/api/v1/stock-data/*", requireAuth(services));
  app.use("/api/v1/stock-codes", requireAuth(services));

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/v1/stock-data",
      tags,
      summary: "Create or overwrite one candle (keyed by code, period and timestamp)",
      description:
        "`period` (1m, 5m, 1h, 1d; default 1h) is an addition to StockDataCreate. Answers 201 when new, 200 when it overwrote. Candles are shared: overwriting a stored one is for administrators (403 `ACCESS_DENIED` otherwise; docs/security.md).",
      security: bearer,
      request: jsonBody(StockDataCreate),
      responses: { 201: json(CreateResult, "Created"), 200: json(CreateResult, "Overwritten"), ...errorResponses({ auth: true }) },
    }),
    async (c) => {
      const result = await Candles.create(services.candles, c.req.valid("json"), c.get("principal").user);
      return c.json(result, result.created ? 201 : 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/v1/stock-data",
      tags,
      summary: "List candles with exact totals",
      description: `Dates are ISO dates or date-times read in \`timezone\` (IANA, default UTC) when they carry no offset; a date alone as \`end_date\` includes that whole day. \`page_size\` is at most ${MAX_PAGE_SIZE}. Without \`code\`, symbols are listed in code order. Sorting by a field other than timestamp reads the whole range and is limited to 200,000 matching candles.`,
      security: bearer,
      request: { query: StockDataQuery },
      responses: { 200: json(StockDataResponse, "One page"), ...errorResponses({ auth: true }) },
    }),
    async (c) => c.json(await Candles.list(services.candles, c.req.valid("query")), 200),
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/v1/stock-data/{code}/{timestamp}",
      tags,
      summary: "One candle by code and UNIX timestamp",
      description:
        "With `period`, only that period is searched; otherwise the finest period with a candle at exactly that timestamp answers (1m, then 5m, 1h, 1d). The answer names the period.",
      security: bearer,
      request: {
        params: CodeParam.extend({ timestamp: z.coerce.number().int().nonnegative() }),
        query: z.object({ period: StoredPeriod.optional() }),
      },
      responses: {
        200: json(StockData.extend({ period: StoredPeriod }), "The candle"),
        ...errorResponses({ auth: true, notFound: ["CANDLE_NOT_FOUND"] }),
      },
    }),
    async (c) => {
      const { code, timestamp } = c.req.valid("param");
      return c.json(await Candles.get(services.candles, code, timestamp, c.req.valid("query").period), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/v1/stock-codes",
      tags,
      summary: "Every symbol with stored candles",
      security: bearer,
      responses: { 200: json(z.object({ codes: z.array(z.string()) }).meta({ id: "StockCodeList" }), "Codes"), ...errorResponses({ auth: true }) },
    }),
    async (c) => c.json({ codes: await services.candles.codes() }, 200),
  );

  app.openapi(
    createRoute({
      method: "delete",
      path: "/api/v1/stock-data/{code}",
      tags,
      summary: "Delete a date range of one period, or of all periods when `period` is omitted",
      description: "Candles are shared by every user: deleting them is for administrators (403 `ACCESS_DENIED` otherwise).",
      security: bearer,
      middleware: [requireAdmin],
      request: { params: CodeParam, query: StockDataDeleteQuery },
      responses: { 200: json(DeleteResult, "How many were deleted"), ...errorResponses({ auth: true }) },
    }),
    async (c) => c.json(await Candles.remove(services.candles, c.req.valid("param").code, c.req.valid("query")), 200),
  );

  return app;
}
