import { createRoute, z } from "@hono/zod-openapi";
import { Auth, LoginRequest, LoginResponse } from "@tp/core/auth";
import { Users, UserResponse } from "@tp/core/users";
import { bearer, createGroup, errorResponse, errorResponses, json, jsonBody, requireAuth, type GroupServices } from "../http/group";
import { clientAddress } from "../http/edge";

/**
 * svg-captcha reads its font file when it loads: loaded on the first captcha, so a function that
 * never draws one (every group but auth and docs on AWS) needs no font beside its bundle.
 */
let captchaModule: Promise<typeof import("svg-captcha")> | undefined;
const drawing = () => (captchaModule ??= import("svg-captcha"));

const CaptchaResponse = z
  .object({
    captcha_id: z.string(),
    image: z.string().describe("An SVG image showing the code"),
    expires_in: z.number().int().describe("Seconds the challenge stays valid; it can be used once"),
  })
  .meta({ id: "CaptchaResponse" });

const MessageResponse = z.object({ success: z.boolean(), message: z.string() }).meta({ id: "MessageResponse" });

/** Captcha, login, logout and the current user. */
export function authGroup(services: GroupServices<"auth">) {
  const app = createGroup();
  app.use("/api/v1/logout", requireAuth(services));
  app.use("/api/v1/me", requireAuth(services));

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/v1/captcha",
      tags: ["auth"],
      summary: "A new single-use captcha challenge (SVG)",
      responses: { 200: json(CaptchaResponse, "The challenge") },
    }),
    async (c) => {
      const captcha = (await drawing()).create({ size: 5, noise: 3, ignoreChars: "0oO1iIlL", color: true });
      const issued = await Auth.issueCaptcha(services.auth, captcha.text);
      return c.json({ ...issued, image: captcha.data }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/v1/login",
      tags: ["auth"],
      summary: "Log in with username, password and captcha",
      description:
        "Send `captcha_id` from GET /api/v1/captcha with the code it showed. A wrong captcha, password or username all answer the same 401; repeated failures lock the username for the address they came from (429 with `retry_after`); addresses in LOGIN_TRUSTED_ADDRESSES are never locked (docs/security.md).",
      request: jsonBody(LoginRequest),
      responses: {
        200: json(LoginResponse, "Logged in"),
        401: errorResponse("INVALID_CREDENTIALS: the captcha, password or username is wrong (one answer for all three)"),
        403: errorResponse("USER_INACTIVE: the account is deactivated"),
        429: errorResponse("TOO_MANY_REQUESTS: the username is locked for this address; `retry_after` seconds"),
        ...errorResponses(),
      },
    }),
    async (c) => c.json(await Auth.login(services.auth, c.req.valid("json"), { clientAddress: clientAddress(c) }), 200),
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/v1/logout",
      tags: ["auth"],
      summary: "Revoke the current token",
      security: bearer,
      responses: { 200: json(MessageResponse, "Logged out"), ...errorResponses({ auth: true }) },
    }),
    async (c) => {
      const principal = c.get("principal");
      await Auth.logout(services.auth, principal.claims);
      services.principals.revokeLocally(principal.token);
      return c.json({ success: true, message: "Logged out" }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/v1/me",
      tags: ["auth"],
      summary: "The current user",
      security: bearer,
      responses: { 200: json(UserResponse, "The current user"), ...errorResponses({ auth: true }) },
    }),
    (c) => c.json(Users.toResponse(c.get("principal").user), 200),
  );

  return app;
}
