/** The scope names the service knows; tokens carry them as `<prefix>:<name>`. */
export const scopeNames = [
  'activities_basic',
  'notifications',
  'notifications_motion',
  'zones',
  'ingest',
  'admin',
] as const;

export type ScopeName = (typeof scopeNames)[number];

const isScopeName = (name: string): name is ScopeName =>
  (scopeNames as readonly string[]).includes(name);

export const fullScopeName = (prefix: string, name: ScopeName): string => `${prefix}:${name}`;

/** The known short scope names among raw scope strings; other prefixes and unknown names are ignored. */
export function heldScopes(rawScopes: readonly string[], prefix: string): Set<ScopeName> {
  const held = new Set<ScopeName>();
  for (const raw of rawScopes) {
    const name = raw.startsWith(`${prefix}:`) ? raw.slice(prefix.length + 1) : '';
    if (isScopeName(name)) held.add(name);
  }
  return held;
}
