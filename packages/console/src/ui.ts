import { isApiError } from "@tp/client";

type Child = Node | string | number | null | undefined | false;
type Attrs = Record<string, string | number | boolean | EventListener | undefined | null>;

/** One element: `h("button", { type: "button", onclick }, "Start")`. Attributes starting with `on` are listeners. */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: (Child | Child[])[]): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on") && typeof value === "function") element.addEventListener(name.slice(2), value as EventListener);
    else if (value === true) element.setAttribute(name, "");
    else element.setAttribute(name, String(value));
  }
  append(element, children);
  return element;
}

export function append(parent: Node, children: (Child | Child[])[]): void {
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === "object" ? child : document.createTextNode(String(child)));
  }
}

let fieldCount = 0;
type Control = HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;
/**
 * A labelled field: the label's `for` names the control, so `getByLabel("Username")` finds it. Its
 * problem line (`.field-error`, empty until `showProblems` fills it) is read out with the control.
 */
export function field(label: string, control: Control, help?: string): HTMLElement {
  control.id ||= `f${++fieldCount}`;
  const hint = help ? h("small", { id: `${control.id}-help` }, help) : null;
  const problem = h("small", { id: `${control.id}-error`, class: "field-error", "aria-live": "polite" });
  control.setAttribute("aria-describedby", [hint?.id, problem.id].filter(Boolean).join(" "));
  return h("div", { class: "field" }, h("label", { for: control.id }, label), control, hint, problem);
}

/** Fields side by side, as many as the width takes (one column at a phone's width). */
export const fields = (...children: HTMLElement[]): HTMLElement => h("div", { class: "grid" }, children);

/** Empties every problem line of a form's fields. */
export function clearProblems(form: HTMLElement): void {
  for (const control of form.querySelectorAll<Control>("[aria-invalid]")) control.removeAttribute("aria-invalid");
  for (const line of form.querySelectorAll(".field-error")) line.textContent = "";
}

/**
 * Says each problem next to its field: `problems` maps a control's `name` to its message (a 422's
 * `detail` entries map by their `loc` after the body/query/path part, dotted: `provider_config.app_key`).
 * What names no field of the form is said on `status`. The first field with a problem takes the focus.
 */
export function showProblems(form: HTMLElement, problems: [name: string, message: string][], status: ReturnType<typeof statusLine>): void {
  clearProblems(form);
  const elsewhere: string[] = [];
  let first: Control | undefined;
  // A problem inside a value (`config.symbols.0`) is said at the field holding it (`config.symbols`).
  const controlFor = (name: string): Control | null => {
    for (let parts = name.split("."); parts.length > 0; parts = parts.slice(0, -1)) {
      const control = form.querySelector<Control>(`[name="${CSS.escape(parts.join("."))}"]`);
      if (control) return control;
    }
    return null;
  };
  for (const [name, message] of problems) {
    const control = controlFor(name);
    const line = control && document.getElementById(`${control.id}-error`);
    if (!control || !line) {
      elsewhere.push(name ? `${name}: ${message}` : message);
      continue;
    }
    control.setAttribute("aria-invalid", "true");
    line.textContent = line.textContent ? `${line.textContent} · ${message}` : message;
    first ??= control;
  }
  first?.focus();
  if (elsewhere.length > 0) status.say(elsewhere.join(" · "), "error");
  else status.say(problems.length === 1 ? "One field needs a change." : `${problems.length} fields need a change.`, "error");
}

/** Problems the console finds before it calls (a value out of its field's range), said like a 422's. */
export class FieldProblems extends Error {
  constructor(readonly problems: [name: string, message: string][]) {
    super(problems.map(([name, message]) => `${name}: ${message}`).join(" · "));
  }
}

/**
 * The problems of a failed call by field name: a 422's `detail`, an error naming its `field` (a 400
 * `INVALID_PARAMETER` with `field`), or `FieldProblems`; undefined for any other error.
 */
export function problemsOf(error: unknown): [string, string][] | undefined {
  if (error instanceof FieldProblems) return error.problems;
  if (!isApiError(error)) return undefined;
  const { detail, field } = error.body as { detail: unknown; field?: unknown };
  if (typeof detail === "string" && typeof field === "string") return [[field, detail]];
  if (!Array.isArray(error.body.detail)) return undefined;
  return error.body.detail.map((problem) => [problem.loc.slice(1).join("."), problem.msg]);
}

/**
 * A form that submits by Enter or its button: `submit` runs with the problems cleared; a 422's
 * problems are said next to their fields, any other error on `status`, an answer (a string) on `status`.
 */
export function onSubmit(form: HTMLFormElement, status: ReturnType<typeof statusLine>, submit: () => Promise<unknown>): void {
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    clearProblems(form);
    const button = form.querySelector<HTMLButtonElement>("button[type=submit]");
    if (button) button.disabled = true;
    try {
      const answer = await submit();
      if (typeof answer === "string") status.say(answer);
    } catch (error) {
      const problems = problemsOf(error);
      if (problems) showProblems(form, problems, status);
      else status.fail(error);
    } finally {
      if (button) button.disabled = false;
    }
  });
}

/** An error in words: the API's message and each field's problem, or the thrown error's message. */
export function describeError(error: unknown): string {
  if (isApiError(error)) {
    const detail = error.body.detail;
    if (Array.isArray(detail)) return detail.map((problem) => `${problem.loc.filter((part) => part !== "body").join(".")}: ${problem.msg}`).join(" · ");
    return typeof detail === "string" && detail ? detail : `The service answered ${error.status} ${error.code}`;
  }
  if (error instanceof TypeError) return "The service cannot be reached.";
  return error instanceof Error ? error.message : String(error);
}

/** A status line (`role="status"`, read out by screen readers) that shows an action's answer or error. */
export function statusLine(): HTMLElement & { say(text: string, kind?: "ok" | "error"): void; fail(error: unknown): void } {
  const line = h("p", { role: "status", class: "status" }) as unknown as HTMLElement & {
    say(text: string, kind?: "ok" | "error"): void;
    fail(error: unknown): void;
  };
  line.say = (text, kind = "ok") => {
    line.textContent = text;
    line.className = `status ${kind}`;
  };
  line.fail = (error) => line.say(describeError(error), "error");
  return line;
}

/** A button that runs `action`, disabled while it runs, reporting its answer or error on `status`. */
export function actionButton(label: string, action: () => Promise<string | void>, status: ReturnType<typeof statusLine>): HTMLButtonElement {
  const button = h("button", { type: "button" }, label);
  button.addEventListener("click", async () => {
    button.disabled = true;
    try {
      const answer = await action();
      if (answer) status.say(answer);
    } catch (error) {
      status.fail(error);
    } finally {
      button.disabled = false;
    }
  });
  return button;
}

export function table(headers: string[], rows: Child[][], caption?: string): HTMLTableElement {
  return h(
    "table",
    {},
    caption ? h("caption", {}, caption) : null,
    h(
      "thead",
      {},
      h(
        "tr",
        {},
        headers.map((header) => h("th", { scope: "col" }, header)),
      ),
    ),
    h(
      "tbody",
      {},
      rows.map((row) =>
        h(
          "tr",
          {},
          row.map((cell) => h("td", {}, cell)),
        ),
      ),
    ),
  );
}

/** The comma-separated symbols of a field, trimmed, without empties. */
export const symbolList = (text: string): string[] =>
  text
    .split(",")
    .map((symbol) => symbol.trim())
    .filter(Boolean);

export const percent = (value: number | null | undefined): string => (value === null || value === undefined ? "–" : `${(value * 100).toFixed(2)}%`);
export const num = (value: number | null | undefined, digits = 2): string => (value === null || value === undefined ? "–" : value.toFixed(digits));
/** A UTC timestamp shown in the browser's time zone. */
export const when = (iso: string | null | undefined): string => (iso ? new Date(iso).toLocaleString() : "–");
