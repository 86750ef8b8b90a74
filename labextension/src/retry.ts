/**
 * Doing something again while an answer does not come, a few times, each wait longer than
 * the one before. Through a gateway or a proxy a message can be lost without any error on
 * either side (../PROTOCOL.md, "Lost opens and resumes"): the page only sees that the
 * kernel's answer does not come.
 */

/** The waits before each new try: the first covers a loaded kernel's usual answer time. */
export const RETRY_DELAYS_MS = [2_000, 4_000, 8_000, 15_000, 30_000];

export class Retry {
  private timer: number | null = null;
  private attempt = 0;

  /** `act` tries again; it returns whether to keep waiting for the answer after this try. */
  constructor(
    private readonly act: () => boolean,
    private readonly delays: readonly number[] = RETRY_DELAYS_MS
  ) {}

  /** Start waiting for the answer (nothing while waiting already, or when out of tries). */
  start(): void {
    if (this.timer === null && this.attempt < this.delays.length) {
      this.schedule();
    }
  }

  /** The answer came (or is not wanted any more): the next `start` waits from the first delay. */
  cancel(): void {
    if (this.timer !== null) {
      window.clearTimeout(this.timer);
      this.timer = null;
    }
    this.attempt = 0;
  }

  private schedule(): void {
    const delay = this.delays[this.attempt];
    this.attempt += 1;
    this.timer = window.setTimeout(() => {
      this.timer = null;
      if (this.act()) {
        this.start();
      }
    }, delay);
  }
}
