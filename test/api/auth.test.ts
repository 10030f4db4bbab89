import { beforeAll, describe, expect, it, vi } from "vitest";
import { SignJWT } from "jose";
import { Auth, TOKEN_CLOCK_SKEW_SECONDS } from "../../packages/core/src/auth";
import { ADMIN, CAPTCHA, createTestApi, type TestApi } from "../support/harness";

let api: TestApi;
beforeAll(async () => {
  api = await createTestApi({ LOGIN_MAX_FAILURES: "3" });
});

const loginBody = (overrides: Record<string, unknown> = {}) => ({
  username: ADMIN.username,
  password: ADMIN.password,
  captcha: "wrong",
  ...overrides,
});

describe("captcha", () => {
  it("issues an SVG challenge with an id and an expiry", async () => {
    const body = await api.json("GET", "/api/v1/captcha", 200);
    expect(body.captcha_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(body.image).toMatch(/^<svg[\s\S]*<\/svg>$/);
    expect(body.expires_in).toBe(300);
  });

  it("accepts a challenge's code once and refuses it the second time", async () => {
    const user = await api.createUser();
    const { captcha_id } = await Auth.issueCaptcha(api.services.auth, "k7m2p");
    const body = { username: user.username, password: user.password, captcha_id, captcha: "K7M2P" };
    const first = await api.json("POST", "/api/v1/login", 200, { body });
    expect(first.token_type).toBe("bearer");
    expect(first.user.username).toBe(user.username);
    expect(first.user).not.toHaveProperty("password_hash");
    await api.json("POST", "/api/v1/login", 401, { body });
  });
});

describe("login", () => {
  it("answers a wrong captcha, a wrong password and an unknown user with the same 401", async () => {
    const user = await api.createUser();
    const strip = (body: any) => ({ ...body, timestamp: undefined });
    const { captcha_id } = await Auth.issueCaptcha(api.services.auth, "abcde");
    const wrongCaptcha = await api.json("POST", "/api/v1/login", 401, {
      body: { username: user.username, password: user.password, captcha_id, captcha: "zzzzz" },
    });
    const wrongPassword = await api.json("POST", "/api/v1/login", 401, {
      body: { username: user.username, password: "not-the-password", captcha: "test-captcha" },
    });
    const unknownUser = await api.json("POST", "/api/v1/login", 401, {
      body: { username: "nobody-at-all", password: "whatever-1", captcha: "test-captcha" },
    });
    expect(strip(wrongCaptcha)).toEqual(strip(wrongPassword));
    expect(strip(wrongPassword)).toEqual(strip(unknownUser));
    expect(wrongPassword.error_code).toBe("INVALID_CREDENTIALS");
  });

  it("locks a username after repeated failures and says when to retry", async () => {
    const user = await api.createUser();
    for (let attempt = 0; attempt < 2; attempt++) {
      await api.json("POST", "/api/v1/login", 401, { body: loginBody({ username: user.username }) });
    }
    const locked = await api.request("POST", "/api/v1/login", { body: loginBody({ username: user.username }) });
    expect(locked.status).toBe(429);
    const body: any = await locked.json();
    expect(body.retry_after).toBeGreaterThan(0);
    expect(locked.headers.get("Retry-After")).toBe(String(body.retry_after));
    // Even the right password is refused while locked.
    const right = await api.request("POST", "/api/v1/login", {
      body: { username: user.username, password: user.password, captcha: "test-captcha" },
    });
    expect(right.status).toBe(429);
  });

  it("locks per username and client address: failures from one address do not lock the owner out from another", async () => {
    const user = await api.createUser();
    const from = (address: string, body: unknown) =>
      api.app.request(
        "/api/v1/login",
        { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) },
        {
          event: { requestContext: { http: { sourceIp: address } } },
        },
      );
    for (let attempt = 0; attempt < 2; attempt++) expect((await from("203.0.113.5", loginBody({ username: user.username }))).status).toBe(401);
    expect((await from("203.0.113.5", loginBody({ username: user.username }))).status).toBe(429);
    expect((await from("203.0.113.5", { username: user.username, password: user.password, captcha: CAPTCHA })).status).toBe(429);
    expect((await from("198.51.100.7", { username: user.username, password: user.password, captcha: CAPTCHA })).status).toBe(200);
  });

  it("never locks an address in LOGIN_TRUSTED_ADDRESSES: the administrator keeps a way in", async () => {
    const trusted = await createTestApi({ LOGIN_MAX_FAILURES: "3", LOGIN_TRUSTED_ADDRESSES: "192.0.2.10, 192.0.2.11" });
    const from = (address: string, body: unknown) =>
      trusted.app.request(
        "/api/v1/login",
        { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) },
        {
          event: { requestContext: { http: { sourceIp: address } } },
        },
      );
    for (let attempt = 0; attempt < 6; attempt++) expect((await from("192.0.2.10", loginBody())).status).toBe(401);
    expect((await from("192.0.2.10", { username: ADMIN.username, password: ADMIN.password, captcha: CAPTCHA })).status).toBe(200);
  });

  it("does the same work for an unknown username as for a wrong password (two reads, one scrypt)", async () => {
    const user = await api.createUser();
    const client = api.services.db.client;
    const send = client.send.bind(client);
    const counted = async (username: string) => {
      const commands: string[] = [];
      (client as any).send = (command: { constructor: { name: string } }, ...rest: unknown[]) => (
        commands.push(command.constructor.name), (send as any)(command, ...rest)
      );
      try {
        await api.json("POST", "/api/v1/login", 401, { body: { username, password: "not-the-password", captcha: CAPTCHA } });
      } finally {
        (client as any).send = send;
      }
      return commands;
    };
    expect(await counted(`nobody-${user.id.slice(0, 8)}`)).toEqual(await counted(user.username));
  });

  it("lists every missing field in one 422", async () => {
    const body = await api.json("POST", "/api/v1/login", 422, { body: {} });
    expect(body.error_code).toBe("VALIDATION_ERROR");
    expect(body.detail.map((issue: any) => issue.loc.join("."))).toEqual(["body.username", "body.password", "body.captcha"]);
    expect(body.detail[0].type).toBe("invalid_type");
  });

  it("answers malformed JSON with a 422", async () => {
    const body = await api.json("POST", "/api/v1/login", 422, { body: "{not json" });
    expect(body.detail).toEqual([{ loc: ["body"], msg: "Request body is not valid JSON", type: "json_invalid" }]);
  });

  it("answers a body sent without Content-Type: application/json with a 415 that names the header to send", async () => {
    // What `curl -d` sends when the header is left out.
    const form = await api.app.request("/api/v1/login", {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: '{"username":"a"}',
    });
    expect(form.status).toBe(415);
    const answer = (await form.json()) as { error_code: string; detail: string };
    expect(answer.error_code).toBe("UNSUPPORTED_MEDIA_TYPE");
    expect(answer.detail).toBe("The request body must be JSON: send the header Content-Type: application/json (got application/x-www-form-urlencoded)");
  });

  it("refuses an inactive user", async () => {
    const user = await api.createUser();
    await api.json("PUT", `/api/v1/users/${user.id}`, 200, { body: { status: "inactive" }, token: await api.adminToken() });
    const body = await api.json("POST", "/api/v1/login", 403, {
      body: { username: user.username, password: user.password, captcha: "test-captcha" },
    });
    expect(body.error_code).toBe("USER_INACTIVE");
  });
});

describe("tokens", () => {
  it("answers a missing token with 401 and WWW-Authenticate: Bearer", async () => {
    const response = await api.request("GET", "/api/v1/me");
    expect(response.status).toBe(401);
    expect(response.headers.get("WWW-Authenticate")).toMatch(/^Bearer/);
    const body: any = await response.json();
    expect(Object.keys(body).sort()).toEqual(["detail", "error_code", "path", "timestamp"]);
    expect(body.path).toBe("/api/v1/me");
  });

  it("answers a forged token with 401", async () => {
    const token = await api.adminToken();
    const forged = token.slice(0, -4) + (token.endsWith("AAAA") ? "BBBB" : "AAAA");
    const body = await api.json("GET", "/api/v1/me", 401, { token: forged });
    expect(body.detail).toBe("Invalid token");
  });

  it("accepts a token only in the Authorization header on HTTP routes, never as ?token=", async () => {
    const user = await api.createUser();
    const body = await api.json("GET", `/api/v1/me?token=${user.token}`, 401);
    expect(body.detail).toMatch(/Authorization: Bearer/);
    await api.json("GET", `/api/v1/trading/sessions?token=${user.token}`, 401);
  });

  it("refuses a token whose iat is in the future beyond a small skew", async () => {
    const user = await api.createUser();
    const sign = (iat: number) =>
      new SignJWT({ role: "user" })
        .setProtectedHeader({ alg: "HS256", typ: "JWT" })
        .setSubject(user.id)
        .setJti(crypto.randomUUID())
        .setIssuer("trading-platform")
        .setIssuedAt(iat)
        .setExpirationTime(iat + 7200)
        .sign(api.services.config.auth.jwtSecret);
    const now = Math.floor(Date.now() / 1000);
    expect((await api.json("GET", "/api/v1/me", 401, { token: await sign(now + 3600) })).detail).toBe("Token is issued in the future");
    expect((await api.json("GET", "/api/v1/me", 200, { token: await sign(now + TOKEN_CLOCK_SKEW_SECONDS - 5) })).id).toBe(user.id);
  });

  it("returns the current user for a valid token", async () => {
    const user = await api.createUser();
    const me = await api.json("GET", "/api/v1/me", 200, { token: user.token });
    expect(me).toMatchObject({ id: user.id, username: user.username, user_type: "user", status: "active" });
  });

  it("stops accepting a token after logout", async () => {
    const user = await api.createUser();
    await api.json("POST", "/api/v1/logout", 200, { token: user.token });
    const body = await api.json("GET", "/api/v1/me", 401, { token: user.token });
    expect(body.detail).toBe("Token has been revoked");
  });

  it("stops accepting a revoked token on another instance once its recheck interval passes", async () => {
    const user = await api.createUser();
    const other = await createTestApi({ AUTH_RECHECK_MS: "0", TABLE_NAME: api.services.config.tableName });
    await other.json("GET", "/api/v1/me", 200, { token: user.token });
    await api.json("POST", "/api/v1/logout", 200, { token: user.token });
    await other.json("GET", "/api/v1/me", 401, { token: user.token });
  });

  it("reads a token's revocation and user once for the requests that arrive together after its recheck is due", async () => {
    const user = await api.createUser();
    await api.json("GET", "/api/v1/me", 200, { token: user.token });
    const store = (api.services.principals as unknown as { store: { loadPrincipal: (...args: unknown[]) => unknown } }).store;
    const loads = vi.spyOn(store, "loadPrincipal");
    api.services.principals.invalidateUser(user.id);
    const answers = await Promise.all(Array.from({ length: 20 }, () => api.request("GET", "/api/v1/me", { token: user.token })));
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
    expect(loads).toHaveBeenCalledTimes(1);
    loads.mockRestore();
  });

  it("ends a user's tokens when an administrator deactivates them", async () => {
    const user = await api.createUser();
    await new Promise((resolve) => setTimeout(resolve, 1100)); // tokens are stamped in whole seconds
    await api.json("PUT", `/api/v1/users/${user.id}`, 200, { body: { status: "inactive" }, token: await api.adminToken() });
    await api.json("GET", "/api/v1/me", 401, { token: user.token });
  });
});
