import type { ServerResponse } from 'node:http';

/**
 * A signal that aborts once `res` closes (the client went away, or the answer went out). Made
 * only for the handlers that read it: an AbortController, its listener and the abort's
 * DOMException were about 4 % of a listing page's CPU.
 */
export function closeSignal(res: ServerResponse): AbortSignal {
  if (res.closed) return AbortSignal.abort();
  const gone = new AbortController();
  res.once('close', () => gone.abort());
  return gone.signal;
}

const RESPONSE = Symbol('response');
const SIGNAL = Symbol('signal');

interface Answered {
  [RESPONSE]: ServerResponse;
  [SIGNAL]?: AbortSignal;
}

function signalOf(this: Answered): AbortSignal {
  return (this[SIGNAL] ??= closeSignal(this[RESPONSE]));
}

/**
 * Gives `target` a `signal` (closeSignal of `res`), made when first read. Its getter is one
 * function for every request: a getter written in an object literal is a new function each
 * time, and V8 gives each such object a hidden class of its own, which keeps the getter, and
 * through it the request, alive through every young-generation collection until the next full
 * one (docs/performance.md, "What the collections promote").
 */
export function withCloseSignal<T extends object>(
  target: T,
  res: ServerResponse,
): T & { readonly signal: AbortSignal } {
  // Enumerable: Yoga's server adapter copies a context's enumerable symbols with its getters.
  Object.defineProperty(target, RESPONSE, { value: res, enumerable: true });
  Object.defineProperty(target, 'signal', { get: signalOf, enumerable: true, configurable: true });
  return target as T & { readonly signal: AbortSignal };
}
