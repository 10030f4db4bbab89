import type { ProviderTokenRefresher } from "@tp/core/settings/index";
import { withTimeout } from "./sdk";
import type { LongportHosts } from "../../config";
import { configFor, type LongportSettings } from "./connection";
import { longportError } from "./errors";

/**
 * Refreshes a LongPort access token with the SDK's `Config.refreshAccessToken(expiredAt)` (the
 * OpenAPI's `GET /v1/token/refresh`). Failures are DomainErrors: unreachable 503
 * `PROVIDER_UNAVAILABLE`, refused 502 `PROVIDER_ERROR` with LongPort's code.
 */
export class LongportTokenRefresher implements ProviderTokenRefresher {
  constructor(
    private readonly timeoutMs: number,
    /** The service's LongPort hosts (`LONGPORT_*_URL`). */
    private readonly hosts: LongportHosts = {},
  ) {}

  async refresh(settings: LongportSettings, expiresAt: Date): Promise<string> {
    try {
      const config = await configFor(settings, this.hosts);
      return await withTimeout(config.refreshAccessToken(expiresAt), this.timeoutMs, "LongPort token refresh");
    } catch (error) {
      throw longportError(error, "the token refresh");
    }
  }
}
