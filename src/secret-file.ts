import { randomUUID } from 'node:crypto';
import { link, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';

const code = (err: unknown) => (err as NodeJS.ErrnoException).code;

/**
 * A secret kept in a file of the data directory (the development token secret, the secrets key,
 * the media URL secret): the file's text, trimmed and checked by `parse`, or else a new one
 * (`create()`) written with mode 0600. Several processes sharing DATA_DIR may start at once: the
 * new secret is written whole to a file of its own, then linked to the name, which only one link
 * can take; a process whose link finds the name taken reads the secret already there, whole.
 */
export async function loadOrCreateSecretFile<T>(
  file: string,
  create: () => string,
  parse: (text: string) => T,
): Promise<{ value: T; generated: boolean }> {
  const read = async () => {
    const text = (await readFile(file, 'utf8')).trim();
    if (!text) throw new Error(`${file} is empty`);
    return parse(text);
  };
  try {
    return { value: await read(), generated: false };
  } catch (err) {
    if (code(err) !== 'ENOENT') throw err;
  }
  const text = create();
  await mkdir(path.dirname(file), { recursive: true });
  const written = `${file}.${randomUUID()}`;
  await writeFile(written, text, { mode: 0o600, flag: 'wx' });
  try {
    await link(written, file);
  } catch (err) {
    // Another process sharing DATA_DIR created it first: take theirs.
    if (code(err) === 'EEXIST') return { value: await read(), generated: false };
    throw err;
  } finally {
    await rm(written, { force: true });
  }
  return { value: parse(text.trim()), generated: true };
}
