import { buildApp } from './app.ts';
import { loadConfig, type Config } from './config.ts';
import { createLogger } from './logger.ts';

let config: Config;
try {
  config = loadConfig();
} catch (err) {
  // A configuration refused (a value malformed, a secret missing or too short): one line that
  // names the variable, no stack, exit 1. The level configured may be what is wrong.
  createLogger('info').fatal(`configuration refused: ${(err as Error).message}`);
  process.exit(1);
}
const logger = createLogger(config.logLevel);
/** A start that fails (the database unreachable, the port taken) ends with one log line. */
const failed = (err: unknown): never => {
  logger.fatal({ err }, 'start failed');
  process.exit(1);
};
const app = await buildApp(config, { logger }).catch(failed);
await app.listen().catch(async (err: unknown) => {
  await app.close().catch(() => {});
  failed(err);
});

let stopping = false;
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'draining');
    app.close().then(
      () => {
        logger.info('stopped');
        process.exit(0);
      },
      (err: unknown) => {
        logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  });
}
