import fs from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { OpenFiles, RangeReader, type Lease } from './open-files.ts';
import { ObjectMissing, type ByteRange, type MediaStore } from './store.ts';

const SEGMENT = /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/;

/** Keys are built by the service, but a store never trusts them to stay inside its root. */
export function checkKey(key: string, prefix = false): string {
  const body = prefix ? key.replace(/\/$/, '') : key;
  if (!body || !body.split('/').every((s) => SEGMENT.test(s))) {
    throw new Error(`invalid media key ${JSON.stringify(key)}`);
  }
  return key;
}

/** Media under a local directory (`DATA_DIR/media` by default); keys are relative paths. */
export class FsMediaStore implements MediaStore {
  readonly kind = 'fs';

  readonly #open = new OpenFiles();

  constructor(readonly root: string) {}

  get location(): string {
    return this.root;
  }

  #path(key: string, prefix = false): string {
    return path.join(this.root, ...checkKey(key, prefix).split('/').filter(Boolean));
  }

  async put(key: string, file: string): Promise<void> {
    const dest = this.#path(key);
    await fs.mkdir(path.dirname(dest), { recursive: true });
    try {
      await fs.rename(file, dest);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
      // Another filesystem: copy under a temporary name, then rename, so readers never see
      // half a file.
      const partial = `${dest}.partial`;
      await fs.copyFile(file, partial);
      await fs.rename(partial, dest);
      await fs.rm(file, { force: true });
    }
  }

  async read(key: string, range?: ByteRange): Promise<Readable> {
    let lease: Lease;
    try {
      lease = await this.#open.acquire(this.#path(key));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new ObjectMissing(key);
      throw err;
    }
    // The open descriptor keeps the bytes readable even if the object is deleted meanwhile.
    return new RangeReader(lease, range?.start ?? 0, range?.end ?? Infinity, 256 * 1024);
  }

  async localCopy(key: string): Promise<{ path: string; release(): Promise<void> }> {
    const file = this.#path(key);
    try {
      await fs.access(file);
    } catch {
      throw new ObjectMissing(key);
    }
    return { path: file, release: async () => undefined };
  }

  async deletePrefix(prefix: string): Promise<number> {
    const dir = this.#path(prefix, true);
    const count = (await this.list(prefix)).length;
    this.#open.forget(dir);
    await fs.rm(dir, { recursive: true, force: true });
    // Remove the parents the prefix leaves empty (activity, then accessory directory).
    let parent = path.dirname(dir);
    while (parent.startsWith(this.root + path.sep)) {
      try {
        await fs.rmdir(parent);
      } catch {
        break;
      }
      parent = path.dirname(parent);
    }
    return count;
  }

  async list(prefix: string): Promise<string[]> {
    const dir = this.#path(prefix, true);
    let entries: string[];
    try {
      entries = await fs.readdir(dir, { recursive: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
    const keys: string[] = [];
    for (const entry of entries) {
      const stat = await fs.stat(path.join(dir, entry)).catch(() => undefined);
      if (stat?.isFile())
        keys.push(path.relative(this.root, path.join(dir, entry)).split(path.sep).join('/'));
    }
    return keys.sort();
  }

  close(): void {
    this.#open.close();
  }
}
