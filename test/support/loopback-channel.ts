/**
 * An in-process transport for server-protocol tests: each `connect()` is a new RpcConnection on the given
 * SessionHost, its frames delivered asynchronously both ways (as a socket would), inbound frames handled in order.
 * `dropAll()` cuts every open connection at once (a network drop: the server detaches the client, the client sees
 * its channel close); `down` makes new connections fail (a server that is not there).
 */
import { RpcConnection } from "../../src/server/rpc-connection.ts";
import type { SessionHost } from "../../src/server/session-host.ts";
import type { RpcChannel } from "../../src/server/rpc-client.ts";

interface Open {
  drop(reason: string): void;
}

export class LoopbackServer {
  down = false;
  connections = 0;
  private open = new Set<Open>();

  constructor(public host: SessionHost) {}

  connect = (): Promise<RpcChannel> => {
    if (this.down) return Promise.reject(new Error("connection refused (loopback server down)"));
    this.connections++;
    let toClient: (text: string) => void = () => undefined;
    let onClose: (reason: string) => void = () => undefined;
    let closed = false;
    const conn = new RpcConnection({
      id: `loop${this.connections}`,
      host: this.host,
      serverVersion: "test",
      send: (m) => {
        const text = JSON.stringify(m);
        setTimeout(() => {
          if (!closed) toClient(text);
        }, 0);
      },
    });
    let chain: Promise<void> = Promise.resolve();
    const entry: Open = {
      drop: (reason) => {
        if (closed) return;
        closed = true;
        this.open.delete(entry);
        conn.closed();
        setTimeout(() => onClose(reason), 0);
      },
    };
    this.open.add(entry);
    return Promise.resolve({
      send: (text) => {
        if (closed) return;
        setTimeout(() => {
          if (!closed) chain = chain.then(() => conn.receive(text));
        }, 0);
      },
      onMessage: (l) => (toClient = l),
      onClose: (l) => (onClose = l),
      close: () => entry.drop("closed by the client"),
    });
  };

  dropAll(): void {
    for (const o of [...this.open]) o.drop("network drop");
  }
}
