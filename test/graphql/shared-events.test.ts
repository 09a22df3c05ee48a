import {
  GraphQLInt,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLSchema,
  GraphQLString,
  parse,
  type ExecutionArgs,
  type ExecutionResult,
} from 'graphql';
import { describe, expect, it } from 'vitest';
import type { Principal } from '../../src/accounts/auth.ts';
import { sharedEventResults } from '../../src/graphql/shared-events.ts';

interface Payload {
  n: number;
}

/** A subscription field whose sources are pushed by the test; its `n` resolver counts calls. */
function fixture() {
  const sources: ((payload: Payload) => void)[] = [];
  let resolved = 0;
  const Event = new GraphQLObjectType({
    name: 'Event',
    fields: {
      n: {
        type: new GraphQLNonNull(GraphQLInt),
        args: { times: { type: GraphQLInt } },
        resolve: (payload: Payload, args: { times?: number }) => {
          resolved++;
          return payload.n * (args.times ?? 1);
        },
      },
    },
  });
  const schema = new GraphQLSchema({
    query: new GraphQLObjectType({ name: 'Query', fields: { ok: { type: GraphQLString } } }),
    subscription: new GraphQLObjectType({
      name: 'Subscription',
      fields: {
        events: {
          type: Event,
          resolve: (payload: Payload) => payload,
          subscribe: () => {
            const waiting: ((result: IteratorResult<Payload>) => void)[] = [];
            sources.push((payload) => waiting.shift()?.({ done: false, value: payload }));
            return {
              [Symbol.asyncIterator]() {
                return this;
              },
              next: () => new Promise<IteratorResult<Payload>>((r) => waiting.push(r)),
              return: () => {
                for (const w of waiting.splice(0)) w({ done: true, value: undefined });
                return Promise.resolve({ done: true, value: undefined });
              },
            };
          },
        },
      },
    }),
  });
  return { schema, sources, resolved: () => resolved };
}

const principal = (clientId: string, scopes = ['activities_basic']): Principal =>
  ({ subject: 'user-1', clientId, scopes: new Set(scopes), rawScopes: [] }) as never;

describe('shared subscription results', () => {
  const document = parse('subscription($times: Int) { events { n(times: $times) } }');

  /** Subscribes through the plugin as envelop would; undefined when it left the default. */
  async function subscribe(
    plugin: ReturnType<typeof sharedEventResults>,
    schema: GraphQLSchema,
    context: Record<string, unknown>,
    variableValues: Record<string, unknown> = {},
  ) {
    let subscribeFn: ((args: ExecutionArgs) => unknown) | undefined;
    const args: ExecutionArgs = { schema, document, variableValues, contextValue: context };
    void plugin.onSubscribe!({
      args,
      setSubscribeFn: (fn: typeof subscribeFn) => (subscribeFn = fn),
    } as never);
    if (!subscribeFn) return undefined;
    return (await subscribeFn(args)) as AsyncIterableIterator<ExecutionResult>;
  }

  it('executes an event once for the WebSocket subscribers with the same operation, variables and caller', async () => {
    const { schema, sources, resolved } = fixture();
    const plugin = sharedEventResults();
    const live = (clientId: string) => ({
      liveTransport: 'websocket',
      principal: principal(clientId),
    });
    const same = [
      await subscribe(plugin, schema, live('app')),
      await subscribe(plugin, schema, live('app')),
      await subscribe(plugin, schema, live('app')),
    ];
    const otherVariables = await subscribe(plugin, schema, live('app'), { times: 2 });
    const otherCaller = await subscribe(plugin, schema, live('other-app'));
    const all = [...same, otherVariables, otherCaller];

    const event = { n: 7 };
    const results = all.map((s) => s!.next());
    for (const push of sources) push(event);
    const [a, b, c, doubled, other] = (await Promise.all(results)).map((r) => r.value);
    expect(a).toEqual({ data: { events: { n: 7 } } });
    expect(b).toBe(a);
    expect(c).toBe(a);
    expect(doubled).toEqual({ data: { events: { n: 14 } } });
    expect(other).toEqual(a);
    expect(other).not.toBe(a);
    expect(resolved()).toBe(3);

    // Another event object (another event, or one replayed from the log) is executed anew.
    const next = all.map((s) => s!.next());
    const second = { n: 8 };
    for (const push of sources) push(second);
    expect((await Promise.all(next)).map((r) => r.value.data)).toEqual([
      { events: { n: 8 } },
      { events: { n: 8 } },
      { events: { n: 8 } },
      { events: { n: 16 } },
      { events: { n: 8 } },
    ]);
    expect(resolved()).toBe(6);

    // return() ends the source at once, even while a next() waits for an event.
    const waiting = same[0]!.next();
    await same[0]!.return!();
    await expect(waiting).resolves.toMatchObject({ done: true });
  });

  it('leaves SSE subscriptions to the default executor', async () => {
    const { schema } = fixture();
    expect(
      await subscribe(sharedEventResults(), schema, {
        liveTransport: 'sse',
        principal: principal('app'),
      }),
    ).toBeUndefined();
  });
});
