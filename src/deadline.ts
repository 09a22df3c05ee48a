/** A bound on how long a caller waits for a promise. */
export const TIMED_OUT: unique symbol = Symbol('timed out');

/**
 * Settles as `promise` does, or with TIMED_OUT after `ms` (the promise goes on; what it settles
 * with later is dropped, a rejection included).
 */
export function within<T>(promise: Promise<T>, ms: number): Promise<T | typeof TIMED_OUT> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<typeof TIMED_OUT>((resolve) => {
    timer = setTimeout(() => resolve(TIMED_OUT), ms);
    timer.unref();
  });
  promise.catch(() => {});
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}
