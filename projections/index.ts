// Every read model the service keeps, in one list for the runner and the CLI.
import type { Projection } from '../src/read-models/projection.ts';
import { authProjection } from './auth.ts';
import { campaignsProjection } from './campaigns.ts';
import { contactEventsProjection } from './contact-events.ts';
import { conversationsProjection } from './conversations.ts';
import { contactsProjection } from './contacts.ts';
import { customFieldsProjection } from './custom-fields.ts';
import { formsProjection } from './forms.ts';
import { importsProjection } from './imports.ts';
import { listsProjection } from './lists.ts';
import { pushDevicesProjection } from './push-devices.ts';
import { messagesProjection } from './messages.ts';
import { replyRoutesProjection } from './reply-routes.ts';
import { segmentsProjection } from './segments.ts';
import { sendersProjection } from './senders.ts';
import { emailDomainsProjection } from './email-domains.ts';
import { integrationsProjection } from './integrations.ts';
import { linkDomainsProjection } from './link-domains.ts';
import { billingProjection } from './billing.ts';
import { analyticsProjection } from './analytics.ts';
import { listGrowthProjection } from './list-growth.ts';
import { suppressionsProjection } from './suppressions.ts';
import { trackingProjection } from './tracking.ts';
import { webhookOutboxProjection } from './webhook-outbox.ts';
import { aiProjection } from './ai.ts';
import { templatesProjection } from './templates.ts';

export const ALL_PROJECTIONS: Projection[] = [
  authProjection, campaignsProjection, contactEventsProjection, contactsProjection, customFieldsProjection, importsProjection, listsProjection,
  messagesProjection, segmentsProjection, conversationsProjection, replyRoutesProjection, suppressionsProjection, trackingProjection, webhookOutboxProjection,
  sendersProjection, emailDomainsProjection, integrationsProjection, linkDomainsProjection, billingProjection, analyticsProjection, listGrowthProjection, aiProjection,
  templatesProjection, pushDevicesProjection, formsProjection,
];

export function findProjection(name: string): Projection | undefined {
  return ALL_PROJECTIONS.find((p) => p.name === name);
}
