import { describe, expect, it } from "vitest";
import { AesGcmSecretBox } from "./aes-gcm-secret-box";

const key = (fill: number) => new Uint8Array(32).fill(fill);

describe("AesGcmSecretBox", () => {
  it("opens what it sealed, and never shows the plaintext in the sealed form", () => {
    const box = new AesGcmSecretBox(key(7));
    const sealed = box.seal('{"app_secret":"very-secret-value"}', "broker-1");
    expect(sealed.startsWith("v1.")).toBe(true);
    expect(sealed).not.toContain("very-secret-value");
    expect(box.open(sealed, "broker-1")).toBe('{"app_secret":"very-secret-value"}');
  });

  it("seals the same plaintext differently each time (random nonce)", () => {
    const box = new AesGcmSecretBox(key(7));
    expect(box.seal("same", "x")).not.toBe(box.seal("same", "x"));
  });

  it("refuses a value sealed for another record, under another key, or altered", () => {
    const box = new AesGcmSecretBox(key(7));
    const sealed = box.seal("secret", "broker-1");
    expect(() => box.open(sealed, "broker-2")).toThrow();
    expect(() => new AesGcmSecretBox(key(8)).open(sealed, "broker-1")).toThrow();
    const payload = Buffer.from(sealed.slice(3), "base64url");
    payload[payload.length - 1] ^= 1;
    expect(() => box.open(`v1.${payload.toString("base64url")}`, "broker-1")).toThrow();
    expect(() => box.open("plain text", "broker-1")).toThrow("Not a sealed value");
  });

  it("requires a 256-bit key", () => {
    expect(() => new AesGcmSecretBox(new Uint8Array(16))).toThrow("32 bytes");
  });
});
