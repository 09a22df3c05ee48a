// Bulk-loads demo activities: npm run seed -- --accessories 10 --activities 10000 [--subject demo]
// Writes to DATABASE_URL, or to the embedded database in DATA_DIR. The embedded database is one
// process's: while the service runs on it, this stops at once, naming the service's process.
import { parseArgs } from 'node:util';
import { seedActivities } from '../src/activities/seed.ts';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/logger.ts';
import { StartError } from '../src/start-error.ts';
import { openDatabase } from '../src/storage/database.ts';
import { embeddedDirectory } from '../src/storage/embedded-lock.ts';

const { values } = parseArgs({
  options: {
    accessories: { type: 'string', default: '10' },
    activities: { type: 'string', default: '1000' },
    subject: { type: 'string', default: 'demo' },
    'spacing-seconds': { type: 'string', default: '60' },
    'retention-days': { type: 'string', default: '30' },
  },
});
const count = (name: keyof typeof values) => {
  const n = Number(values[name]);
  if (!Number.isInteger(n) || n < 1) {
    throw new StartError(`--${name} must be a positive whole number`);
  }
  return n;
};

try {
  const config = loadConfig();
  const options = {
    subject: values.subject!,
    accessories: count('accessories'),
    activities: count('activities'),
    spacingSeconds: count('spacing-seconds'),
    retentionDays: count('retention-days'),
  };
  const db = await openDatabase({
    databaseUrl: config.databaseUrl,
    directUrl: config.databaseDirectUrl,
    embeddedDir: embeddedDirectory(config.dataDir),
    logger: createLogger('warn'),
  });
  const started = Date.now();
  const result = await seedActivities(db, options).finally(() => db.close());
  console.log(
    JSON.stringify({ ...result, seconds: (Date.now() - started) / 1000, subject: values.subject }),
  );
} catch (err) {
  // A setting, an argument or the database in use: one line saying what to do.
  if (!(err instanceof StartError)) throw err;
  console.error(`seed: ${err.message}`);
  process.exitCode = 1;
}
