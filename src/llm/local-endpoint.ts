/**
 * Whether a provider's URL names this machine (localhost, 127.0.0.0/8, ::1, 0.0.0.0). A connection refused
 * there means the server is not running: retrying cannot help, so the retry policy gives up at once.
 * An unparseable URL is not local.
 */
export function isLocalEndpoint(url: string): boolean {
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase();
  } catch {
    return false;
  }
  host = host.replace(/^\[|\]$/g, "");
  if (host === "localhost" || host.endsWith(".localhost")) return true;
  if (host === "::1" || host === "::" || host === "0.0.0.0" || /^::ffff:(7f[0-9a-f]{2}:[0-9a-f]{1,4}|127\.[\d.]+)$/.test(host)) return true;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/** `scheme://host:port` of a URL for messages (no path, no credentials); the input when it does not parse. */
export function endpointOrigin(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}`;
  } catch {
    return url;
  }
}
