import { KEY_KEPT_DAYS, type ApiKey, type ApiKeyStore, type KeyRateStore } from "@tp/core/api-keys";
import type { CaptchaStore, LoginAttemptStore, RevocationStore } from "@tp/core/auth";
import type { User } from "@tp/core/users";
import type { Db } from "../dynamo/db";
import { Keys } from "../dynamo/keys";
import { batchGetStored } from "../dynamo/batches";
import { Repository } from "../dynamo/repository";
import { Table } from "../dynamo/table";

interface Captcha {
  captcha_id: string;
  answer_hash: string;
  expires_at: number;
}

/** Captcha challenges expire through TTL and are taken with an atomic delete, so each is single-use. */
export class DynamoCaptchaStore implements CaptchaStore {
  private readonly repository: Repository<Captcha>;
  constructor(db: Db) {
    this.repository = new Repository<Captcha>(db, {
      type: "Captcha",
      key: (captcha) => Keys.captcha(captcha.captcha_id),
      expiresAt: (captcha) => captcha.expires_at,
    });
  }
  async save(id: string, answerHash: string, expiresAt: number) {
    await this.repository.put({ captcha_id: id, answer_hash: answerHash, expires_at: expiresAt });
  }
  async take(id: string) {
    const captcha = await this.repository.delete(Keys.captcha(id));
    return captcha ? { answerHash: captcha.answer_hash } : undefined;
  }
}

interface LoginAttempts {
  username: string;
  failures: number;
  locked_until?: number;
  expires_at: number;
}

/** Failure counts kept with an atomic counter; the item expires with its window. */
export class DynamoLoginAttemptStore implements LoginAttemptStore {
  private readonly repository: Repository<LoginAttempts>;
  constructor(
    db: Db,
    private readonly now: () => number,
  ) {
    this.repository = new Repository<LoginAttempts>(db, {
      type: "LoginAttempts",
      key: (attempts) => Keys.loginAttempts(attempts.username),
      expiresAt: (attempts) => attempts.expires_at,
    });
  }
  async recordFailure(username: string, windowSeconds: number) {
    const key = Keys.loginAttempts(username);
    const nowSeconds = Math.floor(this.now() / 1000);
    const existing = await this.repository.get(key);
    // A window that has passed starts counting again.
    const expiresAt = existing && existing.expires_at > nowSeconds ? existing.expires_at : nowSeconds + windowSeconds;
    const reset = !existing || existing.expires_at <= nowSeconds;
    const updated = reset
      ? await this.repository.put({ username, failures: 1, expires_at: expiresAt })
      : await this.repository.increment(key, "failures", 1, { username, expires_at: expiresAt, ttl: expiresAt });
    return { failures: updated.failures, lockedUntil: updated.locked_until };
  }
  async lock(username: string, untilSeconds: number) {
    await this.repository.put({ username, failures: 0, locked_until: untilSeconds, expires_at: untilSeconds });
  }
  async lockedUntil(username: string) {
    return (await this.repository.get(Keys.loginAttempts(username)))?.locked_until;
  }
  async clear(username: string) {
    await this.repository.delete(Keys.loginAttempts(username));
  }
}

interface RevokedToken {
  jti: string;
  expires_at: number;
}

/** A revoked token is an item that expires when the token would have; the principal check reads it with the user. */
export class DynamoRevocationStore implements RevocationStore {
  private readonly revoked: Repository<RevokedToken>;
  private readonly users: Repository<User>;
  constructor(db: Db) {
    this.revoked = new Repository<RevokedToken>(db, {
      type: "RevokedToken",
      key: (token) => Keys.revokedToken(token.jti),
      expiresAt: (token) => token.expires_at,
    });
    this.users = new Repository<User>(db, { type: "User", key: (user) => Keys.user(user.id) });
  }
  async revoke(jti: string, expiresAt: number) {
    await this.revoked.put({ jti, expires_at: expiresAt });
  }
  async loadPrincipal(userId: string, jti: string) {
    const userKey = Keys.user(userId);
    const revokedKey = Keys.revokedToken(jti);
    const stored = await batchGetStored(this.users.db, [userKey, revokedKey]);
    const storedUser = stored.find((item) => Repository.isAt(item, userKey) && !this.users.isExpired(item));
    const revoked = stored.some((item) => Repository.isAt(item, revokedKey) && !this.revoked.isExpired(item));
    return { user: storedUser ? this.users.fromItem(storedUser) : undefined, revoked };
  }
}

/** API keys: one item per key (its secret's hash, never the secret), listed per user on gsi1, dropped `KEY_KEPT_DAYS` after expiry. */
export class DynamoApiKeyStore implements ApiKeyStore {
  private readonly keys: Repository<ApiKey>;
  private readonly users: Repository<User>;
  constructor(db: Db) {
    this.keys = new Repository<ApiKey>(db, {
      type: "ApiKey",
      key: (key) => Keys.apiKey(key.id),
      indexes: { gsi1: (key) => Keys.apiKeyOfUser(key.user_id, key.created_at, key.id) },
      expiresAt: (key) => Math.floor(Date.parse(key.expires_at) / 1000) + KEY_KEPT_DAYS * 86_400,
    });
    this.users = new Repository<User>(db, { type: "User", key: (user) => Keys.user(user.id) });
  }
  async create(key: ApiKey) {
    await this.keys.put(key, { ifAbsent: true });
  }
  get(id: string) {
    return this.keys.get(Keys.apiKey(id));
  }
  async listByUser(userId: string) {
    return this.keys.queryAll(Keys.apiKeysOfUser(userId), { index: "gsi1", ascending: false });
  }
  async revoke(id: string, at: string) {
    const key = await this.keys.get(Keys.apiKey(id));
    if (!key) return undefined;
    return this.keys.put({ ...key, revoked_at: at });
  }
  async loadWithUser(id: string, userId?: string) {
    if (!userId) {
      const key = await this.get(id);
      return { key, user: key ? await this.users.get(Keys.user(key.user_id)) : undefined };
    }
    const keyKey = Keys.apiKey(id);
    const userKey = Keys.user(userId);
    const stored = await batchGetStored(this.keys.db, [keyKey, userKey]);
    const storedKey = stored.find((item) => Repository.isAt(item, keyKey) && !this.keys.isExpired(item));
    const storedUser = stored.find((item) => Repository.isAt(item, userKey) && !this.users.isExpired(item));
    return { key: storedKey ? this.keys.fromItem(storedKey) : undefined, user: storedUser ? this.users.fromItem(storedUser) : undefined };
  }
}

interface KeyRateWindow {
  key_id: string;
  window: number;
  requests: number;
}

/**
 * The per-key rate limit's counters (docs/security.md "API keys"): one item per key per window,
 * counted with one conditional UpdateItem (`requests` below the limit), gone by TTL after its window.
 */
export class DynamoKeyRateStore implements KeyRateStore {
  private readonly windows: Repository<KeyRateWindow>;
  constructor(db: Db) {
    this.windows = new Repository<KeyRateWindow>(db, { type: "ApiKeyRate", key: (counted) => Keys.apiKeyRate(counted.key_id, counted.window) });
  }
  async count(id: string, window: number, limit: number, expiresAt: number) {
    return (await this.windows.increment(Keys.apiKeyRate(id, window), "requests", 1, { [Table.ttlAttribute]: expiresAt }, limit)) !== undefined;
  }
}
