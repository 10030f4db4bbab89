import { z } from "zod";
import { mask, mergeConfig, type BrokerConfig, type BrokerConfigUpdate } from "../brokers/config";
import type { SecretBox } from "../brokers/secret-box";
import { conflict, DomainError, forbidden, ValidationError, type ValidationIssue } from "../errors";
import type { Actor } from "../users";

/**
 * Which market-data and brokerage provider the service uses: `simulated` (the deterministic
 * simulated market and paper broker, the default) or `longport` (the LongPort OpenAPI with the
 * stored credentials).
 */
export const ProviderType = z
  .enum(["simulated", "longport"])
  .meta({ id: "ProviderType", description: "`simulated` (default): the service's deterministic market. `longport`: the LongPort OpenAPI." });
export type ProviderType = z.infer<typeof ProviderType>;

/** Language of provider texts (names, messages), as LongPort's `Language`: `zh-CN`, `zh-HK` or `en`. */
export const LanguageType = z.enum(["zh-CN", "zh-HK", "en"]).meta({
  id: "LanguageType",
  description: "Language of texts the provider returns: simplified Chinese, traditional Chinese (Hong Kong) or English (default)",
});
export type LanguageType = z.infer<typeof LanguageType>;

/**
 * A user's asset mode: `real` uses the assets synchronised from a broker, `simulated` (default)
 * the simulated account, for the screens and sessions that follow the user's preference.
 */
export const AssetModeType = z
  .enum(["real", "simulated"])
  .meta({ id: "AssetModeType", description: "`real`: broker-synchronised assets. `simulated` (default): the simulated account." });
export type AssetModeType = z.infer<typeof AssetModeType>;

/** How long a provider access token lives after a refresh: LongPort's default of 90 days. */
export const TOKEN_LIFETIME_DAYS = 90;

const Secret = z.string().trim().min(1).max(4096);
const secretNote = "; answered masked (`ab****yz`); sending the masked value back keeps the stored secret";

const providerFields = {
  app_key: Secret.describe(`LongPort app key${secretNote}`),
  app_secret: Secret.describe(`LongPort app secret${secretNote}`),
  access_token: Secret.describe(`LongPort access token${secretNote}`),
  language: LanguageType.optional().describe("Omitted: the stored value (initially `en`)"),
  enable_overnight: z.boolean().optional().describe("Receive US overnight-session data (20:00–03:50 ET). Omitted: the stored value (initially false)"),
};

/** Body of `PUT /settings/provider`. Read-only fields of the answer may be sent back and are ignored. */
export const ProviderConfigInput = z.object(providerFields).meta({ id: "ProviderConfigInput" });
export type ProviderConfigInput = z.infer<typeof ProviderConfigInput>;

/** A change to the provider config inside `PUT /settings/data-source`: every field optional, omitted fields stay. */
export const ProviderConfigPatch = z
  .object({
    app_key: providerFields.app_key.optional(),
    app_secret: providerFields.app_secret.optional(),
    access_token: providerFields.access_token.optional(),
    language: providerFields.language,
    enable_overnight: providerFields.enable_overnight,
  })
  .meta({ id: "ProviderConfigPatch" });
export type ProviderConfigPatch = z.infer<typeof ProviderConfigPatch>;

/** The provider configuration as answered: secrets masked, empty strings when never set. */
export const ProviderConfig = z
  .object({
    app_key: z.string().describe("Masked; empty when not configured"),
    app_secret: z.string().describe("Masked; empty when not configured"),
    access_token: z.string().describe("Masked; empty when not configured"),
    language: LanguageType,
    enable_overnight: z.boolean(),
    configured: z.boolean().describe("Whether LongPort credentials are stored"),
    access_token_expires_at: z.string().nullable().describe("Expiry of the access token when it was obtained by refresh-token; null otherwise"),
    updated_at: z.string().nullable().describe("Last change of the provider settings; null when never changed"),
  })
  .meta({ id: "ProviderConfig" });
export type ProviderConfig = z.infer<typeof ProviderConfig>;

/** Body of `PUT /settings/data-source`: the provider to use and, optionally, changes to its configuration. */
export const DataSourceConfigInput = z
  .object({
    type: ProviderType.optional().describe("Omitted: unchanged. `longport` requires stored or given credentials"),
    provider_config: ProviderConfigPatch.optional().describe("Fields given replace the stored ones; omitted fields stay"),
  })
  .meta({ id: "DataSourceConfigInput" });
export type DataSourceConfigInput = z.infer<typeof DataSourceConfigInput>;

/** The selected provider and its (masked) configuration. */
export const DataSourceConfig = z
  .object({
    type: ProviderType,
    provider_config: ProviderConfig,
    version: z.int().nonnegative().describe("Settings version: increases with every change; 0 before the first change"),
  })
  .meta({ id: "DataSourceConfig" });
export type DataSourceConfig = z.infer<typeof DataSourceConfig>;

/** Body of `PUT /settings/asset-mode`: `{ "asset_mode": "real" }` (a bare JSON string `"real"` is accepted too). */
export const AssetModeInput = z
  .union([z.object({ asset_mode: AssetModeType }), AssetModeType])
  .transform((value) => (typeof value === "string" ? value : value.asset_mode))
  .meta({ id: "AssetModeInput" });

/** The caller's asset mode. */
export const AssetModeSetting = z
  .object({
    asset_mode: AssetModeType,
    updated_at: z.string().nullable().describe("When the caller last chose; null while the default applies"),
  })
  .meta({ id: "AssetModeSetting" });
export type AssetModeSetting = z.infer<typeof AssetModeSetting>;

/** The answer of `POST /settings/provider/refresh-token`. */
export const RefreshTokenResponse = z
  .object({
    success: z.boolean(),
    message: z.string(),
    provider: ProviderType,
    access_token: z.string().describe("The new token, masked: the service stores and uses it"),
    expires_at: z.string().describe("ISO 8601 expiry of the new token"),
  })
  .meta({ id: "RefreshTokenResponse" });
export type RefreshTokenResponse = z.infer<typeof RefreshTokenResponse>;

/** LongPort credentials in clear; only adapters that talk to LongPort see them. */
export interface ProviderCredentials {
  app_key: string;
  app_secret: string;
  access_token: string;
}

/** The service-wide provider settings as stored: credentials sealed, a version for optimistic updates. */
export interface ProviderSettings {
  type: ProviderType;
  /** `ProviderCredentials` as JSON, sealed with `PROVIDER_SECRET_CONTEXT`; null when never set. */
  credentials_sealed: string | null;
  language: LanguageType;
  enable_overnight: boolean;
  access_token_expires_at: string | null;
  /** The simulated provider's token (sealed) and expiry, issued by refresh-token while `simulated` is selected. */
  simulated_token_sealed: string | null;
  simulated_token_expires_at: string | null;
  /** 0 means "never stored". */
  version: number;
  updated_at: string | null;
  updated_by: string | null;
}

/** A user's stored asset-mode choice. */
export interface StoredAssetMode {
  user_id: string;
  asset_mode: AssetModeType;
  updated_at: string;
}

/** Storage port for settings. */
export interface SettingsStore {
  getProvider(): Promise<ProviderSettings | undefined>;
  /** Writes the settings if the stored version is still `expectedVersion` (0: none stored); otherwise throws `settingsChanged`. */
  putProvider(settings: ProviderSettings, expectedVersion: number): Promise<void>;
  getAssetMode(userId: string): Promise<StoredAssetMode | undefined>;
  putAssetMode(setting: StoredAssetMode): Promise<void>;
}

/** Obtains a new provider access token (LongPort: the SDK's `Config.refreshAccessToken`). */
export interface ProviderTokenRefresher {
  refresh(config: ProviderCredentials & { language: LanguageType; enable_overnight: boolean }, expiresAt: Date): Promise<string>;
}

export interface SettingsDeps {
  store: SettingsStore;
  secrets: SecretBox;
  tokens: ProviderTokenRefresher;
  now: () => number;
  /** A fresh random token for the simulated provider. */
  newToken: () => string;
  /** Called after the provider settings changed, so this instance switches at once. */
  onProviderChanged?: () => void;
}

/** What an adapter registry needs to build the selected provider. */
export interface ProviderSelection {
  type: ProviderType;
  version: number;
  language: LanguageType;
  enable_overnight: boolean;
  /** Present whenever `type` is `longport`. */
  credentials: ProviderCredentials | null;
}

/** Authenticated data of sealed provider credentials: a sealed value copied elsewhere does not open. */
export const PROVIDER_SECRET_CONTEXT = "settings:provider";
const SIMULATED_TOKEN_CONTEXT = "settings:simulated-token";
const CREDENTIAL_FIELDS = ["app_key", "app_secret", "access_token"] as const;

export const settingsChanged = () => conflict("SETTINGS_CHANGED", "The provider settings were changed by another request; read them again and retry");

const DEFAULTS: ProviderSettings = {
  type: "simulated",
  credentials_sealed: null,
  language: "en",
  enable_overnight: false,
  access_token_expires_at: null,
  simulated_token_sealed: null,
  simulated_token_expires_at: null,
  version: 0,
  updated_at: null,
  updated_by: null,
};

const isAdmin = (actor: Actor) => actor.user_type === "admin";
const requireAdmin = (actor: Actor) => {
  if (!isAdmin(actor)) throw forbidden("Only an administrator may change service-wide settings");
};

async function load(deps: SettingsDeps): Promise<ProviderSettings> {
  return (await deps.store.getProvider()) ?? DEFAULTS;
}

/** The stored credentials, or null when none are stored or they no longer open (the key was replaced). */
function openCredentials(deps: SettingsDeps, settings: ProviderSettings): ProviderCredentials | null {
  if (!settings.credentials_sealed) return null;
  try {
    return JSON.parse(deps.secrets.open(settings.credentials_sealed, PROVIDER_SECRET_CONTEXT)) as ProviderCredentials;
  } catch {
    return null;
  }
}

function toProviderConfig(deps: SettingsDeps, settings: ProviderSettings): ProviderConfig {
  const credentials = openCredentials(deps, settings);
  return {
    app_key: credentials ? mask(credentials.app_key) : "",
    app_secret: credentials ? mask(credentials.app_secret) : "",
    access_token: credentials ? mask(credentials.access_token) : "",
    language: settings.language,
    enable_overnight: settings.enable_overnight,
    configured: credentials !== null,
    access_token_expires_at: settings.access_token_expires_at,
    updated_at: settings.updated_at,
  };
}

function toDataSourceConfig(deps: SettingsDeps, settings: ProviderSettings): DataSourceConfig {
  return { type: settings.type, provider_config: toProviderConfig(deps, settings), version: settings.version };
}

/**
 * Applies a provider-config change to the stored settings. Secrets follow the broker rules
 * (`mergeConfig`): the mask of the stored secret keeps it, any other masked value is refused.
 */
function applyChange(
  deps: SettingsDeps,
  before: ProviderSettings,
  change: ProviderConfigPatch,
  loc: (string | number)[],
): { settings: ProviderSettings; issues: ValidationIssue[] } {
  const stored = openCredentials(deps, before) ?? {};
  const update: BrokerConfigUpdate = {};
  for (const field of CREDENTIAL_FIELDS) if (change[field] !== undefined) update[field] = change[field];
  const { config, issues } = mergeConfig(stored as BrokerConfig, update, loc);
  const complete = CREDENTIAL_FIELDS.every((field) => typeof config[field] === "string" && config[field] !== "");
  const credentials = complete ? { app_key: config.app_key!, app_secret: config.app_secret!, access_token: config.access_token! } : null;
  if (!complete && Object.keys(update).length > 0) {
    for (const field of CREDENTIAL_FIELDS) {
      if (config[field] === undefined)
        issues.push({ loc: [...loc, field], msg: "required: app_key, app_secret and access_token are stored together", type: "missing" });
    }
  }
  const tokenChanged = credentials !== null && credentials.access_token !== (stored as Partial<ProviderCredentials>).access_token;
  return {
    issues,
    settings: {
      ...before,
      credentials_sealed: credentials ? deps.secrets.seal(JSON.stringify(credentials), PROVIDER_SECRET_CONTEXT) : before.credentials_sealed,
      language: change.language ?? before.language,
      enable_overnight: change.enable_overnight ?? before.enable_overnight,
      // A token typed in by hand has an unknown expiry; only refresh-token knows it.
      access_token_expires_at: tokenChanged ? null : before.access_token_expires_at,
    },
  };
}

async function save(deps: SettingsDeps, actor: Actor | null, before: ProviderSettings, after: ProviderSettings): Promise<ProviderSettings> {
  const next: ProviderSettings = {
    ...after,
    version: before.version + 1,
    updated_at: new Date(deps.now()).toISOString(),
    updated_by: actor?.id ?? null,
  };
  await deps.store.putProvider(next, before.version);
  deps.onProviderChanged?.();
  return next;
}

function missingCredentialIssues(loc: (string | number)[]): ValidationIssue[] {
  return CREDENTIAL_FIELDS.map((field) => ({
    loc: [...loc, field],
    msg: "required when type is longport (no credentials are stored yet)",
    type: "missing",
  }));
}

const isoAfterDays = (deps: SettingsDeps, days: number) => new Date(deps.now() + days * 86_400_000);

export const Settings = {
  /** The selected provider and its masked configuration. Any signed-in user may read it. */
  async dataSource(deps: SettingsDeps): Promise<DataSourceConfig> {
    return toDataSourceConfig(deps, await load(deps));
  },

  /** Selects the provider and optionally changes its configuration (administrators). */
  async setDataSource(deps: SettingsDeps, actor: Actor, input: DataSourceConfigInput): Promise<DataSourceConfig> {
    requireAdmin(actor);
    const before = await load(deps);
    const { settings, issues } = applyChange(deps, before, input.provider_config ?? {}, ["body", "provider_config"]);
    settings.type = input.type ?? before.type;
    // Credentials given in part are already listed by `applyChange`; none given and none stored lists all three.
    const credentialsGiven = CREDENTIAL_FIELDS.some((field) => input.provider_config?.[field] !== undefined);
    if (settings.type === "longport" && settings.credentials_sealed === null && !credentialsGiven) {
      issues.push(...missingCredentialIssues(["body", "provider_config"]));
    }
    if (issues.length) throw new ValidationError(issues);
    return toDataSourceConfig(deps, await save(deps, actor, before, settings));
  },

  /** The provider configuration, secrets masked. Any signed-in user may read it. */
  async provider(deps: SettingsDeps): Promise<ProviderConfig> {
    return toProviderConfig(deps, await load(deps));
  },

  /** Replaces the provider configuration (administrators); the selected provider does not change. */
  async setProvider(deps: SettingsDeps, actor: Actor, input: ProviderConfigInput): Promise<ProviderConfig> {
    requireAdmin(actor);
    const before = await load(deps);
    const { settings, issues } = applyChange(deps, before, input, ["body"]);
    if (issues.length) throw new ValidationError(issues);
    return toProviderConfig(deps, await save(deps, actor, before, settings));
  },

  /**
   * Refreshes the access token of the selected provider (administrators). LongPort: the SDK's
   * token refresh with the stored credentials, the new token stored sealed; a provider failure
   * is its DomainError (502/503), never a 500. Simulated: a new random token.
   */
  async refreshToken(deps: SettingsDeps, actor: Actor): Promise<RefreshTokenResponse> {
    requireAdmin(actor);
    const before = await load(deps);
    const expiresAt = isoAfterDays(deps, TOKEN_LIFETIME_DAYS);
    if (before.type === "simulated") {
      const token = deps.newToken();
      await save(deps, actor, before, {
        ...before,
        simulated_token_sealed: deps.secrets.seal(token, SIMULATED_TOKEN_CONTEXT),
        simulated_token_expires_at: expiresAt.toISOString(),
      });
      return {
        success: true,
        message: `Issued a new simulated access token valid for ${TOKEN_LIFETIME_DAYS} days`,
        provider: "simulated",
        access_token: mask(token),
        expires_at: expiresAt.toISOString(),
      };
    }
    const credentials = openCredentials(deps, before);
    if (!credentials) throw providerNotConfigured();
    const token = await deps.tokens.refresh({ ...credentials, language: before.language, enable_overnight: before.enable_overnight }, expiresAt);
    await save(deps, actor, before, {
      ...before,
      credentials_sealed: deps.secrets.seal(JSON.stringify({ ...credentials, access_token: token }), PROVIDER_SECRET_CONTEXT),
      access_token_expires_at: expiresAt.toISOString(),
    });
    return {
      success: true,
      message: `Obtained a new LongPort access token valid until ${expiresAt.toISOString()}`,
      provider: "longport",
      access_token: mask(token),
      expires_at: expiresAt.toISOString(),
    };
  },

  /** What the adapter registry builds from: the selection with credentials in clear. */
  async selection(deps: SettingsDeps): Promise<ProviderSelection> {
    const settings = await load(deps);
    const credentials = openCredentials(deps, settings);
    if (settings.type === "longport" && !credentials) {
      throw settings.credentials_sealed ? providerConfigUnreadable() : providerNotConfigured();
    }
    return {
      type: settings.type,
      version: settings.version,
      language: settings.language,
      enable_overnight: settings.enable_overnight,
      credentials: settings.type === "longport" ? credentials : null,
    };
  },

  /** The caller's asset mode (`simulated` until they choose). */
  async assetMode(deps: SettingsDeps, actor: Actor): Promise<AssetModeSetting> {
    const stored = await deps.store.getAssetMode(actor.id);
    return { asset_mode: stored?.asset_mode ?? "simulated", updated_at: stored?.updated_at ?? null };
  },

  /** Sets the caller's own asset mode. */
  async setAssetMode(deps: SettingsDeps, actor: Actor, mode: AssetModeType): Promise<AssetModeSetting> {
    const setting: StoredAssetMode = { user_id: actor.id, asset_mode: mode, updated_at: new Date(deps.now()).toISOString() };
    await deps.store.putAssetMode(setting);
    return { asset_mode: setting.asset_mode, updated_at: setting.updated_at };
  },
};

export const providerNotConfigured = () =>
  new DomainError(409, "PROVIDER_NOT_CONFIGURED", "LongPort is selected but no credentials are stored; set them with PUT /api/v1/settings/provider");
export const providerConfigUnreadable = () =>
  new DomainError(
    409,
    "PROVIDER_CONFIG_UNREADABLE",
    "The stored LongPort credentials cannot be decrypted with the current key; enter them again with PUT /api/v1/settings/provider",
  );
