import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends, startApp } from '../helpers/app.ts';

interface OtlpTraces {
  resourceSpans: {
    resource: { attributes: { key: string; value: unknown }[] };
    scopeSpans: { spans: { name: string }[] }[];
  }[];
}

/** A loopback OTLP/HTTP collector that keeps what it is sent. */
async function startCollector() {
  const posts: { path: string; contentType: string; body: Buffer }[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      posts.push({
        path: req.url ?? '',
        contentType: String(req.headers['content-type']),
        body: Buffer.concat(chunks),
      });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    posts,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe.each(backends)('OTLP export on %s', (backend) => {
  let collector: Awaited<ReturnType<typeof startCollector>>;
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
    const exported = traces.map((p) => JSON.parse(p.body.toString('utf8')) as OtlpTraces);
    const resources = exported.flatMap((e) => e.resourceSpans);
    const names = resources.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans.map((x) => x.name)));
    expect(names).toContain('GET /healthz');
    for (const { resource } of resources) {
      expect(resource.attributes).toContainEqual({
        key: 'service.name',
        value: { stringValue: 'clipgate-otlp-test' },
      });
    }
  });
});
