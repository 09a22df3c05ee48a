import { RequestCache } from '@pothos/plugin-scope-auth';
import { isAsyncIterable, type Plugin } from 'graphql-yoga';

/**
 * Forgets the scope checks of an operation's context once it has executed. Pothos keeps them in
 * a WeakMap keyed by the context, and its value holds the context. V8's young-generation
 * collections keep such an entry of a long-lived WeakMap (its value refers to its key), so every
 * request stayed in memory until the next full collection: about 2 MB of each GraphQL page's
 * objects promoted a collection (docs/performance.md, "What the collections promote").
 */
export const forgetScopes = (context: object): void => RequestCache.clearForContext(context);

/** Forgets an execution's scope checks when it is done; a stream's when it ends. */
export function forgetScopesOnceExecuted(): Plugin {
  return {
    onExecute: () => ({
      onExecuteDone: ({ args, result }) => {
        const forget = () => forgetScopes(args.contextValue as object);
        if (isAsyncIterable(result)) return { onEnd: forget };
        forget();
        return undefined;
      },
    }),
    onSubscribe: ({ args }) => ({
      onSubscribeResult: () => ({ onEnd: () => forgetScopes(args.contextValue as object) }),
    }),
  };
}
