import fs from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '../logger.ts';
import { StartError } from '../start-error.ts';

/** Where the embedded database of a data directory lives. */
export const embeddedDirectory = (dataDir: string) => path.join(dataDir, 'pgdata');

/**
 * The embedded database is one process's (PGlite takes no lock of its own, and two processes
 * writing the same files lose or corrupt each other's writes). The lock is a file beside the database's directory
 * holding the pid of the process that has it open. A lock whose process has died (a crash, a
 * SIGKILL) is stale and taken over.
 */
const lockFile = (dir: string) => `${dir}.lock`;

/** The embedded database is open in another process. */
export class DatabaseInUse extends StartError {
  constructor(dir: string, pid: number) {
    super(
      `the embedded database ${dir} is in use by process ${pid} (see ${lockFile(dir)}): ` +
        'one process at a time may open it; stop that one first, or set another DATA_DIR',
    );
  }
}

/** The locks this process holds: a pid of ours in a lock file we do not hold is stale. */
const held = new Set<string>();

async function readPid(file: string): Promise<number | undefined> {
  const text = await fs.readFile(file, 'utf8').catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return undefined;
    throw err;
  });
  const pid = Number(text?.trim());
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it runs, as another user.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The process holding the lock of `dir`, if it runs. A lock with this process's pid is held only
 * if this process took it; else it is an earlier process's that had the same pid (a container
 * restarted after a crash).
 */
async function holder(dir: string): Promise<number | undefined> {
  const file = lockFile(dir);
  const pid = await readPid(file);
  if (pid === undefined) return undefined;
  if (pid === process.pid) return held.has(file) ? pid : undefined;
  return running(pid) ? pid : undefined;
}

/**
 * Refuses (DatabaseInUse) when another process holds the embedded database in `dir`: a caller
 * can stop at once, before the work that precedes opening it. Opening takes the lock itself.
 */
export async function refuseIfHeld(dir: string): Promise<void> {
  const pid = await holder(dir);
  if (pid !== undefined) throw new DatabaseInUse(dir, pid);
}

/**
 * Takes the lock of the embedded database in `dir` for this process, taking over a stale one,
 * or refuses with DatabaseInUse naming the holder. Resolves with the lock's release.
 */
export async function lockEmbedded(dir: string, logger: Logger): Promise<() => Promise<void>> {
  const file = lockFile(dir);
  await fs.mkdir(path.dirname(file), { recursive: true });
  // Written whole under a name of its own, then linked into place: a lock file is never seen
  // half written, and linking fails when one exists.
  const mine = `${file}.${process.pid}`;
  await fs.writeFile(mine, `${process.pid}\n`);
  try {
    for (let attempt = 0; attempt < 5; attempt++) {
      try {
        await fs.link(mine, file);
        held.add(file);
        return async () => {
          held.delete(file);
          if ((await readPid(file)) === process.pid) await fs.rm(file, { force: true });
        };
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
      const pid = await holder(dir);
      if (pid !== undefined) throw new DatabaseInUse(dir, pid);
      await removeStale(file, logger);
    }
    throw new StartError(`could not lock ${file}: other processes keep taking it over`);
  } finally {
    await fs.rm(mine, { force: true });
  }
}

/**
 * Removes a lock whose process no longer runs. It is moved aside first and read there: had
 * another process taken it over meanwhile, its lock is put back.
 */
async function removeStale(file: string, logger: Logger): Promise<void> {
  const aside = `${file}.stale.${process.pid}`;
  try {
    await fs.rename(file, aside);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return; // another process removed it
    throw err;
  }
  const pid = await readPid(aside);
  if (pid !== undefined && pid !== process.pid && running(pid)) {
    await fs.link(aside, file).catch(() => undefined);
  } else {
    logger.warn(
      { file, pid },
      'took over the lock of the embedded database from a process that no longer runs',
    );
  }
  await fs.rm(aside, { force: true });
}
