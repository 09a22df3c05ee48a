// Types for redis-gcra 0.3 (it ships none): GCRA rate limiting run as a script in Redis.
declare module 'redis-gcra' {
  import type { Redis } from 'ioredis';

  interface LimitOptions {
    key: string;
    burst?: number;
    rate?: number;
    period?: number;
    cost?: number;
  }

  interface LimitResult {
    limited: boolean;
    remaining: number;
    retryIn: number;
    resetIn: number;
  }

  interface Limiter {
    limit(options: LimitOptions): Promise<LimitResult>;
  }

  export default function RedisGCRA(
    options: { redis: Redis; keyPrefix?: string } & Omit<LimitOptions, 'key'>,
  ): Limiter;
}
