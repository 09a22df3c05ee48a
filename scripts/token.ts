/** Prints a development token for the service's dev authentication mode. */
import { parseArgs } from 'node:util';
import { loadDevSecret, signDevToken } from '../src/accounts/auth.ts';
import { fullScopeName, scopeNames } from '../src/accounts/scopes.ts';
import { loadConfig } from '../src/config.ts';

try {
  const config = loadConfig();
  if (config.auth.mode !== 'dev') {
    throw new Error(`the service is configured for ${config.auth.mode} authentication, not dev`);
  }
  const { values } = parseArgs({
    options: {
      sub: { type: 'string', default: 'dev-user' },
      client: { type: 'string', default: 'dev-client' },
      scope: {
        type: 'string',
        default: scopeNames.map((name) => fullScopeName(config.scopePrefix, name)).join(' '),
      },
      ttl: { type: 'string', default: '86400' },
    },
  });
  const ttlSeconds = Number(values.ttl);
  if (!Number.isInteger(ttlSeconds) || ttlSeconds <= 0) {
    throw new Error('--ttl must be a positive number of seconds');
  }
  const { secret } = await loadDevSecret(config.dataDir, config.auth.secret);
  const token = await signDevToken(secret, {
    sub: values.sub,
    clientId: values.client,
    scopes: values.scope.split(' ').filter(Boolean),
    ttlSeconds,
  });
  process.stdout.write(`${token}\n`);
} catch (err) {
  console.error(err instanceof Error ? err.message : err);
  process.exitCode = 1;
}
