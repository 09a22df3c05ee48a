/** A V8 CPU profile (`.cpuprofile`), as far as the summary reads it. */
export interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string }; hitCount?: number }[];
}

type ProfileNode = CpuProfile['nodes'][number];

/** The layer a function belongs to: its package, or its source folder. */
function layer(node: ProfileNode): string {
  const { url, functionName } = node.callFrame;
  if (!url) return functionName.startsWith('(') ? functionName : `(native) ${functionName}`;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1]!;
  if (url.startsWith('node:')) return `node:${url.slice(5).split('/').slice(0, 2).join('/')}`;
  const src = /\/(src|bench)\/(.+?)\/[^/]+$/.exec(url) ?? /\/(src)\/([^/]+)$/.exec(url);
  return src ? `${src[1]}/${src[2]}` : url;
}

/**
 * Prints a profile's busy CPU by layer (the self time of every sampled function, grouped by its
 * package or source folder) and its busiest functions, each as a share of the non-idle samples.
 */
export function printProfile(profile: CpuProfile, layers = 30, functions = 20): void {
  const ticks = new Map<string, number>();
  const byFunction = new Map<string, number>();
  let total = 0;
  for (const node of profile.nodes) {
    const hits = node.hitCount ?? 0;
    total += hits;
    ticks.set(layer(node), (ticks.get(layer(node)) ?? 0) + hits);
    const name = `${node.callFrame.functionName || '(anonymous)'} ${layer(node)}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + hits);
  }
  const idle = ticks.get('(idle)') ?? 0;
  const top = (counts: Map<string, number>, n: number) => {
    for (const [name, hits] of [...counts].sort((a, b) => b[1] - a[1]).slice(0, n)) {
      if (name.startsWith('(idle)')) continue;
      console.log(
        `  ${name.padEnd(60)} ${((hits / (total - idle)) * 100).toFixed(1).padStart(5)} %`,
      );
    }
  };
  console.log(
    `busy CPU by layer (share of the non-idle samples; idle ${((idle / total) * 100).toFixed(0)} %)`,
  );
  top(ticks, layers);
  console.log('busiest functions (self time)');
  top(byFunction, functions);
}
