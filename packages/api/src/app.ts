import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Services } from "@tp/adapters/services";
import { asyncApiDocument } from "./asyncapi";
import { groups, type GroupName } from "./groups";
import { assetsGroup } from "./groups/assets";
import { indicatorsGroup } from "./groups/indicators";
import { strategiesGroup } from "./groups/strategies";
import { mountDocsPage } from "./http/docs-page";
import { ErrorBody } from "./http/errors";
import { finishDocument } from "./http/openapi";
import { withConditionalRequests } from "./http/etag";
import { createGroup, createSingleGroupApp, withConventions, type Group, type GroupServices } from "./http/group";

const openApiInfo = {
  openapi: "3.1.0",
  info: {
    title: "Trading platform API",
    version: "0.1.0",
    description:
      "Serverless trading-platform service. Log in with GET /api/v1/captcha then POST /api/v1/login, and send `Authorization: Bearer <access_token>` (or an API key, as `Authorization: Bearer <key>` or `X-API-Key: <key>`). Errors carry `detail`, `error_code`, `timestamp`, `path`; 422 lists every problem in `detail`.",
  },
};

function registerSecurity(app: Group) {
  app.openAPIRegistry.registerComponent("securitySchemes", "bearerAuth", {
    type: "http",
    scheme: "bearer",
    bearerFormat: "JWT",
    description:
      "A sign-in token (POST /api/v1/login) or an API key (tpk_…, POST /api/v1/auth/api-keys); a key may also be sent as `X-API-Key: <key>`. A key's requests are limited to its scopes, its sessions and its rate (docs/security.md).",
  });
}

/** One group as its own app with the shared conventions, by name (tests and tools; a Lambda imports its group alone, `http/group.ts`). */
export function createGroupApp(name: GroupName, services: Services): Group {
  return createSingleGroupApp(groups[name], services);
}

const DOCS_PAGE = { title: "Trading platform API", specUrl: "/openapi.json" };

/** Every group on one app, with /openapi.json (generated from the routes), /asyncapi.json (the sockets) and /docs: what the embedded runtime serves. */
export function createApp(services: Services): Group {
  const app = withConventions(createGroup(), services);
  for (const build of Object.values(groups)) app.route("/", build(services));
  registerSecurity(app);
  app.openAPIRegistry.register("ErrorBody", ErrorBody);
  let document: unknown;
  app.get("/openapi.json", (c) => c.json((document ??= finishDocument(withConditionalRequests(app.getOpenAPI31Document(openApiInfo as never)))) as object));
  app.get("/asyncapi.json", (c) => c.json(asyncApiDocument(openApiInfo.info.version)));
  mountDocsPage(app, DOCS_PAGE);
  return app;
}

/** The OpenAPI document of `createApp`, as `npm run openapi` wrote it to packages/api/openapi.json. */
export async function openApiDocumentOf(app: Group): Promise<unknown> {
  return (await app.request("/openapi.json")).json();
}

const require = createRequire(import.meta.url);
const writtenDocuments = new Map<string, string>();

/**
 * The docs function's app: /openapi.json and /asyncapi.json from packages/api/openapi.json and
 * asyncapi.json (written by `npm run openapi`; a test holds them equal to the embedded app's
 * documents) and the docs page. It holds no group, so it stays small; the documents are files
 * beside the bundle, each read once.
 */
export function createDocsApp(services: GroupServices): Group {
  const app = withConventions(createGroup(), services);
  for (const name of ["openapi.json", "asyncapi.json"] as const) {
    app.get(`/${name}`, (c) => {
      let text = writtenDocuments.get(name);
      if (text === undefined) {
        text = readFileSync(require.resolve(`@tp/api/${name}`), "utf8");
        writtenDocuments.set(name, text);
      }
      return c.body(text, 200, { "Content-Type": "application/json" });
    });
  }
  mountDocsPage(app, DOCS_PAGE);
  return app;
}

/**
 * The HTTP API's `$default` function: the groups whose list endpoints the interface also spells
 * with a trailing slash (`/api/v1/assets/`, `/api/v1/strategies/`, `/api/v1/indicators/`: route
 * keys cannot end in "/"), and the service's own 404 for every path no route takes.
 */
export function createFallbackApp(services: GroupServices<"assets">): Group {
  const app = withConventions(createGroup(), services);
  for (const build of [assetsGroup, strategiesGroup, indicatorsGroup]) app.route("/", build(services));
  return app;
}
