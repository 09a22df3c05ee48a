import type http from 'node:http';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import type { AuthConfig } from '../config.ts';
import { methodNotAllowed, notFound } from '../errors.ts';

/** What the service's own browser pages (GraphiQL, the API reference at /docs) share. */

/** A file of a page the service serves from memory under a versioned path (GraphiQL, /docs). */
export interface Asset {
  type: string;
  body: Buffer;
  /** Made at the first request that accepts it. */
  gzipped?: Promise<Buffer>;
}

/**
 * Serves the files `load` makes under `base`, a path that changes with their content: each is
 * cached for a year, gzipped for a client that accepts it. They are loaded at the first request
 * for one and kept; a path under `base` that names none is a 404 naming `what`.
 */
export function assetServer(
  base: string,
  what: string,
  load: () => Promise<Map<string, Asset>>,
): (req: http.IncomingMessage, res: http.ServerResponse, pathname: string) => Promise<void> {
  let assets: Promise<Map<string, Asset>> | undefined;
  return async (req, res, pathname) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      throw methodNotAllowed(req.method, ['GET', 'HEAD']);
    }
    const asset = pathname.startsWith(base)
      ? (await (assets ??= load())).get(pathname.slice(base.length))
      : undefined;
    if (!asset) throw notFound(what);
    const gzipped = /\bgzip\b/.test(String(req.headers['accept-encoding']));
    const body = gzipped ? await (asset.gzipped ??= promisify(gzip)(asset.body)) : asset.body;
    res.writeHead(200, {
      'content-type': asset.type,
      'content-length': body.length,
      'cache-control': 'public, max-age=31536000, immutable',
      vary: 'accept-encoding',
      'x-content-type-options': 'nosniff',
      ...(gzipped && { 'content-encoding': 'gzip' }),
    });
    res.end(req.method === 'HEAD' ? undefined : body);
  };
}

/** Answers a page: revalidated on every load, with its Content-Security-Policy and the like. */
export function sendPage(
  res: http.ServerResponse,
  html: Buffer,
  security: Record<string, string>,
): void {
  res.writeHead(200, {
    'content-type': 'text/html; charset=utf-8',
    'content-length': html.length,
    'cache-control': 'no-cache',
    ...security,
  });
  res.end(html);
}

/** The command that prints a development token, or where a token comes from otherwise. */
export function tokenSource(auth: AuthConfig): string {
  return auth.mode === 'dev'
    ? 'the output of: npm run -s token -- --scope "service:activities_basic"'
    : 'an access token of your identity provider';
}
