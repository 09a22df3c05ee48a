import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

/**
 * A PostgreSQL cluster of its own, in a temporary directory, on 127.0.0.1:`port` with trust
 * auth: for settings the machine's server does not have (a preloaded library, a small
 * `max_connections`). Needs Debian's postgresql (initdb, pg_ctl); as root, runs them as the
 * `postgres` user. `settings` are passed to the server as `-c name=value`.
 */
export interface ThrowawayPostgres {
  /** Its temporary directory (the postgres user's), removed by `stop`: room for other files. */
  dir: string;
  /** The URL of `database` on it. */
  url(database: string): string;
  /** Stops it as a crash would (`-m immediate`) and starts it again: it starts by recovering. */
  crash(): void;
  stop(): void;
}

/** A free port on loopback, for such a server. */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** The binaries of the machine's newest PostgreSQL, or undefined without one. */
export function postgresBin(): string | undefined {
  if (!existsSync('/etc/postgresql')) return undefined;
  const version = readdirSync('/etc/postgresql')
    .map(Number)
    .sort((a, b) => a - b)
    .at(-1);
  const bin = `/usr/lib/postgresql/${version}/bin`;
  return existsSync(`${bin}/initdb`) ? bin : undefined;
}

export function startThrowawayPostgres(
  port: number,
  settings: Record<string, string | number> = {},
): ThrowawayPostgres {
  const bin = postgresBin();
  if (!bin) throw new Error("a throwaway PostgreSQL needs Debian's postgresql (initdb, pg_ctl)");
  const root = process.getuid?.() === 0;
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'clipgate-postgres-'));
  if (root) chownSync(tmp, Number(execFileSync('id', ['-u', 'postgres']).toString()), -1);
  const asPostgres = (command: string) =>
    execFileSync(
      root ? 'su' : 'sh',
      root ? ['postgres', '-s', '/bin/sh', '-c', command] : ['-c', command],
      { stdio: ['ignore', 'ignore', 'inherit'] },
    );
  const data = path.join(tmp, 'data');
  const options = [
    `-p ${port}`,
    `-k '${tmp}'`,
    '-c listen_addresses=127.0.0.1',
    ...Object.entries(settings).map(([name, value]) => `-c ${name}=${value}`),
  ].join(' ');
  const start = () =>
    asPostgres(`'${bin}/pg_ctl' -D '${data}' -l '${tmp}/postgres.log' -w start -o "${options}"`);
  asPostgres(`'${bin}/initdb' -D '${data}' -U postgres --auth=trust >/dev/null`);
  start();
  return {
    dir: tmp,
    url: (database) => `postgres://postgres@127.0.0.1:${port}/${database}`,
    crash() {
      asPostgres(`'${bin}/pg_ctl' -D '${data}' -m immediate -w stop >/dev/null`);
      start();
    },
    stop() {
      asPostgres(`'${bin}/pg_ctl' -D '${data}' -m fast -w stop >/dev/null`);
      rmSync(tmp, { recursive: true, force: true });
    },
  };
}
