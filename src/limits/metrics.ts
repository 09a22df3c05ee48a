import { Counter, type Registry } from 'prom-client';

/** The rate limiter's metrics (rate.ts). */
export function rateLimitMetrics(registry: Registry) {
  return {
    rateLimitScriptErrors: new Counter({
      name: 'clipgate_rate_limit_script_errors_total',
      help: "Rate-limit checks the shared limiter's script failed, by policy (Redis answered with an error; the instance's own bucket judged the request)",
      labelNames: ['policy'] as const,
      registers: [registry],
    }),
  };
}

export type RateLimitMetrics = ReturnType<typeof rateLimitMetrics>;
