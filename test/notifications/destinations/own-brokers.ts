/**
 * Brokers of a test's own, on loopback ports of their own, each keeping what it holds in a
 * temporary directory: a test may stop and start one while the machine-wide brokers (which
 * other files use at the same time) go on: Mosquitto, NATS with JetStream, and a RabbitMQ node of
 * its own. Each program is the one MOSQUITTO_PATH, NATS_SERVER_PATH or RABBITMQ_SERVER_PATH
 * names, else the PATH's, else /usr/sbin's.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { closeSync, existsSync, openSync, readFileSync, realpathSync } from 'node:fs';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { listening } from './helpers.ts';

export interface OwnBroker {
  /** A client's URL of it (with the credentials, for RabbitMQ). */
  readonly url: string;
  readonly port: number;
  /** Starts it on its port and resolves once it accepts connections. */
  start(): Promise<void>;
  /** Stops it the graceful way (what it holds is saved) and resolves once it exited. */
  stop(): Promise<void>;
  /** Stops it if it runs, and removes its directory. */
  close(): Promise<void>;
}

/** The program `name`: `variable` names it, else the PATH's, else /usr/sbin's; undefined: none. */
function program(variable: string, name: string): string | undefined {
  const named = process.env[variable];
  if (named) return named;
  const dirs = [...(process.env.PATH ?? '').split(path.delimiter), '/usr/sbin', '/usr/local/sbin'];
  for (const dir of dirs) {
    const candidate = path.join(dir, name);
    if (dir !== '' && existsSync(candidate)) return candidate;
  }
  return undefined;
}

/**
 * A free loopback port below the range the kernel hands out to outgoing connections: a client
 * dialling a broker that is down can then never be given the broker's own port as its source
 * port (a TCP self-connect, which would hold the port the broker is about to listen on).
 */
export async function servicePort(): Promise<number> {
  let low = NaN;
  try {
    low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').split(/\s+/)[0]);
  } catch {
    // not Linux
  }
  if (!(low > 13000)) low = 32768; // the usual start of the range
  for (let tries = 0; ; tries++) {
    const port = 12000 + Math.floor(Math.random() * (low - 12000));
    const free = await new Promise<boolean>((resolve) => {
      const server = net.createServer();
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
    });
    if (free) return port;
    if (tries > 100) throw new Error('no free port below the ephemeral range');
  }
}

/** Resolves when `child` exited (at once if it had). */
const exited = (child: ChildProcess) =>
  child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise<void>((resolve) => child.once('exit', () => resolve()));

/** Resolves once `port` accepts connections; rejects early, with `log`'s tail, if `child` exits. */
async function ready(child: ChildProcess, port: number, what: string, log?: string) {
  const up = listening(port, 60_000).then(() => true);
  if (await Promise.race([up, exited(child).then(() => false)])) return;
  up.catch(() => {}); // it gave up on its own; the exit says more
  const tail = log ? (await fs.readFile(log, 'utf8').catch(() => '')).slice(-3000) : '';
  throw new Error(`${what} exited before it listened on ${port}${tail ? `:\n${tail}` : ''}`);
}

/** The programs; undefined: none on this machine. */
export const mosquittoPath = program('MOSQUITTO_PATH', 'mosquitto');
export const natsServerPath = program('NATS_SERVER_PATH', 'nats-server');
/**
 * Debian's /usr/sbin/rabbitmq-server links to a wrapper that switches to the rabbitmq user and
 * runs the script of the same name beside it: that script is run here as it is, with the node's
 * files in the test's directory.
 */
export const rabbitmqServerPath = (() => {
  const found = program('RABBITMQ_SERVER_PATH', 'rabbitmq-server');
  if (found === undefined) return undefined;
  const real = realpathSync(found);
  return path.basename(real) === 'rabbitmq-script-wrapper'
    ? path.join(path.dirname(real), 'rabbitmq-server')
    : real;
})();

/** A Mosquitto of the test's own, persisting what it holds (a persistent session's queue). */
export async function ownMosquitto(): Promise<OwnBroker> {
  const mosquitto = mosquittoPath;
  if (mosquitto === undefined) throw new Error('no mosquitto (MOSQUITTO_PATH names one)');
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'clipgate-mosquitto-'));
  await fs.chmod(dir, 0o777); // started as root, Mosquitto runs as its own user
  const port = await servicePort();
  const config = path.join(dir, 'mosquitto.conf');
  await fs.writeFile(
    config,
    [
      `listener ${port} 127.0.0.1`,
      'allow_anonymous true',
      'persistence true',
      `persistence_location ${dir}/`,
      'max_queued_messages 0', // what waits for the subscriber is never dropped
      '',
    ].join('\n'),
  );
  return processBroker(`mqtt://127.0.0.1:${port}`, port, dir, 'mosquitto', () =>
    spawn(mosquitto, ['-c', config], { stdio: 'ignore' }),
  );
}

/** A NATS server of the test's own with JetStream, its streams stored in its directory. */
export async function ownNats(): Promise<OwnBroker> {
  const natsServer = natsServerPath;
  if (natsServer === undefined) throw new Error('no nats-server (NATS_SERVER_PATH names one)');
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'clipgate-nats-'));
  const port = await servicePort();
  const args = ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', dir];
  return processBroker(`nats://127.0.0.1:${port}`, port, dir, 'nats-server', () =>
    spawn(natsServer, args, { stdio: 'ignore' }),
  );
}

/**
 * A broker that is one process (`run` starts it), stopped by SIGTERM, on which each of these
 * saves what it holds first; `log`, its output if it has some, says why it did not start.
 */
function processBroker(
  url: string,
  port: number,
  dir: string,
  what: string,
  run: () => ChildProcess,
  log?: string,
): OwnBroker {
  let child: ChildProcess | undefined;
  const broker: OwnBroker = {
    url,
    port,
    async start() {
      child = run();
      await ready(child, port, what, log);
    },
    async stop() {
      if (child === undefined) return;
      const done = exited(child);
      child.kill('SIGTERM');
      await done;
      child = undefined;
    },
    async close() {
      await broker.stop();
      await fs.rm(dir, { recursive: true, force: true });
    },
  };
  return broker;
}

/**
 * A RabbitMQ node of the test's own (not the machine's, which other files use): its own name,
 * AMQP and distribution ports, database, logs, Erlang cookie (its HOME, for `rabbitmqctl -n
 * <node>`) and configuration, with no plugins (the management plugin would want the machine
 * node's port 15672). Started with `rabbitmq-server` in the foreground, stopped by SIGTERM.
 */
export async function ownRabbitmq(): Promise<OwnBroker> {
  const server = rabbitmqServerPath;
  if (server === undefined) throw new Error('no rabbitmq-server (RABBITMQ_SERVER_PATH names one)');
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'clipgate-rabbitmq-'));
  const port = await servicePort();
  let distPort = await servicePort();
  while (distPort === port) distPort = await servicePort();
  const node = `clipgate-test-${randomUUID().slice(0, 8)}@localhost`;
  await fs.writeFile(
    path.join(dir, 'rabbitmq.conf'),
    `listeners.tcp.1 = 127.0.0.1:${port}\nlog.console = false\n`,
  );
  await fs.writeFile(path.join(dir, 'enabled_plugins'), '[].\n');
  await fs.writeFile(path.join(dir, 'rabbitmq-env.conf'), ''); // not the machine's
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOME: dir, // the Erlang cookie: the node writes it there, rabbitmqctl reads it
    RABBITMQ_NODENAME: node,
    RABBITMQ_NODE_IP_ADDRESS: '127.0.0.1',
    RABBITMQ_NODE_PORT: String(port),
    RABBITMQ_DIST_PORT: String(distPort),
    RABBITMQ_CONF_ENV_FILE: path.join(dir, 'rabbitmq-env.conf'),
    RABBITMQ_CONFIG_FILE: path.join(dir, 'rabbitmq.conf'),
    RABBITMQ_ENABLED_PLUGINS_FILE: path.join(dir, 'enabled_plugins'),
    RABBITMQ_MNESIA_BASE: path.join(dir, 'mnesia'),
    RABBITMQ_LOG_BASE: path.join(dir, 'log'),
    RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS: '-kernel inet_dist_use_interface {127,0,0,1}',
    ERL_EPMD_ADDRESS: '127.0.0.1',
  };
  const log = path.join(dir, 'server.log');
  // rabbitmq-server in the foreground stops the node the graceful way on SIGTERM (as
  // `rabbitmqctl stop` does, without the second it takes the CLI to start), and exits once the
  // node's process is gone and its port free.
  return processBroker(
    `amqp://guest:guest@127.0.0.1:${port}`,
    port,
    dir,
    `the RabbitMQ node ${node}`,
    () => {
      const out = openSync(log, 'a');
      try {
        return spawn(server, [], { env, cwd: dir, stdio: ['ignore', out, out] });
      } finally {
        closeSync(out);
      }
    },
    log,
  );
}
