/** English messages of server mode's limits and faults (issue 22): slow clients, queues. */
export const enServerLimits = {
  "serve.slowClient": "the client read too slowly: {bytes} bytes were waiting for it; reconnect and resume with session/load",
  "serve.log.slowClient": "serve: {client} dropped: too slow ({bytes} bytes waiting)",
  "serve.log.outputLost": "serve: {client} closed its output: ending",
};
