import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Readable } from 'node:stream';
import { promisify } from 'node:util';

const open = promisify(fs.open);

/** How long descriptors are kept, and how many. */
export interface OpenFilesLimits {
  /** At most this many files are kept open; beyond it a read opens and closes its own. */
  maxOpen: number;
  /** A descriptor nobody has used for this long is closed. */
  idleMs: number;
  /** A descriptor is not handed out once it is this old: a new read opens the file again. */
  maxAgeMs: number;
}

const DEFAULT_LIMITS: OpenFilesLimits = { maxOpen: 256, idleMs: 2_000, maxAgeMs: 5_000 };

interface Entry {
  fd: Promise<number>;
  /** Reads holding the descriptor; it is closed only once none does. */
  refs: number;
  openedAt: number;
  lastUsed: number;
}

/** An open file lent to one read. */
export interface Lease {
  fd: number;
  release(): void;
}

/**
 * File descriptors of recently read media files, shared by concurrent and consecutive reads: a
 * player asks for many ranges of the same few files, and opening and closing a file for each
 * range cost a third of the service's time serving 64 KiB ranges (docs/performance.md).
 *
 * Objects are never rewritten under their key, so a descriptor always reads the right bytes. A
 * file deleted on this instance stops being served at once (`forget`); one deleted by another
 * instance sharing the directory within `maxAgeMs`, as an open stream would keep serving it.
 */
export class OpenFiles {
  readonly #entries = new Map<string, Entry>();
  #sweeper: NodeJS.Timeout | undefined;

  constructor(
    private readonly limits: OpenFilesLimits = DEFAULT_LIMITS,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** How many files are kept open now (tests). */
  get size(): number {
    return this.#entries.size;
  }

  /** An open descriptor of `file`; rejects as `open` does (ENOENT for a missing file). */
  async acquire(file: string): Promise<Lease> {
    const now = this.now();
    let entry = this.#entries.get(file);
    if (entry && now - entry.openedAt >= this.limits.maxAgeMs) {
      this.#retire(file, entry);
      entry = undefined;
    }
    if (!entry) {
      if (this.#entries.size >= this.limits.maxOpen) this.#sweep(now);
      entry = { fd: open(file, 'r'), refs: 0, openedAt: now, lastUsed: now };
      // Over the limit, the entry stays out of the map: its last reader closes it.
      if (this.#entries.size < this.limits.maxOpen) {
        this.#entries.set(file, entry);
        this.#sweeper ??= setInterval(() => this.#sweep(this.now()), this.limits.idleMs).unref();
      }
    }
    const held = entry;
    held.refs++;
    held.lastUsed = now;
    let fd: number;
    try {
      fd = await held.fd;
    } catch (err) {
      held.refs--;
      if (this.#entries.get(file) === held) this.#entries.delete(file);
      throw err;
    }
    let released = false;
    return {
      fd,
      release: () => {
        if (released) return;
        released = true;
        held.refs--;
        held.lastUsed = this.now();
        // Out of the map (old, idle, deleted or over the limit): the last reader closes it.
        if (held.refs === 0 && this.#entries.get(file) !== held) fs.close(fd, () => undefined);
      },
    };
  }

  /** Stops handing out descriptors of the files under `dir` (they are being deleted). */
  forget(dir: string): void {
    const prefix = dir.endsWith(path.sep) ? dir : dir + path.sep;
    for (const [file, entry] of this.#entries) {
      if (file.startsWith(prefix)) this.#retire(file, entry);
    }
  }

  /** Closes every descriptor not in use now, and the others as their reads end. */
  close(): void {
    clearInterval(this.#sweeper);
    this.#sweeper = undefined;
    for (const [file, entry] of this.#entries) this.#retire(file, entry);
  }

  #sweep(now: number): void {
    for (const [file, entry] of this.#entries) {
      const idle = now - entry.lastUsed >= this.limits.idleMs;
      if (entry.refs === 0 && (idle || now - entry.openedAt >= this.limits.maxAgeMs)) {
        this.#retire(file, entry);
      }
    }
    if (this.#entries.size === 0) {
      clearInterval(this.#sweeper);
      this.#sweeper = undefined;
    }
  }

  #retire(file: string, entry: Entry): void {
    this.#entries.delete(file);
    if (entry.refs === 0) {
      entry.fd.then(
        (fd) => fs.close(fd, () => undefined),
        () => undefined,
      );
    }
  }
}

/**
 * Bytes `start..end` (inclusive) of a leased file, read with positional reads of up to
 * `highWaterMark` bytes: a 64 KiB range is one read. The lease is released once the stream ends
 * or is destroyed, and never while a read is in flight, so the descriptor cannot be closed (and
 * its number reused) under it.
 */
export class RangeReader extends Readable {
  #position: number;
  #reading = false;
  #releaseWhenRead = false;

  constructor(
    private readonly lease: Lease,
    start: number,
    private readonly end: number,
    highWaterMark: number,
  ) {
    super({ highWaterMark });
    this.#position = start;
  }

  override _read(): void {
    const wanted = Math.min(this.readableHighWaterMark, this.end - this.#position + 1);
    if (wanted <= 0) {
      this.push(null);
      return;
    }
    const buffer = Buffer.allocUnsafe(wanted);
    this.#reading = true;
    fs.read(this.lease.fd, buffer, 0, wanted, this.#position, (err, bytes) => {
      this.#reading = false;
      if (this.#releaseWhenRead) {
        this.lease.release();
        return;
      }
      if (err) {
        this.destroy(err);
      } else if (bytes === 0) {
        this.push(null);
      } else {
        this.#position += bytes;
        this.push(bytes < wanted ? buffer.subarray(0, bytes) : buffer);
      }
    });
  }

  override _destroy(err: Error | null, callback: (error?: Error | null) => void): void {
    if (this.#reading) this.#releaseWhenRead = true;
    else this.lease.release();
    callback(err);
  }
}
