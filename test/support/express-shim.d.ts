/**
 * The few express types the tests use (express ships without them and @types/express is not a dependency): the
 * SDK's server-side auth helpers (mcpAuthRouter, requireBearerAuth) are express handlers.
 */
declare module "express" {
  import type { IncomingMessage, Server, ServerResponse } from "node:http";
  export type Handler = (req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void) => void;
  export interface Application {
    (req: IncomingMessage, res: ServerResponse): void;
    use(...handlers: unknown[]): Application;
    all(path: string, ...handlers: unknown[]): Application;
    get(path: string, ...handlers: unknown[]): Application;
    set(name: string, value: unknown): Application;
    listen(port: number, host: string, cb: () => void): Server;
  }
  interface Express {
    (): Application;
  }
  const express: Express;
  export default express;
}
