import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Whom the database work in progress is for: the caller of a request (an account and its OAuth
 * client), set by the transports (REST, GraphQL over HTTP, SSE and WebSocket) around the work of
 * each request, so that the pools (./fair-pool.ts) can see who asks without every function
 * passing it on. Work outside any request (the webhook dispatcher, the jobs) has no caller.
 */
export interface Caller {
  /** Who the shares count for: the same key as the rate limits' (`client:subject`). */
  readonly tenant: string;
  /** Whether the one who asked has gone away (the client disconnected before its answer). */
  gone(): boolean;
  /** Calls `listener` once the one who asked goes away; returns the function that stops it. */
  whenGone(listener: () => void): () => void;
  /** Told how long each of its statements took, in milliseconds (what an operation is charged). */
  spent?(ms: number): void;
}

const current = new AsyncLocalStorage<Caller>();

/** Runs `body` (and all it starts) as the work of `caller`. */
export const asCaller = <T>(caller: Caller, body: () => T): T => current.run(caller, body);

/**
 * Runs `body` as no caller's work: for what a request starts that outlives it and serves every
 * caller (a connection made on the first request that needs it keeps the context it was made in,
 * and its events would run as that request's caller long after it left).
 */
export const withoutCaller = <T>(body: () => T): T => current.exit(body);

/** The caller the current work is for, if it is a request's. */
export const currentCaller = (): Caller | undefined => current.getStore();

/** What closes when its client goes away: an HTTP answer, a WebSocket. */
interface Closing {
  once(event: 'close', listener: () => void): unknown;
  off(event: 'close', listener: () => void): unknown;
}

/**
 * A caller whose one who asked is gone once `closing` closes while `gone` says so (an HTTP
 * answer that closed before it was written; a WebSocket that closed). It listens to `closing`
 * only while a statement waits or runs, with one listener however many do.
 */
export function closingCaller(tenant: string, closing: Closing, gone: () => boolean): Caller {
  const listeners = new Set<() => void>();
  const closed = () => {
    const called = [...listeners];
    listeners.clear();
    if (gone()) for (const listener of called) listener();
  };
  return {
    tenant,
    gone,
    whenGone(listener) {
      // A Set holds a function once: each registration gets its own.
      const entry = () => listener();
      if (listeners.size === 0) closing.once('close', closed);
      listeners.add(entry);
      return () => {
        if (!listeners.delete(entry) || listeners.size > 0) return;
        closing.off('close', closed);
      };
    },
  };
}

/** `caller`, whose statements' time `spent` is also told (an operation's meter). */
export const meteredCaller = (caller: Caller, spent: (ms: number) => void): Caller => ({
  tenant: caller.tenant,
  gone: () => caller.gone(),
  whenGone: (listener) => caller.whenGone(listener),
  spent(ms) {
    spent(ms);
    caller.spent?.(ms);
  },
});

/** A caller whose one who asked does not go away (the work runs to its end regardless). */
export const stayingCaller = (tenant: string): Caller => ({
  tenant,
  gone: () => false,
  whenGone: () => () => undefined,
});
