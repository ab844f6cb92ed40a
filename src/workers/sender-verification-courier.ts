// The sender verification courier: sends the codes accounts asked for to prove their numbers
// (src/senders/verification.ts), through the service's own providers. Polled every second at most,
// and woken when the senders read model advances.
import { sendersAwaitingCode } from '../../projections/senders.ts';
import type { Engage } from '../context.ts';
import { deliverVerificationCode, type ServiceProviders } from '../senders/verification.ts';
import { OwnWrites, WorkerLoop } from './loop.ts';

export class SenderVerificationCourier extends WorkerLoop {
  private readonly ownWrites = new OwnWrites();

  constructor(
    private readonly engage: Engage,
    private readonly providers: ServiceProviders,
    intervalMs = 1000,
  ) {
    super(engage, { name: 'sender verification courier', idleMs: intervalMs, wakeOnAdvanceOf: 'senders' });
  }

  protected async round(): Promise<number> {
    // a request this courier served must have left the queue before it is read again
    await this.ownWrites.visibleIn(this.engage.runner, 'senders');
    let served = 0;
    for (const s of await sendersAwaitingCode(this.engage.pool, 10)) {
      if (this.stopped) break;
      const written = await deliverVerificationCode(this.engage, this.providers, s.id, s.account_id);
      if (written) {
        this.ownWrites.note([written]);
        served++;
      }
    }
    return served;
  }
}
