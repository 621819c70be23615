/**
 * Where the file tools (read, write, edit) get and put a file's text. Absent: the disk. An editor front (ACP, when
 * the client offers `fs/read_text_file` / `fs/write_text_file`) injects one so reads see unsaved buffers and writes
 * land in the editor. It is called only after the path policy resolved the path and the permission policy (and the
 * person) allowed the call: it never widens what a tool may touch. Paths are absolute.
 */
export interface FileAccess {
  /** The file's whole text. Throws when it cannot be read. */
  readText?(absPath: string): Promise<string>;
  /** Replaces the file's whole text (parent directories already exist). Throws when it cannot be written. */
  writeText?(absPath: string, content: string): Promise<void>;
}
