import WebSocket from "ws";

/** A socket that collects the JSON it receives; rejects with the status when the handshake is refused. */
export async function listen(url: string): Promise<{ ws: WebSocket; received: any[] }> {
  const ws = new WebSocket(url);
  const received: any[] = [];
  ws.on("message", (data) => received.push(JSON.parse(data.toString())));
  await new Promise<void>((resolve, reject) => {
    ws.once("open", () => resolve());
    ws.once("unexpected-response", (_request, response) => reject(new Error(`rejected with ${response.statusCode}`)));
    ws.once("error", reject);
  });
  return { ws, received };
}

/** Waits until `check` holds, polling every 25 ms; throws after `ms`. */
export async function until(check: () => boolean, ms = 5_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
