import { randomBytes } from "node:crypto";

export interface Credentials {
  appKey: string;
  appSecret: string;
  accessToken: string;
}

interface TokenState {
  appKey: string;
  expired: boolean;
  expiresAt: number;
}

/**
 * App keys with their secrets, the access tokens issued to them, and the one-time socket tokens
 * (OTPs) `GET /v1/socket/token` hands out: an OTP authenticates one socket once, as LongPort's does.
 * Token lifetimes run on the trading clock (`now`), so advancing it past a token's expiry expires it.
 */
export class CredentialStore {
  private readonly secrets = new Map<string, string>();
  private readonly tokens = new Map<string, TokenState>();
  private readonly otps = new Map<string, string>();
  private refreshes = 0;

  constructor(private readonly now: () => number) {}

  add(credentials: Credentials, expiresAt = this.now() + 90 * 86_400_000): void {
    this.secrets.set(credentials.appKey, credentials.appSecret);
    this.tokens.set(credentials.accessToken, { appKey: credentials.appKey, expired: false, expiresAt });
  }

  secretOf(appKey: string): string | undefined {
    return this.secrets.get(appKey);
  }

  /** The state of an access token issued to `appKey`; undefined for a token the fake never issued to it. */
  token(accessToken: string, appKey: string): TokenState | undefined {
    const state = this.tokens.get(accessToken);
    return state?.appKey === appKey ? state : undefined;
  }

  isExpired(state: TokenState): boolean {
    return state.expired || state.expiresAt <= this.now();
  }

  /** Marks `accessToken` (default: every token) expired: each call with it gets 401003 until it is refreshed. */
  expire(accessToken?: string): void {
    for (const [token, state] of this.tokens) if (accessToken === undefined || token === accessToken) state.expired = true;
  }

  /** `GET /v1/token/refresh`: a new token for the same app key, valid until `expiresAt`; the old one stays as it was. */
  refresh(accessToken: string, expiresAt: number): string {
    const state = this.tokens.get(accessToken);
    if (!state) throw new Error("unknown token");
    const token = `${accessToken.replace(/~r\d+$/, "")}~r${++this.refreshes}`;
    this.tokens.set(token, { appKey: state.appKey, expired: false, expiresAt });
    return token;
  }

  issueOtp(appKey: string): string {
    const otp = randomBytes(12).toString("hex");
    this.otps.set(otp, appKey);
    return otp;
  }

  /** The app key an OTP was issued to, consuming it; undefined when unknown or already used. */
  useOtp(otp: string): string | undefined {
    const appKey = this.otps.get(otp);
    this.otps.delete(otp);
    return appKey;
  }
}
