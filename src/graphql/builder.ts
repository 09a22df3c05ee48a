import SchemaBuilder from '@pothos/core';
import RelayPlugin from '@pothos/plugin-relay';
import ScopeAuthPlugin, { AuthScopeFailureType, type AuthFailure } from '@pothos/plugin-scope-auth';
import { GraphQLError } from 'graphql';
import type { ScopeName } from '../accounts/auth.ts';
import { requestContext, type RequestContext } from '../context.ts';
import type { ReadServices } from '../services.ts';
import { invalidArgument, permissionDenied } from '../errors.ts';
import { parseTimestamp } from '../ids.ts';
import { isoString } from '../iso-time.ts';
import type { MediaUrlLoader } from '../media/lookup.ts';
import { decodeGlobalId, encodeGlobalId } from './global-ids.ts';

/**
 * The context of one GraphQL operation: the caller's (shared with REST), and loaders that batch
 * and cache for this operation only (a WebSocket connection runs many operations).
 */
export interface GraphQLContext extends RequestContext<ReadServices> {
  /** `Activity.media`: the activities of a page in one query per accessory. */
  mediaUrls: MediaUrlLoader;
  /** The request's Idempotency-Key header (`ingestBatch`), if any. */
  idempotencyKey?: string;
  /**
   * Over HTTP: aborted once the client has gone away before its answer went out. A live query's
   * update: aborted once no live query wants it (live-query.ts).
   */
  signal?: AbortSignal;
}

/** The context of an operation of `caller`, with loaders of its own. */
export const graphqlContext = (
  caller: RequestContext<ReadServices>,
  idempotencyKey?: string,
): GraphQLContext => ({
  ...caller,
  mediaUrls: caller.services.media.lookup.urlLoader(),
  idempotencyKey,
});

/**
 * The context of `context`'s operation executed again (a live query): the same caller, asked
 * again for its account, with loaders that have cached nothing yet.
 */
export const renewedContext = <C extends GraphQLContext>(context: C): C => ({
  ...context,
  ...graphqlContext(requestContext(context.services, context.principal), context.idempotencyKey),
});

/** The most ids one `nodes` call takes, as many as the largest page. */
export const MAX_NODES = 100;

/**
 * A node type's `loadMany` that needs one of `scopes`. Without it, each of the ids is the
 * PERMISSION_DENIED error: GraphQL answers null at that id's own place in `nodes`, with the
 * error at its path, and the other ids of the list as usual.
 */
export function scopedLoader<K, T>(
  scopes: ScopeName[],
  load: (ids: K[], ctx: GraphQLContext) => Promise<(T | null)[]>,
): (ids: K[], ctx: GraphQLContext) => Promise<(T | null)[]> {
  return async (ids, ctx) => {
    try {
      ctx.require(...scopes);
    } catch (err) {
      // An error as the value of a field is that field's error (graphql-js, graphql-jit).
      return ids.map(() => err as T);
    }
    return load(ids, ctx);
  };
}

/** The first scope named in a scope-auth failure: the one a 403 asks for. */
function missingScope(failure: AuthFailure): ScopeName | undefined {
  switch (failure.kind) {
    case AuthScopeFailureType.AuthScope:
      return failure.scope as ScopeName;
    case AuthScopeFailureType.AnyAuthScopes:
    case AuthScopeFailureType.AllAuthScopes:
      return failure.failures.map(missingScope).find(Boolean);
    default:
      return undefined;
  }
}

export const builder = new SchemaBuilder<{
  Context: GraphQLContext;
  DefaultFieldNullability: false;
  AuthScopes: Record<ScopeName, boolean>;
  DefaultEdgesNullability: false;
  DefaultNodeNullability: false;
  Scalars: {
    DateTime: { Input: Date; Output: Date };
    JSON: { Input: unknown; Output: unknown };
  };
}>({
  plugins: [ScopeAuthPlugin, RelayPlugin],
  defaultFieldNullability: false,
  scopeAuth: {
    // Subscription fields are checked when subscribing, not on every event.
    authorizeOnSubscribe: true,
    authScopes: (ctx) => ({
      activities_basic: ctx.principal.scopes.has('activities_basic'),
      notifications: ctx.principal.scopes.has('notifications'),
      notifications_motion: ctx.principal.scopes.has('notifications_motion'),
      zones: ctx.principal.scopes.has('zones'),
      ingest: ctx.principal.scopes.has('ingest'),
      admin: ctx.principal.scopes.has('admin'),
    }),
    unauthorizedError: (_parent, ctx, _info, result) =>
      permissionDenied(ctx.services.auth.scopeName(missingScope(result.failure) ?? 'admin')),
  },
  relay: {
    cursorType: 'String',
    clientMutationId: 'omit',
    edgesFieldOptions: { nullable: false },
    nodeFieldOptions: { nullable: false },
    // Accessories, activities and notification deliveries are nodes (global-ids.ts).
    nodeTypeOptions: {
      description:
        'An object that can be fetched again by its global `id` with `node(id)` or `nodes(ids)`.',
    },
    idFieldOptions: {
      description:
        'The global id: opaque, unique across types; `node(id)` fetches the object again.',
    },
    nodeQueryOptions: {
      description:
        "The node of a global id; null for an unknown one or another account's (or another client's delivery).",
    },
    nodesQueryOptions: {
      description: `The nodes of up to ${MAX_NODES} global ids, in their order; null for each one \`node\` would not give.`,
      resolve: (_root, { ids }, _ctx, _info, resolveNodes) => {
        if (ids.length > MAX_NODES) {
          throw invalidArgument('ids', `nodes takes at most ${MAX_NODES} ids`);
        }
        return resolveNodes(ids);
      },
    },
    encodeGlobalID: encodeGlobalId,
    decodeGlobalID: decodeGlobalId,
  },
});

builder.scalarType('DateTime', {
  description: 'An instant, as ISO 8601 with a zone; returned in UTC with `Z`.',
  serialize: (value) => isoString(value as Date),
  parseValue: (value) => {
    const date = parseTimestamp(value);
    if (!date) {
      throw new GraphQLError('DateTime must be an ISO 8601 timestamp with a zone');
    }
    return date;
  },
});

builder.scalarType('JSON', {
  description: 'Free-form JSON.',
  serialize: (value) => value,
  parseValue: (value) => value,
});

builder.queryType({});
builder.mutationType({});
builder.subscriptionType({});
