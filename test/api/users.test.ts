import { beforeAll, describe, expect, it } from "vitest";
import { ADMIN, createTestApi, type TestApi } from "../support/harness";

let api: TestApi;
let admin: string;
beforeAll(async () => {
  api = await createTestApi();
  admin = await api.adminToken();
});

describe("administrator-only user endpoints", () => {
  it("lists users without passwords, oldest first", async () => {
    const user = await api.createUser();
    const users = await api.json("GET", "/api/v1/users", 200, { token: admin });
    expect(users[0].username).toBe(ADMIN.username);
    expect(users.map((u: any) => u.id)).toContain(user.id);
    for (const listed of users) {
      expect(listed).not.toHaveProperty("password");
      expect(listed).not.toHaveProperty("password_hash");
    }
  });

  it("refuses list, create and delete to a non-administrator with 403 ACCESS_DENIED", async () => {
    const user = await api.createUser();
    const list = await api.json("GET", "/api/v1/users", 403, { token: user.token });
    expect(list.error_code).toBe("ACCESS_DENIED");
    await api.json("POST", "/api/v1/users", 403, {
      token: user.token,
      body: { username: "sneaky", email: "sneaky@example.com", password: "password-1" },
    });
    await api.json("DELETE", `/api/v1/users/${user.id}`, 403, { token: user.token });
  });

  it("creates a user with defaults user/active", async () => {
    const created = await api.json("POST", "/api/v1/users", 201, {
      token: admin,
      body: { username: "carol", email: "Carol@Example.com", password: "password-1", phone: "+852 1234 5678" },
    });
    expect(created).toMatchObject({ username: "carol", email: "carol@example.com", user_type: "user", status: "active", phone: "+852 1234 5678" });
    expect(created.created_at).toBe(created.updated_at);
  });

  it("lists every invalid field of a create in one 422", async () => {
    const body = await api.json("POST", "/api/v1/users", 422, {
      token: admin,
      body: { username: "x", email: "not-an-email", password: "short", user_type: "root" },
    });
    expect(body.detail.map((issue: any) => issue.loc.join(".")).sort()).toEqual(["body.email", "body.password", "body.user_type", "body.username"]);
  });

  it("enforces unique usernames and emails, case-insensitively, even under concurrent creates", async () => {
    const attempts = await Promise.all(
      Array.from({ length: 5 }, (_, index) =>
        api.request("POST", "/api/v1/users", {
          token: admin,
          body: { username: "racer", email: `racer${index}@example.com`, password: "password-1" },
        }),
      ),
    );
    const statuses = attempts.map((response) => response.status).sort();
    expect(statuses).toEqual([201, 409, 409, 409, 409]);
    const losers = await Promise.all(attempts.filter((response) => response.status === 409).map((response) => response.json() as Promise<any>));
    expect(losers.map((body) => body.error_code)).toEqual(["USERNAME_TAKEN", "USERNAME_TAKEN", "USERNAME_TAKEN", "USERNAME_TAKEN"]);
    // Whichever racer won holds its email too, compared case-insensitively.
    const winner = await (attempts.find((response) => response.status === 201)!.json() as Promise<any>);
    const email = await api.json("POST", "/api/v1/users", 409, {
      token: admin,
      body: { username: "racer-two", email: winner.email.toUpperCase(), password: "password-1" },
    });
    expect(email.error_code).toBe("EMAIL_TAKEN");
  });

  it("deletes a user, frees their username and ends their tokens", async () => {
    const user = await api.createUser({ username: "leaving" });
    const result = await api.json("DELETE", `/api/v1/users/${user.id}`, 200, { token: admin });
    expect(result).toMatchObject({ success: true, id: user.id });
    await api.json("GET", "/api/v1/me", 401, { token: user.token });
    await api.json("GET", `/api/v1/users/${user.id}`, 404, { token: admin });
    await api.createUser({ username: "leaving" });
  });

  it("answers 404 USER_NOT_FOUND for an unknown id", async () => {
    const body = await api.json("DELETE", "/api/v1/users/does-not-exist", 404, { token: admin });
    expect(body.error_code).toBe("USER_NOT_FOUND");
  });
});

describe("self service", () => {
  it("lets a user read themself but not others", async () => {
    const alice = await api.createUser();
    const bob = await api.createUser();
    const me = await api.json("GET", `/api/v1/users/${alice.id}`, 200, { token: alice.token });
    expect(me.username).toBe(alice.username);
    await api.json("GET", `/api/v1/users/${bob.id}`, 403, { token: alice.token });
    await api.json("GET", `/api/v1/users/${bob.id}`, 200, { token: admin });
  });

  it("lets a user change their email but not their own user_type or status", async () => {
    const user = await api.createUser();
    const updated = await api.json("PUT", `/api/v1/users/${user.id}`, 200, { token: user.token, body: { email: "new-mail@example.com" } });
    expect(updated.email).toBe("new-mail@example.com");
    const promote = await api.json("PUT", `/api/v1/users/${user.id}`, 403, { token: user.token, body: { user_type: "admin" } });
    expect(promote.error_code).toBe("ACCESS_DENIED");
    await api.json("PUT", `/api/v1/users/${user.id}`, 403, { token: user.token, body: { status: "inactive" } });
    // Sending the current values is not a change.
    await api.json("PUT", `/api/v1/users/${user.id}`, 200, { token: user.token, body: { user_type: "user", status: "active" } });
  });

  it("keeps the password when the update's password is empty or omitted, and changes it otherwise", async () => {
    const user = await api.createUser();
    await api.json("PUT", `/api/v1/users/${user.id}`, 200, { token: user.token, body: { password: "", phone: "123" } });
    await api.json("PUT", `/api/v1/users/${user.id}`, 200, { token: user.token, body: { phone: "456" } });
    await api.login(user.username, user.password);
    await api.json("PUT", `/api/v1/users/${user.id}`, 200, { token: user.token, body: { password: "brand-new-password" } });
    await api.login(user.username, "brand-new-password");
    await api.json("POST", "/api/v1/login", 401, { body: { username: user.username, password: user.password, captcha: "test-captcha" } });
  });

  it("moves the unique username claim on rename", async () => {
    const user = await api.createUser();
    await api.json("PUT", `/api/v1/users/${user.id}`, 200, { token: admin, body: { username: `${user.username}-renamed` } });
    await api.login(`${user.username}-renamed`, user.password);
    // The old name is free again.
    await api.createUser({ username: user.username });
  });

  it("lists a user's broker accounts (none yet) in the documented shape", async () => {
    const user = await api.createUser();
    const accounts = await api.json("GET", `/api/v1/users/${user.id}/accounts`, 200, { token: user.token });
    expect(accounts).toEqual({ user_id: user.id, accounts: [], total: 0 });
  });
});
