// The campaign sender: sends the campaigns that are due (created to be sent now, or scheduled and
// fallen due; polled every second at most, and woken when the campaigns read model advances), one
// after another. A send that stopped (a crash, a restart) is picked up again where its last batch
// ended (src/campaigns/service.ts sendCampaign).
import { campaignsToSend } from '../../projections/campaigns.ts';
import { sendCampaign } from '../campaigns/service.ts';
import type { Engage } from '../context.ts';
import { OwnWrites, WorkerLoop } from './loop.ts';

export class CampaignSender extends WorkerLoop {
  private readonly ownWrites = new OwnWrites();

  constructor(
    private readonly engage: Engage,
    intervalMs = 1000,
  ) {
    super(engage, { name: 'campaign sender', idleMs: intervalMs, wakeOnAdvanceOf: 'campaigns' });
  }

  protected async round(): Promise<number> {
    // a campaign this sender finished must have left the queue before it is read again
    await this.ownWrites.visibleIn(this.engage.runner, 'campaigns');
    const due = await campaignsToSend(this.engage.pool, this.engage.clock.now(), 10);
    for (const c of due) {
      if (this.stopped) break;
      const position = await sendCampaign(this.engage, c.id, { accountId: c.account_id, actor: 'campaign-sender' });
      this.ownWrites.note([{ position }]);
    }
    return due.length;
  }
}
