import { parseArgs } from 'node:util';
import { runChaos } from './run.ts';

// npm run chaos -- --instances 3 --seconds 120 [--quiet-seconds 90] [--accounts 12]
const { values } = parseArgs({
  options: {
    instances: { type: 'string', default: '3' },
    seconds: { type: 'string', default: '120' },
    'quiet-seconds': { type: 'string', default: '90' },
    accounts: { type: 'string', default: '12' },
  },
});
const result = await runChaos({
  instances: Number(values.instances),
  seconds: Number(values.seconds),
  quietSeconds: Number(values['quiet-seconds']),
  accounts: Number(values.accounts),
  adminDatabaseUrl: process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test',
  redisUrl: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379',
});
process.exit(result.ok ? 0 : 1);
