import { ConfigError, loadConfig, type Config } from './config.ts';
import { createLogger, type Logger } from './logger.ts';
import { StartError } from './start-error.ts';
import { embeddedDirectory, refuseIfHeld } from './storage/embedded-lock.ts';

/**
 * A start that fails ends with one log line and exit code 1: the reason alone when the operator
 * can fix it (a setting, the data directory in use), else the error (the database unreachable,
 * the port taken).
 */
function failed(logger: Logger, err: unknown): never {
  // A setting refused (at loading, or once the service saw what it leads to): one line naming it.
  if (err instanceof ConfigError) logger.fatal(`configuration refused: ${err.message}`);
  else if (err instanceof StartError) logger.fatal(err.message);
  else logger.fatal({ err }, 'start failed');
  process.exit(1);
}

let config: Config;
try {
  config = loadConfig();
} catch (err) {
  // The level configured may be what is wrong.
  failed(createLogger('info'), err);
}
const logger = createLogger(config.logLevel);
// A second process on the same embedded database stops at once, before loading the service
// (opening the database takes the lock itself).
if (!config.databaseUrl) {
  await refuseIfHeld(embeddedDirectory(config.dataDir)).catch((err: unknown) =>
    failed(logger, err),
  );
}
const { buildApp } = await import('./app.ts');
const app = await buildApp(config, { logger }).catch((err: unknown) => failed(logger, err));
await app.listen().catch(async (err: unknown) => {
  await app.close().catch(() => {});
  failed(logger, err);
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
