/**
 * `npm run bench -- attachments`: issue 18's attachment figures. Over HTTP, on
 * PostgreSQL, against the server in its own process: uploads of a 10 MiB file (`POST …/records/{id}/attachments`,
 * multipart, sequential) — p50 against the 150 ms target — and the server's resident memory before and after them
 * (flat: the file streams to the blob store, never whole in memory). In this process: the thumbnail job's work on a
 * 12-megapixel JPEG (both sizes, read from a local-disk blob store as the job reads it) against 500 ms.
 * BENCH_UPLOADS (20), BENCH_UPLOAD_MB (10).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { LocalDiskBlobStore } from '../core/blobs.ts';
import { makeThumbnail } from '../plugins/files/public.ts';
import { expect } from './lib/api.ts';
import { fmt } from './lib/format.ts';
import { startServer } from './lib/server.ts';
import { postgresStorage } from './lib/storage.ts';
import { createBenchDatabase } from './records/setup.ts';
import { Report, type Timings } from './records/report.ts';

const env = process.env;
const UPLOADS = Number(env.BENCH_UPLOADS ?? 20);
const MB = Number(env.BENCH_UPLOAD_MB ?? 10);
const WARMUP = 3;

console.log(`Tessera attachments benchmark — node ${process.version}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? 'unknown'})`);
const report = new Report(true);

/** Resident memory of this process's children (the bench server), in bytes, from /proc. */
function childRss(): number {
  let total = 0;
  for (const pid of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid !== process.pid) continue;
      const rss = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
      if (rss) total += Number(rss[1]) * 1024;
    } catch {
      // The process ended while being read.
    }
  }
  return total;
}

async function uploads(): Promise<void> {
  const storage = postgresStorage(1);
  console.log(`\n${storage.label} — ${UPLOADS} uploads of ${MB} MiB, one after the other`);
  const server = await startServer(storage);
  try {
    const bench = await createBenchDatabase(server.url);
    const dbPath = bench.records.replace(/\/records$/, '');
    await expect(201, 'attachment field', `${server.url}${dbPath}/fields`, 'POST', bench.admin.session, { name: 'Files', type: 'attachment' });
    const file = new Blob([Buffer.alloc(MB * 1024 * 1024, 0x5a)]);
    const timings: Timings = { ms: [], bad: 0 };
    const rss: number[] = [];
    for (let i = 0; i < WARMUP + UPLOADS; i++) {
      // A record per upload: the cell stays one attachment long, as most are.
      const record = await expect(201, 'record', `${server.url}${bench.records}`, 'POST', bench.pat, { values: { title: `File ${i}` } });
      const form = new FormData();
      form.set('file', file, `file-${i}.bin`);
      const started = performance.now();
      const res = await fetch(`${server.url}${bench.records}/${record.id}/attachments`, { method: 'POST', headers: bench.pat, body: form });
      await res.arrayBuffer();
      const ms = performance.now() - started;
      if (i < WARMUP) continue;
      timings.ms.push(ms);
      if (res.status !== 201) {
        timings.bad++;
        timings.firstBad ??= String(res.status);
      }
      rss.push(childRss());
    }
    report.latency(`upload of ${MB} MiB`, timings, [{ stat: 'p50', ms: 150 }]);
    const first = rss[0];
    const last = rss[rss.length - 1];
    const peak = Math.max(...rss);
    report.note(`server RSS after upload 1: ${fmt(first / 2 ** 20)} MiB, after ${UPLOADS}: ${fmt(last / 2 ** 20)} MiB (peak ${fmt(peak / 2 ** 20)} MiB): growth ${fmt((last - first) / 2 ** 20, 1)} MiB over ${fmt(((UPLOADS - 1) * MB))} MiB uploaded`);
  } finally {
    await server.stop();
    await storage.cleanup();
  }
}

async function thumbnails(): Promise<void> {
  console.log('\nthis process — the thumbnail job on a 12-megapixel JPEG (4000 × 3000), small then large, from a local-disk blob store');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tessera-bench-thumbs-'));
  try {
    const store = new LocalDiskBlobStore(dir);
    // Smooth shapes under sensor-like grain at every pixel, at quality 90: as heavy to decode as a camera's JPEG, or more.
    const shapes = await sharp({ create: { width: 400, height: 300, channels: 3, background: { r: 0, g: 0, b: 0 }, noise: { type: 'gaussian', mean: 128, sigma: 60 } } }).blur(8).png().toBuffer();
    const grain = await sharp({ create: { width: 4000, height: 3000, channels: 3, background: { r: 0, g: 0, b: 0 }, noise: { type: 'gaussian', mean: 128, sigma: 12 } } }).png().toBuffer();
    const photo = await sharp(shapes).resize(4000, 3000).composite([{ input: grain, blend: 'overlay' }]).jpeg({ quality: 90 }).toBuffer();
    await store.put('photo.jpg', photo);
    report.note(`JPEG of ${fmt(photo.length / 2 ** 20, 1)} MiB`);
    const timings: Timings = { ms: [], bad: 0 };
    for (let i = 0; i < 8; i++) {
      const started = performance.now();
      for (const size of ['small', 'large'] as const) {
        const bytes = await makeThumbnail((await store.get('photo.jpg'))!, size);
        await store.put(`thumb-${size}.webp`, bytes);
      }
      if (i >= 2) timings.ms.push(performance.now() - started);
    }
    report.latency('thumbnails (small + large) of 12 MP', timings, [{ stat: 'p50', ms: 500 }]);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

await uploads();
await thumbnails();
process.exitCode = report.invalid ? 1 : 0;
