/**
 * The files a command writes through its options rather than through a redirection: `sort -o F`, `sort --outp=F`
 * (GNU long options resolve by unique prefix), `-oF` / `-uoF` clusters, `tree -o F`, `find -fprint F`,
 * `curl -o F`, `wget -O F`, `git … --output=F`, `uniq in OUT`, sed's `w F`, `tar -cf F`, `cp -t DIR` (as `DIR/*`). The dangerous check sends
 * them through the same system-file test as `cp x /etc/passwd`.
 */
import { resolveLong } from "./flag-spec.ts";

interface Writer {
  /** Short options that take a value (to walk clusters right). */
  valued: string;
  /** Those of them that name a written file. */
  writes: string;
  /** Every long option the program knows that takes a value or could be confused by prefix, `=` marks a value. */
  long: readonly string[];
  /** The long options (canonical names) that name a written file. */
  writesLong: readonly string[];
}

const WRITERS: Readonly<Record<string, Writer>> = {
  sort: {
    valued: "kStTo",
    writes: "o",
    long: ["output=", "key=", "field-separator=", "buffer-size=", "temporary-directory=", "compress-program=", "parallel=", "files0-from=", "random-source=", "sort=", "batch-size="],
    writesLong: ["output"],
  },
  tree: { valued: "oLPIHT", writes: "o", long: ["output="], writesLong: [] },
  curl: { valued: "oOdHXuAeEKTwxbc", writes: "oc", long: ["output=", "cookie-jar=", "dump-header=", "trace=", "trace-ascii=", "stderr=", "libcurl="], writesLong: ["output", "cookie-jar", "dump-header", "trace", "trace-ascii", "stderr", "libcurl"] },
  wget: { valued: "OoaPe", writes: "Ooa", long: ["output-document=", "output-file=", "append-output="], writesLong: ["output-document", "output-file", "append-output"] },
  git: { valued: "", writes: "", long: ["output="], writesLong: ["output"] },
  tar: { valued: "fCTXbgN", writes: "f", long: ["file="], writesLong: ["file"] },
};

const TARGET_DIR = new Set(["cp", "mv", "install", "ln"]);
const TARGET_WRITER: Writer = {
  valued: "tSmog",
  writes: "t",
  long: ["target-directory=", "suffix=", "mode=", "owner=", "group=", "backup=?", "sparse=", "reflink=?", "preserve=?", "context=?"],
  writesLong: ["target-directory"],
};

const FIND_WRITERS = new Set(["-fprint", "-fprint0", "-fprintf", "-fls"]);

export function writtenFiles(name: string, args: readonly string[]): string[] {
  if (name === "find") return args.flatMap((a, i) => (FIND_WRITERS.has(a) && args[i + 1] !== undefined ? [args[i + 1] as string] : []));
  if (name === "uniq") {
    const ops = args.filter((a) => !a.startsWith("-") || a === "-");
    return ops.length >= 2 ? [ops[1] as string] : [];
  }
  if (name === "sed") return sedWrites(args);
  // `cp -t /usr/bin evil`: the destination directory comes as an option; a file inside it is written.
  if (TARGET_DIR.has(name)) return optionValues(args, TARGET_WRITER).map((d) => `${d.replace(/\/+$/, "")}/*`);
  const w = WRITERS[name];
  return w ? optionValues(args, w) : [];
}

function optionValues(args: readonly string[], w: Writer): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    if (a === "--") break;
    if (a.startsWith("--")) {
      const eq = a.indexOf("=");
      const canonical = resolveLong(eq < 0 ? a.slice(2) : a.slice(2, eq), w.long);
      const takesValue = canonical !== undefined && w.long.includes(`${canonical}=`);
      const value = eq >= 0 ? a.slice(eq + 1) : takesValue ? args[i + 1] : undefined;
      if (eq < 0 && takesValue) i++;
      if (canonical !== undefined && w.writesLong.includes(canonical) && value !== undefined) out.push(value);
      continue;
    }
    if (!a.startsWith("-") || a === "-") continue;
    for (let k = 1; k < a.length; k++) {
      const c = a[k] as string;
      if (!w.valued.includes(c)) continue;
      const attached = a.slice(k + 1);
      const value = attached !== "" ? attached : args[++i];
      if (w.writes.includes(c) && value !== undefined) out.push(value);
      break;
    }
  }
  return out;
}

/** `w FILE` / `s/a/b/w FILE` in a sed script (any `-e`, `--expression` or the first operand), roughly. */
function sedWrites(args: readonly string[]): string[] {
  return args.flatMap((a) => [...a.matchAll(/(?:^|[;\n}/\s\d$])w\s*(\S+)/g)].map((m) => m[1] as string));
}
