import { accessSync, constants, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

export type MediaTool = 'ffmpeg' | 'ffprobe';

/** The npm packages that ship a static build of each tool (per-platform optional packages). */
const shippedBy: Record<MediaTool, string> = {
  ffmpeg: '@ffmpeg-installer/ffmpeg',
  ffprobe: '@ffprobe-installer/ffprobe',
};

const require = createRequire(import.meta.url);

const executable = (file: string): boolean => {
  try {
    accessSync(file, constants.X_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
};

/**
 * Where ffmpeg (packaging, test clips, the simulator) or ffprobe (tests) is, decided here for the
 * service, the tests and the scripts alike: `FFMPEG_PATH` / `FFPROBE_PATH` when set, taken as
 * given; else the system's on `PATH`; else the static build an npm package ships (ffmpeg is a
 * dependency, ffprobe a dev dependency; neither exists on every platform); else undefined.
 */
export function locate(
  tool: MediaTool,
  env: Record<string, string | undefined> = process.env,
): string | undefined {
  const explicit = env[`${tool.toUpperCase()}_PATH`];
  if (explicit) return explicit;
  const names = process.platform === 'win32' ? [`${tool}.exe`] : [tool];
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    for (const name of names) {
      const file = path.join(dir, name);
      if (executable(file)) return file;
    }
  }
  try {
    const shipped = (require(shippedBy[tool]) as { path: string }).path;
    return executable(shipped) ? shipped : undefined;
  } catch {
    return undefined; // not installed, or no build for this platform
  }
}

/**
 * The service's ffmpeg, found when media starts: `FFMPEG_PATH` as configured, else the system's
 * on this process's `PATH` (the one spawn searches), else the npm-shipped build; none when the
 * configuration says false.
 */
export function serviceFfmpeg(configured: string | false | undefined): string | undefined {
  if (configured === false) return undefined;
  return configured ?? locate('ffmpeg', { PATH: process.env.PATH });
}

/** package_error of an MP4 taken by an instance that has no ffmpeg (its status is `failed`). */
export const NO_FFMPEG = 'not packaged: the instance that took the upload has no ffmpeg';

/** What to tell a person who has neither. */
export const INSTALL_HINT =
  'install ffmpeg (Debian: `apt-get install ffmpeg`), or `npm install` on a platform ' +
  '@ffmpeg-installer/ffmpeg ships a build for, or set FFMPEG_PATH / FFPROBE_PATH';

/** {@link locate}, or an error saying what to install (test clips, the simulator, benchmarks). */
export function requireTool(tool: MediaTool): string {
  const found = locate(tool);
  if (!found) throw new Error(`no ${tool} found: ${INSTALL_HINT}`);
  return found;
}
