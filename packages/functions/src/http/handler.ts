import type { APIGatewayProxyEventV2, Context } from "aws-lambda";
import { handle } from "hono/aws-lambda";
import { audit, principals } from "@tp/adapters/compose/users";
import type { ServiceContext } from "@tp/adapters/compose/context";
import { createSingleGroupApp, type Group, type GroupServices } from "@tp/api/http/group";
import { observed } from "../observability";
import { lambdaComposition } from "../runtime";

type Handler = (event: APIGatewayProxyEventV2, context: Context) => Promise<unknown>;

/**
 * A Lambda handler serving one endpoint group: the function's module imports that group alone,
 * and `compose` builds the services the group names (besides the configuration and principals
 * every group has), so its bundle holds no other group and no adapter the group never calls.
 * `app` builds the whole app instead (the docs function).
 */
export function httpHandler<S extends GroupServices>(
  group: (services: S) => Group,
  compose: (context: ServiceContext) => Omit<S, keyof GroupServices>,
  options: { app?: boolean } = {},
): Handler {
  const services = lambdaComposition((c) => ({ config: c.config, principals: principals(c), audit: audit(c), ...compose(c) }) as S);
  let handler: Handler | undefined;
  return observed("http", async (event, context) => {
    if (!handler) {
      const composed = await services();
      handler = handle(options.app ? group(composed) : createSingleGroupApp(group, composed)) as unknown as Handler;
    }
    return handler(event, context);
  });
}
