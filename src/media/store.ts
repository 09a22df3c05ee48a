import type { Readable } from 'node:stream';

/** Inclusive byte offsets, as in an HTTP `Range`. */
export interface ByteRange {
  start: number;
  end: number;
}

/**
 * Where media bytes live: the local filesystem (one instance, or a shared mount) or an
 * S3-compatible bucket (several instances). Keys are `/`-separated relative paths built by the
 * service from ids it validated; a store never sees user text.
 *
 * Objects are written once under a fresh key (an upload id is part of every key) and never
 * rewritten, so a reader streaming an object is never cut off or mixed with newer bytes.
 */
export interface MediaStore {
  readonly kind: 'fs' | 's3';
  /** Where the objects are, for the start log: a directory, or the bucket (no credentials). */
  readonly location: string;
  /** Stores the finished local file under `key`. The file is consumed (moved or deleted). */
  put(key: string, file: string, contentType: string): Promise<void>;
  /** The object's bytes, or one range of them; rejects with `ObjectMissing` when it is gone. */
  read(key: string, range?: ByteRange): Promise<Readable>;
  /**
   * A local path holding the object, for ffmpeg. `release` removes the copy (for the fs store
   * the path is the object itself and `release` does nothing). `signal` stops a copy under way.
   */
  localCopy(
    key: string,
    tmpDir: string,
    signal?: AbortSignal,
  ): Promise<{ path: string; release(): Promise<void> }>;
  /** Deletes every object whose key starts with `prefix` (which ends with `/`); returns how many. */
  deletePrefix(prefix: string): Promise<number>;
  /** The keys under a prefix (tests and tooling). */
  list(prefix: string): Promise<string[]>;
  close(): void;
}

/** A media object that the database knows but the store no longer has (deleted meanwhile). */
export class ObjectMissing extends Error {
  constructor(key: string) {
    super(`media object ${key} is missing`);
    this.name = 'ObjectMissing';
  }
}
