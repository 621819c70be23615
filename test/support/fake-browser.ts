/** A "browser" for `BROWSER=…` in tests: opens the URL it is given and follows the redirects (to the loopback). */
const res = await fetch(process.argv[2]!);
await res.text();
export {};
