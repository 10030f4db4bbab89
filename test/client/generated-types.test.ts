import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { CLIENT_API_TYPES_FILE, CLIENT_SOCKET_TYPES_FILE, clientTypes, embeddedAsyncApiDocument, embeddedDocument } from "../../scripts/openapi";

describe("packages/client/src/generated (openapi-typescript)", () => {
  it("holds the types of the app's current documents: after changing a route or a socket message, run npm run openapi", { timeout: 60_000 }, async () => {
    const types = await clientTypes(await embeddedDocument(), await embeddedAsyncApiDocument());
    expect(readFileSync(CLIENT_API_TYPES_FILE, "utf8") === types.api, "packages/client/src/generated/api.ts is stale: run npm run openapi").toBe(true);
    expect(readFileSync(CLIENT_SOCKET_TYPES_FILE, "utf8"), "packages/client/src/generated/sockets.ts is stale: run npm run openapi").toBe(types.sockets);
    expect(types.api).toContain("getBacktestProgressByBacktestId: {");
  });
});
