/** A name glob (`*` any run, `?` one character; nothing else is special), used for includeTools / excludeTools. */
export function globMatch(glob: string, name: string): boolean {
  const body = glob.split("*").map((part) => part.split("?").map(escapeRegex).join(".")).join(".*");
  return new RegExp(`^${body}$`, "s").test(name);
}

function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}
