import { isApiError, type components } from "@tp/client";
import { api, unwrap } from "../app";
import { field, fields, h, onSubmit, statusLine, table, when } from "../ui";

type User = components["schemas"]["UserResponse"];
type Role = components["schemas"]["UserType"];

/** The users for administrators: the list, a new user, and one user's role, activity, email and password edited. */
export async function usersSection(): Promise<HTMLElement> {
  const section = h("section", { class: "card", "aria-label": "Users" }, h("h2", {}, "Users"));
  const list = h("div", {});
  const editor = h("div", {});
  let users: User[];
  try {
    users = unwrap(await api.GET("/api/v1/users"));
  } catch (error) {
    const why = isApiError(error, "ACCESS_DENIED") ? "Only administrators see and change the users." : `The users cannot be read: ${(error as Error).message}`;
    section.append(h("p", { class: "muted" }, why));
    return section;
  }
  const showList = () =>
    list.replaceChildren(
      table(
        ["Username", "Email", "Role", "Status", "Created", ""],
        users.map((user) => [
          user.username,
          user.email || "–",
          user.user_type,
          user.status,
          when(user.created_at),
          h("button", { type: "button", class: "secondary", onclick: () => edit(user) }, `Edit ${user.username}`),
        ]),
        `Users (${users.length})`,
      ),
    );
  const edit = (user: User) => {
    editor.replaceChildren(
      userForm(user, (saved) => {
        users = users.map((known) => (known.id === saved.id ? saved : known));
        showList();
      }),
    );
    editor.querySelector("input")?.focus();
  };
  showList();
  section.append(
    list,
    userForm(undefined, (created) => {
      users = [...users, created];
      showList();
    }),
    editor,
  );
  return section;
}

/** A user's form: empty to create one (POST), filled to edit one (PUT; an empty password keeps theirs). */
function userForm(user: User | undefined, saved: (user: User) => void): HTMLFormElement {
  const title = user ? `Edit user ${user.username}` : "New user";
  const status = statusLine();
  const username = h("input", { name: "username", autocomplete: "off", value: user?.username ?? "" });
  const email = h("input", { name: "email", type: "email", autocomplete: "off", value: user?.email ?? "" });
  const password = h("input", { name: "password", type: "password", autocomplete: "new-password" });
  const role = h(
    "select",
    { name: "user_type" },
    (["user", "admin"] as const).map((type) => h("option", { value: type, selected: type === (user?.user_type ?? "user") }, type)),
  );
  const active = h("input", { type: "checkbox", name: "status", checked: (user?.status ?? "active") === "active" });
  const form = h(
    "form",
    { class: "card", "aria-label": title, novalidate: true },
    h("h3", {}, title),
    fields(
      field("Username", username),
      field("Email", email),
      field("Password", password, user ? "Leave empty to keep the current one" : "At least 8 characters"),
      field("Role", role),
      field("Active", active, "An inactive user cannot sign in; their tokens stop working"),
    ),
    h("button", { type: "submit" }, user ? "Save user" : "Create user"),
    status,
  );
  onSubmit(form, status, async () => {
    const body = {
      username: username.value.trim(),
      email: email.value.trim(),
      user_type: role.value as Role,
      status: active.checked ? ("active" as const) : ("inactive" as const),
    };
    if (user) {
      const answer = unwrap(
        await api.PUT("/api/v1/users/{user_id}", {
          params: { path: { user_id: user.id } },
          body: { ...body, ...(password.value ? { password: password.value } : {}) },
        }),
      );
      password.value = "";
      saved(answer);
      return `User ${answer.username} saved: ${answer.user_type}, ${answer.status}.`;
    }
    const answer = unwrap(await api.POST("/api/v1/users", { body: { ...body, password: password.value } }));
    form.reset();
    saved(answer);
    return `User ${answer.username} created.`;
  });
  return form;
}
