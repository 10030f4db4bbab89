import { z } from "zod";
import { DomainError, badRequest, forbidden, notFound } from "./errors";
import { Passwords } from "./passwords";
import { tokenSeconds } from "./util/time";

/** Roles: `admin` manages users and data sources; `user` trades with their own resources. */
export const UserType = z.enum(["admin", "user"]).meta({ id: "UserType" });
export type UserType = z.infer<typeof UserType>;

/** `active` users may log in; `inactive` users may not, and their tokens stop working. */
export const UserStatus = z.enum(["active", "inactive"]).meta({ id: "UserStatus" });
export type UserStatus = z.infer<typeof UserStatus>;

const Username = z
  .string()
  .trim()
  .min(3)
  .max(64)
  .regex(/^[A-Za-z0-9_.-]+$/, "only letters, digits, '_', '.' and '-'");
const Email = z
  .email()
  .max(254)
  .transform((email) => email.toLowerCase());
const Phone = z
  .string()
  .trim()
  .max(32)
  .regex(/^[0-9+() -]*$/, "digits, spaces, '+', '(', ')' and '-' only")
  .nullable();
const Password = z.string().min(8, "at least 8 characters").max(256);

export const UserCreate = z
  .object({
    username: Username,
    email: Email,
    phone: Phone.optional(),
    user_type: UserType.optional(),
    status: UserStatus.optional(),
    password: Password,
  })
  .meta({ id: "UserCreate" });
export type UserCreate = z.infer<typeof UserCreate>;

export const UserUpdate = z
  .object({
    username: Username.optional(),
    email: Email.optional(),
    phone: Phone.optional(),
    user_type: UserType.optional(),
    status: UserStatus.optional(),
    /** Empty or omitted leaves the password unchanged. */
    password: z
      .union([z.literal(""), Password])
      .nullable()
      .optional(),
  })
  .meta({ id: "UserUpdate" });
export type UserUpdate = z.infer<typeof UserUpdate>;

export const UserResponse = z
  .object({
    id: z.string(),
    username: z.string(),
    email: z.string(),
    phone: z.string().nullable().optional(),
    user_type: UserType,
    status: UserStatus,
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: "UserResponse" });
export type UserResponse = z.infer<typeof UserResponse>;

/** A user as stored. `tokens_valid_after` (epoch seconds) ends every token issued before it. */
export interface User extends UserResponse {
  password_hash: string;
  tokens_valid_after: number;
}

/** Storage port for users; uniqueness of username and email is enforced by the store's conditional writes. */
export interface UserStore {
  create(user: User): Promise<void>;
  get(id: string): Promise<User | undefined>;
  findByUsername(username: string): Promise<User | undefined>;
  list(): Promise<User[]>;
  /** Replaces `before` with `after`, moving unique claims when username or email change. */
  update(before: User, after: User): Promise<void>;
  delete(user: User): Promise<void>;
}

export interface UsersDeps {
  users: UserStore;
  now: () => number;
  newId: () => string;
  /** Called after a change that must end or refresh cached sessions of this user. */
  onUserChanged?: (userId: string) => void;
}

/** The caller of a use case. */
export interface Actor {
  id: string;
  user_type: UserType;
  /** An API key limited to sessions acts on those only (docs/security.md "API keys"). */
  session_ids?: readonly string[];
}

const isAdmin = (actor: Actor) => actor.user_type === "admin";

export const Users = {
  /** The public view: never the password hash. */
  toResponse(user: User): UserResponse {
    return {
      id: user.id,
      username: user.username,
      email: user.email,
      phone: user.phone ?? null,
      user_type: user.user_type,
      status: user.status,
      created_at: user.created_at,
      updated_at: user.updated_at,
    };
  },

  requireAdmin(actor: Actor): void {
    if (!isAdmin(actor)) throw forbidden("Administrator access is required");
  },

  /** Self or administrator; others get 403 before existence is revealed. */
  requireSelfOrAdmin(actor: Actor, userId: string): void {
    if (!isAdmin(actor) && actor.id !== userId) throw forbidden("You may only access your own account");
  },

  async create(deps: UsersDeps, input: UserCreate, actor?: Actor): Promise<User> {
    if (actor) Users.requireAdmin(actor);
    const timestamp = new Date(deps.now()).toISOString();
    const user: User = {
      id: deps.newId(),
      username: input.username,
      email: input.email,
      phone: input.phone ?? null,
      user_type: input.user_type ?? "user",
      status: input.status ?? "active",
      password_hash: await Passwords.hash(input.password),
      tokens_valid_after: 0,
      created_at: timestamp,
      updated_at: timestamp,
    };
    await deps.users.create(user);
    return user;
  },

  async get(deps: UsersDeps, actor: Actor, userId: string): Promise<User> {
    Users.requireSelfOrAdmin(actor, userId);
    const user = await deps.users.get(userId);
    if (!user) throw notFound("USER_NOT_FOUND", `User ${userId} does not exist`);
    return user;
  },

  async list(deps: UsersDeps, actor: Actor): Promise<User[]> {
    Users.requireAdmin(actor);
    return deps.users.list();
  },

  async update(deps: UsersDeps, actor: Actor, userId: string, input: UserUpdate): Promise<User> {
    const before = await Users.get(deps, actor, userId);
    if (!isAdmin(actor)) {
      if (input.user_type !== undefined && input.user_type !== before.user_type) throw forbidden("You cannot change your own user_type");
      if (input.status !== undefined && input.status !== before.status) throw forbidden("You cannot change your own status");
    }
    if (isAdmin(actor) && actor.id === userId && input.status === "inactive")
      throw badRequest("CANNOT_DEACTIVATE_SELF", "An administrator cannot deactivate their own account");
    const after: User = {
      ...before,
      username: input.username ?? before.username,
      email: input.email ?? before.email,
      phone: input.phone === undefined ? before.phone : input.phone,
      user_type: input.user_type ?? before.user_type,
      status: input.status ?? before.status,
      password_hash: input.password ? await Passwords.hash(input.password) : before.password_hash,
      // Deactivation ends every token issued so far.
      tokens_valid_after: input.status === "inactive" && before.status !== "inactive" ? tokenSeconds() : before.tokens_valid_after,
      updated_at: new Date(deps.now()).toISOString(),
    };
    await deps.users.update(before, after);
    deps.onUserChanged?.(userId);
    return after;
  },

  async delete(deps: UsersDeps, actor: Actor, userId: string): Promise<User> {
    Users.requireAdmin(actor);
    if (actor.id === userId) throw badRequest("CANNOT_DELETE_SELF", "An administrator cannot delete their own account");
    const user = await deps.users.get(userId);
    if (!user) throw notFound("USER_NOT_FOUND", `User ${userId} does not exist`);
    await deps.users.delete(user);
    deps.onUserChanged?.(userId);
    return user;
  },
};

/** Creates the first administrator unless that username exists; safe to run on every boot. */
export async function ensureAdministrator(deps: UsersDeps, input: { username: string; email: string; password: string }): Promise<"created" | "exists"> {
  if (await deps.users.findByUsername(input.username)) return "exists";
  try {
    await Users.create(deps, { ...input, user_type: "admin", status: "active" });
    return "created";
  } catch (error) {
    // Another instance created it between the read and the write: the database kept one.
    if (error instanceof DomainError && error.code === "USERNAME_TAKEN") return "exists";
    throw error;
  }
}

export const usernameTaken = (username: string) => new DomainError(409, "USERNAME_TAKEN", `The username '${username}' is already in use`);
export const emailTaken = (email: string) => new DomainError(409, "EMAIL_TAKEN", `The email '${email}' is already in use`);
