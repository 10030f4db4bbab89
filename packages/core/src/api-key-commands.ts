import { randomBytes } from "node:crypto";
import { z } from "zod";
import { API_KEY_SCOPES, hashOf, type ApiKey, type ApiKeyDeps } from "./api-keys";
import { ValidationError, conflict, forbidden, notFound, parseOrThrow, type ValidationIssue } from "./errors";
import type { Actor } from "./users";

export const MAX_KEY_DAYS = 365;
export const DEFAULT_KEY_DAYS = 90;
/** Keys a user may hold at once (revoked and expired ones included until their item expires). */
export const MAX_KEYS_PER_USER = 50;

const DAY_MS = 86_400_000;

export const ApiKeyScope = z
  .enum(API_KEY_SCOPES)
  .describe(
    "read: GET requests; trade: every other command (orders, sessions, channels, risk, settings, brokers...); backtest: backtests and sweeps (reading and running); admin: everything an administrator may do (administrators only)",
  );

export const ApiKeyCreate = z
  .object({
    name: z.string().trim().min(1).max(64).describe("What the key is for (shown in the list)"),
    scopes: z
      .array(ApiKeyScope)
      .min(1)
      .max(4)
      .refine((scopes) => new Set(scopes).size === scopes.length, "Each scope at most once"),
    expires_at: z.iso.datetime({ offset: true }).optional().describe(`When the key stops working (at most ${MAX_KEY_DAYS} days ahead)`),
    expires_in_days: z
      .number()
      .int()
      .min(1)
      .max(MAX_KEY_DAYS)
      .optional()
      .describe(`Days until the key stops working, instead of expires_at (default ${DEFAULT_KEY_DAYS})`),
    session_ids: z
      .array(z.string().min(1).max(128))
      .min(1)
      .max(50)
      .optional()
      .describe("The trading sessions the key may act on; left out: every session of its user"),
  })
  .meta({ id: "ApiKeyCreate" });
export type ApiKeyCreate = z.infer<typeof ApiKeyCreate>;

export const ApiKeyResponse = z
  .object({
    id: z.string(),
    user_id: z.string(),
    name: z.string(),
    prefix: z.string().describe("The key's first characters (tpk_<id>)"),
    scopes: z.array(ApiKeyScope),
    session_ids: z.array(z.string()).nullable(),
    created_at: z.string(),
    expires_at: z.string(),
    revoked_at: z.string().nullable(),
    status: z.enum(["active", "expired", "revoked"]),
  })
  .meta({ id: "ApiKeyResponse" });
export type ApiKeyResponse = z.infer<typeof ApiKeyResponse>;

export const ApiKeyCreated = ApiKeyResponse.extend({
  key: z.string().describe("The key itself: shown this once, never again. Send it as `Authorization: Bearer <key>` or `X-API-Key: <key>`"),
}).meta({ id: "ApiKeyCreated" });
export type ApiKeyCreated = z.infer<typeof ApiKeyCreated>;

export const ApiKeyList = z.object({ items: z.array(ApiKeyResponse), total: z.number().int() }).meta({ id: "ApiKeyList" });

const statusOf = (key: ApiKey, nowMs: number): ApiKeyResponse["status"] =>
  key.revoked_at ? "revoked" : Date.parse(key.expires_at) <= nowMs ? "expired" : "active";

/** Creating, listing and revoking API keys (docs/security.md "API keys"): the keys' routes only. */
export const ApiKeyCommands = {
  /** A key as the API shows it: without its hash, with its status now. */
  toResponse(key: ApiKey, nowMs: number): ApiKeyResponse {
    const { secret_hash: _hash, ...shown } = key;
    return { ...shown, status: statusOf(key, nowMs) };
  },

  /** Creates a key for `actor`; the answer carries the key, which nothing stores. */
  async create(deps: ApiKeyDeps, actor: Actor, input: unknown): Promise<ApiKeyCreated> {
    const body = parseOrThrow(ApiKeyCreate, input, ["body"]);
    const nowMs = deps.now();
    const problems: ValidationIssue[] = [];
    if (body.expires_at !== undefined && body.expires_in_days !== undefined)
      problems.push({ loc: ["body", "expires_in_days"], msg: "Send expires_at or expires_in_days, not both", type: "invalid_value" });
    let expiresMs = nowMs + (body.expires_in_days ?? DEFAULT_KEY_DAYS) * DAY_MS;
    if (body.expires_at !== undefined) {
      expiresMs = Date.parse(body.expires_at);
      if (expiresMs <= nowMs) problems.push({ loc: ["body", "expires_at"], msg: "The expiry must be in the future", type: "too_small" });
      else if (expiresMs > nowMs + MAX_KEY_DAYS * DAY_MS)
        problems.push({ loc: ["body", "expires_at"], msg: `The expiry must be at most ${MAX_KEY_DAYS} days ahead`, type: "too_big" });
    }
    if (problems.length) throw new ValidationError(problems);
    if (body.scopes.includes("admin") && actor.user_type !== "admin") throw forbidden("Only administrators may create keys with the admin scope");
    const existing = await deps.keys.listByUser(actor.id);
    if (existing.length >= MAX_KEYS_PER_USER)
      throw conflict("TOO_MANY_API_KEYS", `A user holds at most ${MAX_KEYS_PER_USER} keys (revoked and expired ones count until they are dropped)`);
    const id = randomBytes(8).toString("hex");
    const secret = `tpk_${id}_${randomBytes(32).toString("base64url")}`;
    const key: ApiKey = {
      id,
      user_id: actor.id,
      name: body.name,
      prefix: `tpk_${id}`,
      secret_hash: hashOf(secret),
      scopes: body.scopes,
      session_ids: body.session_ids ? [...new Set(body.session_ids)] : null,
      created_at: new Date(nowMs).toISOString(),
      expires_at: new Date(expiresMs).toISOString(),
      revoked_at: null,
    };
    await deps.keys.create(key);
    return { ...ApiKeyCommands.toResponse(key, nowMs), key: secret };
  },

  /** The caller's keys (an administrator may name another user), newest first, without secrets. */
  async list(deps: ApiKeyDeps, actor: Actor, userId = actor.id): Promise<ApiKeyResponse[]> {
    if (userId !== actor.id && actor.user_type !== "admin") throw forbidden("You may only list your own keys");
    const nowMs = deps.now();
    return (await deps.keys.listByUser(userId)).map((key) => ApiKeyCommands.toResponse(key, nowMs));
  },

  /** Revokes a key of the caller's (an administrator: anyone's); it stops working at once here, within the recheck interval elsewhere. */
  async revoke(deps: ApiKeyDeps, actor: Actor, id: string): Promise<ApiKeyResponse> {
    const key = await deps.keys.get(id);
    if (!key) throw notFound("API_KEY_NOT_FOUND", `API key ${id} does not exist`);
    if (key.user_id !== actor.id && actor.user_type !== "admin") throw forbidden(`API key ${id} belongs to another user`);
    const nowMs = deps.now();
    const revoked = key.revoked_at ? key : ((await deps.keys.revoke(id, new Date(nowMs).toISOString())) ?? key);
    return ApiKeyCommands.toResponse(revoked, nowMs);
  },
};
