import fs from 'node:fs/promises';
import { fstatSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { text } from 'node:stream/consumers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OpenFiles, RangeReader } from '../../src/media/open-files.ts';

const isOpen = (fd: number) => {
  try {
    fstatSync(fd);
    return true;
  } catch {
    return false;
  }
};

/** Until `check` holds (descriptors are closed by a callback), for at most a second. */
async function eventually(check: () => boolean): Promise<void> {
  for (let i = 0; i < 100 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(check()).toBe(true);
}

describe('open media files', () => {
  let dir: string;
  const file = (name: string) => path.join(dir, 'objects', name);

  beforeAll(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'clipgate-open-files-'));
    await fs.mkdir(path.join(dir, 'objects'));
    await fs.mkdir(path.join(dir, 'other'));
    for (const name of ['a', 'b', 'c']) await fs.writeFile(file(name), `${name}:0123456789`);
    await fs.writeFile(path.join(dir, 'other', 'a'), 'other');
  });
  afterAll(() => fs.rm(dir, { recursive: true, force: true }));

  it('lends one descriptor to concurrent and consecutive reads, and reads ranges with it', async () => {
    const files = new OpenFiles();
    const [x, y] = await Promise.all([files.acquire(file('a')), files.acquire(file('a'))]);
    expect(x.fd).toBe(y.fd);
    expect(await text(new RangeReader(x, 2, 5, 4))).toBe('0123');
    expect(await text(new RangeReader(y, 0, Infinity, 3))).toBe('a:0123456789');
    const z = await files.acquire(file('a'));
    expect(z.fd).toBe(x.fd);
    z.release();
    expect(files.size).toBe(1);
    files.close();
    await eventually(() => !isOpen(x.fd));
  });

  it('opens a file again once its descriptor is old, and closes the old one after its reads', async () => {
    let now = 0;
    const files = new OpenFiles({ maxOpen: 10, idleMs: 60_000, maxAgeMs: 1_000 }, () => now);
    const first = await files.acquire(file('a'));
    now = 1_000;
    const second = await files.acquire(file('a'));
    expect(second.fd).not.toBe(first.fd);
    expect(isOpen(first.fd)).toBe(true);
    first.release();
    await eventually(() => !isOpen(first.fd));
    second.release();
    files.close();
    await eventually(() => !isOpen(second.fd));
  });

  it('closes descriptors nobody used for idleMs', async () => {
    const files = new OpenFiles({ maxOpen: 10, idleMs: 20, maxAgeMs: 60_000 });
    const lease = await files.acquire(file('b'));
    lease.release();
    await eventually(() => files.size === 0 && !isOpen(lease.fd));
  });

  it('keeps at most maxOpen files open; reads beyond it open and close their own', async () => {
    const files = new OpenFiles({ maxOpen: 2, idleMs: 60_000, maxAgeMs: 60_000 });
    const leases = await Promise.all(['a', 'b', 'c'].map((n) => files.acquire(file(n))));
    expect(files.size).toBe(2);
    expect(await text(new RangeReader(leases[2]!, 0, 0, 16))).toBe('c');
    await eventually(() => !isOpen(leases[2]!.fd));
    expect(isOpen(leases[0]!.fd)).toBe(true);
    for (const lease of leases) lease.release();
    files.close();
  });

  it('forgets the files of a deleted directory, and only those', async () => {
    const files = new OpenFiles();
    const deleted = await files.acquire(file('c'));
    const kept = await files.acquire(path.join(dir, 'other', 'a'));
    deleted.release();
    kept.release();
    files.forget(path.join(dir, 'objects'));
    await fs.rm(file('c'));
    await expect(files.acquire(file('c'))).rejects.toMatchObject({ code: 'ENOENT' });
    await eventually(() => !isOpen(deleted.fd));
    expect(files.size).toBe(1);
    files.close();
    await eventually(() => !isOpen(kept.fd));
  });

  it('releases a destroyed read only after its read in flight, so the descriptor is never closed under it', async () => {
    const files = new OpenFiles();
    const lease = await files.acquire(file('a'));
    let released = false;
    const reader = new RangeReader(
      { fd: lease.fd, release: () => ((released = true), lease.release()) },
      0,
      Infinity,
      4,
    );
    reader.read(0);
    reader.destroy();
    expect(released).toBe(false);
    files.close();
    await eventually(() => released && !isOpen(lease.fd));
  });
});
