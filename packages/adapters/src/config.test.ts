import { describe, expect, it } from "vitest";
import { configFromEnv } from "./config";

const secret = new TextEncoder().encode("a-secret-a-secret-a-secret-a-secret!");

describe("the captcha test code", () => {
  it("is taken on a non-production stage", () => {
    expect(configFromEnv({ STAGE: "dev", CAPTCHA_TEST_CODE: "smoke-123" }, secret).auth.captchaTestCode).toBe("smoke-123");
  });

  it("makes a production stage refuse to start", () => {
    for (const stage of ["prod", "production"]) {
      expect(() => configFromEnv({ STAGE: stage, CAPTCHA_TEST_CODE: "smoke-123" }, secret)).toThrow(/refusing to start/);
    }
    expect(configFromEnv({ STAGE: "prod" }, secret).auth.captchaTestCode).toBeUndefined();
  });
});
