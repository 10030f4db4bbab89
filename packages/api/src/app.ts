import type { Services } from "@tp/adapters/services";
import { groups, type GroupName } from "./groups";
import { mountDocsPage } from "./http/docs-page";
import { createGroup, createSingleGroupApp, withConventions, type Group } from "./http/group";

const openApiInfo = {
  openapi: "3.1.0",
  info: {
    title: "Trading platform API",
    version: "0.1.0",
    description:
      "Serverless trading-platform service. Log in with GET /api/v1/captcha then POST /api/v1/login, and send `Authorization: Bearer <access_token>`. Errors carry `detail`, `error_code`, `timestamp`, `path`; 422 lists every problem in `detail`.",
  },
};

function registerSecurity(app: Group) {
  app.openAPIRegistry.registerComponent("securitySchemes", "bearerAuth", {
    type: "http",
    scheme: "bearer",
    bearerFormat: "JWT",
  });
}

/** One group as its own app with the shared conventions, by name (tests and tools; a Lambda imports its group alone, `http/group.ts`). */
export function createGroupApp(name: GroupName, services: Services): Group {
  return createSingleGroupApp(groups[name], services);
}

/** Every group on one app, with /openapi.json and /docs: what the embedded runtime (and the docs Lambda) serves. */
export function createApp(services: Services): Group {
  const app = withConventions(createGroup(), services);
  for (const build of Object.values(groups)) app.route("/", build(services));
  registerSecurity(app);
  app.doc31("/openapi.json", openApiInfo);
  mountDocsPage(app, { title: "Trading platform API", specUrl: "/openapi.json" });
  return app;
}
