import { z } from "zod";
import type { ValidationIssue } from "../errors";
import { NonNegativeDecimalInput } from "../money/decimal";
import { CurrencyType } from "../money/currency";

/**
 * Kinds of broker connection:
 * - `longport`: LongPort (Longbridge) OpenAPI through the `longport` SDK;
 * - `futu`: a Futu/moomoo OpenD gateway (reachability is tested; trading is not wired);
 * - `paper`: the service's paper broker, filling orders against market data;
 * - `simulated`: the deterministic simulated market and its paper account.
 */
export const BrokerType = z.enum(["longport", "futu", "paper", "simulated"]).meta({ id: "BrokerType" });
export type BrokerType = z.infer<typeof BrokerType>;

/**
 * `active`: in use. `inactive`: switched off by its owner. `error`: its last connection test
 * failed; a later successful test returns it to `active`.
 */
export const BrokerStatus = z.enum(["active", "inactive", "error"]).meta({ id: "BrokerStatus" });
export type BrokerStatus = z.infer<typeof BrokerStatus>;

/** Fields that are credentials: encrypted at rest with the rest of the config, masked in every answer. */
export const SECRET_FIELDS = ["app_key", "app_secret", "access_token", "trade_password"] as const;
type SecretField = (typeof SECRET_FIELDS)[number];
const isSecretField = (field: string): field is SecretField => (SECRET_FIELDS as readonly string[]).includes(field);

/** What `mask` puts in place of the hidden part; a value containing it is never taken as a credential. */
export const MASK = "****";

const Secret = z.string().trim().min(1).max(4096);
const WsUrl = z.url({ protocol: /^wss?$/ }).max(2048);

const configShape = {
  app_key: Secret.describe("LongPort app key (secret)"),
  app_secret: Secret.describe("LongPort app secret (secret)"),
  access_token: Secret.describe("LongPort access token (secret)"),
  account: z.string().trim().min(1).max(64).describe("Account number or channel at the broker"),
  region: z.enum(["hk", "cn"]).describe("LongPort access point: `cn` uses the mainland China hosts"),
  language: z.enum(["en", "zh-CN", "zh-HK"]),
  enable_overnight: z.boolean().describe("Receive US overnight-session quotes (LongPort)"),
  http_url: z.url({ protocol: /^https?$/ }).max(2048),
  quote_ws_url: WsUrl,
  trade_ws_url: WsUrl,
  host: z.string().trim().min(1).max(255).describe("Gateway host (Futu OpenD)"),
  port: z.number().int().min(1).max(65535).describe("Gateway port (Futu OpenD)"),
  trade_password: Secret.describe("Trade unlock password (secret)"),
  initial_cash: NonNegativeDecimalInput.describe("Starting cash of a paper or simulated account"),
  currency: CurrencyType.describe("Currency of `initial_cash`"),
};
type ConfigShape = typeof configShape;

/** A broker's connection settings. Which fields are required depends on the broker type (see `requiredConfig`). */
export const BrokerConfig = z
  .object(
    Object.fromEntries(Object.entries(configShape).map(([name, schema]) => [name, schema.optional()])) as {
      [K in keyof ConfigShape]: z.ZodOptional<ConfigShape[K]>;
    },
  )
  .strict()
  .meta({ id: "BrokerConfig" });
export type BrokerConfig = z.infer<typeof BrokerConfig>;

/**
 * A change to a broker's config: given fields replace, `null` removes, omitted fields stay.
 * A secret sent back exactly as it was answered (masked) keeps the stored secret.
 */
export const BrokerConfigUpdate = z
  .object(
    Object.fromEntries(Object.entries(configShape).map(([name, schema]) => [name, schema.nullable().optional()])) as {
      [K in keyof ConfigShape]: z.ZodOptional<z.ZodNullable<ConfigShape[K]>>;
    },
  )
  .strict()
  .meta({ id: "BrokerConfigUpdate" });
export type BrokerConfigUpdate = z.infer<typeof BrokerConfigUpdate>;

/** Config fields each broker type cannot work without. */
export const requiredConfig: Record<BrokerType, (keyof BrokerConfig)[]> = {
  longport: ["app_key", "app_secret", "access_token"],
  futu: ["host", "port"],
  paper: [],
  simulated: [],
};

/** The masked form of a secret: first two and last two characters around `****`; up to 8 characters, only `****`. */
export function mask(value: string): string {
  return value.length <= 8 ? MASK : `${value.slice(0, 2)}${MASK}${value.slice(-2)}`;
}

/** The config as answered: every secret masked. */
export function maskConfig(config: BrokerConfig): Record<string, unknown> {
  return Object.fromEntries(Object.entries(config).map(([field, value]) => [field, isSecretField(field) && typeof value === "string" ? mask(value) : value]));
}

/** Problems of a complete config for a broker type: missing required fields, masks where credentials belong. */
export function configIssues(type: BrokerType, config: BrokerConfig, loc: (string | number)[]): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  for (const field of requiredConfig[type]) {
    if (config[field] === undefined) issues.push({ loc: [...loc, field], msg: `required for broker type ${type}`, type: "missing" });
  }
  for (const field of SECRET_FIELDS) {
    const value = config[field];
    if (typeof value === "string" && value.includes(MASK)) {
      issues.push({ loc: [...loc, field], msg: "is a masked value, not a credential", type: "masked_value" });
    }
  }
  return issues;
}

/**
 * Applies an update to the stored config. A secret equal to the mask of the stored one keeps the
 * stored secret; any other value containing `****` is refused, since storing a mask would
 * silently destroy the credential.
 */
export function mergeConfig(stored: BrokerConfig, update: BrokerConfigUpdate, loc: (string | number)[]): { config: BrokerConfig; issues: ValidationIssue[] } {
  const merged: Record<string, unknown> = { ...stored };
  const issues: ValidationIssue[] = [];
  for (const [field, value] of Object.entries(update)) {
    if (value === undefined) continue;
    if (value === null) {
      delete merged[field];
      continue;
    }
    if (isSecretField(field) && typeof value === "string" && value.includes(MASK)) {
      const current = stored[field];
      if (typeof current === "string" && value === mask(current)) continue;
      issues.push({
        loc: [...loc, field],
        msg: "is a masked value that does not match the stored secret: send the new secret, or the mask exactly as answered",
        type: "masked_value",
      });
      continue;
    }
    merged[field] = value;
  }
  return { config: merged as BrokerConfig, issues };
}
