// Bulk-loads demo activities: npm run seed -- --accessories 10 --activities 10000 [--subject demo]
// Uses DATABASE_URL, or the embedded database in DATA_DIR (stop the service first: PGlite
// allows one process per data directory).
import path from 'node:path';
import { parseArgs } from 'node:util';
import { seedActivities } from '../src/activities/seed.ts';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/logger.ts';
import { openDatabase } from '../src/storage/database.ts';

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
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} must be a positive whole number`);
  return n;
};

const config = loadConfig();
const logger = createLogger('warn');
const db = await openDatabase({
  databaseUrl: config.databaseUrl,
  embeddedDir: path.join(config.dataDir, 'pgdata'),
  logger,
});
const started = Date.now();
const result = await seedActivities(db, {
  subject: values.subject!,
  accessories: count('accessories'),
  activities: count('activities'),
  spacingSeconds: count('spacing-seconds'),
  retentionDays: count('retention-days'),
});
await db.close();
console.log(
  JSON.stringify({ ...result, seconds: (Date.now() - started) / 1000, subject: values.subject }),
);
