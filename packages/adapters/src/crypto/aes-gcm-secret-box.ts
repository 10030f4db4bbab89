import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import type { SecretBox } from "@tp/core/brokers/index";

const FORMAT = "v1";
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * AES-256-GCM with a random 96-bit nonce per seal. Sealed form: `v1.<base64url(nonce | tag | ciphertext)>`;
 * the version prefix leaves room to rotate to another key or scheme. The optional context is
 * bound as associated data, so a sealed value moved to another record fails to open.
 */
export class AesGcmSecretBox implements SecretBox {
  private readonly key: Buffer;

  constructor(key: Uint8Array) {
    if (key.length !== 32) throw new Error(`The encryption key must be 32 bytes (AES-256); got ${key.length}`);
    this.key = Buffer.from(key);
  }

  seal(plaintext: string, context = ""): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv("aes-256-gcm", this.key, iv);
    cipher.setAAD(Buffer.from(context, "utf8"));
    const ciphertext = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
    return `${FORMAT}.${Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString("base64url")}`;
  }

  open(sealed: string, context = ""): string {
    const [format, payload] = sealed.split(".", 2);
    if (format !== FORMAT || !payload) throw new Error("Not a sealed value of this service");
    const bytes = Buffer.from(payload, "base64url");
    if (bytes.length < IV_BYTES + TAG_BYTES) throw new Error("Sealed value is truncated");
    const decipher = createDecipheriv("aes-256-gcm", this.key, bytes.subarray(0, IV_BYTES));
    decipher.setAAD(Buffer.from(context, "utf8"));
    decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString("utf8");
  }
}
