import { AsyncLocalStorage } from 'node:async_hooks';

/** How many batches may be written at once, and how large one may be. */
export interface GroupCommitOptions {
  maxInFlight: number;
  maxBatch: number;
}

const runHere = <V>(fn: () => V): V => fn();

interface Entry<T, R> {
  item: T;
  /** Items are written together only with items of the same key. */
  key: string | undefined;
  resolve(result: R): void;
  reject(err: unknown): void;
  /**
   * Runs a function in the async context the item was submitted in (its request's trace), if it
   * has a key.
   */
  inContext: <V>(fn: () => V) => V;
}

/**
 * Group commit for the changes that requests send one at a time (GraphQL `createActivity`, a
 * motion report). A change arriving while fewer than `maxInFlight` writes are under way is
 * written at once, alone; while they are all under way, changes wait, and the next write takes
 * every waiting change (up to `maxBatch`) in one statement. So a quiet instance adds no delay,
 * and a busy one pays one round trip and one commit for many changes instead of one each: the
 * write path's statement applies a list of changes in order, each with its own outcome, as the
 * bulk operation does.
 *
 * Items are batched only with items of the same key (the trace context of their request, so
 * that the deliveries they cause carry their own request's), and a batch of items with a key is
 * written in the async context of its first item. Items without a key carry no context: their
 * batch is written in whichever context it starts from.
 *
 * A batch that fails as a whole fails each of its items with the same error, except when
 * `isolate` says the error was the statement's own (PostgreSQL refused it, so nothing was
 * committed): then each item is written again alone, so that only the one that caused it fails.
 * Never after a lost connection: the batch may have committed.
 */
export class GroupCommit<T, R> {
  readonly #waiting: Entry<T, R>[] = [];
  #inFlight = 0;

  constructor(
    /** Writes items of one key, the key given. */
    private readonly write: (items: T[], key: string | undefined) => Promise<R[]>,
    private readonly isolate: (err: unknown) => boolean,
    private readonly options: GroupCommitOptions = { maxInFlight: 2, maxBatch: 100 },
  ) {}

  submit(item: T, key?: string): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      // Only an item with a key has a context to keep: a snapshot costs each change a bound
      // async resource (about a tenth of the service's CPU per change with 32 loops).
      const inContext = key === undefined ? runHere : AsyncLocalStorage.snapshot();
      this.#waiting.push({ item, key, resolve, reject, inContext });
      this.#pump();
    });
  }

  #pump(): void {
    while (this.#inFlight < this.options.maxInFlight && this.#waiting.length > 0) {
      const first = this.#waiting[0]!;
      const batch: Entry<T, R>[] = [];
      for (let i = 0; i < this.#waiting.length && batch.length < this.options.maxBatch;) {
        if (this.#waiting[i]!.key === first.key) batch.push(this.#waiting.splice(i, 1)[0]!);
        else i++;
      }
      this.#inFlight++;
      void first
        .inContext(() => this.#run(batch))
        .finally(() => {
          this.#inFlight--;
          this.#pump();
        });
    }
  }

  async #run(batch: Entry<T, R>[]): Promise<void> {
    try {
      const results = await this.write(
        batch.map((e) => e.item),
        batch[0]!.key,
      );
      batch.forEach((e, i) => e.resolve(results[i]!));
    } catch (err) {
      if (batch.length === 1 || !this.isolate(err)) {
        for (const e of batch) e.reject(err);
        return;
      }
      await Promise.all(
        batch.map((e) =>
          e
            .inContext(() => this.write([e.item], e.key))
            .then((results) => e.resolve(results[0]!), e.reject),
        ),
      );
    }
  }
}
