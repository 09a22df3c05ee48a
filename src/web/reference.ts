import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { AuthConfig } from '../config.ts';
import type { HttpHandler } from '../http/handler.ts';
import { assetServer, sendPage, tokenSource } from './pages.ts';
import { dashboardDir } from './static.ts';

/**
 * The API reference in the browser, served by the service itself: `/docs` renders
 * `/openapi.json` (the REST operations, the webhooks and their schemas) with Swagger UI, whose
 * "Try it out" sends the bearer token given to its Authorize button; `/docs/events` renders
 * `/asyncapi.json` (the live events' channels and the webhook notifications) with the dashboard's
 * own view of it (web/src/events-reference.ts). Their files come from the dashboard's build
 * (web/vite.config.ts: Swagger UI's copied from its npm package), under `/docs/files/<hash>/`;
 * nothing from another host, which the pages' Content-Security-Policy enforces.
 */

/** The reference's files in the dashboard's build (web/vite.config.ts). */
const builtDir = () => path.join(dashboardDir(), 'reference');

/** Swagger UI's version and the events view's hash as built; undefined before `npm run build:web`. */
function builtVersions(): string | undefined {
  try {
    return readFileSync(path.join(builtDir(), 'versions.json'), 'utf8');
  } catch {
    return undefined;
  }
}

/** Renders the OpenAPI document; "Try it out" calls this origin, as the document has no servers. */
const openApiStart = `window.ui = SwaggerUIBundle({
  url: '/openapi.json',
  dom_id: '#reference',
  deepLinking: true,
  validatorUrl: null,
});
`;

/** The bar above both references: the other views of the API. */
const style = `body {
  margin: 0;
}
.reference-bar {
  display: flex;
  flex-wrap: wrap;
  align-items: baseline;
  gap: 0.4rem 1.2rem;
  padding: 0.6rem 1.2rem;
  border-bottom: 1px solid #d0d4da;
  background: #f6f7f9;
  font: 14px/1.4 system-ui, sans-serif;
}
.reference-bar strong { font-size: 16px; }
.reference-bar a { color: #1f5fbf; }
.reference-bar a[aria-current='page'] { color: inherit; font-weight: 600; text-decoration: none; }
.reference-bar p { flex-basis: 100%; margin: 0; color: #555; }
.reference-bar code { font-size: 13px; }
`;

/** The files of both pages: as built, then the bar's style and the lines that start Swagger UI. */
const files: { name: string; type: string; from: () => Promise<Buffer> }[] = (() => {
  const js = 'text/javascript; charset=utf-8';
  const css = 'text/css; charset=utf-8';
  const built = (name: string) => () => fs.readFile(path.join(builtDir(), name));
  const text = (body: string) => () => Promise.resolve(Buffer.from(body));
  return [
    { name: 'swagger-ui.js', type: js, from: built('swagger-ui.js') },
    { name: 'swagger-ui.css', type: css, from: built('swagger-ui.css') },
    { name: 'favicon.png', type: 'image/png', from: built('favicon.png') },
    { name: 'asyncapi.js', type: js, from: built('asyncapi.js') },
    { name: 'asyncapi.css', type: css, from: built('asyncapi.css') },
    { name: 'reference.css', type: css, from: text(style) },
    { name: 'openapi-start.js', type: js, from: text(openApiStart) },
  ];
})();

/** Changes with the build and with what this file writes, so that the files can be cached. */
const filesPath = (versions: string) =>
  `/docs/files/${createHash('sha256')
    .update(JSON.stringify([versions, style, openApiStart]))
    .digest('base64url')
    .slice(0, 16)}/`;

/** Read when a file is first asked for (about 2 MB). */
const fileServer = (base: string) =>
  assetServer(base, 'API reference file', async () => {
    const read = files.map(
      async ({ name, type, from }) => [name, { type, body: await from() }] as const,
    );
    return new Map(await Promise.all(read));
  });

/**
 * Scripts and styles from this origin only, and no code evaluated; Swagger UI sets element styles
 * (React) and draws icons as data: images.
 */
const pageSecurity = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; " +
    "style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; " +
    "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

const escapeHtml = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

interface View {
  path: string;
  title: string;
  /** The link to it in the bar. */
  label: string;
  stylesheet: string;
  /** Its scripts, in order. */
  scripts: string[];
  /** Whether it tries operations, and so says where a token comes from. */
  authorizes: boolean;
}

const views: View[] = [
  {
    path: '/docs',
    title: 'clipgate REST API and webhooks',
    label: 'REST API and webhooks (OpenAPI)',
    stylesheet: 'swagger-ui.css',
    scripts: ['swagger-ui.js', 'openapi-start.js'],
    authorizes: true,
  },
  {
    path: '/docs/events',
    title: 'clipgate live events and notifications',
    label: 'Live events and notifications (AsyncAPI)',
    stylesheet: 'asyncapi.css',
    scripts: ['asyncapi.js'],
    authorizes: false,
  },
];

/** The other views of the API, in the bar above each reference. */
const elsewhere = [
  { href: '/graphql', label: 'GraphiQL' },
  { href: '/app', label: 'Dashboard' },
  { href: '/openapi.json', label: 'openapi.json' },
  { href: '/asyncapi.json', label: 'asyncapi.json' },
];

function page(view: View, auth: AuthConfig, base: string): Buffer {
  const nav = [
    ...views.map((v) => ({ href: v.path, label: v.label, current: v === view })),
    ...elsewhere,
  ]
    .map(
      (link) =>
        `<a href="${link.href}"${'current' in link && link.current ? ' aria-current="page"' : ''}>${link.label}</a>`,
    )
    .join('\n        ');
  const hint = view.authorizes
    ? `
      <p>
        To try an operation, give a token to Authorize: <code>${escapeHtml(tokenSource(auth))}</code>
      </p>`
    : '';
  return Buffer.from(`<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>${view.title}</title>
    <link rel="icon" href="${base}favicon.png" />
    <link rel="stylesheet" href="${base}${view.stylesheet}" />
    <link rel="stylesheet" href="${base}reference.css" />
  </head>
  <body>
    <header class="reference-bar">
      <strong>clipgate</strong>
      <nav aria-label="API references">
        ${nav}
      </nav>${hint}
    </header>
    <noscript>The reference needs JavaScript; the raw documents are linked above.</noscript>
    <main id="reference"></main>
${view.scripts.map((file) => `    <script src="${base}${file}"></script>`).join('\n')}
  </body>
</html>
`);
}

/**
 * The reference's pages at `/docs` and `/docs/events`, and their files under `/docs/files/`.
 * Without the dashboard's build, which holds their files, they answer 503 with what to run.
 */
export function referenceHandler(auth: AuthConfig): HttpHandler {
  const versions = builtVersions();
  const base = versions === undefined ? undefined : filesPath(versions);
  const pages = new Map(
    views.map((view) => [view.path, { view, html: base && page(view, auth, base) }]),
  );
  const sendFile = base && fileServer(base);
  return async (req, res, pathname) => {
    if (pathname !== '/docs' && !pathname.startsWith('/docs/')) return undefined;
    if (!sendFile) {
      res.writeHead(503, { 'content-type': 'text/plain; charset=utf-8' });
      res.end('The API reference is not built: run `npm run build:web`\n');
      return '/docs';
    }
    const found = pages.get(pathname);
    if (found?.html && (req.method === 'GET' || req.method === 'HEAD')) {
      sendPage(res, found.html, pageSecurity);
      return '/docs';
    }
    await sendFile(req, res, pathname);
    return '/docs';
  };
}
