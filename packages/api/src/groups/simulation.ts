import { createRoute } from "@hono/zod-openapi";
import { SimulationOrders } from "@tp/core/trading/index";
import { bearer, createGroup, errorResponse, errorResponses, json, jsonBody, requireAuth, type GroupServices } from "../http/group";

/**
 * Orders against the simulated venue without a session (docs/trading-sessions.md): the caller's
 * paper account, filled by the paper broker at the selected market data's prices.
 */
export function simulationGroup(services: GroupServices<"paperBroker" | "killSwitch">) {
  const app = createGroup();
  app.use("/api/v1/trading/simulation/*", requireAuth(services));

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/v1/trading/simulation/orders",
      tags: ["trading"],
      summary: "Place an order on the simulated venue (the caller's paper account), outside any session",
      description:
        "`order_type` market (the paper broker's MO), limit (LO at `price`) or stop (MIT triggered at `price`); `time_in_force` day (default) or gtc. Answered as the order stands after arrival: a marketable order may already be `filled`. The paper broker's refusals (market closed, buying power, lot or tick size, short selling) answer 400 with its code and `problems`; bad bodies 422.",
      security: bearer,
      request: jsonBody(SimulationOrders.SimulationOrderCreate),
      responses: {
        201: json(SimulationOrders.SimulationOrderResponse, "The order on the paper account"),
        400: errorResponse(
          "A refusal of the paper broker, its first problem's code (every problem in `problems`): MARKET_CLOSED, INVALID_LOT_SIZE, INVALID_ODD_LOT_QUANTITY, INSUFFICIENT_BUYING_POWER, INSUFFICIENT_POSITION, NO_LIQUIDITY, TOO_MANY_WORKING_ORDERS, ORDER_TYPE_NOT_SUPPORTED, ORDER_TYPE_NOT_ALLOWED_IN_SESSION, CURRENCY_NOT_SUPPORTED, EXPIRE_DATE_INVALID or INVALID_PARAMETER",
        ),
        409: errorResponse(
          "PAPER_ACCOUNT_BUSY: the account kept changing; try again. KILL_SWITCH_ACTIVE: the caller's or the stage's kill switch is tripped (`kill_switch` names it)",
        ),
        ...errorResponses({ auth: true, unavailable: ["ORDER_GATEWAY_UNAVAILABLE"] }),
      },
    }),
    async (c) => {
      const accountId = c.get("principal").user.id;
      await services.killSwitch.guard.check(accountId);
      return c.json(await SimulationOrders.place(services.paperBroker(accountId), accountId, c.req.valid("json")), 201);
    },
  );

  return app;
}
