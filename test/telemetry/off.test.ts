import { trace } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activeTracer } from '../../src/telemetry/tracing.ts';
import { backends, startApp, type TestApp } from '../helpers/app.ts';
import { seedAccessory } from '../helpers/fixtures.ts';

// Where the OpenTelemetry API keeps what is registered process-wide (API major version 1).
const registry = () =>
  (globalThis as Record<symbol, Record<string, unknown> | undefined>)[
    Symbol.for('opentelemetry.js.api.1')
  ];

describe.each(backends)('tracing off on %s', (backend) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp(backend, { OTEL_EXPORTER_OTLP_ENDPOINT: '' });
  });
  afterAll(() => t?.close());

  it('registers no tracer provider without OTEL_EXPORTER_OTLP_ENDPOINT', async () => {
    expect(t.config.telemetry).toBeUndefined();
    // Some traffic, which a traced instance would trace.
    await seedAccessory(t, 'untraced', 'cam-untraced');
    expect(activeTracer()).toBeUndefined();
    expect(registry()?.trace).toBeUndefined();
    expect(registry()?.propagation).toBeUndefined();
    expect(trace.getTracer('probe').startSpan('probe').isRecording()).toBe(false);
  });
});
