/** Thrown inside the shell parser for any malformed input; parseShell turns it into `{ ok: false }`. */
export class ShellSyntaxError extends Error {
  override name = "ShellSyntaxError";
}
