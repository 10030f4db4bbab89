/**
 * Encryption of secrets at rest (broker credentials). The adapter is AES-256-GCM with a key
 * from configuration (a key file locally, Secrets Manager on AWS); the domain never sees a key.
 */
export interface SecretBox {
  /**
   * Encrypts `plaintext`. `context` (the owning record's id) is authenticated but not stored,
   * so a sealed value copied onto another record does not open.
   */
  seal(plaintext: string, context?: string): string;
  /** Decrypts what `seal` produced with the same `context`; throws when it was altered. */
  open(sealed: string, context?: string): string;
}
