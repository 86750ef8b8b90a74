/**
 * What the kernel sends on a page's comm is numbered (`seq`), and a websocket that closes
 * (a JupyterHub proxy's idle timeout, a gateway reconnecting) loses the messages in flight.
 * The inbox hands each message on once and in order, keeps the page's recent
 * acknowledgements, and makes the `resume` that asks the kernel for what is missing
 * (../PROTOCOL.md, "Reconnects").
 */
type JSONObject = { [key: string]: any };

/** How many acknowledgements a resume carries again. */
const MAX_ACKS = 64;

/** `handle`: the next message; `duplicate`: handled already; `gap`: one before it is missing. */
export type Verdict = 'handle' | 'duplicate' | 'gap';

export class Inbox {
  /** The last kernel message handled (every one before it too). */
  lastSeq = 0;
  private acks = new Map<string, JSONObject>();
  private askedAt: number | null = null;

  /** A new comm: the kernel numbers from 1 again. */
  reset(): void {
    this.lastSeq = 0;
    this.acks.clear();
    this.askedAt = null;
  }

  accept(data: JSONObject): Verdict {
    const seq = data.seq;
    if (typeof seq !== 'number') {
      return 'handle'; // an older kernel does not number its messages
    }
    if (seq <= this.lastSeq) {
      return 'duplicate';
    }
    if (seq > this.lastSeq + 1) {
      return 'gap';
    }
    this.lastSeq = seq;
    return 'handle';
  }

  recordAck(ack: JSONObject): void {
    this.acks.delete(ack.edit_id);
    this.acks.set(ack.edit_id, ack);
    while (this.acks.size > MAX_ACKS) {
      this.acks.delete(this.acks.keys().next().value as string);
    }
  }

  ackFor(editId: string): JSONObject | undefined {
    return this.acks.get(editId);
  }

  /**
   * The `resume` message, or null when one was already sent for this point (a gap seen
   * again before the kernel answered); `force` after a reconnect, whose resume may have been lost.
   */
  resume(snapshot: JSONObject | null, force: boolean): JSONObject | null {
    if (!force && this.askedAt === this.lastSeq) {
      return null;
    }
    this.askedAt = this.lastSeq;
    return {
      type: 'resume',
      last_seq: this.lastSeq,
      acks: [...this.acks.values()],
      snapshot
    };
  }
}
