/**
 * The bounded outbound queue of one client. The session's event bus never waits on a client: the host's listener
 * only calls `push`. While the transport accepts writes they go straight through; once it pushes back (`write`
 * returned false) frames wait here until `drained()`. Past `maxBytes` waiting, the client is too slow: the queue is
 * emptied, closed, and `onOverflow` drops the client (the transport sends its close reason); other clients and the
 * turn go on. A dropped client reattaches with `session/load {afterSeq}` and the replay log fills the gap.
 */
export interface OutboundQueueOptions {
  /** Hands one frame to the transport; false = its buffer is full, wait for `drained()`. */
  write(frame: string): boolean;
  maxBytes: number;
  onOverflow(queuedBytes: number): void;
}

export class OutboundQueue {
  private readonly waiting: string[] = [];
  private bytes = 0;
  private blocked = false;
  private closed = false;

  constructor(private readonly o: OutboundQueueOptions) {}

  push(frame: string): void {
    if (this.closed) return;
    if (!this.blocked && this.waiting.length === 0) {
      this.blocked = !this.o.write(frame);
      return;
    }
    this.waiting.push(frame);
    this.bytes += Buffer.byteLength(frame);
    if (this.bytes <= this.o.maxBytes) return;
    const queued = this.bytes;
    this.close();
    this.o.onOverflow(queued);
  }

  /** The transport can take more (a `drain` event). */
  drained(): void {
    this.blocked = false;
    while (!this.blocked && this.waiting.length > 0 && !this.closed) {
      const frame = this.waiting.shift()!;
      this.bytes -= Buffer.byteLength(frame);
      this.blocked = !this.o.write(frame);
    }
  }

  /** Frames waiting (not yet handed to the transport). */
  get queuedBytes(): number {
    return this.bytes;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** The end of the connection: everything waiting is handed to the transport now, pushback or not. */
  flush(): void {
    if (this.closed) return;
    for (const frame of this.waiting.splice(0)) this.o.write(frame);
    this.bytes = 0;
  }

  close(): void {
    this.closed = true;
    this.waiting.length = 0;
    this.bytes = 0;
  }
}
