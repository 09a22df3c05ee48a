import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends, startApp } from '../helpers/app.ts';
import { startCollector, type Collector } from '../helpers/otlp.ts';

describe.each(backends)('OTLP export on %s', (backend) => {
  let collector: Collector;
  beforeAll(async () => {
    collector = await startCollector();
  });
  afterAll(() => collector?.close());

  it('sends the spans to OTEL_EXPORTER_OTLP_ENDPOINT under OTEL_SERVICE_NAME, flushed on close', async () => {
    const t = await startApp(backend, {
      OTEL_EXPORTER_OTLP_ENDPOINT: `${collector.url}/`,
      OTEL_SERVICE_NAME: 'clipgate-otlp-test',
    });
    const res = await fetch(`${t.url}/healthz`);
    expect(res.status).toBe(200);
    await t.close();
    const traces = collector.posts.filter((p) => p.path === '/v1/traces');
    expect(traces.length).toBeGreaterThan(0);
    // OTLP/HTTP with JSON bodies: the resource's service.name and the spans' names.
    const resources = collector.resourceSpans();
    expect(collector.spans().map((span) => span.name)).toContain('GET /healthz');
    for (const { resource } of resources) {
      expect(resource.attributes).toContainEqual({
        key: 'service.name',
        value: { stringValue: 'clipgate-otlp-test' },
      });
    }
  });
});
