import type { APIGatewayProxyEventV2, Context } from "aws-lambda";
import { handle } from "hono/aws-lambda";
import type { Services } from "@tp/adapters/services";
import { createSingleGroupApp, type Group } from "@tp/api/http/group";
import { observed } from "../observability";
import { lambdaServices } from "../runtime";

type Handler = (event: APIGatewayProxyEventV2, context: Context) => Promise<unknown>;

/**
 * A Lambda handler serving one endpoint group: the function's module imports that group alone,
 * so its bundle holds no other group. `app` builds the whole app instead (the docs function).
 */
export function httpHandler(group: (services: Services) => Group, options: { app?: boolean } = {}): Handler {
  let handler: Handler | undefined;
  return observed("http", async (event, context) => {
    if (!handler) {
      const services = await lambdaServices();
      handler = handle(options.app ? group(services) : createSingleGroupApp(group, services)) as unknown as Handler;
    }
    return handler(event, context);
  });
}
