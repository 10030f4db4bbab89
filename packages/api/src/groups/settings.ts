import { createRoute } from "@hono/zod-openapi";
import {
  AssetModeInput,
  AssetModeSetting,
  DataSourceConfig,
  DataSourceConfigInput,
  ProviderConfig,
  ProviderConfigInput,
  RefreshTokenResponse,
  Settings,
} from "@tp/core/settings/index";
import { BrokerNetwork, BrokerNetworkSettings } from "@tp/core/settings/broker-network";
import { bearer, createGroup, errorResponse, errorResponses, json, jsonBody, providerErrorResponses, requireAuth, type GroupServices } from "../http/group";

const tags = ["settings"];
const adminNote = "Reading needs a token; changing needs an administrator (403 ACCESS_DENIED otherwise).";

/**
 * Service-wide provider settings (which market-data provider, its LongPort credentials, token
 * refresh) and each user's asset mode. Credentials are sealed at rest and masked in answers;
 * a change of provider applies without a restart.
 */
export function settingsGroup(services: GroupServices<"brokerNetwork" | "settings">) {
  const app = createGroup();
  app.use("/api/v1/settings/*", requireAuth(services));
  const deps = services.settings;

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/v1/settings/data-source",
      tags,
      summary: "The selected market-data provider and its (masked) configuration",
      description: adminNote,
      security: bearer,
      responses: { 200: json(DataSourceConfig, "The selection"), ...errorResponses({ auth: true }) },
    }),
    async (c) => c.json(await Settings.dataSource(deps), 200),
  );

  app.openapi(
    createRoute({
      method: "put",
      path: "/api/v1/settings/data-source",
      tags,
      summary: "Select the provider (`simulated` or `longport`) and optionally change its configuration",
      description: `${adminNote} Selecting \`longport\` needs stored or given credentials (422 otherwise). The change applies at once on this instance and within PROVIDER_SETTINGS_TTL_MS (default 5 s) on others; no restart. A GET answer may be sent back: masked secrets keep the stored ones.`,
      security: bearer,
      request: jsonBody(DataSourceConfigInput),
      responses: {
        200: json(DataSourceConfig, "The new selection"),
        409: errorResponse("SETTINGS_CHANGED: changed concurrently; read and retry"),
        ...errorResponses({ auth: true }),
      },
    }),
    async (c) => c.json(await Settings.setDataSource(deps, c.get("principal").user, c.req.valid("json")), 200),
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/v1/settings/provider",
      tags,
      summary: "The LongPort provider configuration, secrets masked",
      description: `${adminNote} Secrets are empty strings while none are stored (\`configured: false\`).`,
      security: bearer,
      responses: { 200: json(ProviderConfig, "The configuration"), ...errorResponses({ auth: true }) },
    }),
    async (c) => c.json(await Settings.provider(deps), 200),
  );

  app.openapi(
    createRoute({
      method: "put",
      path: "/api/v1/settings/provider",
      tags,
      summary: "Set the LongPort credentials, language and overnight flag",
      description: `${adminNote} \`app_key\`, \`app_secret\`, \`access_token\` are required; sending one back masked exactly as answered keeps the stored secret, any other masked value is a 422. Omitted \`language\`/\`enable_overnight\` keep their stored values. Does not change which provider is selected.`,
      security: bearer,
      request: jsonBody(ProviderConfigInput),
      responses: {
        200: json(ProviderConfig, "The stored configuration, masked"),
        409: errorResponse("SETTINGS_CHANGED: changed concurrently; read and retry"),
        ...errorResponses({ auth: true }),
      },
    }),
    async (c) => c.json(await Settings.setProvider(deps, c.get("principal").user, c.req.valid("json")), 200),
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/v1/settings/provider/refresh-token",
      tags,
      summary: "Refresh the selected provider's access token",
      description:
        "Administrators only. LongPort: the SDK's token refresh with the stored credentials (new token valid 90 days, stored sealed). Simulated: a new simulated token. Failures reaching LongPort answer 503 PROVIDER_UNAVAILABLE / 504 PROVIDER_TIMEOUT, its rate limit 429 PROVIDER_RATE_LIMITED, refusals 502 PROVIDER_ERROR (with `provider_code`), missing credentials 409 PROVIDER_NOT_CONFIGURED.",
      security: bearer,
      responses: {
        200: json(RefreshTokenResponse, "The new token (masked) and its expiry"),
        409: errorResponse("PROVIDER_NOT_CONFIGURED or SETTINGS_CHANGED"),
        ...providerErrorResponses(),
        ...errorResponses({ auth: true }),
      },
    }),
    async (c) => c.json(await Settings.refreshToken(deps, c.get("principal").user), 200),
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/v1/settings/broker-network",
      tags,
      summary: "Private hosts broker connection tests may reach (administrators only)",
      description:
        "Broker tests never reach loopback, private, link-local or metadata addresses unless the host is listed here or in the deployment's BROKER_ALLOWED_HOSTS (docs/security.md).",
      security: bearer,
      responses: { 200: json(BrokerNetworkSettings, "The allowed hosts"), ...errorResponses({ auth: true }) },
    }),
    async (c) => c.json(await BrokerNetwork.get(services.brokerNetwork, c.get("principal").user), 200),
  );

  app.openapi(
    createRoute({
      method: "put",
      path: "/api/v1/settings/broker-network",
      tags,
      summary: "Replace the private hosts broker connection tests may reach (administrators only)",
      description: "`allowed_hosts`: host names or IP addresses, at most 50, lower-cased.",
      security: bearer,
      request: jsonBody(BrokerNetworkSettings),
      responses: { 200: json(BrokerNetworkSettings, "Saved"), ...errorResponses({ auth: true }) },
    }),
    async (c) => c.json(await BrokerNetwork.put(services.brokerNetwork, c.get("principal").user, c.req.valid("json")), 200),
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/v1/settings/asset-mode",
      tags,
      summary: "The caller's asset mode (`simulated` until chosen)",
      security: bearer,
      responses: { 200: json(AssetModeSetting, "The asset mode"), ...errorResponses({ auth: true }) },
    }),
    async (c) => c.json(await Settings.assetMode(deps, c.get("principal").user), 200),
  );

  app.openapi(
    createRoute({
      method: "put",
      path: "/api/v1/settings/asset-mode",
      tags,
      summary: "Choose the caller's asset mode",
      description: 'Body `{ "asset_mode": "real" | "simulated" }` (a bare JSON string is accepted too). Each user has their own.',
      security: bearer,
      request: jsonBody(AssetModeInput),
      responses: { 200: json(AssetModeSetting, "The new asset mode"), ...errorResponses({ auth: true }) },
    }),
    async (c) => c.json(await Settings.setAssetMode(deps, c.get("principal").user, c.req.valid("json")), 200),
  );

  return app;
}
