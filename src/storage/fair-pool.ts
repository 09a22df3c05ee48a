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

/** A connection out of the pool, and what giving it back restores. */
interface Checkout {
  readonly client: pg.PoolClient;
  /** pg-pool's release of the connection. */
  readonly release: (err?: Error | boolean) => void;
  /** The connection's own `query`, and whether it was an own property. */
  readonly query: QueryFunction;
  readonly ownQuery: boolean;
  readonly caller: Caller | undefined;
  ended: boolean;
}

/** A caller's statement running on a connection it checked out. */
interface Statement {
  readonly client: pg.PoolClient;
  readonly caller: Caller;
  readonly started: number;
  stopped: Stop | undefined;
  timer: NodeJS.Timeout | undefined;
  unlisten: (() => void) | undefined;
}

/**
 * A pool whose connections are shared fairly between the callers of requests
 * (./tenancy.ts): each takes turns (./fair-turns.ts), at most `share` at once, the caller served
 * least recently first. A turn is taken before a connection is (pool.query and Prisma's adapter
 * take theirs through `connect`), so the pool's own queue stays empty and the turns decide who
 * goes next. A caller's statements run under its time limit and stop when the caller goes away
 * (PostgreSQL's cancel request, or between statements where the server has none). Work without a
 * caller (jobs, the dispatcher) has no share and no time limit of its own.
 *
 * What a checkout or a statement leaves with the connection, its timer and its caller is a bound
 * method over a plain record (Checkout, Statement), never a closure: closures made here for each
 * statement kept their requests alive through V8's young-generation collections (16 clients of
 * a REST page promoted about 2 MB a collection; docs/performance.md, "What the collections
 * promote").
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
    const checkout: Checkout = {
      client,
      release: client.release,
      query: client.query as QueryFunction,
      ownQuery: Object.hasOwn(client, 'query'),
      caller,
      ended: false,
    };
    client.release = this.#release.bind(this, checkout) as pg.PoolClient['release'];
    if (caller) client.query = this.#query.bind(this, checkout, caller) as pg.PoolClient['query'];
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

  /** Gives `checkout`'s connection back to the pool as it came, and ends its turn (once). */
  #release(checkout: Checkout, err?: Error | boolean): void {
    const { client, caller } = checkout;
    client.release = checkout.release as pg.PoolClient['release'];
    if (caller) {
      if (checkout.ownQuery) client.query = checkout.query as pg.PoolClient['query'];
      else delete (client as Partial<pg.PoolClient>).query;
    }
    checkout.release.call(client, err ?? (this.#cancelled.has(client) || undefined));
    if (checkout.ended) return;
    checkout.ended = true;
    this.#end(caller?.tenant);
  }

  /**
   * `query` of `checkout`'s connection as `caller`'s: each statement stopped past its time limit
   * or when the caller goes away. pg-pool's own `query` passes a callback, Prisma's adapter
   * awaits a promise; a submittable (a cursor) runs as it is.
   */
  #query(checkout: Checkout, caller: Caller, ...args: unknown[]): unknown {
    const { client, query } = checkout;
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
    const statement: Statement = {
      client,
      caller,
      started: performance.now(),
      stopped: undefined,
      timer: undefined,
      unlisten: undefined,
    };
    statement.timer = setTimeout(
      this.#stopStatement.bind(this, statement, 'timeout'),
      this.#fairness.statementTimeoutMs,
    );
    statement.unlisten = caller.whenGone(this.#stopStatement.bind(this, statement, 'gone'));
    if (callback) {
      args[args.length - 1] = this.#settleThen.bind(this, statement, callback);
      return query.apply(client, args);
    }
    return (query.apply(client, args) as Promise<unknown>).then(
      this.#settled.bind(this, statement),
      this.#failed.bind(this, statement),
    );
  }

  #stopStatement(statement: Statement, reason: Stop): void {
    if (statement.stopped) return;
    statement.stopped = reason;
    this.#stop(statement.caller, reason);
    if (!this.#fairness.cancels) return;
    this.#cancelled.add(statement.client);
    cancel(this.options, statement.client);
  }

  /** Ends `statement`: its error as the caller sees it (a cancelled one fails as stopped). */
  #settle(statement: Statement, err: unknown): unknown {
    clearTimeout(statement.timer);
    statement.unlisten?.();
    statement.caller.spent?.(performance.now() - statement.started);
    // A statement the server cancelled fails as stopped, not with the server's 57014.
    return err && statement.stopped && this.#fairness.cancels
      ? statementStopped(statement.stopped, this.#fairness.statementTimeoutMs)
      : err;
  }

  #settleThen(
    statement: Statement,
    callback: (...a: unknown[]) => void,
    err: unknown,
    ...rest: unknown[]
  ): void {
    callback(this.#settle(statement, err), ...rest);
  }

  #settled(statement: Statement, result: unknown): unknown {
    this.#settle(statement, undefined);
    return result;
  }

  #failed(statement: Statement, err: unknown): never {
    throw this.#settle(statement, err);
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
