/**
 * `npm run bench -- blobs`: a 10 MiB stream of unknown length put into, and read back from, each blob store — the
 * local disk and the S3-compatible store (blobs-s3) against s3rver on loopback — with the p50 of each and the most
 * the process's resident memory grew while putting (the S3 store holds at most a couple of 5 MiB parts at once).
 * Figures only; nothing is asserted.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Readable } from 'node:stream';
import { Value } from '@sinclair/typebox/value';
import { LocalDiskBlobStore, type BlobStore } from '../core/blobs.ts';
import { S3Options } from '../plugins/blobs-s3/schemas.ts';
import { S3BlobStore } from '../plugins/blobs-s3/s3-store.ts';
import { s3rverCredentials, startS3Server } from '../test/fixtures/s3-server.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 10);
const SIZE = 10 * 1024 * 1024;
const CHUNK = Buffer.alloc(64 * 1024, 7);

/** SIZE bytes in 64 KiB chunks, made as they are read: nothing held but the chunk. */
const stream = () => {
  let sent = 0;
  return new Readable({
    read() {
      if (sent >= SIZE) return this.push(null);
      sent += CHUNK.length;
      this.push(CHUNK);
    },
  });
};

const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function measure(name: string, store: BlobStore): Promise<void> {
  const puts: number[] = [];
  const gets: number[] = [];
  let peak = 0;
  // A warm-up round: the first allocations (JIT, sockets, buffers) are not what a put costs.
  await store.put('bench/warm-up', stream());
  await store.delete('bench/warm-up');
  const base = process.memoryUsage().rss;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss - base)), 5);
  for (let i = 0; i < ROUNDS; i++) {
    const key = `bench/${i}`;
    let start = performance.now();
    await store.put(key, stream());
    puts.push(performance.now() - start);
    start = performance.now();
    for await (const chunk of (await store.get(key))!) void chunk;
    gets.push(performance.now() - start);
    await store.delete(key);
  }
  clearInterval(sampler);
  console.log(`${name.padEnd(12)} put 10 MiB p50 ${p50(puts).toFixed(1)} ms · get p50 ${p50(gets).toFixed(1)} ms · RSS growth ≤ ${(peak / 1024 / 1024).toFixed(1)} MiB (${ROUNDS} rounds)`);
}

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'tessera-bench-blobs-'));
const server = await startS3Server();
const s3 = new S3BlobStore(Value.Default(S3Options, { endpoint: server.endpoint, bucket: server.bucket, ...s3rverCredentials() }) as S3Options);
try {
  await measure('local disk', new LocalDiskBlobStore(root));
  await measure('s3 (s3rver)', s3);
} finally {
  s3.close();
  await server.close();
  fs.rmSync(root, { recursive: true, force: true });
}
