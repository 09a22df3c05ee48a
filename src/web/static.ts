/**
 * Serves the built dashboard (web/, built by Vite into web/dist at install time) at /app.
 * `index.html` is revalidated on every load; the hashed files under /app/assets/ never change and
 * are cached for a year. Without a build, /app answers 503 with what to run.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import type http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { methodNotAllowed } from '../errors.ts';

const contentTypes: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

/** web/dist beside this checkout; WEB_DIST_DIR overrides it (the browser test builds elsewhere). */
export function dashboardDir(): string {
  return process.env.WEB_DIST_DIR ?? fileURLToPath(new URL('../../web/dist/', import.meta.url));
}

const securityHeaders = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  // Media URLs may be absolute (PUBLIC_BASE_URL); everything else comes from this origin.
  'content-security-policy':
    "default-src 'self'; img-src 'self' data: blob: https: http:; media-src 'self' blob: https: http:; " +
    "connect-src 'self' ws: wss:; style-src 'self'; script-src 'self'; object-src 'none'; " +
    "base-uri 'none'; frame-ancestors 'none'",
};

/** Answers /app and /app/...; returns the route label, or undefined for other paths. */
export async function handleDashboardRequest(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  pathname: string,
): Promise<string | undefined> {
  if (pathname !== '/app' && !pathname.startsWith('/app/')) return undefined;
  const label = '/app';
  if (req.method !== 'GET' && req.method !== 'HEAD')
    throw methodNotAllowed(req.method, ['GET', 'HEAD']);
  const root = path.resolve(dashboardDir());
  let relative: string;
  try {
    relative = decodeURIComponent(pathname.slice('/app'.length)).replace(/^\/+/, '');
  } catch {
    text(res, 400, 'Bad path\n');
    return label;
  }
  if (relative === '' || relative === 'index.html') relative = 'index.html';
  const file = path.resolve(root, relative);
  if (relative.includes('\0') || (file !== root && !file.startsWith(root + path.sep))) {
    text(res, 404, 'Not found\n');
    return label;
  }
  let body: Buffer;
  try {
    body = await fs.readFile(file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (relative === 'index.html' && code === 'ENOENT') {
      text(
        res,
        503,
        'The dashboard is not built. Run `npm run build:web` (it runs on `npm install` too), ' +
          'then reload.\n',
      );
      return label;
    }
    if (code === 'ENOENT' || code === 'EISDIR' || code === 'ENOTDIR') {
      text(res, 404, 'Not found\n');
      return label;
    }
    throw err;
  }
  const immutable = relative.startsWith('assets/');
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
  const headers: Record<string, string | number> = {
    ...securityHeaders,
    'content-type': contentTypes[path.extname(file).toLowerCase()] ?? 'application/octet-stream',
    'cache-control': immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
    etag,
  };
  const inm = req.headers['if-none-match'];
  if (inm && inm.split(',').some((t) => t.trim().replace(/^W\//, '') === etag)) {
    res.writeHead(304, headers);
    res.end();
    return label;
  }
  headers['content-length'] = body.length;
  res.writeHead(200, headers);
  res.end(req.method === 'HEAD' ? undefined : body);
  return label;
}

function text(res: http.ServerResponse, status: number, body: string): void {
  res.writeHead(status, {
    'content-type': 'text/plain; charset=utf-8',
    'cache-control': 'no-store',
    'content-length': Buffer.byteLength(body),
  });
  res.end(body);
}
