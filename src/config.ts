import path from 'node:path';
import { getHeapStatistics } from 'node:v8';
import type { SpanExporter } from '@opentelemetry/sdk-trace';
import { StartError } from './start-error.ts';

/** A setting the service cannot start with; the message names the variable. */
export class ConfigError extends StartError {}

/** Everything the service reads from its environment, parsed once at start. */
export interface Config {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | undefined;
  /** `DATABASE_READ_URL`: a read replica of DATABASE_URL that serves the activity listings. */
  databaseReadUrl: string | undefined;
  /** `DATABASE_READ_MAX_LAG_MS`: beyond this lag the read replica serves no listing reads. */
  databaseReadMaxLagMs: number;
  /** `DATABASE_POOL_SIZE`: connections per pool at most (the main one and the listings'). */
  databasePoolSize: number;
  /** `DATABASE_POOL_SHARE`: connections of a pool one caller (client and account) holds at once. */
  databasePoolShare: number;
  /** `DATABASE_STATEMENT_TIMEOUT_MS`: the time limit of a request's statement. */
  databaseStatementTimeoutMs: number;
  /**
   * `DATABASE_DIRECT_URL`: the database itself when DATABASE_URL is a transaction pooler
   * (PgBouncer); the sessions a pooler cannot carry (migrations, LISTEN) connect here.
   */
  databaseDirectUrl: string | undefined;
  /** `REDIS_URL` or `REDIS_CLUSTER_NODES`: where live events and rate limits are shared. */
  redis: RedisTarget | undefined;
  logLevel: string;
  scopePrefix: string;
  maxBodyBytes: number;
  auth: AuthConfig;
  webhook: WebhookConfig;
  retentionSweepMs: number;
  /** `EVENT_LOG_RETENTION_HOURS`: how long the event log keeps events for resuming subscriptions. */
  eventLogRetentionHours: number;
  live: LiveConfig;
  /** `PUBLIC_BASE_URL`: makes media URLs absolute (e.g. `https://api.example.com`); unset: root-relative. */
  publicBaseUrl: string | undefined;
  media: MediaConfig;
  limits: LimitsConfig;
  graphqlWorkers: GraphQLWorkersConfig;
  graphqlDocuments: GraphQLDocumentsConfig;
  /** Unset (no `OTEL_EXPORTER_OTLP_ENDPOINT`): tracing is off and no SDK is loaded. */
  telemetry: TelemetryConfig | undefined;
}

/**
 * One Redis server (`REDIS_URL`), or a Redis Cluster (`REDIS_CLUSTER_NODES`, some of its nodes:
 * the client finds the others), where live events use sharded pub/sub.
 */
export type RedisTarget = { url: string } | { clusterNodes: { host: string; port: number }[] };

/** OpenTelemetry tracing (src/telemetry). */
export interface TelemetryConfig {
  /** `OTEL_EXPORTER_OTLP_ENDPOINT`: the OTLP/HTTP collector; spans go to `<endpoint>/v1/traces`. */
  endpoint: string;
  /** `OTEL_SERVICE_NAME`: the `service.name` of the spans (default `clipgate`). */
  serviceName: string;
  /** Where spans go instead of the endpoint (tests: an in-memory exporter); no variable. */
  exporter?: SpanExporter;
}

/** What one client may ask of an instance (src/limits, src/graphql/limits.ts). */
export interface LimitsConfig {
  /** `RATE_LIMIT_RPS`: requests per second per OAuth client and account; 0 turns limiting off. */
  rateRps: number;
  /** `RATE_LIMIT_BURST`: how many requests may come at once before the rate applies. */
  rateBurst: number;
  /** `RATE_LIMIT_INGEST_RPS`: the same for tokens with the ingest scope (burst: two seconds' worth). */
  ingestRps: number;
  /**
   * `RATE_LIMIT_COST`: GraphQL cost points per second per OAuth client and account (scaled by
   * the ingest rate for ingest tokens; burst: two seconds' worth); 0 turns the cost budget off.
   */
  costRate: number;
  /**
   * `RATE_LIMIT_CONCURRENCY`: requests of one OAuth client and account executing at once on an
   * instance (scaled by the ingest rate for ingest tokens); more wait their turn. 0: no bound.
   */
  concurrency: number;
  /**
   * `GRAPHQL_MAX_ALIASES`, `GRAPHQL_MAX_DEPTH`, `GRAPHQL_MAX_TOKENS`, `GRAPHQL_MAX_COST`, and
   * `GRAPHQL_MAX_COST_IN_FLIGHT`: the cost of one caller's operations executing at once on an
   * instance (more wait their turn; 0: no bound), and `GRAPHQL_UNPRICED_DATABASE_MS`: the
   * database time an operation may take beyond its price before it pays for that time instead.
   */
  graphql: {
    maxAliases: number;
    maxDepth: number;
    maxTokens: number;
    maxCost: number;
    maxCostInFlight: number;
    unpricedDatabaseMs: number;
  };
  /** `OVERLOAD_LAG_MS`: event-loop lag above which new requests are refused (503); 0: never. */
  overloadLagMs: number;
}

/**
 * The costly GraphQL queries run on worker threads, off the event loop that serves every other
 * request (src/graphql/workers). PostgreSQL only: each thread has its own connections, and the
 * embedded database takes one.
 */
export interface GraphQLWorkersConfig {
  /**
   * `GRAPHQL_WORKERS`: how many threads; 0: every operation on the event loop. Default: 1 with
   * DATABASE_URL, 0 on the embedded database (which cannot have them).
   */
  threads: number;
  /** `GRAPHQL_WORKER_MIN_COST`: the cost from which a query runs on a thread (default 1000). */
  minCost: number;
  /**
   * `GRAPHQL_WORKER_NICE`: how many steps of CPU priority (nice) below the instance's event loop
   * the threads run, 0-19 (default 10), so that the costly queries yield the cores to it. Linux
   * only, where a nice value is a thread's own.
   */
  nice: number;
}

/** Persisted operations and trusted documents (src/graphql/documents.ts). */
export interface GraphQLDocumentsConfig {
  /**
   * `GRAPHQL_TRUSTED_DOCUMENTS`: the OAuth client ids that may send only known documents (the
   * dashboard's and the manifests'); `*`: every client. Empty (the default): any client may send
   * any document.
   */
  trustedOnly: ReadonlySet<string> | '*';
  /** `GRAPHQL_PERSISTED_DOCUMENTS`: manifest files (hash to document) besides the dashboard's. */
  manifests: string[];
  /** `GRAPHQL_APQ_MAX_ENTRIES`: documents registered by clients (APQ) an instance keeps; 0: none. */
  apqMaxEntries: number;
}

export interface S3Config {
  bucket: string;
  endpoint: string | undefined;
  region: string;
  accessKeyId: string | undefined;
  secretAccessKey: string | undefined;
  /** A key prefix inside the bucket, e.g. `clipgate/`. */
  prefix: string;
}

export interface MediaConfig {
  maxMp4Bytes: number;
  maxImageBytes: number;
  /** HMAC secret of signed media URLs; unset: generated into DATA_DIR (one instance only). */
  urlSecret: string | undefined;
  urlTtlS: number;
  /** `NOTIFICATION_MEDIA_URL_TTL_S`: how long the URLs an activity_media_ready event carries stay valid. */
  notificationUrlTtlS: number;
  /** Unset: the filesystem under DATA_DIR/media. */
  s3: S3Config | undefined;
  packager: {
    concurrency: number;
    queueMax: number;
    timeoutS: number;
    pollMs: number;
    segmentS: number;
    /**
     * `FFMPEG_PATH` when set; undefined: src/media/ffmpeg.ts finds one when media starts (the
     * system's, or the npm-shipped build); false: none, no packaging here.
     */
    ffmpeg: string | false | undefined;
  };
  /** Clip exports (src/media/export.ts), run with the packager's ffmpeg. */
  export: {
    /** `EXPORT_MAX_SECONDS`: the longest range one export may ask for. */
    maxSeconds: number;
    /** `EXPORT_CONCURRENCY`: exports (ffmpeg processes) at once per instance; more wait 503. */
    concurrency: number;
    /**
     * `EXPORT_CONCURRENCY_PER_ACCOUNT`: how many of those one account's exports (by token or
     * signed URL) may hold at once, 1..EXPORT_CONCURRENCY; more get 429. Default: half, at least 1.
     */
    perAccount: number;
    /**
     * `EXPORT_TIMEOUT_S`: the longest one export may run, from taking its slot (copying the clips
     * with S3, ffmpeg) to its last byte; ffmpeg is killed and the download cut when it passes.
     */
    timeoutS: number;
    /**
     * `EXPORT_MIN_READ_BYTES_PER_S`: the slowest a client may read an export while the service
     * waits on it, averaged over `EXPORT_READ_WINDOW_S`; slower is cut. 0: no minimum.
     */
    minReadBytesPerS: number;
    /** `EXPORT_READ_WINDOW_S`: the window the read rate is measured over (1-600). */
    readWindowS: number;
    /**
     * `EXPORT_MAX_BYTES`: the most bytes of clips one export may join (400 naming `end` above);
     * with S3 what it copies to DATA_DIR/tmp/media first. At least MEDIA_MAX_MP4_BYTES.
     */
    maxBytes: number;
    /**
     * `EXPORT_URL_RATE_PER_MINUTE` and `EXPORT_URL_BURST`: requests per signed export URL (which
     * no token's rate limit counts), shared through Redis like the other limits; 0: no limit.
     */
    urlRatePerMinute: number;
    urlBurst: number;
  };
}

/** GraphQL subscriptions over WebSocket and SSE (src/events/live, src/graphql/ws.ts and sse.ts). */
export interface LiveConfig {
  /** `LIVE_MAX_CONNECTIONS`: WebSocket connections and SSE streams per instance. */
  maxConnections: number;
  /** `LIVE_MAX_CONNECTIONS_PER_SUBJECT`: the same, per token subject. */
  maxConnectionsPerSubject: number;
  /** `LIVE_MAX_SUBSCRIPTIONS_PER_CONNECTION`: operations one WebSocket may run at once. */
  maxSubscriptionsPerConnection: number;
  /** `LIVE_BUFFER_EVENTS`: events a subscriber may have waiting before it is cut as too slow. */
  bufferEvents: number;
  /** `LIVE_MAX_BUFFERED_BYTES`: unsent bytes a connection may hold before it counts as slow. */
  maxBufferedBytes: number;
  /** `LIVE_KEEPALIVE_MS`: WebSocket ping interval; a socket that misses a pong is dropped. */
  keepAliveMs: number;
  /**
   * `LIVE_CHECK_MS`: how often each stream with subscribers on the instance is compared with the
   * event log, so that an event that was never published reaches them within about this long.
   */
  checkMs: number;
  /**
   * `LIVE_QUERY_MIN_INTERVAL_MS`: the least time between two executions of one live query
   * (`query @live`); the events of the account meanwhile are taken together into one.
   */
  queryMinIntervalMs: number;
  /** `LIVE_QUERY_MAX_PER_CALLER`: live queries one token subject and client may run on an instance. */
  queryMaxPerCaller: number;
  /**
   * `LIVE_QUERY_MAX_BYTES_PER_CALLER`: what the results their live queries keep may take
   * together (each one's last result, as JSON), per token subject and client.
   */
  queryMaxBytesPerCaller: number;
  /** `LIVE_QUERY_MAX_BYTES`: the same for every caller together (default: 1/16 of the V8 heap). */
  queryMaxBytes: number;
}

export type AuthConfig =
  | { mode: 'jwks'; jwksUrl: string; issuer: string; audience: string }
  | {
      mode: 'introspection';
      introspectionUrl: string;
      clientId: string | undefined;
      clientSecret: string | undefined;
      /** How long a positive answer is taken (default 5 minutes, src/accounts/auth.ts); no variable. */
      cacheMs?: number;
    }
  /** `secret` undefined: the one generated into DATA_DIR (never with NODE_ENV=production). */
  | { mode: 'dev'; secret: string | undefined };

export interface WebhookConfig {
  timeoutMs: number;
  retryDelaysMs: number[];
  allowPrivateNetworks: boolean;
  allowHttp: boolean;
  /** `SECRETS_KEY`: 32 bytes (base64) encrypting receivers' authKeys at rest; unset: generated into DATA_DIR. */
  secretsKey: Buffer | undefined;
  /** `DELIVERY_LOG_RETENTION_DAYS`: how long finished deliveries and their attempts are kept. */
  deliveryLogRetentionDays: number;
  /** `WEBHOOK_DISABLE_AFTER_HOURS`: a receiver failing every attempt this long is disabled. */
  disableAfterHours: number;
  /** `WEBHOOK_REPLAY_MAX`: the most notifications one replay of a time range queues. */
  replayMax: number;
  /**
   * `WEBHOOK_REPLAY_RATE`: replayed notifications a second per registration: a replay's fall due
   * that far apart, after its earlier replays'.
   */
  replayRate: number;
}

function secretsKey(env: Env): Buffer | undefined {
  const raw = env.SECRETS_KEY?.trim();
  if (!raw) return undefined;
  const key = Buffer.from(raw, 'base64');
  if (key.length !== 32 || !/^[A-Za-z0-9+/_-]+={0,2}$/.test(raw)) {
    throw new ConfigError(
      'SECRETS_KEY must be 32 bytes in base64 (e.g. `openssl rand -base64 32`)',
    );
  }
  return key;
}

type Env = Record<string, string | undefined>;

function int(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0)
    throw new ConfigError(`${name} must be a whole number`);
  return value;
}

/** A whole number from `min` to `max`. */
function intWithin(env: Env, name: string, fallback: number, min: number, max: number): number {
  const value = int(env, name, fallback);
  if (value < min || value > max)
    throw new ConfigError(`${name} must be between ${min} and ${max}`);
  return value;
}

/** Steps of nice (CPU priority), as `nice -n` takes them: 0-19. */
function niceSteps(env: Env, name: string, fallback: number): number {
  return intWithin(env, name, fallback, 0, 19);
}

/** A TCP port: 0 (any free one) to 65535. */
function port(env: Env, name: string, fallback: number): number {
  const value = int(env, name, fallback);
  if (value > 65535) throw new ConfigError(`${name} must be between 0 and 65535`);
  return value;
}

const logLevels = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'];

function logLevel(env: Env): string {
  const level = env.LOG_LEVEL || 'info';
  if (!logLevels.includes(level)) {
    throw new ConfigError(`LOG_LEVEL must be one of ${logLevels.join(', ')}`);
  }
  return level;
}

function bool(env: Env, name: string): boolean {
  const raw = env[name]?.toLowerCase();
  if (raw === undefined || raw === '' || raw === 'false' || raw === '0') return false;
  if (raw === 'true' || raw === '1') return true;
  throw new ConfigError(`${name} must be true or false`);
}

function intList(env: Env, name: string, fallback: number[]): number[] {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  return raw.split(',').map((part) => {
    const value = Number(part.trim());
    if (!Number.isInteger(value) || value < 0) {
      throw new ConfigError(`${name} must be a comma-separated list of milliseconds`);
    }
    return value;
  });
}

/** The shortest `AUTH_DEV_SECRET` taken: HS256 wants a key of at least its 256 bits. */
export const DEV_SECRET_MIN_BYTES = 32;
/** The least entropy an `AUTH_DEV_SECRET` must show (estimatedEntropyBits). */
const DEV_SECRET_MIN_ENTROPY_BITS = 128;

/**
 * An estimate of a secret's entropy in bits: the Shannon entropy of its characters' frequencies
 * times their number. 32 equal bytes have 0, `openssl rand -base64 32` about 210.
 */
function estimatedEntropyBits(secret: string): number {
  const chars = [...secret];
  const counts = new Map<string, number>();
  for (const c of chars) counts.set(c, (counts.get(c) ?? 0) + 1);
  let bitsPerChar = 0;
  for (const n of counts.values()) bitsPerChar -= (n / chars.length) * Math.log2(n / chars.length);
  return bitsPerChar * chars.length;
}

/**
 * The authentication mode. It refuses to guess: JWKS tokens are only taken for this service's
 * issuer and audience, a development secret shorter than 32 bytes or of too little entropy (the
 * same characters over and over) is refused anywhere, and with
 * `NODE_ENV=production` development tokens need a secret configured (never one generated).
 */
function authConfig(env: Env): AuthConfig {
  if (env.AUTH_JWKS_URL) {
    const issuer = env.AUTH_ISSUER?.trim();
    const audience = env.AUTH_AUDIENCE?.trim();
    if (!issuer) {
      throw new ConfigError(
        'AUTH_ISSUER must be set with AUTH_JWKS_URL: the "iss" of the tokens to take',
      );
    }
    if (!audience) {
      throw new ConfigError(
        'AUTH_AUDIENCE must be set with AUTH_JWKS_URL: the "aud" the tokens carry for this service',
      );
    }
    return { mode: 'jwks', jwksUrl: env.AUTH_JWKS_URL, issuer, audience };
  }
  if (env.AUTH_INTROSPECTION_URL) {
    return {
      mode: 'introspection',
      introspectionUrl: env.AUTH_INTROSPECTION_URL,
      clientId: env.AUTH_INTROSPECTION_CLIENT_ID || undefined,
      clientSecret: env.AUTH_INTROSPECTION_CLIENT_SECRET || undefined,
    };
  }
  const secret = env.AUTH_DEV_SECRET || undefined;
  if (secret !== undefined && Buffer.byteLength(secret, 'utf8') < DEV_SECRET_MIN_BYTES) {
    throw new ConfigError(
      `AUTH_DEV_SECRET must be at least ${DEV_SECRET_MIN_BYTES} bytes (e.g. \`openssl rand -base64 32\`)`,
    );
  }
  const bits = secret === undefined ? undefined : estimatedEntropyBits(secret);
  if (bits !== undefined && bits < DEV_SECRET_MIN_ENTROPY_BITS) {
    throw new ConfigError(
      `AUTH_DEV_SECRET must have at least ${DEV_SECRET_MIN_ENTROPY_BITS} bits of entropy, its characters show about ${Math.floor(bits)}: a random secret, not a few characters repeated (e.g. \`openssl rand -base64 32\`)`,
    );
  }
  if (secret === undefined && env.NODE_ENV === 'production') {
    throw new ConfigError(
      `AUTH_DEV_SECRET must be set (at least ${DEV_SECRET_MIN_BYTES} bytes) for development tokens with NODE_ENV=production, or AUTH_JWKS_URL or AUTH_INTROSPECTION_URL`,
    );
  }
  return { mode: 'dev', secret };
}

const MAX_S3_PUT_BYTES = 5 * 1024 ** 3;

function mediaConfig(env: Env): MediaConfig {
  const s3: S3Config | undefined = env.MEDIA_S3_BUCKET
    ? {
        bucket: env.MEDIA_S3_BUCKET,
        endpoint: env.MEDIA_S3_ENDPOINT || undefined,
        region: env.MEDIA_S3_REGION || 'us-east-1',
        accessKeyId: env.MEDIA_S3_ACCESS_KEY_ID || undefined,
        secretAccessKey: env.MEDIA_S3_SECRET_ACCESS_KEY || undefined,
        prefix: env.MEDIA_S3_PREFIX || '',
      }
    : undefined;
  const maxMp4Bytes = int(env, 'MEDIA_MAX_MP4_BYTES', 512 * 1024 * 1024);
  const media: MediaConfig = {
    maxMp4Bytes,
    maxImageBytes: int(env, 'MEDIA_MAX_IMAGE_BYTES', 10 * 1024 * 1024),
    urlSecret: env.MEDIA_URL_SECRET || undefined,
    urlTtlS: int(env, 'MEDIA_URL_TTL_S', 300),
    notificationUrlTtlS: int(env, 'NOTIFICATION_MEDIA_URL_TTL_S', 3600),
    s3,
    packager: {
      concurrency: int(env, 'MEDIA_PACKAGER_CONCURRENCY', 1),
      queueMax: int(env, 'MEDIA_PACKAGER_QUEUE_MAX', 100),
      timeoutS: int(env, 'MEDIA_PACKAGER_TIMEOUT_S', 600),
      pollMs: int(env, 'MEDIA_PACKAGER_POLL_MS', 10_000),
      segmentS: int(env, 'MEDIA_SEGMENT_S', 4),
      ffmpeg: env.FFMPEG_PATH || undefined,
    },
    export: exportConfig(env, maxMp4Bytes),
  };
  if (media.urlTtlS < 1) throw new ConfigError('MEDIA_URL_TTL_S must be at least 1');
  if (media.notificationUrlTtlS < 1) {
    throw new ConfigError('NOTIFICATION_MEDIA_URL_TTL_S must be at least 1');
  }
  if (media.packager.concurrency < 1) {
    throw new ConfigError('MEDIA_PACKAGER_CONCURRENCY must be at least 1');
  }
  if (media.packager.segmentS < 1) throw new ConfigError('MEDIA_SEGMENT_S must be at least 1');
  if (media.export.maxSeconds < 1) throw new ConfigError('EXPORT_MAX_SECONDS must be at least 1');
  if (media.export.concurrency < 1) throw new ConfigError('EXPORT_CONCURRENCY must be at least 1');
  if (s3 && Math.max(media.maxMp4Bytes, media.maxImageBytes) > MAX_S3_PUT_BYTES) {
    throw new ConfigError(
      'MEDIA_MAX_MP4_BYTES and MEDIA_MAX_IMAGE_BYTES must be at most 5 GiB with MEDIA_S3_BUCKET',
    );
  }
  if (media.urlSecret !== undefined && media.urlSecret.length < 16) {
    throw new ConfigError('MEDIA_URL_SECRET must be at least 16 characters');
  }
  return media;
}

function exportConfig(env: Env, maxMp4Bytes: number): MediaConfig['export'] {
  const concurrency = int(env, 'EXPORT_CONCURRENCY', 2);
  const config: MediaConfig['export'] = {
    maxSeconds: int(env, 'EXPORT_MAX_SECONDS', 3600),
    concurrency,
    // Half of the slots: one account (or whoever holds its signed URLs) never takes them all.
    perAccount: int(
      env,
      'EXPORT_CONCURRENCY_PER_ACCOUNT',
      Math.max(1, Math.floor(concurrency / 2)),
    ),
    timeoutS: int(env, 'EXPORT_TIMEOUT_S', 1800),
    minReadBytesPerS: int(env, 'EXPORT_MIN_READ_BYTES_PER_S', 16 * 1024),
    readWindowS: int(env, 'EXPORT_READ_WINDOW_S', 20),
    maxBytes: int(env, 'EXPORT_MAX_BYTES', 2 * 1024 ** 3),
    urlRatePerMinute: int(env, 'EXPORT_URL_RATE_PER_MINUTE', 6),
    urlBurst: int(env, 'EXPORT_URL_BURST', 5),
  };
  if (config.maxSeconds < 1) throw new ConfigError('EXPORT_MAX_SECONDS must be at least 1');
  if (concurrency < 1) throw new ConfigError('EXPORT_CONCURRENCY must be at least 1');
  if (config.perAccount < 1 || config.perAccount > concurrency) {
    throw new ConfigError(
      'EXPORT_CONCURRENCY_PER_ACCOUNT must be between 1 and EXPORT_CONCURRENCY',
    );
  }
  if (config.timeoutS < 1 || config.timeoutS > 86_400) {
    throw new ConfigError('EXPORT_TIMEOUT_S must be between 1 and 86400');
  }
  if (config.readWindowS < 1 || config.readWindowS > 600) {
    throw new ConfigError('EXPORT_READ_WINDOW_S must be between 1 and 600');
  }
  if (config.maxBytes < maxMp4Bytes) {
    throw new ConfigError(
      'EXPORT_MAX_BYTES must be at least MEDIA_MAX_MP4_BYTES (one clip must fit)',
    );
  }
  if (config.urlRatePerMinute > 0 && config.urlBurst < 1) {
    throw new ConfigError('EXPORT_URL_BURST must be at least 1');
  }
  return config;
}

function publicBaseUrl(env: Env): string | undefined {
  const raw = env.PUBLIC_BASE_URL;
  if (!raw) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError('PUBLIC_BASE_URL must be an absolute http(s) URL');
  }
  if (!/^https?:$/.test(url.protocol) || url.search || url.hash) {
    throw new ConfigError('PUBLIC_BASE_URL must be an absolute http(s) URL without query');
  }
  return url.toString().replace(/\/+$/, '');
}

/** The largest RATE_LIMIT_BURST: far beyond any use, well within what the buckets can count. */
const MAX_BURST = 10_000_000;

/** The most units a rate limiter's bucket counts per second (src/limits/gcra.ts says why). */
export const MAX_UNITS_PER_SECOND = 100_000;

/**
 * The GraphQL cost budget of ingest tokens, points a second: RATE_LIMIT_COST scaled as their
 * request rate is (RATE_LIMIT_INGEST_RPS / RATE_LIMIT_RPS).
 */
export const ingestCostRate = (limits: LimitsConfig): number =>
  (limits.costRate * limits.ingestRps) / limits.rateRps;

function limitsConfig(env: Env): LimitsConfig {
  const maxCost = int(env, 'GRAPHQL_MAX_COST', 5000);
  // Request rates beyond what a bucket counts one by one (src/limits/gcra.ts) are refused here;
  // cost budgets of any size are counted in units of several points.
  const limits: LimitsConfig = {
    rateRps: intWithin(env, 'RATE_LIMIT_RPS', 50, 0, MAX_UNITS_PER_SECOND),
    rateBurst: intWithin(env, 'RATE_LIMIT_BURST', 100, 0, MAX_BURST),
    ingestRps: intWithin(env, 'RATE_LIMIT_INGEST_RPS', 5000, 0, MAX_UNITS_PER_SECOND),
    costRate: int(env, 'RATE_LIMIT_COST', 100_000),
    concurrency: int(env, 'RATE_LIMIT_CONCURRENCY', 4),
    graphql: {
      maxAliases: int(env, 'GRAPHQL_MAX_ALIASES', 30),
      maxDepth: int(env, 'GRAPHQL_MAX_DEPTH', 12),
      maxTokens: int(env, 'GRAPHQL_MAX_TOKENS', 2000),
      maxCost,
      maxCostInFlight: int(env, 'GRAPHQL_MAX_COST_IN_FLIGHT', maxCost),
      // Up to the longest a statement may run (DATABASE_STATEMENT_TIMEOUT_MS).
      unpricedDatabaseMs: intWithin(env, 'GRAPHQL_UNPRICED_DATABASE_MS', 50, 0, 3_600_000),
    },
    overloadLagMs: int(env, 'OVERLOAD_LAG_MS', 500),
  };
  if (limits.rateRps > 0 && limits.costRate > 0 && limits.costRate < limits.graphql.maxCost / 2) {
    // Two seconds' worth of burst must pay for the costliest operation allowed.
    throw new ConfigError('RATE_LIMIT_COST must be at least half of GRAPHQL_MAX_COST, or 0');
  }
  if (limits.rateRps > 0 && (limits.rateBurst < 1 || limits.ingestRps < 1)) {
    throw new ConfigError('RATE_LIMIT_BURST and RATE_LIMIT_INGEST_RPS must be at least 1');
  }
  if (limits.rateRps > 0 && limits.costRate > 0 && 2 * ingestCostRate(limits) < 1) {
    // Its burst (two seconds' worth) would hold less than one point: nothing could ever run.
    throw new ConfigError(
      'RATE_LIMIT_COST × RATE_LIMIT_INGEST_RPS / RATE_LIMIT_RPS (the cost budget of ingest tokens) must be at least 0.5 points a second',
    );
  }
  for (const [name, value] of Object.entries(limits.graphql)) {
    // GRAPHQL_MAX_COST_IN_FLIGHT may be 0 (no bound), GRAPHQL_UNPRICED_DATABASE_MS too (none).
    if (value < 1 && name !== 'maxCostInFlight' && name !== 'unpricedDatabaseMs')
      throw new ConfigError(
        `GRAPHQL_${name.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase()} must be at least 1`,
      );
  }
  return limits;
}

function telemetryConfig(env: Env): TelemetryConfig | undefined {
  const endpoint = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  if (!endpoint) return undefined;
  if (!/^https?:\/\//.test(endpoint)) {
    throw new ConfigError('OTEL_EXPORTER_OTLP_ENDPOINT must be an http(s) URL');
  }
  return { endpoint, serviceName: env.OTEL_SERVICE_NAME || 'clipgate' };
}

function names(env: Env, name: string): string[] {
  return (env[name] ?? '')
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
}

function graphqlDocumentsConfig(env: Env): GraphQLDocumentsConfig {
  const clients = names(env, 'GRAPHQL_TRUSTED_DOCUMENTS');
  if (clients.includes('*') && clients.length > 1) {
    throw new ConfigError('GRAPHQL_TRUSTED_DOCUMENTS must be either * or a list of client ids');
  }
  return {
    trustedOnly: clients.includes('*') ? '*' : new Set(clients),
    manifests: names(env, 'GRAPHQL_PERSISTED_DOCUMENTS').map((file) => path.resolve(file)),
    apqMaxEntries: intWithin(env, 'GRAPHQL_APQ_MAX_ENTRIES', 1000, 0, 1_000_000),
  };
}

function redisTarget(env: Env): RedisTarget | undefined {
  const url = env.REDIS_URL?.trim() || undefined;
  const nodes = env.REDIS_CLUSTER_NODES?.trim() || undefined;
  if (url && nodes) {
    throw new ConfigError(
      'REDIS_URL and REDIS_CLUSTER_NODES are both set: set REDIS_URL for one Redis server, or REDIS_CLUSTER_NODES for a Redis Cluster',
    );
  }
  if (url) {
    if (!/^rediss?:\/\//.test(url)) throw new ConfigError('REDIS_URL must be a redis:// URL');
    return { url };
  }
  if (!nodes) return undefined;
  const clusterNodes = nodes.split(',').map((entry) => {
    const match = /^\s*(\[[^\]]+\]|[^\s:]+):(\d{1,5})\s*$/.exec(entry);
    const port = Number(match?.[2]);
    if (!match || port < 1 || port > 65535) {
      throw new ConfigError(
        `REDIS_CLUSTER_NODES must be host:port pairs separated by commas (e.g. 10.0.0.1:6379,10.0.0.2:6379); "${entry.trim()}" is not`,
      );
    }
    return { host: match[1]!.replace(/^\[|\]$/g, ''), port };
  });
  return { clusterNodes };
}

function directUrl(env: Env): string | undefined {
  const url = env.DATABASE_DIRECT_URL || undefined;
  if (url && !env.DATABASE_URL) {
    throw new ConfigError('DATABASE_DIRECT_URL needs DATABASE_URL (the pooler in front of it)');
  }
  if (url && !/^postgres(ql)?:\/\//.test(url)) {
    throw new ConfigError('DATABASE_DIRECT_URL must be a postgres:// URL');
  }
  return url;
}

export function loadConfig(env: Env = process.env): Config {
  const databasePoolSize = intWithin(env, 'DATABASE_POOL_SIZE', 10, 1, 1000);
  return {
    port: port(env, 'PORT', 4000),
    host: env.HOST || '127.0.0.1',
    dataDir: path.resolve(env.DATA_DIR || './data'),
    databaseUrl: env.DATABASE_URL || undefined,
    databaseReadUrl: env.DATABASE_READ_URL || undefined,
    databaseReadMaxLagMs: intWithin(env, 'DATABASE_READ_MAX_LAG_MS', 5000, 100, 3_600_000),
    databasePoolSize,
    databasePoolShare: intWithin(
      env,
      'DATABASE_POOL_SHARE',
      Math.ceil(databasePoolSize / 4),
      1,
      databasePoolSize,
    ),
    databaseStatementTimeoutMs: intWithin(
      env,
      'DATABASE_STATEMENT_TIMEOUT_MS',
      10_000,
      100,
      3_600_000,
    ),
    databaseDirectUrl: directUrl(env),
    redis: redisTarget(env),
    logLevel: logLevel(env),
    scopePrefix: env.SCOPE_PREFIX || 'service',
    maxBodyBytes: int(env, 'MAX_BODY_BYTES', 64 * 1024),
    auth: authConfig(env),
    webhook: {
      timeoutMs: int(env, 'WEBHOOK_TIMEOUT_MS', 5000),
      retryDelaysMs: intList(env, 'WEBHOOK_RETRY_DELAYS_MS', [250, 1000]),
      allowPrivateNetworks: bool(env, 'WEBHOOK_ALLOW_PRIVATE_NETWORKS'),
      allowHttp: bool(env, 'WEBHOOK_ALLOW_HTTP'),
      secretsKey: secretsKey(env),
      deliveryLogRetentionDays: int(env, 'DELIVERY_LOG_RETENTION_DAYS', 7),
      disableAfterHours: int(env, 'WEBHOOK_DISABLE_AFTER_HOURS', 72),
      replayMax: int(env, 'WEBHOOK_REPLAY_MAX', 10_000),
      replayRate: intWithin(env, 'WEBHOOK_REPLAY_RATE', 100, 1, 100_000),
    },
    retentionSweepMs: int(env, 'RETENTION_SWEEP_MS', 60 * 60 * 1000),
    eventLogRetentionHours: int(env, 'EVENT_LOG_RETENTION_HOURS', 24),
    live: {
      maxConnections: int(env, 'LIVE_MAX_CONNECTIONS', 20_000),
      maxConnectionsPerSubject: int(env, 'LIVE_MAX_CONNECTIONS_PER_SUBJECT', 100),
      maxSubscriptionsPerConnection: int(env, 'LIVE_MAX_SUBSCRIPTIONS_PER_CONNECTION', 100),
      bufferEvents: int(env, 'LIVE_BUFFER_EVENTS', 1000),
      maxBufferedBytes: int(env, 'LIVE_MAX_BUFFERED_BYTES', 1024 * 1024),
      keepAliveMs: int(env, 'LIVE_KEEPALIVE_MS', 12_000),
      checkMs: intWithin(env, 'LIVE_CHECK_MS', 1000, 100, 60_000),
      queryMinIntervalMs: intWithin(env, 'LIVE_QUERY_MIN_INTERVAL_MS', 1000, 50, 60_000),
      queryMaxPerCaller: intWithin(env, 'LIVE_QUERY_MAX_PER_CALLER', 20, 1, 100_000),
      queryMaxBytesPerCaller: intWithin(
        env,
        'LIVE_QUERY_MAX_BYTES_PER_CALLER',
        8 * 1024 * 1024,
        1,
        Number.MAX_SAFE_INTEGER,
      ),
      queryMaxBytes: intWithin(
        env,
        'LIVE_QUERY_MAX_BYTES',
        Math.floor(getHeapStatistics().heap_size_limit / 16),
        1,
        Number.MAX_SAFE_INTEGER,
      ),
    },
    publicBaseUrl: publicBaseUrl(env),
    media: mediaConfig(env),
    limits: limitsConfig(env),
    graphqlWorkers: {
      threads: int(env, 'GRAPHQL_WORKERS', env.DATABASE_URL ? 1 : 0),
      minCost: int(env, 'GRAPHQL_WORKER_MIN_COST', 1000),
      nice: niceSteps(env, 'GRAPHQL_WORKER_NICE', 10),
    },
    graphqlDocuments: graphqlDocumentsConfig(env),
    telemetry: telemetryConfig(env),
  };
}
