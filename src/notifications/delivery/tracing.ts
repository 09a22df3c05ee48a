import type { AttemptResult } from './policy.ts';
import type { ClaimedDelivery } from './queue/types.ts';
import { traceCall } from '../../telemetry/tracing.ts';

/**
 * One webhook attempt as a CLIENT span (`webhook.attempt`) in the trace of the request that
 * caused its event (the `traceparent` the outbox stored with the delivery), with the attempt's
 * status and outcome. `send` gets the `traceparent` header to send, the attempt span's own.
 */
export function traceAttempt(
  delivery: Pick<ClaimedDelivery, 'id' | 'event_type' | 'attempt_count' | 'url' | 'traceparent'>,
  send: (traceparent: string | undefined) => Promise<AttemptResult>,
): Promise<AttemptResult> {
  return traceCall(
    'webhook.attempt',
    delivery.traceparent,
    () => {
      const url = new URL(delivery.url);
      return {
        'http.request.method': 'POST',
        'server.address': url.hostname,
        'server.port': Number(url.port) || (url.protocol === 'https:' ? 443 : 80),
        // Without the query: a receiver may put a token there.
        'url.full': `${url.origin}${url.pathname}`,
        'clipgate.delivery.id': delivery.id,
        'clipgate.delivery.attempt': delivery.attempt_count,
        'clipgate.event.type': delivery.event_type,
      };
    },
    send,
    (result) => ({
      attributes: {
        'clipgate.webhook.outcome': result.outcome,
        ...(result.status !== null && { 'http.response.status_code': result.status }),
        ...(result.error !== null && { 'error.type': result.error }),
      },
      ...(result.outcome !== 'accepted' && {
        error: result.errorMessage ?? `${result.outcome} (${result.status ?? result.error})`,
      }),
    }),
  );
}
