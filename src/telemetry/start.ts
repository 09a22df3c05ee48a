import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { PrismaInstrumentation } from '@prisma/instrumentation';
import type { TelemetryConfig } from '../config.ts';
import { activeTracer, setTracer } from './tracing.ts';

/**
 * Starts tracing for this process: the SDK's tracer provider (spans batched to OTLP/HTTP, or
 * handed one by one to the configured exporter), AsyncLocalStorage context, W3C trace context
 * propagation, and Prisma's instrumentation. Loaded only when tracing is configured (app.ts).
 * Resolves with the shutdown, which flushes what is still buffered.
 */
export function startTelemetry(config: TelemetryConfig): () => Promise<void> {
  if (activeTracer()) throw new Error('tracing is already started in this process');
  const exporter =
    config.exporter ??
    new OTLPTraceExporter({ url: `${config.endpoint.replace(/\/+$/, '')}/v1/traces` });
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': config.serviceName }),
    spanProcessors: [
      config.exporter
        ? new SimpleSpanProcessor({ exporter })
        : new BatchSpanProcessor({ exporter }),
    ],
  });
  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  const prisma = new PrismaInstrumentation();
  prisma.setTracerProvider(provider);
  prisma.enable();
  setTracer(provider.getTracer('clipgate'));

  return async () => {
    setTracer(undefined);
    prisma.disable();
    await provider.shutdown();
    trace.disable();
    propagation.disable();
    context.disable();
  };
}
