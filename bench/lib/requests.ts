// The requests a load on its own thread makes (loadOnThread, bench/lib/load.ts): each factory
// builds, on the load's thread, request i of a run and what to close after it. Its arguments
// cross to the thread as data, so request i is the (i mod n)th of a list made beforehand.
import pg from 'pg';
import { Pool } from 'undici';

/** One HTTP request, as sent. */
export interface Sent {
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface Requests {
  request: (i: number) => Promise<void>;
  close: () => Promise<void>;
}

/**
 * HTTP requests to `origin` over `connections` connections, request i the (i mod n)th of `sent`.
 * An answer other than 200, or one that holds GraphQL errors (they come with 200 too), fails the
 * run: an error is no page.
 */
export async function http(args: {
  origin: string;
  connections: number;
  sent: Sent[];
}): Promise<Requests> {
  const pool = new Pool(args.origin, { connections: args.connections });
  return {
    request: async (i) => {
      const { method, path, headers, body } = args.sent[i % args.sent.length]!;
      const res = await pool.request({ method, path, headers, body });
      const text = await res.body.text();
      if (res.statusCode !== 200 || text.includes('"errors"')) {
        throw new Error(`${path}: ${res.statusCode} ${text}`);
      }
    },
    close: () => pool.close(),
  };
}

/** One statement as text through pg, run i with the (i mod n)th of `params`. */
export async function statement(args: {
  url: string;
  connections: number;
  sql: string;
  params: unknown[][];
}): Promise<Requests> {
  const pool = new pg.Pool({ connectionString: args.url, max: args.connections });
  return {
    request: async (i) => {
      await pool.query(args.sql, args.params[i % args.params.length]);
    },
    close: () => pool.end(),
  };
}

/**
 * The service's own page statement (queryPage), prepared, on sessions set as the listing pool's
 * are (generic plans): page i the (i mod n)th of `pages`, 20 items, from `start` if given.
 */
export async function keysetPages(args: {
  url: string;
  connections: number;
  pages: { accessoryId: string; start?: string }[];
}): Promise<Requests> {
  // Imported here: the service's modules stay out of the threads that only send HTTP.
  const { queryPage } = await import('../../src/activities/store.ts');
  const pool = new pg.Pool({
    connectionString: args.url,
    max: args.connections,
    options: '-c plan_cache_mode=force_generic_plan',
  });
  return {
    request: async (i) => {
      const { accessoryId, start } = args.pages[i % args.pages.length]!;
      await queryPage(pool, {
        scope: { accessoryId },
        floor: '00000000T000000Z',
        scanDirectionNewer: true,
        limit: 20,
        locations: false,
        ...(start && { start: { activityId: start, operator: '<' } }),
      });
    },
    close: () => pool.end(),
  };
}
