import { createRequire } from 'node:module';
import type { AuthConfig } from '../config.ts';
import type { HttpHandler } from '../http/handler.ts';
import { assetServer, sendPage, tokenSource } from '../web/pages.ts';

/**
 * GraphiQL, served by the service itself: a browser's `GET /graphql` (Accept: text/html) gets the
 * page without a token, and the page's script, stylesheet (its fonts inlined) and editor workers
 * come from `/graphiql/<version>/`, out of `@graphql-yoga/render-graphiql` (Yoga's own page loads
 * them from a public CDN). Nothing on the page is fetched from another host, which its
 * Content-Security-Policy enforces. The operations it sends carry the Authorization header the
 * person pastes into its headers editor, as every client's do.
 */

const version = (
  createRequire(import.meta.url)('@graphql-yoga/render-graphiql/package.json') as {
    version: string;
  }
).version;
const base = `/graphiql/${version}/`;

/** The page loads from this origin only; styles inline (React and the editor write them). */
const pageSecurity = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; " +
    "img-src 'self' data:; font-src 'self' data:; connect-src 'self'; worker-src 'self'; " +
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

/** Sets up the editor's workers and renders GraphiQL with the options the page carries. */
const start = `self.MonacoEnvironment = {
  globalAPI: false,
  getWorkerUrl: (_, label) => ${JSON.stringify(base)} + ({ json: 'json', graphql: 'graphql' }[label] ?? 'editor') + '.worker.js',
};
YogaGraphiQL.renderYogaGraphiQL(
  document.getElementById('root'),
  JSON.parse(document.getElementById('graphiql-options').textContent),
);
`;

/** The files of the page, loaded when GraphiQL is first asked for (about 9 MB). */
const sendFile = assetServer(base, 'GraphiQL file', () =>
  import('@graphql-yoga/render-graphiql/graphiql').then((bundle) => {
    const js = 'text/javascript; charset=utf-8';
    const icon = bundle.favicon.slice(bundle.favicon.indexOf(',') + 1);
    const files: [string, string, Buffer][] = [
      ['graphiql.js', js, Buffer.from(bundle.js)],
      ['graphiql.css', 'text/css; charset=utf-8', Buffer.from(bundle.css)],
      ['editor.worker.js', js, Buffer.from(bundle.editorWorkerService)],
      ['json.worker.js', js, Buffer.from(bundle.jsonWorker)],
      ['graphql.worker.js', js, Buffer.from(bundle.graphqlWorker)],
      ['start.js', js, Buffer.from(start)],
      ['favicon.ico', 'image/x-icon', Buffer.from(icon, 'base64')],
    ];
    return new Map(files.map(([name, type, body]) => [name, { type, body }]));
  }),
);

/** What the headers editor holds at first: where to put a token, and how to get one. */
function headersHint(auth: AuthConfig): string {
  const paste = auth.mode === 'dev' ? 'paste ' : '';
  return JSON.stringify({ authorization: `Bearer <${paste}${tokenSource(auth)}>` }, null, 2);
}

/** The link to the REST reference, in the corner of the result pane (no space of GraphiQL's). */
const docsLinkStyle =
  'position: fixed; right: 32px; bottom: 28px; z-index: 10; font: 13px system-ui, sans-serif;';

function page(auth: AuthConfig): string {
  const options = {
    title: 'clipgate GraphiQL',
    endpoint: '/graphql',
    headers: headersHint(auth),
    defaultEditorToolsVisibility: 'headers',
    defaultQuery:
      '# Put a token into the Authorization header below, then run the query (Ctrl-Enter).\n' +
      '{\n  viewer {\n    accountId\n    clientId\n    scopes\n  }\n}\n',
  };
  // Inside <script>, `<` would let the JSON end the element: escaped, it is the same JSON.
  const json = JSON.stringify(options).replace(/</g, '\\u003c');
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <title>clipgate GraphiQL</title>
    <link rel="icon" href="${base}favicon.ico" />
    <link rel="stylesheet" href="${base}graphiql.css" />
  </head>
  <body id="body" class="no-focus-outline">
    <noscript>GraphiQL needs JavaScript.</noscript>
    <div id="root"></div>
    <a href="/docs" style="${docsLinkStyle}">REST API reference (/docs)</a>
    <script type="application/json" id="graphiql-options">${json}</script>
    <script src="${base}graphiql.js"></script>
    <script src="${base}start.js"></script>
  </body>
</html>
`;
}

const wantsPage = (method: string | undefined, accept: string | undefined) =>
  method === 'GET' && Boolean(accept?.includes('text/html'));

/** GraphiQL's page on a browser's `GET /graphql`, and its files under `/graphiql/`. */
export function graphiqlHandler(auth: AuthConfig): HttpHandler {
  const html = Buffer.from(page(auth));
  return async (req, res, pathname) => {
    if (pathname === '/graphql' && wantsPage(req.method, req.headers.accept)) {
      sendPage(res, html, pageSecurity);
      return '/graphiql';
    }
    if (!pathname.startsWith('/graphiql/')) return undefined;
    await sendFile(req, res, pathname);
    return '/graphiql';
  };
}
