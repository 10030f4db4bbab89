import { client, go, remember } from "../app";
import { field, h, statusLine } from "../ui";

/** /console: the captcha login. */
export async function signInPage(main: HTMLElement, _params: Record<string, string>): Promise<void> {
  const username = h("input", { name: "username", autocomplete: "username", required: true });
  const password = h("input", { name: "password", type: "password", autocomplete: "current-password", required: true });
  const captcha = h("input", { name: "captcha", autocomplete: "off", required: true, spellcheck: "false" });
  const image = h("div", { class: "captcha", role: "img", "aria-label": "Captcha image" });
  const status = statusLine();
  let captchaId: string | undefined;
  const refresh = async () => {
    try {
      const challenge = await client.captcha();
      captchaId = challenge.captcha_id;
      image.innerHTML = challenge.image.startsWith("data:") ? `<img alt="" src="${challenge.image}">` : challenge.image;
    } catch (error) {
      status.fail(error);
    }
  };
  const again = h("button", { type: "button", onclick: () => void refresh() }, "New captcha");
  const form = h(
    "form",
    { class: "card narrow", "aria-label": "Sign in" },
    h("h1", {}, "Sign in"),
    field("Username", username),
    field("Password", password),
    h("div", { class: "captcha-row" }, image, again),
    field("Captcha", captcha, "The characters in the image"),
    h("button", { type: "submit" }, "Sign in"),
    status,
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    status.say("Signing in…");
    try {
      const answer = await client.login({ username: username.value, password: password.value, captcha: captcha.value, captcha_id: captchaId });
      remember(answer.access_token);
      go("/backtests");
    } catch (error) {
      status.fail(error);
      captcha.value = "";
      void refresh();
    }
  });
  main.append(form);
  await refresh();
  username.focus();
}
