import path from 'node:path';

/** Everything the service reads from its environment, parsed once at start. */
export interface Config {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | undefined;
  redisUrl: string | undefined;
  logLevel: string;
  scopePrefix: string;
  maxBodyBytes: number;
  auth: AuthConfig;
  webhook: WebhookConfig;
  retentionSweepMs: number;
}

export type AuthConfig =
  | { mode: 'jwks'; jwksUrl: string; issuer: string | undefined; audience: string | undefined }
  | {
      mode: 'introspection';
      introspectionUrl: string;
      clientId: string | undefined;
      clientSecret: string | undefined;
    }
  | { mode: 'dev'; secret: string | undefined };

export interface WebhookConfig {
  timeoutMs: number;
  retryDelaysMs: number[];
  allowPrivateNetworks: boolean;
  allowHttp: boolean;
}

type Env = Record<string, string | undefined>;

function int(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a whole number`);
  return value;
}

function bool(env: Env, name: string): boolean {
  const raw = env[name]?.toLowerCase();
  if (raw === undefined || raw === '' || raw === 'false' || raw === '0') return false;
  if (raw === 'true' || raw === '1') return true;
  throw new Error(`${name} must be true or false`);
}

function intList(env: Env, name: string, fallback: number[]): number[] {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  return raw.split(',').map((part) => {
    const value = Number(part.trim());
    if (!Number.isInteger(value) || value < 0) {
      throw new Error(`${name} must be a comma-separated list of milliseconds`);
    }
    return value;
  });
}

function authConfig(env: Env): AuthConfig {
  if (env.AUTH_JWKS_URL) {
    return {
      mode: 'jwks',
      jwksUrl: env.AUTH_JWKS_URL,
      issuer: env.AUTH_ISSUER || undefined,
      audience: env.AUTH_AUDIENCE || undefined,
    };
  }
  if (env.AUTH_INTROSPECTION_URL) {
    return {
      mode: 'introspection',
      introspectionUrl: env.AUTH_INTROSPECTION_URL,
      clientId: env.AUTH_INTROSPECTION_CLIENT_ID || undefined,
      clientSecret: env.AUTH_INTROSPECTION_CLIENT_SECRET || undefined,
    };
  }
  return { mode: 'dev', secret: env.AUTH_DEV_SECRET || undefined };
}

export function loadConfig(env: Env = process.env): Config {
  return {
    port: int(env, 'PORT', 4000),
    host: env.HOST || '127.0.0.1',
    dataDir: path.resolve(env.DATA_DIR || './data'),
    databaseUrl: env.DATABASE_URL || undefined,
    redisUrl: env.REDIS_URL || undefined,
    logLevel: env.LOG_LEVEL || 'info',
    scopePrefix: env.SCOPE_PREFIX || 'service',
    maxBodyBytes: int(env, 'MAX_BODY_BYTES', 64 * 1024),
    auth: authConfig(env),
    webhook: {
      timeoutMs: int(env, 'WEBHOOK_TIMEOUT_MS', 5000),
      retryDelaysMs: intList(env, 'WEBHOOK_RETRY_DELAYS_MS', [250, 1000]),
      allowPrivateNetworks: bool(env, 'WEBHOOK_ALLOW_PRIVATE_NETWORKS'),
      allowHttp: bool(env, 'WEBHOOK_ALLOW_HTTP'),
    },
    retentionSweepMs: int(env, 'RETENTION_SWEEP_MS', 60 * 60 * 1000),
  };
}
