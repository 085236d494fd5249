/**
 * The bytes of a response head that came in several chunks, kept until its blank line arrives. It grows by doubling,
 * so a head that comes a byte at a time is copied a few times in all, not once per byte.
 */
export class HeadBytes {
  private store: Buffer | undefined;
  private used = 0;

  /** How many bytes are kept. */
  get length(): number {
    return this.used;
  }

  /** Keeps a copy of `bytes` after those kept (the socket's chunk is not ours to keep); returns all of them. */
  append(bytes: Buffer): Buffer {
    const needed = this.used + bytes.length;
    if (this.store === undefined || needed > this.store.length) {
      const grown = Buffer.allocUnsafe(Math.max(needed, 2 * (this.store?.length ?? 0), 1024));
      this.store?.copy(grown, 0, 0, this.used);
      this.store = grown;
    }
    bytes.copy(this.store, this.used);
    this.used = needed;
    return this.store.subarray(0, this.used);
  }

  /** Forgets them (the head is whole): the next head starts afresh, and a large one's memory is let go. */
  clear(): void {
    this.store = undefined;
    this.used = 0;
  }
}
