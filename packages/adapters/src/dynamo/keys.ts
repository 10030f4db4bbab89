import type { Key } from "./repository";

/**
 * Every key string of the single table is built here and nowhere else. Each entry names an
 * access pattern; docs/data-model.md lists them with their index and paging.
 */
export const Keys = {
  user: (userId: string): Key => ({ pk: `USER#${userId}`, sk: "PROFILE" }),
  /** gsi1: all users, in creation order. */
  usersByCreation: (createdAt: string, userId: string): Key => ({ pk: "USERS", sk: `${createdAt}#${userId}` }),
  usersPartition: "USERS",
  /** Unique claims: one item per taken username or email, written in the user's transaction. */
  uniqueUsername: (username: string): Key => ({ pk: `UNIQUE#USERNAME#${username.toLowerCase()}`, sk: "UNIQUE" }),
  uniqueEmail: (email: string): Key => ({ pk: `UNIQUE#EMAIL#${email.toLowerCase()}`, sk: "UNIQUE" }),

  captcha: (captchaId: string): Key => ({ pk: `CAPTCHA#${captchaId}`, sk: "CAPTCHA" }),
  loginAttempts: (username: string): Key => ({ pk: `LOGIN#${username.toLowerCase()}`, sk: "ATTEMPTS" }),
  revokedToken: (jti: string): Key => ({ pk: `REVOKED#${jti}`, sk: "TOKEN" }),

  broker: (brokerId: string): Key => ({ pk: `BROKER#${brokerId}`, sk: "BROKER" }),
  /** gsi1: a user's brokers (their broker accounts), in creation order. */
  brokersOfUser: (userId: string) => `USER#${userId}#BROKERS`,
  brokerOfUser: (userId: string, createdAt: string, brokerId: string): Key => ({
    pk: `USER#${userId}#BROKERS`,
    sk: `${createdAt}#${brokerId}`,
  }),

  /** A probe key that never exists: the health check reads it to time the database. */
  healthProbe: (): Key => ({ pk: "HEALTH", sk: "PROBE" }),

  connection: (connectionId: string): Key => ({ pk: `CONN#${connectionId}`, sk: "CONN" }),
  /** gsi1: the connections listening to a topic. */
  connectionsOfTopic: (topic: string) => `TOPIC#${topic}`,
  connectionByTopic: (topic: string, connectionId: string): Key => ({ pk: `TOPIC#${topic}`, sk: connectionId }),

  cacheEntry: (cacheKey: string): Key => ({ pk: `CACHE#${cacheKey}`, sk: "CACHE" }),
};
