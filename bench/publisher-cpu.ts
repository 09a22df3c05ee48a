// bench/publisher-cpu: the CPU per publish of the destinations' sender and publisher alone (no
// dispatcher, no database), of one checkout or of several in turns (before and after a change).
// Each run is a process of its own that builds the checkout's sender (createDestinationSender
// with createPublishers), signs and publishes the drain's kind of message (a target made for each
// publish, as the dispatcher makes one) with 16 in flight for a second of warm-up and `--seconds`,
// and reads the CPU its process spent per publish. The checkouts run in turns, `--rounds` times;
// prints each run and the medians.
//
//   npx tsx bench/publisher-cpu.ts [--dirs <checkout>,<checkout>] [--kinds mqtt,amqp,nats]
//     [--rounds 3] [--seconds 4]
//   A checkout is a directory with its own node_modules (a `git worktree` of another commit). The
//   brokers are those of bench:notify (TEST_MQTT_URL, TEST_AMQP_URL, TEST_NATS_URL or the local
//   defaults).
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type * as Destination from '../src/notifications/destinations/destination.ts';
import type { BrokerKind } from '../src/notifications/destinations/destination.ts';
import type * as Publishers from '../src/notifications/destinations/publishers.ts';
import type * as Sender from '../src/notifications/destinations/sender.ts';
import { defaultBrokerUrls, setUpBroker } from './lib/brokers.ts';

const IN_FLIGHT = 16;
const AUTH_KEY = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

const { values } = parseArgs({
  options: {
    dirs: { type: 'string', default: '.' },
    kinds: { type: 'string', default: 'mqtt,amqp,nats' },
    rounds: { type: 'string', default: '3' },
    seconds: { type: 'string', default: '4' },
    run: { type: 'string' }, // internal: one run, of this checkout
    kind: { type: 'string' }, // internal: of this kind
  },
});

/** One run in this process: the CPU per publish of `dir`'s sender to a `kind` broker. */
async function run(dir: string, kind: BrokerKind, seconds: number) {
  const root = path.resolve(dir);
  const { createDestinationSender } = (await import(
    path.join(root, 'src/notifications/destinations/sender.ts')
  )) as typeof Sender;
  const { createPublishers } = (await import(
    path.join(root, 'src/notifications/destinations/publishers.ts')
  )) as typeof Publishers;
  const { brokerTarget } = (await import(
    path.join(root, 'src/notifications/destinations/destination.ts')
  )) as typeof Destination;
  const fixture = await setUpBroker(kind, defaultBrokerUrls[kind], `clipgate-pcpu-${process.pid}`);
  const sender = createDestinationSender({
    webhook: { send: () => Promise.reject(new Error('no webhooks here')), close: async () => {} },
    publishers: createPublishers({ allowPrivateNetworks: true }),
    timeoutMs: 5000,
  });
  const { destination } = fixture;
  const delivery = {
    url: destination.url,
    account_id: 'bench-account',
    event_type: 'activity_created',
    event_data: { accessoryId: 'bench-accessory', sequence: 1, relevanceLevel: 1 },
  };
  const stored = {
    kind,
    topic: destination.topic,
    exchange: destination.exchange ?? null,
    credentials: null,
  };
  const credentials =
    destination.username === undefined
      ? null
      : { username: destination.username, password: destination.password ?? '' };
  const body = Buffer.from(
    JSON.stringify({
      accountId: delivery.account_id,
      eventType: 'activity_created',
      eventData: { x: 'y'.repeat(300) },
    }),
  );
  let id = 0;
  const loop = async (ms: number) => {
    const until = performance.now() + ms;
    let count = 0;
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (performance.now() < until) {
          const result = await sender.send({
            url: delivery.url,
            body,
            keys: { authKey: AUTH_KEY },
            webhookId: `msg_${process.pid}_${id++}`,
            broker: { kind, target: brokerTarget(delivery, stored, credentials) },
          });
          if (result.outcome !== 'accepted') throw new Error(result.errorMessage ?? 'not accepted');
          count++;
        }
      }),
    );
    return count;
  };
  try {
    await loop(1000);
    const cpu = process.cpuUsage();
    const start = performance.now();
    const count = await loop(seconds * 1000);
    const { user, system } = process.cpuUsage(cpu);
    return {
      rate: count / ((performance.now() - start) / 1000),
      cpuUs: (user + system) / count,
    };
  } finally {
    await sender.close();
    await fixture.tearDown();
  }
}

if (values.run !== undefined) {
  const result = await run(values.run, values.kind as BrokerKind, Number(values.seconds));
  console.log(JSON.stringify(result));
} else {
  const dirs = values.dirs.split(',');
  const kinds = values.kinds.split(',') as BrokerKind[];
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const self = fileURLToPath(import.meta.url);
  for (const kind of kinds) {
    const cpu = new Map<string, number[]>(dirs.map((d) => [d, []]));
    for (let round = 1; round <= Number(values.rounds); round++) {
      for (const dir of dirs) {
        const child = spawnSync(
          process.execPath,
          [...process.execArgv, self, '--run', dir, '--kind', kind, '--seconds', values.seconds],
          { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] },
        );
        if (child.status !== 0) throw new Error(`the run of ${dir} (${kind}) failed`);
        const { rate, cpuUs } = JSON.parse(child.stdout.trim().split('\n').at(-1)!) as {
          rate: number;
          cpuUs: number;
        };
        cpu.get(dir)!.push(cpuUs);
        console.log(
          `${kind} ${round} ${dir}: ${Math.round(rate).toLocaleString('en')} publishes/s, ${cpuUs.toFixed(1)} µs CPU each`,
        );
      }
    }
    for (const dir of dirs) {
      console.log(`${kind} median ${dir}: ${median(cpu.get(dir)!).toFixed(1)} µs CPU per publish`);
    }
  }
}
