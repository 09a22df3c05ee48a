import fs from 'node:fs/promises';
import path from 'node:path';
import type pg from 'pg';
import { claimDue } from '../jobs/lease.ts';
import type { Logger } from '../logger.ts';
import type { Database } from '../storage/database.ts';
import type { MediaStore } from './store.ts';

/** Prefixes a collector round claims at a time. */
const BATCH = 100;

/**
 * Deleting what is no longer referenced. `media_garbage` lists store prefixes to delete once
 * `delete_after` has passed: the media_objects trigger queues the prefix of a row that goes (with
 * its activity or account, or replaced by a newer upload) in the same transaction; an upload
 * queues its own prefix as an intent before it writes to the store, and unqueues it when it
 * commits. Also clears what a crashed process left in the temporary directory.
 */
export class MediaCleanup {
  #collecting: Promise<number> = Promise.resolve(0);

  constructor(
    private readonly db: Database,
    private readonly store: MediaStore,
    private readonly logger: Logger,
  ) {}

  /**
   * Queues an upload's prefix before anything is written under it, due in a day (long past any
   * upload): if this process dies before the upload commits, the collector deletes what it wrote.
   */
  async intend(prefix: string): Promise<string> {
    const { rows } = await this.db.pool.query<{ id: string }>(
      `INSERT INTO media_garbage (prefix, delete_after) VALUES ($1, now() + interval '1 day') RETURNING id`,
      [prefix],
    );
    return rows[0]!.id;
  }

  /** Unqueues an intent, in the transaction that commits the upload. */
  async keep(client: pg.PoolClient, intentId: string): Promise<void> {
    await client.query('DELETE FROM media_garbage WHERE id = $1', [intentId]);
  }

  /**
   * Makes an intent due now (the upload failed, or the same bytes were there already) and starts
   * a collection without waiting for it.
   */
  async abandon(intentId: string): Promise<void> {
    await this.db.pool
      .query(`UPDATE media_garbage SET delete_after = now() WHERE id = $1`, [intentId])
      .then(() => this.collectSoon('media cleanup failed'))
      .catch((err: unknown) => this.logger.warn({ err }, 'media cleanup failed'));
  }

  /** Starts a collection now, logging instead of failing (its caller does not wait). */
  collectSoon(failure: string): void {
    this.collectGarbage().catch((err: unknown) => this.logger.warn({ err }, failure));
  }

  /**
   * Deletes the stored objects of every prefix whose time has come. A batch is claimed by pushing
   * its time forward (`claimDue`), so instances running this at once share the work, and a failed
   * deletion is retried later. Returns how many prefixes were cleared.
   */
  collectGarbage(): Promise<number> {
    // Runs one after the other: a call made during a run still sees what became due meanwhile.
    const run = this.#collecting.catch(() => 0).then(() => this.#collect());
    this.#collecting = run;
    return run;
  }

  /** Resolves once the collection in progress, if any, has ended. */
  async settled(): Promise<void> {
    await this.#collecting.catch(() => undefined);
  }

  async #collect(): Promise<number> {
    let cleared = 0;
    for (;;) {
      const rows = await claimDue<{ id: string; prefix: string }>(
        this.db.pool,
        {
          table: 'media_garbage',
          key: 'id',
          due: 'delete_after <= now()',
          order: 'id',
          take: "delete_after = now() + interval '5 minutes'",
          returning: 'id, prefix',
        },
        BATCH,
      );
      if (rows.length === 0) return cleared;
      const done: string[] = [];
      for (const { id, prefix } of rows) {
        try {
          await this.store.deletePrefix(prefix);
          done.push(id);
        } catch (err) {
          this.logger.warn({ err, prefix }, 'deleting media failed; retried later');
        }
      }
      await this.db.pool.query('DELETE FROM media_garbage WHERE id = ANY($1::bigint[])', [done]);
      cleared += done.length;
      if (done.length < rows.length || rows.length < BATCH) return cleared;
    }
  }

  /** Removes what a crashed process left in the temporary directory (older than `ageMs`). */
  async removeStale(dir: string, ageMs: number): Promise<void> {
    try {
      for (const name of await fs.readdir(dir)) {
        const file = path.join(dir, name);
        const stat = await fs.stat(file).catch(() => undefined);
        if (stat && Date.now() - stat.mtimeMs > ageMs)
          await fs.rm(file, { recursive: true, force: true });
      }
    } catch (err) {
      this.logger.warn({ err }, 'cleaning the media temporary directory failed');
    }
  }
}
