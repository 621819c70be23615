/**
 * Reads piped stdin for `-p` (`git diff | chatcli -p "review this"`). Contract: when a prompt was given and
 * stdin is an open pipe that never sends anything (a parent process that keeps stdin open without writing,
 * as many process runners do), the run must not hang: after `firstByteTimeoutMs` with no data it goes on
 * without stdin and says so. Once the first byte arrives, everything up to EOF is read, however slow.
 * With no prompt there is nothing else to do, so it waits for stdin without a limit.
 */
export interface ReadStdinOptions {
  /** Only wait this long for the first byte (undefined: no limit). */
  firstByteTimeoutMs?: number;
  onTimeout?: () => void;
}

export async function readPipedStdin(stream: ReadableStream<Uint8Array>, opts: ReadStdinOptions = {}): Promise<string> {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let text = "";
  try {
    let first: Awaited<ReturnType<typeof reader.read>> | "timeout";
    if (opts.firstByteTimeoutMs === undefined) {
      first = await reader.read();
    } else {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timeout = new Promise<"timeout">((resolve) => {
        timer = setTimeout(() => resolve("timeout"), opts.firstByteTimeoutMs);
      });
      first = await Promise.race([reader.read(), timeout]);
      clearTimeout(timer);
    }
    if (first === "timeout") {
      opts.onTimeout?.();
      reader.cancel().catch(() => undefined);
      return "";
    }
    let r = first;
    while (!r.done) {
      text += decoder.decode(r.value, { stream: true });
      r = await reader.read();
    }
    return text + decoder.decode();
  } catch {
    return text;
  } finally {
    try {
      reader.releaseLock();
    } catch {
      // a pending read after cancel keeps the lock; nothing to release
    }
  }
}
