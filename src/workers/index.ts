// Background workers that run beside the API in `engage serve`, or alone in `engage worker`.
import type { Engage } from '../context.ts';
import { type Messaging, startMessaging } from './messaging.ts';

export interface Workers {
  messaging?: Messaging;
  stop(): Promise<void>;
}

export async function startWorkers(engage: Engage): Promise<Workers> {
  if (!engage.config.WORKERS_ENABLED) return { stop: async () => undefined };
  const messaging = await startMessaging(engage);
  return {
    messaging,
    async stop() {
      await messaging.stop();
    },
  };
}
