import type { APIGatewayProxyEventV2, Context } from "aws-lambda";
import { handle } from "hono/aws-lambda";
import { createApp, createGroupApp, type GroupName } from "@tp/api";
import { lambdaServices } from "../runtime";

type Handler = (event: APIGatewayProxyEventV2, context: Context) => Promise<unknown>;

/** A Lambda handler serving one endpoint group (or every group, for the docs function). */
export function httpHandler(group: GroupName | "all"): Handler {
  let handler: Handler | undefined;
  return async (event, context) => {
    if (!handler) {
      const services = await lambdaServices();
      handler = handle(group === "all" ? createApp(services) : createGroupApp(group, services)) as unknown as Handler;
    }
    return handler(event, context);
  };
}
