// The layers of src/, top to bottom, as docs/layout.md draws them. A module imports
// its own layer and the layers below it; an import that runs up is an error unless `upward`
// lists it (docs/layout.md explains each). No cycles. Type imports count (tsPreCompilationDeps).

// The services, the per-request context, every part's metrics on one registry, the jobs' list.
const composition = '(services|context|metrics|background)[.]ts$';

/**
 * The domains, top first: each is a layer of its own, so a domain imports only those below it.
 * What a lower domain needs from a higher one it declares (a type, a port) and composition wires.
 */
export const domains = [
  'notifications',
  'media',
  'activities',
  'limits',
  'accessories',
  'accounts',
  'events',
  'zones',
  'filter',
  'jobs',
];

/** Top first; `path` matches the modules of the layer, and no other layer's. */
export const layers = [
  { name: 'main', path: '^src/main[.]ts$' },
  { name: 'app', path: '^src/app[.]ts$' },
  { name: 'transport', path: '^src/(http|graphql|web)/' },
  { name: 'composition', path: `^src/${composition}` },
  ...domains.map((domain) => ({ name: domain, path: `^src/${domain}/` })),
  { name: 'infrastructure', path: '^src/(storage|telemetry)/' },
  {
    name: 'primitive',
    path: `^(?!src/(main|app)[.]ts$|src/${composition})src/([^/]+[.]ts$|generated/)`,
  },
];

/** The imports that run up on purpose: [from, to]. docs/layout.md says why for each. */
export const upward = [['src/metrics.ts', 'src/http/metrics.ts']];

const forbidden = [
  {
    name: 'no-circular',
    severity: 'error',
    comment: 'Modules must not import each other, directly or through others.',
    from: { path: '^src/' },
    to: { circular: true },
  },
];
layers.forEach((layer, i) => {
  if (i === 0) return;
  const above = layers
    .slice(0, i)
    .map((l) => `(${l.path})`)
    .join('|');
  const exceptions = upward.filter(([from]) => new RegExp(layer.path).test(from));
  const comment = `The ${layer.name} layer imports only itself and the layers below it.`;
  forbidden.push({
    name: `${layer.name}-points-down`,
    severity: 'error',
    comment,
    from: { path: layer.path, pathNot: exceptions.map(([from]) => `^${from}$`) },
    to: { path: above },
  });
  for (const from of new Set(exceptions.map(([f]) => f))) {
    const allowed = exceptions.filter(([f]) => f === from).map(([, to]) => `^${to}$`);
    forbidden.push({
      name: `${layer.name}-points-down`,
      severity: 'error',
      comment,
      from: { path: `^${from}$` },
      to: { path: above, pathNot: allowed },
    });
  }
});

export default {
  forbidden,
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^src/generated/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
