// Background workers that run beside the API in `engage serve`, or alone in `engage worker`.
import type { Engage } from '../context.ts';
import { BulkIntakeSweeper } from './bulk-intake-sweeper.ts';
import { CampaignSender } from './campaign-sender.ts';
import { FormSubmissionSweeper } from './form-submission-sweeper.ts';
import { ImportWorker } from './imports.ts';
import { type Messaging, startMessaging } from './messaging.ts';
import { WebhookSender } from './webhook-sender.ts';
import { WebhookReplayer } from './webhook-replayer.ts';
import { SenderVerificationCourier } from './sender-verification-courier.ts';
import { type InboundSmtp, startInboundSmtp } from '../conversations/smtp-listener.ts';

export interface Workers {
  messaging?: Messaging;
  webhooks?: WebhookSender;
  replays?: WebhookReplayer;
  campaigns?: CampaignSender;
  imports?: ImportWorker;
  /** sends the codes that prove senders' numbers, through the service's own providers */
  senderCodes?: SenderVerificationCourier;
  /** appends the bulks a process accepted and left out of the log */
  bulkIntakes?: BulkIntakeSweeper;
  /** erases the form submissions nobody confirmed in time */
  formSubmissions?: FormSubmissionSweeper;
  /** the inbound SMTP listener, when INBOUND_SMTP_PORT is set */
  inboundSmtp?: InboundSmtp;
  stop(): Promise<void>;
}

export async function startWorkers(engage: Engage): Promise<Workers> {
  if (!engage.config.WORKERS_ENABLED) return { stop: async () => undefined };
  const messaging = await startMessaging(engage);
  const webhooks = new WebhookSender(engage);
  webhooks.start();
  const replays = new WebhookReplayer(engage);
  webhooks.onReplayAttempt(() => replays.noteAttempt());
  replays.onDeliveriesAdded(() => webhooks.wake());
  replays.start();
  const campaigns = new CampaignSender(engage);
  campaigns.start();
  const imports = new ImportWorker(engage);
  imports.start();
  const senderCodes = new SenderVerificationCourier(engage, messaging.providers);
  senderCodes.start();
  const bulkIntakes = new BulkIntakeSweeper(engage);
  bulkIntakes.start();
  const formSubmissions = new FormSubmissionSweeper(engage);
  formSubmissions.start();
  const port = engage.config.INBOUND_SMTP_PORT;
  const inboundSmtp = port === undefined ? undefined : await startInboundSmtp(engage, port, engage.config.INBOUND_SMTP_HOST);
  return {
    messaging,
    webhooks,
    replays,
    campaigns,
    imports,
    senderCodes,
    bulkIntakes,
    formSubmissions,
    inboundSmtp,
    async stop() {
      await inboundSmtp?.close();
      await Promise.all([messaging.stop(), webhooks.stop(), replays.stop(), campaigns.stop(), imports.stop(), senderCodes.stop(), bulkIntakes.stop(), formSubmissions.stop()]);
    },
  };
}
