// GET …/:id/history for contacts, lists, segments, templates, webhook endpoints, API keys and email domains:
// the resource's audit trail from its stream (src/audit/history.ts), for the account that owns it.
import { z } from 'zod';
import { accountStream } from '../../../commands/account.ts';
import { contactStream } from '../../../commands/contact.ts';
import { emailDomainStream } from '../../../commands/email-domain.ts';
import { listStream } from '../../../commands/list.ts';
import { formStream } from '../../../commands/form.ts';
import { segmentStream } from '../../../commands/segment.ts';
import { templateStream } from '../../../commands/template.ts';
import { webhookEndpointStream } from '../../../commands/webhook-endpoint.ts';
import { historyOf, type HistorySource } from '../../audit/history.ts';
import type { RecordedEvent } from '../../eventstore/port.ts';
import type { AppDeps } from '../deps.ts';
import { pageQuery } from '../common.ts';
import { Page } from '../openapi.ts';
import type { Scope } from '../../../commands/account.ts';
import { type AnyRoute, defineRoute } from '../route.ts';

const IdParams = z.object({ id: z.string().min(1).max(64) });
const HistoryQuery = z.strictObject(pageQuery);

/** One change of a resource (historyOf's entries). */
const HistoryEntryOut = z
  .object({
    revision: z.int().describe("the event's place in the resource's stream, from 0"),
    position: z.string().describe("the event's position in the log"),
    at: z.string().meta({ format: 'date-time' }),
    type: z.string().describe('the event type, e.g. ContactUpdated'),
    actor: z.string().nullable().describe('who made the change: an API key id, a user id, system, …'),
    request_id: z.string().nullable().describe('the X-Request-Id of the request that made it'),
    changes: z.record(z.string(), z.unknown()).describe('the fields the event recorded; secrets show as [secret], erased personal data as [erased]'),
  })
  .meta({ id: 'HistoryEntry', description: 'One change of a resource' });

const keyEvent = (keyId: string) => (e: RecordedEvent) => (e.data as { key_id?: string } | null)?.key_id === keyId;

interface HistoryRoute {
  url: string;
  operationId: string;
  tag: string;
  resource: string;
  /** API keys and email domains are settings: reading their history needs what reading them needs */
  scope?: Scope;
  source(accountId: string, id: string): Omit<HistorySource, 'resource'>;
}

const ROUTES: HistoryRoute[] = [
  { url: '/v1/contacts/:id/history', operationId: 'listContactHistory', tag: 'contacts', resource: 'contact', source: (_a, id) => ({ stream: contactStream(id) }) },
  { url: '/v1/lists/:id/history', operationId: 'listListHistory', tag: 'lists', resource: 'list', source: (_a, id) => ({ stream: listStream(id) }) },
  { url: '/v1/segments/:id/history', operationId: 'listSegmentHistory', tag: 'segments', resource: 'segment', source: (_a, id) => ({ stream: segmentStream(id) }) },
  { url: '/v1/forms/:id/history', operationId: 'listFormHistory', tag: 'forms', resource: 'form', source: (_a, id) => ({ stream: formStream(id) }) },
  { url: '/v1/templates/:id/history', operationId: 'listTemplateHistory', tag: 'templates', resource: 'template', source: (_a, id) => ({ stream: templateStream(id) }) },
  { url: '/v1/webhook-endpoints/:id/history', operationId: 'listWebhookEndpointHistory', tag: 'webhooks', resource: 'webhook endpoint', source: (_a, id) => ({ stream: webhookEndpointStream(id) }) },
  {
    url: '/v1/account/api-keys/:id/history',
    operationId: 'listApiKeyHistory',
    tag: 'account',
    resource: 'api key',
    scope: 'settings',
    source: (accountId, id) => ({ stream: accountStream(accountId), concerns: keyEvent(id) }),
  },
  { url: '/v1/account/email-domains/:id/history', operationId: 'listEmailDomainHistory', tag: 'email domains', resource: 'email domain', source: (_a, id) => ({ stream: emailDomainStream(id) }) },
];

export function historyRoutes({ engage }: AppDeps): AnyRoute[] {
  return ROUTES.map((r) =>
    defineRoute({
      method: 'GET',
      url: r.url,
      auth: 'key_or_login',
      ...(r.scope ? { scope: r.scope } : {}),
      operationId: r.operationId,
      summary: `Every change to the ${r.resource}, oldest first: time, event type, actor, request id and the fields changed`,
      tags: [r.tag],
      params: IdParams,
      query: HistoryQuery,
      responses: { 200: Page(HistoryEntryOut).describe('oldest first; next_cursor is the last revision shown') },
      async handler({ params, query, auth }) {
        return historyOf(engage, auth.accountId, { resource: r.resource, ...r.source(auth.accountId, params.id) }, query);
      },
    }),
  );
}
