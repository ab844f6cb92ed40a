// Background workers that run beside the API in `engage serve`, or alone in `engage worker`.
import type { Engage } from '../context.ts';

export interface Workers {
  stop(): Promise<void>;
}

type WorkerFactory = (engage: Engage) => Promise<Workers>;
const factories: WorkerFactory[] = [];

/** Later areas (scheduler, dispatcher, webhook sender) register their workers here. */
export function registerWorker(factory: WorkerFactory): void {
  factories.push(factory);
}

export async function startWorkers(engage: Engage): Promise<Workers> {
  const running: Workers[] = [];
  for (const f of factories) running.push(await f(engage));
  return {
    async stop() {
      await Promise.allSettled(running.map((w) => w.stop()));
    },
  };
}
