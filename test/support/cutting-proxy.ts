import { createServer, connect, type Server, type Socket } from "node:net";

/**
 * A TCP proxy in front of a service whose WebSocket connections the test can cut from the
 * service's side: `cutSockets()` destroys every upgraded connection without a close frame, as a
 * crashed or redeployed server does (the client sees 1006). Plain HTTP passes through untouched.
 */
export async function cuttingProxy(target: { host: string; port: number }) {
  const sockets = new Set<{ client: Socket; upstream: Socket }>();
  const server: Server = createServer((client) => {
    const upstream = connect(target.port, target.host);
    const pair = { client, upstream };
    let upgraded = false;
    client.once("data", (first) => {
      upgraded = /^upgrade:\s*websocket/im.test(first.toString("latin1"));
      if (upgraded) sockets.add(pair);
    });
    client.pipe(upstream).pipe(client);
    const end = () => {
      sockets.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on("error", end).on("close", end);
    upstream.on("error", end).on("close", end);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  return {
    base: `http://127.0.0.1:${port}`,
    /** How many WebSocket connections pass through now. */
    get open() {
      return sockets.size;
    },
    cutSockets() {
      for (const { client, upstream } of sockets) {
        client.destroy();
        upstream.destroy();
      }
      sockets.clear();
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
