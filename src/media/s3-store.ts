import { createReadStream, createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { randomUUID } from 'node:crypto';
import {
  DeleteObjectsCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import type { S3Config } from '../config.ts';
import { withoutCredentials } from '../logger.ts';
import { checkKey } from './fs-store.ts';
import { ObjectMissing, type ByteRange, type MediaStore } from './store.ts';

function isMissing(err: unknown): boolean {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e.name === 'NoSuchKey' || e.name === 'NotFound' || e.$metadata?.httpStatusCode === 404;
}

/**
 * Media in an S3-compatible bucket (AWS SDK v3, path-style addressing), so that several
 * instances share it. Only plain object calls are used: PutObject, GetObject (with Range),
 * ListObjectsV2, DeleteObjects. Checksums are sent only where S3 requires them (DeleteObjects),
 * which keeps uploads plain `PUT`s that every S3-compatible server understands.
 */
export class S3MediaStore implements MediaStore {
  readonly kind = 's3';
  readonly #client: S3Client;
  readonly #bucket: string;
  readonly #prefix: string;
  readonly location: string;

  constructor(config: S3Config) {
    this.#bucket = config.bucket;
    this.#prefix = config.prefix ? `${config.prefix.replace(/\/+$/, '')}/` : '';
    const server = config.endpoint ? withoutCredentials(config.endpoint) : 'AWS';
    this.location = `s3://${config.bucket}/${this.#prefix} on ${server}`;
    this.#client = new S3Client({
      region: config.region,
      endpoint: config.endpoint,
      forcePathStyle: true,
      credentials:
        config.accessKeyId && config.secretAccessKey
          ? { accessKeyId: config.accessKeyId, secretAccessKey: config.secretAccessKey }
          : undefined,
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  }

  #key(key: string, prefix = false): string {
    return this.#prefix + checkKey(key, prefix);
  }

  async put(key: string, file: string, contentType: string): Promise<void> {
    const { size } = await fs.stat(file);
    // A single PUT takes up to 5 GiB, above any configured upload limit (config checks it).
    await this.#client.send(
      new PutObjectCommand({
        Bucket: this.#bucket,
        Key: this.#key(key),
        Body: createReadStream(file),
        ContentLength: size,
        ContentType: contentType,
      }),
    );
    await fs.rm(file, { force: true });
  }

  async read(key: string, range?: ByteRange, signal?: AbortSignal): Promise<Readable> {
    try {
      const out = await this.#client.send(
        new GetObjectCommand({
          Bucket: this.#bucket,
          Key: this.#key(key),
          Range: range && `bytes=${range.start}-${range.end}`,
        }),
        { abortSignal: signal },
      );
      return out.Body as Readable;
    } catch (err) {
      if (isMissing(err)) throw new ObjectMissing(key);
      throw err;
    }
  }

  async localCopy(
    key: string,
    tmpDir: string,
    signal?: AbortSignal,
  ): Promise<{ path: string; release(): Promise<void> }> {
    await fs.mkdir(tmpDir, { recursive: true });
    const file = path.join(tmpDir, `${randomUUID()}${path.extname(key)}`);
    const release = () => fs.rm(file, { force: true });
    try {
      await pipeline(await this.read(key, undefined, signal), createWriteStream(file), { signal });
    } catch (err) {
      await release();
      throw err;
    }
    return { path: file, release };
  }

  async deletePrefix(prefix: string): Promise<number> {
    const keys = await this.#listRaw(this.#key(prefix, true));
    for (let i = 0; i < keys.length; i += 1000) {
      const out = await this.#client.send(
        new DeleteObjectsCommand({
          Bucket: this.#bucket,
          Delete: { Objects: keys.slice(i, i + 1000).map((Key) => ({ Key })), Quiet: true },
        }),
      );
      const failed = (out.Errors ?? []).filter((e) => e.Code !== 'NoSuchKey');
      if (failed.length > 0) {
        throw new Error(`S3 refused to delete ${failed.length} objects: ${failed[0]!.Code}`);
      }
    }
    return keys.length;
  }

  async list(prefix: string): Promise<string[]> {
    const keys = await this.#listRaw(this.#key(prefix, true));
    return keys.map((k) => k.slice(this.#prefix.length)).sort();
  }

  async #listRaw(prefix: string): Promise<string[]> {
    const keys: string[] = [];
    let token: string | undefined;
    do {
      const out = await this.#client.send(
        new ListObjectsV2Command({
          Bucket: this.#bucket,
          Prefix: prefix,
          ContinuationToken: token,
        }),
      );
      for (const o of out.Contents ?? []) if (o.Key) keys.push(o.Key);
      token = out.IsTruncated ? out.NextContinuationToken : undefined;
    } while (token);
    return keys;
  }

  close(): void {
    this.#client.destroy();
  }
}
