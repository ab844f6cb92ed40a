// Campaigns (README "Campaigns"): the account's campaigns, newest first and filtered by status; a form
// that sends one message to every member of a segment or a list, now or at a chosen time; and a
// campaign's page with its status and its messages counted by status, refreshed until its send and
// its messages have settled, where a scheduled campaign can be cancelled.
import { type FormEvent, useEffect, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { type components, type EngageClient, must } from '../api.ts';
import {
  Checkbox,
  type Column,
  ConfirmButton,
  DataTable,
  ErrorNote,
  Loading,
  Notice,
  PageHeader,
  Pager,
  Progress,
  SelectField,
  Status,
  TextArea,
  TextField,
  useCursor,
} from '../components/ui.tsx';
import { channelOption, formatNumber, formatTime, instantOf } from '../format.ts';
import { useAction, useLoad } from '../hooks.ts';
import { useSession } from '../session.tsx';
import './Campaigns.css';

type Campaign = components['schemas']['Campaign'];
type CampaignStatus = Campaign['status'];
type Segment = components['schemas']['Segment'];
type List = components['schemas']['List'];
/** The channels a campaign sends on: all six (a push goes to each member's devices). */
type CampaignChannel = Campaign['channel'];
type Audience = Campaign['audience'];

const CAMPAIGN_CHANNELS = (['email', 'sms', 'rcs', 'whatsapp', 'voice', 'push'] as const satisfies readonly CampaignChannel[]).map(channelOption);
const STATUSES: readonly CampaignStatus[] = ['scheduled', 'sending', 'sent', 'cancelled', 'failed'];
const POLL_MS = 2000;

/** The body of POST /v1/campaigns: the campaign's fields and its message template (README "Campaigns"). */
type CampaignBody = components['schemas']['CampaignBodyInput'];

/** Every segment and list of the account (their lists page; a campaign may go to any of them). */
async function loadAudiences(client: EngageClient): Promise<{ segments: Segment[]; lists: List[] }> {
  const segments: Segment[] = [];
  const lists: List[] = [];
  for await (const segment of client.paginate('/v1/segments', { query: { limit: 500 } })) segments.push(segment);
  for await (const list of client.paginate('/v1/lists', { query: { limit: 500 } })) lists.push(list);
  return { segments, lists };
}

function audienceText(audience: Audience, names?: { segments: Segment[]; lists: List[] }): string {
  if ('segment_id' in audience) {
    const segment = names?.segments.find((s) => s.id === audience.segment_id);
    return `Segment ${segment ? segment.name : audience.segment_id}`;
  }
  const list = names?.lists.find((l) => l.id === audience.list_id);
  return `List ${list ? list.name : audience.list_id}`;
}

/** The form's Send at, a day from now, as a datetime-local value. */
function tomorrowLocal(): string {
  const t = new Date(Date.now() + 24 * 3600 * 1000);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${t.getFullYear()}-${pad(t.getMonth() + 1)}-${pad(t.getDate())}T${pad(t.getHours())}:${pad(t.getMinutes())}`;
}

function NewCampaignForm({ audiences }: { audiences?: { segments: Segment[]; lists: List[] } }) {
  const navigate = useNavigate();
  const action = useAction();
  const [name, setName] = useState('');
  const [kind, setKind] = useState<'segment' | 'list'>('segment');
  const [audienceId, setAudienceId] = useState('');
  const [channel, setChannel] = useState<CampaignChannel>('email');
  const [subject, setSubject] = useState('');
  const [message, setMessage] = useState('');
  const [html, setHtml] = useState('');
  const [sender, setSender] = useState('');
  const [later, setLater] = useState(false);
  const [sendAt, setSendAt] = useState(tomorrowLocal);

  const choices = kind === 'segment' ? (audiences?.segments ?? []).map((s) => ({ value: s.id, label: `${s.name} (${formatNumber(s.count)} contacts)` })) : (audiences?.lists ?? []).map((l) => ({ value: l.id, label: `${l.name} (${formatNumber(l.member_count)} contacts)` }));

  async function submit(e: FormEvent) {
    e.preventDefault();
    const scheduledAt = later ? instantOf(sendAt) : undefined;
    const body: CampaignBody = {
      name,
      audience: kind === 'segment' ? { segment_id: audienceId } : { list_id: audienceId },
      channel,
      message,
      ...(channel === 'email' && subject ? { subject } : {}),
      ...(channel === 'email' && html ? { htmlmessage: html } : {}),
      ...(sender ? { sender } : {}),
      // a time the browser cannot read goes as written, for the API to name the field
      ...(later ? { scheduled_at: scheduledAt ?? sendAt } : {}),
    };
    const created = await action.run((client) => must(client.POST('/v1/campaigns', { body })));
    if (created) navigate(`/campaigns/${created.id}`);
  }

  return (
    <section className="card" aria-labelledby="new-campaign">
      <h2 id="new-campaign">New campaign</h2>
      <form className="stack" onSubmit={submit}>
        <TextField label="Name" value={name} onChange={setName} required />
        <div className="row">
          <SelectField
            label="Audience"
            value={kind}
            options={[
              { value: 'segment', label: 'A segment' },
              { value: 'list', label: 'A list' },
            ]}
            onChange={(k) => {
              setKind(k);
              setAudienceId('');
            }}
          />
          <SelectField
            label={kind === 'segment' ? 'Segment' : 'List'}
            value={audienceId}
            options={[{ value: '', label: kind === 'segment' ? 'Choose a segment' : 'Choose a list' }, ...choices]}
            onChange={setAudienceId}
            hint={audiences && !choices.length ? `There is no ${kind} yet.` : 'Its members are resolved when the campaign is sent.'}
          />
        </div>
        <SelectField label="Channel" value={channel} options={CAMPAIGN_CHANNELS} onChange={setChannel} hint="Each member is addressed from its contact's email (email), phone (sms, RCS, WhatsApp, voice) or push devices (push); a member without one is skipped." />
        {channel === 'email' ? <TextField label="Subject" value={subject} onChange={setSubject} required /> : null}
        <TextArea label="Message" value={message} onChange={setMessage} rows={5} required hint={channel === 'email' ? 'The plain text body.' : undefined} />
        {channel === 'email' ? <TextArea label="HTML message (optional)" value={html} onChange={setHtml} rows={4} /> : null}
        <TextField label="Sender (optional)" value={sender} onChange={setSender} hint={channel === 'email' ? 'An address on a domain you verified signs the mail.' : 'A sender of the account for this channel.'} />
        <Checkbox label="Schedule for later" checked={later} onChange={setLater} />
        {later ? <TextField label="Send at" type="datetime-local" value={sendAt} onChange={setSendAt} required hint="Your local time; at most 365 days ahead." /> : null}
        <ErrorNote error={action.error} />
        <div className="row">
          <button type="submit" className="primary" disabled={action.pending || !audienceId}>
            {later ? 'Schedule campaign' : 'Send campaign'}
          </button>
        </div>
      </form>
    </section>
  );
}

export function CampaignsPage() {
  const { can } = useSession();
  const pages = useCursor();
  const [status, setStatus] = useState<CampaignStatus | ''>('');
  const [polling, setPolling] = useState(false);
  const campaigns = useLoad(
    (client) => must(client.GET('/v1/campaigns', { params: { query: { ...(pages.cursor ? { cursor: pages.cursor } : {}), ...(status ? { status } : {}) } } })),
    [pages.cursor, status],
    polling ? POLL_MS : undefined,
  );
  const audiences = useLoad(loadAudiences, []);
  // a campaign being sent changes on its own: the list refreshes until none is
  const running = campaigns.data?.data.some((c) => c.status === 'sending') ?? false;
  useEffect(() => setPolling(running), [running]);

  const columns: Column<Campaign>[] = [
    { header: 'Name', cell: (c) => <Link to={`/campaigns/${c.id}`}>{c.name}</Link> },
    { header: 'Status', cell: (c) => <Status value={c.status} /> },
    { header: 'Channel', cell: (c) => c.channel },
    { header: 'Audience', cell: (c) => audienceText(c.audience, audiences.data) },
    { header: 'Scheduled for', cell: (c) => formatTime(c.scheduled_at) },
    { header: 'Accepted', cell: (c) => formatNumber(c.accepted) },
    { header: 'Created', cell: (c) => formatTime(c.created_at) },
  ];

  return (
    <>
      <PageHeader title="Campaigns" />
      <ErrorNote error={audiences.error} />
      {can('write') ? <NewCampaignForm audiences={audiences.data} /> : null}
      <section aria-labelledby="campaign-list">
        <h2 id="campaign-list">All campaigns</h2>
        <div className="row">
          <SelectField
            label="Status"
            value={status}
            options={[{ value: '', label: 'Any status' }, ...STATUSES]}
            onChange={(s) => {
              setStatus(s);
              pages.reset();
            }}
          />
        </div>
        <ErrorNote error={campaigns.error} />
        {campaigns.data ? (
          <>
            <DataTable caption="Campaigns, newest first" columns={columns} rows={campaigns.data.data} rowKey={(c) => c.id} empty={status ? `No ${status} campaign.` : 'No campaign yet.'} />
            <Pager hasNext={Boolean(campaigns.data.next_cursor)} hasPrevious={pages.hasPrevious} onNext={() => pages.next(campaigns.data?.next_cursor)} onPrevious={pages.previous} />
          </>
        ) : campaigns.loading ? (
          <Loading what="Loading campaigns" />
        ) : null}
      </section>
    </>
  );
}

type CampaignWithCounts = NonNullable<Awaited<ReturnType<typeof loadCampaign>>>;
type MessageCounts = CampaignWithCounts['messages'];

async function loadCampaign(client: EngageClient, id: string) {
  return must(client.GET('/v1/campaigns/{id}', { params: { path: { id } } }));
}

/** Messages that have reached an end: delivered, failed or cancelled. */
const settledMessages = (m: MessageCounts) => m.delivered + m.failed + m.cancelled;
/** Messages still on their way: the page keeps refreshing while there are any. */
const movingMessages = (m: MessageCounts) => m.scheduled + m.queued + m.sent;
/** Sending or scheduled, or sent with messages still on their way. */
const isLive = (c: CampaignWithCounts) => c.status === 'sending' || c.status === 'scheduled' || (c.status === 'sent' && movingMessages(c.messages) > 0);

const MESSAGE_STATUSES: readonly { key: keyof MessageCounts; label: string }[] = [
  { key: 'scheduled', label: 'Scheduled' },
  { key: 'queued', label: 'Queued' },
  { key: 'sent', label: 'Sent' },
  { key: 'delivered', label: 'Delivered' },
  { key: 'failed', label: 'Failed' },
  { key: 'cancelled', label: 'Cancelled' },
];

/** The campaign's members accepted and skipped, and its messages by status: one row each. */
function CountsTable({ campaign }: { campaign: CampaignWithCounts }) {
  const rows = [
    { what: 'Accepted', hint: 'members sent a message', count: campaign.accepted },
    { what: 'Skipped', hint: 'members without an address on the channel', count: campaign.skipped },
    ...MESSAGE_STATUSES.map((s) => ({ what: s.label, hint: 'messages', count: campaign.messages[s.key] })),
  ];
  return (
    <DataTable
      caption="Counts"
      rows={rows}
      rowKey={(r) => r.what}
      columns={[
        { header: 'Count of', cell: (r) => r.what },
        { header: 'Number', cell: (r) => <span className="campaign-count">{formatNumber(r.count)}</span> },
        { header: 'What it counts', cell: (r) => r.hint },
      ]}
    />
  );
}

/** The name of the campaign's segment or list, linked; a deleted one says why it cannot be shown. */
function AudienceName({ audience }: { audience: Audience }) {
  const segmentId = 'segment_id' in audience ? audience.segment_id : undefined;
  const listId = 'list_id' in audience ? audience.list_id : undefined;
  const found = useLoad(
    async (client) =>
      segmentId
        ? (await must(client.GET('/v1/segments/{id}', { params: { path: { id: segmentId } } }))).name
        : (await must(client.GET('/v1/lists/{id}', { params: { path: { id: listId ?? '' } } }))).name,
    [segmentId, listId],
  );
  const kind = segmentId ? 'Segment' : 'List';
  const id = segmentId ?? listId ?? '';
  return (
    <>
      {kind} <Link to={segmentId ? `/segments/${id}` : `/lists/${id}`}>{found.data ?? id}</Link>
      {found.error ? <span className="hint"> ({found.error.message})</span> : null}
    </>
  );
}

function CampaignProgress({ campaign }: { campaign: CampaignWithCounts }) {
  if (campaign.status === 'sending') {
    return <Progress label={`Sending: ${formatNumber(campaign.accepted)} accepted, ${formatNumber(campaign.skipped)} skipped so far`} />;
  }
  if (campaign.status === 'sent' && movingMessages(campaign.messages) > 0) {
    return <Progress label="Messages settled" value={settledMessages(campaign.messages)} max={campaign.accepted} />;
  }
  return null;
}

export function CampaignPage() {
  const { id = '' } = useParams();
  const { can } = useSession();
  const [live, setLive] = useState(true);
  const loaded = useLoad((client) => loadCampaign(client, id), [id], live ? POLL_MS : undefined);
  const cancel = useAction();
  const [cancelled, setCancelled] = useState(false);
  const campaign = loaded.data;
  const stillLive = campaign ? isLive(campaign) : true;
  useEffect(() => setLive(stillLive), [stillLive]);

  if (!campaign) {
    return (
      <>
        <PageHeader title="Campaign" />
        <ErrorNote error={loaded.error} />
        {loaded.loading ? <Loading what="Loading the campaign" /> : null}
        <p>
          <Link to="/campaigns">All campaigns</Link>
        </p>
      </>
    );
  }

  return (
    <>
      <PageHeader title={`Campaign ${campaign.name}`}>
        {can('write') && campaign.status === 'scheduled' ? (
          <ConfirmButton
            label="Cancel campaign"
            title={`Cancel ${campaign.name}?`}
            confirmLabel="Cancel the campaign"
            danger
            onConfirm={async () => {
              const done = await cancel.run((client) => must(client.POST('/v1/campaigns/{id}/cancel', { params: { path: { id } } })));
              if (done) setCancelled(true);
              loaded.reload();
            }}
          >
            <p>It is scheduled for {formatTime(campaign.scheduled_at)}. Cancelled, none of its messages is sent.</p>
          </ConfirmButton>
        ) : null}
      </PageHeader>
      <p>
        <Link to="/campaigns">All campaigns</Link>
      </p>
      <ErrorNote error={cancel.error} />
      <ErrorNote error={loaded.error} />
      {cancelled ? <Notice>The campaign is cancelled.</Notice> : null}
      <section className="card" aria-labelledby="campaign-state">
        <h2 id="campaign-state">Status</h2>
        <p>
          Status: <Status value={campaign.status} />
        </p>
        <CampaignProgress campaign={campaign} />
        {campaign.failure_reason ? <p>Failed: {campaign.failure_reason}</p> : null}
        <CountsTable campaign={campaign} />
      </section>
      <section className="card" aria-labelledby="campaign-details">
        <h2 id="campaign-details">Details</h2>
        <dl className="facts">
          <dt>Audience</dt>
          <dd>
            <AudienceName audience={campaign.audience} />
          </dd>
          <dt>Channel</dt>
          <dd>{campaign.channel}</dd>
          {campaign.subject ? (
            <>
              <dt>Subject</dt>
              <dd>{campaign.subject}</dd>
            </>
          ) : null}
          {campaign.sender ? (
            <>
              <dt>Sender</dt>
              <dd>{campaign.sender}</dd>
            </>
          ) : null}
          <dt>Created</dt>
          <dd>{formatTime(campaign.created_at)}</dd>
          <dt>Scheduled for</dt>
          <dd>{formatTime(campaign.scheduled_at)}</dd>
          <dt>Send started</dt>
          <dd>{formatTime(campaign.started_at)}</dd>
          <dt>Sent</dt>
          <dd>{formatTime(campaign.sent_at)}</dd>
          {campaign.cancelled_at ? (
            <>
              <dt>Cancelled</dt>
              <dd>{formatTime(campaign.cancelled_at)}</dd>
            </>
          ) : null}
          {campaign.failed_at ? (
            <>
              <dt>Failed</dt>
              <dd>{formatTime(campaign.failed_at)}</dd>
            </>
          ) : null}
        </dl>
        <h3>Message</h3>
        <pre className="campaign-message">{campaign.message}</pre>
      </section>
    </>
  );
}
