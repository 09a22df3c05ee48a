import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** An OTLP/HTTP JSON trace export, as far as the tests read it. */
export interface OtlpTraces {
  resourceSpans: {
    resource: { attributes: { key: string; value: unknown }[] };
    scopeSpans: { spans: OtlpSpan[] }[];
  }[];
}

export interface OtlpSpan {
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
}

export type Collector = Awaited<ReturnType<typeof startCollector>>;

/** A loopback OTLP/HTTP collector that keeps what it is sent. */
export async function startCollector() {
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
  /** What every trace export so far carried, resource by resource. */
  const resourceSpans = () =>
    posts
      .filter((p) => p.path === '/v1/traces')
      .flatMap((p) => (JSON.parse(p.body.toString('utf8')) as OtlpTraces).resourceSpans);
  return {
    url: `http://127.0.0.1:${port}`,
    posts,
    resourceSpans,
    /** Every span exported so far, from every resource. */
    spans: (): OtlpSpan[] => resourceSpans().flatMap((r) => r.scopeSpans.flatMap((s) => s.spans)),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
