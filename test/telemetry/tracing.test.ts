import { randomBytes } from 'node:crypto';
import { SpanKind } from '@opentelemetry/api';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace';
import { print } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends, startApp, type TestApp } from '../helpers/app.ts';
import { AssociateAccessory, CreateActivity, seedAccessory } from '../helpers/fixtures.ts';
import { register, startReceiver } from '../notifications/helpers.ts';

/** The W3C traceparent of a span the test plays the client with. */
const clientTrace = () => {
  const traceId = randomBytes(16).toString('hex');
  const spanId = randomBytes(8).toString('hex');
  return { traceId, spanId, traceparent: `00-${traceId}-${spanId}-01` };
};

describe.each(backends)('tracing on %s', (backend) => {
  const exporter = new InMemorySpanExporter();
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp(
      backend,
      {
        // Set, so tracing is on; the spans go to the in-memory exporter instead.
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318',
        WEBHOOK_ALLOW_HTTP: 'true',
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      },
      (config) => {
        config.telemetry!.exporter = exporter;
      },
    );
  });
  afterAll(() => t?.close());

  const spansOf = (traceId: string) =>
    exporter.getFinishedSpans().filter((s) => s.spanContext().traceId === traceId);
  const named = (spans: ReadableSpan[], name: string) => spans.filter((s) => s.name === name);
  /** An operation over GraphQL, sent in the client's trace (`traceparent`). */
  const traced = (token: string, traceparent: string, query: string, variables: object) =>
    fetch(`${t.url}/graphql`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${token}`,
        traceparent,
      },
      body: JSON.stringify({ query, variables }),
    });
  /** Waits until the trace `traceId` has a span named `name`; its spans then. */
  const spansWith = async (traceId: string, name: string) => {
    const until = Date.now() + 10_000;
    while (named(spansOf(traceId), name).length === 0) {
      if (Date.now() > until) throw new Error(`no ${name} span`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return spansOf(traceId);
  };

  it('traces a request that creates an activity through GraphQL and the database into its webhook attempt', async () => {
    const seeded = await seedAccessory(t, 'traced', 'cam-traced');
    const authKey = 'key-of-traced-0123456789';
    const receiver = await startReceiver(authKey);
    try {
      const token = await t.token(['notifications'], 'traced', 'backend');
      await register(t, token, { url: receiver.url, authKey, eventTypes: ['activity_created'] });

      const client = clientTrace();
      const res = await traced(seeded.ingest, client.traceparent, print(CreateActivity), {
        accessoryId: seeded.accessoryId,
        input: { createdAt: new Date(Date.now() - 60_000).toISOString() },
      });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { errors?: unknown }).errors).toBeUndefined();

      // The notification carries the trace on: its traceparent is in the client's trace.
      await receiver.waitFor(() => receiver.receipts.length === 1, 'the notification');
      const [receipt] = receiver.receipts;
      expect(receipt!.standard).toBe(true);
      const sent = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/.exec(
        String(receipt!.headers.traceparent),
      );
      expect(sent?.[1]).toBe(client.traceId);

      // The attempt span ends once the answer is read.
      const spans = await spansWith(client.traceId, 'webhook.attempt');

      const [http] = named(spans, 'POST /graphql');
      expect(http?.kind).toBe(SpanKind.SERVER);
      expect(http?.parentSpanContext?.spanId).toBe(client.spanId);
      expect(http?.attributes['http.response.status_code']).toBe(200);

      const [operation] = named(spans, 'mutation CreateActivity');
      expect(operation?.parentSpanContext?.spanId).toBe(http?.spanContext().spanId);
      expect(operation?.attributes['graphql.operation.type']).toBe('mutation');
      for (const phase of ['graphql.parse', 'graphql.validate', 'graphql.execute']) {
        const [span] = named(spans, phase);
        expect(span?.parentSpanContext?.spanId, phase).toBe(operation?.spanContext().spanId);
      }

      // Database spans: the hand-written SQL's, the write among them (the one statement of the
      // write path, src/activities/writes.ts). Prisma's are below.
      const queries = spans.filter((s) => typeof s.attributes['db.query.text'] === 'string');
      expect(queries.length).toBeGreaterThan(0);
      expect(
        queries.some((s) =>
          /clipgate_ingest_settled\(/.test(String(s.attributes['db.query.text'])),
        ),
      ).toBe(true);

      // One attempt, a CLIENT span whose context is the one the receiver got.
      const [attempt] = named(spans, 'webhook.attempt');
      expect(attempt?.kind).toBe(SpanKind.CLIENT);
      expect(attempt?.spanContext().spanId).toBe(sent?.[2]);
      expect(attempt?.attributes).toMatchObject({
        'http.response.status_code': 204,
        'clipgate.webhook.outcome': 'accepted',
        'clipgate.event.type': 'activity_created',
        'clipgate.delivery.attempt': 1,
      });
      // Its parent is a span of the request (the one active when the event was recorded).
      const requestSpans = new Set(spans.map((s) => s.spanContext().spanId));
      expect(requestSpans.has(attempt!.parentSpanContext!.spanId)).toBe(true);

      // Prisma's spans, in a request that goes through it: associating another accessory.
      const associating = clientTrace();
      const associated = await traced(
        seeded.ingest,
        associating.traceparent,
        print(AssociateAccessory),
        { accountId: seeded.accountId, deviceId: 'cam-traced-2', name: 'second' },
      );
      expect(associated.status).toBe(200);
      expect(((await associated.json()) as { errors?: unknown }).errors).toBeUndefined();
      await spansWith(associating.traceId, 'prisma:client:operation');
    } finally {
      await receiver.close();
    }
  });

  it('traces the hand-written SQL of a REST listing, and only inside a trace', async () => {
    const seeded = await seedAccessory(t, 'traced-reader', 'cam-reader');
    const reader = await t.token(['activities_basic'], 'traced-reader');
    const client = clientTrace();
    const res = await fetch(`${t.url}/api/accessories/${seeded.accessoryId}/activities`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${reader}`,
        traceparent: client.traceparent,
      },
      body: '{}',
    });
    expect(res.status).toBe(200);
    const spans = spansOf(client.traceId);
    const [http] = spans.filter((s) => s.kind === SpanKind.SERVER);
    expect(http?.name).toBe('POST /api/accessories/{accessoryId}/activities');
    const selects = named(spans, 'pg.query SELECT');
    expect(selects.length).toBeGreaterThan(0);
    expect(selects[0]?.attributes['db.system.name']).toBe('postgresql');
    // Background loops (the dispatcher's polling) start no traces of their own.
    const roots = exporter.getFinishedSpans().filter((s) => s.name.startsWith('pg.query'));
    expect(roots.every((s) => s.parentSpanContext !== undefined)).toBe(true);
  });

  it('marks a failed attempt with its status and outcome', async () => {
    const seeded = await seedAccessory(t, 'traced-failing', 'cam-failing');
    const authKey = 'key-of-failing-0123456789';
    const receiver = await startReceiver(authKey, (_r, res) => void res.writeHead(503).end());
    try {
      const token = await t.token(['notifications'], 'traced-failing', 'backend');
      await register(t, token, { url: receiver.url, authKey, eventTypes: ['activity_created'] });
      const client = clientTrace();
      const res = await traced(seeded.ingest, client.traceparent, print(CreateActivity), {
        accessoryId: seeded.accessoryId,
        input: {},
      });
      expect(res.status).toBe(200);
      await receiver.waitFor(() => receiver.receipts.length >= 1, 'the first attempt');
      const [attempt] = named(
        await spansWith(client.traceId, 'webhook.attempt'),
        'webhook.attempt',
      );
      expect(attempt?.attributes).toMatchObject({
        'http.response.status_code': 503,
        'clipgate.webhook.outcome': 'failed',
      });
      expect(attempt?.status.code).toBe(2); // SpanStatusCode.ERROR
    } finally {
      await receiver.close();
    }
  });
});
