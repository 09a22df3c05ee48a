import pg from 'pg';
import type { AppError } from '../errors.ts';
import { databaseBusy, statementStopped } from './faults.ts';
import { FairTurns } from './fair-turns.ts';
import { currentCaller, type Caller } from './tenancy.ts';

/** What a fair pool tells the metrics (storage/metrics.ts). */
export interface PoolObserver {
  /** A request waited past the pool's wait: for its own share (429), or for the pool (503). */
  busy(share: 'own' | 'pool'): void;
  /** A request's statement was stopped: past its time limit, or its caller went away. */
  stopped(reason: 'timeout' | 'gone'): void;
}

export interface Fairness {
  /** The most connections one caller holds at once (`DATABASE_POOL_SHARE`). */
  share: number;
  /**
   * How long a request waits for its turn before its answer is busy (the pool's wait); undefined:
   * as long as it takes (the embedded database, whose requests queue as they always have).
   */
  waitMs: number | undefined;
  /** The time limit of a request's statement (`DATABASE_STATEMENT_TIMEOUT_MS`). */
  statementTimeoutMs: number;
  /**
   * Whether the server takes PostgreSQL's cancel requests. PGlite does not: there, a request past
   * its limit or whose caller went away is stopped between its statements.
   */
  cancels: boolean;
  /** Told what the pool refuses and stops (set once the metrics exist). */
  observer?: PoolObserver;
}

type Stop = 'timeout' | 'gone';
type Callback = (err: Error | undefined, client?: pg.PoolClient, done?: () => void) => void;
type QueryFunction = (...args: unknown[]) => unknown;

/**
 * A pool whose connections are shared fairly between the callers of requests
 * (./tenancy.ts): each takes turns (./fair-turns.ts), at most `share` at once, the caller served
 * least recently first. A turn is taken before a connection is (pool.query and Prisma's adapter
 * take theirs through `connect`), so the pool's own queue stays empty and the turns decide who
 * goes next. A caller's statements run under its time limit and stop when the caller goes away
 * (PostgreSQL's cancel request, or between statements where the server has none). Work without a
 * caller (jobs, the dispatcher) has no share and no time limit of its own.
 */
export class FairPool extends pg.Pool {
  readonly #fairness: Fairness;
  readonly #turns: FairTurns<() => void>;
  /** Callers stopped past a statement's limit where the server cannot cancel (PGlite). */
  readonly #stopped = new WeakSet<Caller>();
  /**
   * Connections a cancel request was sent for. It may arrive after its statement ended and
   * cancel whatever runs next on the connection, another request's: such a connection is closed
   * when it is released, not handed on.
   */
  readonly #cancelled = new WeakSet<pg.PoolClient>();

  constructor(config: pg.PoolConfig & { max: number }, fairness: Fairness) {
    super(config);
    this.#fairness = fairness;
    this.#turns = new FairTurns(config.max, Math.min(fairness.share, config.max));
  }

  /** Checkouts waiting: for their turn here, or then for a connection of the pool. */
  get waiting(): number {
    return this.#turns.waiting + this.waitingCount;
  }

  /** Sets who is told what the pool refuses and stops. */
  observe(observer: PoolObserver): void {
    this.#fairness.observer = observer;
  }

  override connect(): Promise<pg.PoolClient>;
  override connect(callback: Callback): void;
  override connect(callback?: Callback): Promise<pg.PoolClient> | void {
    const checkout = this.#checkout(currentCaller());
    if (!callback) return checkout;
    checkout.then(
      (client) => callback(undefined, client, client.release),
      (err: Error) => callback(err),
    );
  }

  async #checkout(caller: Caller | undefined): Promise<pg.PoolClient> {
    this.#refuseStopped(caller);
    await this.#turn(caller);
    const tenant = caller?.tenant;
    let client: pg.PoolClient;
    try {
      client = await super.connect();
    } catch (err) {
      this.#end(tenant);
      throw err;
    }
    const release = client.release;
    const ownQuery = Object.hasOwn(client, 'query');
    const query = client.query as QueryFunction;
    let ended = false;
    client.release = (err?: Error | boolean) => {
      client.release = release;
      if (caller) {
        if (ownQuery) client.query = query as pg.PoolClient['query'];
        else delete (client as Partial<pg.PoolClient>).query;
      }
      release.call(client, err ?? (this.#cancelled.has(client) || undefined));
      if (ended) return;
      ended = true;
      this.#end(tenant);
    };
    if (caller) client.query = this.#limited(client, query, caller) as pg.PoolClient['query'];
    return client;
  }

  /** Resolves when `caller` may take a connection; rejects busy past the wait, or if it goes. */
  #turn(caller: Caller | undefined): Promise<void> {
    const tenant = caller?.tenant;
    if (this.#turns.tryStart(tenant)) return Promise.resolve();
    const { waitMs } = this.#fairness;
    return new Promise((resolve, reject) => {
      const stop = (error: () => AppError) => {
        if (!this.#turns.withdraw(tenant, start)) return;
        clearTimeout(timer);
        unlisten?.();
        reject(error());
      };
      const start = () => {
        clearTimeout(timer);
        unlisten?.();
        resolve();
      };
      this.#turns.wait(tenant, start);
      // Work without a caller waits as long as the pool's own connect would.
      const timer =
        waitMs === undefined
          ? undefined
          : setTimeout(() => {
              const blockedBy = this.#turns.shareFull(tenant) ? 'own' : 'pool';
              stop(() => {
                this.#fairness.observer?.busy(blockedBy);
                return databaseBusy(blockedBy, {
                  share: this.#turns.share,
                  size: this.#turns.size,
                  waitedMs: waitMs,
                });
              });
            }, waitMs);
      const unlisten = caller?.whenGone(() => stop(() => this.#stop(caller, 'gone')));
    });
  }

  #end(tenant: string | undefined): void {
    for (const start of this.#turns.end(tenant)) start();
  }

  /** The error of a stopped statement, counted. */
  #stop(caller: Caller, reason: Stop): AppError {
    this.#fairness.observer?.stopped(reason);
    if (!this.#fairness.cancels && reason === 'timeout') this.#stopped.add(caller);
    return statementStopped(reason, this.#fairness.statementTimeoutMs);
  }

  /** Refuses the next statement of a caller gone away, or stopped between statements. */
  #refuseStopped(caller: Caller | undefined): void {
    if (!caller) return;
    if (caller.gone()) throw this.#stop(caller, 'gone');
    if (this.#stopped.has(caller)) {
      throw statementStopped('timeout', this.#fairness.statementTimeoutMs);
    }
  }

  /**
   * `query` of a connection as `caller`'s: each statement stopped past its time limit or when the
   * caller goes away. pg-pool's own `query` passes a callback, Prisma's adapter awaits a promise;
   * a submittable (a cursor) runs as it is.
   */
  #limited(client: pg.PoolClient, query: QueryFunction, caller: Caller): QueryFunction {
    return (...args: unknown[]) => {
      const [first] = args;
      if (typeof (first as { submit?: unknown } | null)?.submit === 'function') {
        return query.apply(client, args);
      }
      const last = args.at(-1);
      const callback = typeof last === 'function' ? (last as (...a: unknown[]) => void) : undefined;
      try {
        this.#refuseStopped(caller);
      } catch (err) {
        if (!callback) return Promise.reject(err as Error);
        queueMicrotask(() => callback(err));
        return undefined;
      }
      let stopped: Stop | undefined;
      const stop = (reason: Stop) => {
        if (stopped) return;
        stopped = reason;
        this.#stop(caller, reason);
        if (!this.#fairness.cancels) return;
        this.#cancelled.add(client);
        cancel(this.options, client);
      };
      const timer = setTimeout(() => stop('timeout'), this.#fairness.statementTimeoutMs);
      const unlisten = caller.whenGone(() => stop('gone'));
      const started = performance.now();
      const settle = (err: unknown) => {
        clearTimeout(timer);
        unlisten();
        caller.spent?.(performance.now() - started);
        // A statement the server cancelled fails as stopped, not with the server's 57014.
        return err && stopped && this.#fairness.cancels
          ? statementStopped(stopped, this.#fairness.statementTimeoutMs)
          : err;
      };
      if (callback) {
        args[args.length - 1] = (err: unknown, ...rest: unknown[]) =>
          callback(settle(err), ...rest);
        return query.apply(client, args);
      }
      return (query.apply(client, args) as Promise<unknown>).then(
        (result) => {
          settle(undefined);
          return result;
        },
        (err: unknown) => {
          throw settle(err);
        },
      );
    };
  }
}

/**
 * Asks the server to cancel what `client` runs now (PostgreSQL's cancel request, on a connection
 * of its own): the statement fails with 57014 and the connection stays usable.
 */
function cancel(options: pg.PoolConfig, client: pg.PoolClient): void {
  const { processID, secretKey } = client as unknown as { processID: number; secretKey: number };
  const canceller = new pg.Client(options) as unknown as {
    connection: {
      on(event: string, listener: (...args: unknown[]) => void): void;
      connect(port: number | undefined, host: string | undefined): void;
      cancel(processID: number, secretKey: number): void;
    };
    host: string | undefined;
    port: number | undefined;
  };
  const connection = canceller.connection;
  connection.on('error', () => undefined);
  const send = () => connection.cancel(processID, secretKey);
  connection.on('connect', send);
  connection.on('sslconnect', send);
  connection.connect(canceller.port, canceller.host);
}
