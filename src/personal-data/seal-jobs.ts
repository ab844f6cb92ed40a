// Sealing a large batch's personal data on the CPU work threads (src/cpu-work): a bulk of 10,000
// messages is 10,000 AES-GCM seals, which on the event loop held up every other request and the read
// models (README "The write path"). The keys are made and read as before, here; only the sealing
// moves. The result is the same as sealing here (sealJobs, the same function, runs in the thread).
import type { CpuWork } from '../cpu-work/pool.ts';
import { type SealJob, type SealMany, sealJobs } from './codec.ts';

/** Events sealed per CPU work task: a few ms of work each, so slices spread across the threads. */
const SEAL_SLICE = 1000;

/**
 * A SealMany that seals a batch of more than SEAL_SLICE events on the CPU work threads, after the
 * requests' tasks waiting there: the batches it seals (a bulk's, a campaign's) were answered already.
 */
export function sealOnThreads(cpu: CpuWork): SealMany {
  // each key copied to its own 32 bytes: a key read from Postgres is a view into a shared slab, and
  // a view crosses to a thread with the whole buffer under it (8 KiB a key)
  const input = (slice: SealJob[]) => slice.map((j) => (j.key ? { ...j, key: new Uint8Array(j.key) } : j));
  return (jobs) => cpu.runSlices('sealPersonalData', jobs, SEAL_SLICE, input, sealJobs, 'background');
}

export type { SealJob };
