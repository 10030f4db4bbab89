/**
 * The API Gateway routes of each endpoint group (one Lambda per group). Kept free of
 * imports so the Api stack can read it at synth time; `groups/index.ts` pairs each name
 * with its app, and a test checks that every route the apps serve is routed here.
 */
export const groupRoutes = {
  system: ["GET /", "GET /health", "GET /cache/status", "GET /cache/test"],
  docs: ["GET /openapi.json", "GET /docs"],
  auth: ["GET /api/v1/captcha", "POST /api/v1/login", "POST /api/v1/logout", "GET /api/v1/me"],
  users: ["ANY /api/v1/users", "ANY /api/v1/users/{proxy+}"],
} as const;

export type RoutedGroup = keyof typeof groupRoutes;
