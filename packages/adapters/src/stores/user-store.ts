import { emailTaken, usernameTaken, type User, type UserStore } from "@tp/core/users";
import type { Db } from "../dynamo/db";
import { Keys } from "../dynamo/keys";
import { Repository } from "../dynamo/repository";
import { transact, type TransactionStep } from "../dynamo/transactions";

interface UniqueClaim {
  kind: "username" | "email";
  value: string;
  user_id: string;
}

/** Users on the single table; username and email uniqueness held by claim items in one transaction. */
/** An id no user has (ids are UUIDs): read in place of an unknown username's user. */
const UNKNOWN_USER_ID = "#unknown";

export class DynamoUserStore implements UserStore {
  private readonly users: Repository<User>;
  private readonly claims: Repository<UniqueClaim>;

  constructor(db: Db) {
    this.users = new Repository<User>(db, {
      type: "User",
      key: (user) => Keys.user(user.id),
      indexes: { gsi1: (user) => Keys.usersByCreation(user.created_at, user.id) },
    });
    this.claims = new Repository<UniqueClaim>(db, {
      type: "UniqueClaim",
      key: (claim) => (claim.kind === "username" ? Keys.uniqueUsername(claim.value) : Keys.uniqueEmail(claim.value)),
    });
  }

  private claimStep(kind: UniqueClaim["kind"], value: string, userId: string): TransactionStep {
    return {
      put: this.claims.toItem({ kind, value, user_id: userId }),
      ifAbsent: true,
      onConflict: () => (kind === "username" ? usernameTaken(value) : emailTaken(value)),
    };
  }

  private releaseStep(kind: UniqueClaim["kind"], value: string, userId: string): TransactionStep {
    const key = kind === "username" ? Keys.uniqueUsername(value) : Keys.uniqueEmail(value);
    return { delete: key, ifOwnedBy: { attribute: "user_id", value: userId } };
  }

  async create(user: User): Promise<void> {
    await transact(this.users.db, [
      { put: this.users.toItem(user), ifAbsent: true },
      this.claimStep("username", user.username, user.id),
      this.claimStep("email", user.email, user.id),
    ]);
  }

  get(id: string) {
    return this.users.get(Keys.user(id));
  }

  /**
   * The user holding a username. An unknown name costs the same two reads as a known one (the
   * second for an id that cannot exist), so a login's timing does not tell which names exist.
   */
  async findByUsername(username: string): Promise<User | undefined> {
    const claim = await this.claims.get(Keys.uniqueUsername(username));
    const user = await this.get(claim?.user_id ?? UNKNOWN_USER_ID);
    return claim ? user : undefined;
  }

  list() {
    return this.users.queryAll(Keys.usersPartition, { index: "gsi1" });
  }

  async update(before: User, after: User): Promise<void> {
    const steps: TransactionStep[] = [{ put: this.users.toItem(after) }];
    if (before.username.toLowerCase() !== after.username.toLowerCase()) {
      steps.push(this.claimStep("username", after.username, after.id), this.releaseStep("username", before.username, after.id));
    }
    if (before.email.toLowerCase() !== after.email.toLowerCase()) {
      steps.push(this.claimStep("email", after.email, after.id), this.releaseStep("email", before.email, after.id));
    }
    await transact(this.users.db, steps);
  }

  async delete(user: User): Promise<void> {
    await transact(this.users.db, [
      { delete: Keys.user(user.id) },
      this.releaseStep("username", user.username, user.id),
      this.releaseStep("email", user.email, user.id),
    ]);
  }
}
