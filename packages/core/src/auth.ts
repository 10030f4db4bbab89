import { createHash, randomUUID, timingSafeEqual } from "node:crypto";
import { SignJWT, jwtVerify, errors as joseErrors } from "jose";
import { z } from "zod";
import { DomainError, tooManyRequests, unauthorized } from "./errors";
import { Passwords } from "./passwords";
import { Users, UserResponse, type User, type UserStore, type UserType } from "./users";
import { tokenSeconds } from "./util/time";
import type { ApiKeyGrant } from "./api-keys";

export const LoginRequest = z
  .object({
    username: z.string().min(1).max(64),
    password: z.string().min(1).max(256),
    captcha: z.string().min(1).max(32),
    /** The id from `GET /api/v1/captcha` whose image showed the code. */
    captcha_id: z.string().max(64).optional(),
  })
  .meta({ id: "LoginRequest" });
export type LoginRequest = z.infer<typeof LoginRequest>;

export const LoginResponse = z
  .object({
    access_token: z.string(),
    token_type: z.literal("bearer"),
    expires_in: z.number().int().describe("Seconds until the token expires"),
    user: UserResponse,
  })
  .meta({ id: "LoginResponse" });
export type LoginResponse = z.infer<typeof LoginResponse>;

/** What a verified access token says. */
export interface TokenClaims {
  sub: string;
  role: UserType;
  jti: string;
  iat: number;
  exp: number;
}

/**
 * Who a request acts as, whichever credential it came with: a sign-in token's user, or an API
 * key's (`key` set; `user` is the key's acting user, `ApiKeys.actingUser`; `claims.jti` is
 * `key:<id>`, `iat` its creation, `exp` its expiry).
 */
export interface Principal {
  user: User;
  claims: TokenClaims;
  token: string;
  key?: ApiKeyGrant;
}

/** Storage port for one-time captcha challenges. */
export interface CaptchaStore {
  save(id: string, answerHash: string, expiresAt: number): Promise<void>;
  /** Removes and returns the challenge (single use), or undefined when absent or expired. */
  take(id: string): Promise<{ answerHash: string } | undefined>;
}

/** Storage port for failed-login counting per subject (a username at a client address). */
export interface LoginAttemptStore {
  /** Counts one failure inside the window and returns the count so far and any lock. */
  recordFailure(subject: string, windowSeconds: number): Promise<{ failures: number; lockedUntil?: number }>;
  lock(subject: string, untilSeconds: number): Promise<void>;
  lockedUntil(subject: string): Promise<number | undefined>;
  clear(subject: string): Promise<void>;
}

/** Storage port for revoked tokens (an item per `jti` that expires with the token). */
export interface RevocationStore {
  revoke(jti: string, expiresAt: number): Promise<void>;
  /** The user and whether the token is revoked, read together in one round trip. */
  loadPrincipal(userId: string, jti: string): Promise<{ user?: User; revoked: boolean }>;
}

export interface AuthConfig {
  /** HMAC key for HS256 tokens. */
  jwtSecret: Uint8Array;
  tokenTtlSeconds: number;
  captchaTtlSeconds: number;
  /** Failures inside the window that lock a username. */
  maxFailures: number;
  failureWindowSeconds: number;
  lockSeconds: number;
  /** When set, this captcha code is accepted without a challenge (local use and tests only). */
  captchaTestCode?: string;
  /** Client addresses whose failed logins never lock (an administrator's trusted path). */
  trustedAddresses: string[];
  /** An API key's rate: requests a second on average (API_KEY_RATE_PER_SECOND, default 10); a window lasts `apiKeyBurst / apiKeyRatePerSecond` seconds. */
  apiKeyRatePerSecond?: number;
  /** An API key's rate: requests in one window, across every instance (API_KEY_BURST, default 40). */
  apiKeyBurst?: number;
}

export const API_KEY_RATE = { perSecond: 10, burst: 40 };

/** Where a login comes from, as the edge saw it. */
export interface LoginContext {
  clientAddress: string;
}

/**
 * Failures are counted and locked per username *and* client address: someone guessing from one
 * address cannot lock the account's owner out from another.
 */
const attemptSubject = (username: string, context: LoginContext) => `${username.toLowerCase()}|${context.clientAddress}`;

export interface AuthDeps {
  config: AuthConfig;
  users: UserStore;
  captchas: CaptchaStore;
  attempts: LoginAttemptStore;
  revocations: RevocationStore;
  now: () => number;
}

const ISSUER = "trading-platform";
/** How far a token's `iat` may be ahead of this machine's clock (another instance's clock may run a little fast). */
export const TOKEN_CLOCK_SKEW_SECONDS = 60;

const INVALID_LOGIN = "Incorrect username, password or captcha";
const hashAnswer = (answer: string) => createHash("sha256").update(answer.trim().toLowerCase()).digest("hex");

export const Auth = {
  /** Stores a new challenge for `answer` and returns its id. */
  async issueCaptcha(deps: AuthDeps, answer: string): Promise<{ captcha_id: string; expires_in: number }> {
    const id = randomUUID();
    const expiresAt = Math.floor(deps.now() / 1000) + deps.config.captchaTtlSeconds;
    await deps.captchas.save(id, hashAnswer(answer), expiresAt);
    return { captcha_id: id, expires_in: deps.config.captchaTtlSeconds };
  },

  /**
   * Logs a user in. A wrong captcha, a wrong password and an unknown user answer the same 401;
   * repeated failures lock the username for a while (429 with `retry_after`).
   */
  async login(deps: AuthDeps, input: LoginRequest, context: LoginContext = { clientAddress: "unknown" }): Promise<LoginResponse> {
    const { config } = deps;
    const nowSeconds = Math.floor(deps.now() / 1000);
    const username = input.username.trim();
    const subject = attemptSubject(username, context);
    const trusted = config.trustedAddresses.includes(context.clientAddress);
    const lockedUntil = trusted ? undefined : await deps.attempts.lockedUntil(subject);
    if (lockedUntil && lockedUntil > nowSeconds) {
      throw tooManyRequests("Too many failed logins; try again later", lockedUntil - nowSeconds);
    }
    const captchaOk = await Auth.checkCaptcha(deps, input);
    const user = await deps.users.findByUsername(username);
    // Verify even without a user so response time does not reveal which usernames exist.
    const passwordOk = await Passwords.verify(input.password, user?.password_hash ?? Passwords.dummyHash);
    if (!captchaOk || !user || !passwordOk) {
      const { failures } = await deps.attempts.recordFailure(subject, config.failureWindowSeconds);
      if (failures >= config.maxFailures && !trusted) {
        await deps.attempts.lock(subject, nowSeconds + config.lockSeconds);
        throw tooManyRequests("Too many failed logins; try again later", config.lockSeconds);
      }
      throw new DomainError(401, "INVALID_CREDENTIALS", INVALID_LOGIN);
    }
    if (user.status !== "active") throw new DomainError(403, "USER_INACTIVE", "This account is inactive");
    await deps.attempts.clear(subject);
    const jti = randomUUID();
    const issuedAt = tokenSeconds();
    const exp = issuedAt + config.tokenTtlSeconds;
    const accessToken = await new SignJWT({ role: user.user_type })
      .setProtectedHeader({ alg: "HS256", typ: "JWT" })
      .setSubject(user.id)
      .setJti(jti)
      .setIssuer(ISSUER)
      .setIssuedAt(issuedAt)
      .setExpirationTime(exp)
      .sign(config.jwtSecret);
    return { access_token: accessToken, token_type: "bearer", expires_in: config.tokenTtlSeconds, user: Users.toResponse(user) };
  },

  async checkCaptcha(deps: AuthDeps, input: LoginRequest): Promise<boolean> {
    const testCode = deps.config.captchaTestCode;
    if (testCode && input.captcha.length === testCode.length) {
      if (timingSafeEqual(Buffer.from(input.captcha), Buffer.from(testCode))) return true;
    }
    if (!input.captcha_id) return false;
    const challenge = await deps.captchas.take(input.captcha_id);
    return challenge !== undefined && challenge.answerHash === hashAnswer(input.captcha);
  },

  /** Checks the signature, issuer and expiry of a token; any failure is a 401. */
  async verifyToken(config: AuthConfig, token: string): Promise<TokenClaims> {
    try {
      const { payload } = await jwtVerify(token, config.jwtSecret, { issuer: ISSUER, algorithms: ["HS256"] });
      if (typeof payload.sub !== "string" || typeof payload.jti !== "string" || typeof payload.exp !== "number" || typeof payload.iat !== "number")
        throw unauthorized("Malformed token");
      // jose checks `exp` against the machine's clock; a token issued later than that (beyond a small skew) is not one we issued.
      if (payload.iat > tokenSeconds() + TOKEN_CLOCK_SKEW_SECONDS) throw unauthorized("Token is issued in the future");
      return { sub: payload.sub, role: payload.role as UserType, jti: payload.jti, iat: payload.iat, exp: payload.exp };
    } catch (error) {
      if (error instanceof DomainError) throw error;
      if (error instanceof joseErrors.JWTExpired) throw unauthorized("Token has expired");
      throw unauthorized("Invalid token");
    }
  },

  /** Whether a loaded principal may act: the token not revoked, the user present, active and not reset since. */
  checkPrincipal(claims: TokenClaims, loaded: { user?: User; revoked: boolean }): User {
    if (loaded.revoked) throw unauthorized("Token has been revoked");
    const user = loaded.user;
    if (!user) throw unauthorized("User no longer exists");
    if (user.status !== "active") throw unauthorized("User is inactive");
    if (claims.iat < user.tokens_valid_after) throw unauthorized("Token is no longer valid");
    return user;
  },

  /** Revokes the token until it would have expired anyway. */
  async logout(deps: Pick<AuthDeps, "revocations">, claims: TokenClaims): Promise<void> {
    await deps.revocations.revoke(claims.jti, claims.exp);
  },
};
