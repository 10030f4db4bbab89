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
/** A labelled field: the label's `for` names the control, so `getByLabel("Username")` finds it. */
export function field(label: string, control: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement, help?: string): HTMLElement {
  control.id ||= `f${++fieldCount}`;
  const hint = help ? h("small", { id: `${control.id}-help` }, help) : null;
  if (hint) control.setAttribute("aria-describedby", hint.id);
  return h("div", { class: "field" }, h("label", { for: control.id }, label), control, hint);
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

export const percent = (value: number | null | undefined): string => (value === null || value === undefined ? "–" : `${(value * 100).toFixed(2)}%`);
export const num = (value: number | null | undefined, digits = 2): string => (value === null || value === undefined ? "–" : value.toFixed(digits));
/** A UTC timestamp shown in the browser's time zone. */
export const when = (iso: string | null | undefined): string => (iso ? new Date(iso).toLocaleString() : "–");
