// Messages (README "Messaging"): the history with its filters (status, channel, recipient, time
// range) over cursor pages, a form to send one message, and a message's own page: its id and status
// as text (README "The dashboard"), content, times and timeline, followed by polling until the
// status is final, with Cancel (a scheduled or queued message not yet picked up) and Resend.
import { type FormEvent, useId, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { ApiFailure, type components, must } from '../api.ts';
import { Checkbox, ConfirmButton, type Column, DataTable, ErrorNote, Fact, FilterButtons, IdLink, Loading, Notice, PageHeader, Pager, SelectField, Status, StatusFact, TextArea, TextField, useCursor } from '../components/ui.tsx';
import { CHANNELS, type Channel, channelOption, formatTime, instantOf } from '../format.ts';
import { useAction, useLoad } from '../hooks.ts';
import { useSession } from '../session.tsx';
import './Messages.css';

type Message = components['schemas']['Message'];
type MessageStatus = Message['status'];
type TimelineEvent = components['schemas']['MessageTimeline']['events'][number];

const STATUSES: readonly MessageStatus[] = ['scheduled', 'queued', 'sent', 'delivered', 'failed', 'cancelled'];
/** Statuses a message leaves on its own: its page polls while it has one of them. */
const MOVING: readonly MessageStatus[] = ['scheduled', 'queued', 'sent'];
/** Statuses the API may still cancel from (README "Messaging"). */
const CANCELLABLE: readonly MessageStatus[] = ['scheduled', 'queued'];
/** How often a message's page looks again: soon while it moves, less often while it waits for its time. */
const POLL_MS = 1500;
const SCHEDULED_POLL_MS = 5000;
const PAGE_SIZE = 25;


// ---------------------------------------------------------------------------------------------
// the list

interface Filters {
  status: MessageStatus | '';
  channel: Channel | '';
  to: string;
  from: string;
  until: string;
}

const NO_FILTERS: Filters = { status: '', channel: '', to: '', from: '', until: '' };

function HistoryFilters({ applied, onApply }: { applied: Filters; onApply: (filters: Filters) => void }) {
  const [draft, setDraft] = useState(applied);
  const set = <K extends keyof Filters>(key: K) => (value: Filters[K]) => setDraft((d) => ({ ...d, [key]: value }));
  function submit(event: FormEvent) {
    event.preventDefault();
    onApply(draft);
  }
  return (
    <form className="message-filters row" aria-label="Filter messages" onSubmit={submit}>
      <SelectField<MessageStatus | ''> label="Status" value={draft.status} options={[{ value: '', label: 'Any status' }, ...STATUSES]} onChange={set('status')} />
      <SelectField<Channel | ''> label="Channel" value={draft.channel} options={[{ value: '', label: 'Any channel' }, ...CHANNELS.map(channelOption)]} onChange={set('channel')} />
      <TextField label="Recipient" value={draft.to} onChange={set('to')} placeholder="address or number" />
      <TextField label="Created from" type="datetime-local" value={draft.from} onChange={set('from')} />
      <TextField label="Created until" type="datetime-local" value={draft.until} onChange={set('until')} />
      <FilterButtons
        onClear={() => {
          setDraft(NO_FILTERS);
          onApply(NO_FILTERS);
        }}
      />
    </form>
  );
}

const COLUMNS: Column<Message>[] = [
  {
    header: 'Message',
    cell: (m) => <IdLink to={`/messages/${m.id}`} id={m.id} />,
  },
  { header: 'Recipient', cell: (m) => m.to },
  { header: 'Channel', cell: (m) => m.channel },
  { header: 'Status', cell: (m) => <Status value={m.status} /> },
  { header: 'Created', cell: (m) => formatTime(m.created_at) },
];

function MessageHistory() {
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  const pages = useCursor();
  const history = useLoad(
    (client) =>
      must(
        client.GET('/v1/messages/history', {
          params: {
            query: {
              limit: PAGE_SIZE,
              ...(pages.cursor ? { cursor: pages.cursor } : {}),
              ...(filters.status ? { status: filters.status } : {}),
              ...(filters.channel ? { channel: filters.channel } : {}),
              ...(filters.to.trim() ? { to: filters.to.trim() } : {}),
              ...(instantOf(filters.from) ? { from: instantOf(filters.from) } : {}),
              ...(instantOf(filters.until) ? { until: instantOf(filters.until) } : {}),
            },
          },
        }),
      ),
    [pages.cursor, filters],
  );
  return (
    <section aria-labelledby="history-heading">
      <h2 id="history-heading">History</h2>
      <HistoryFilters
        applied={filters}
        onApply={(next) => {
          setFilters(next);
          pages.reset();
        }}
      />
      <ErrorNote error={history.error} />
      {history.data ? (
        <>
          <DataTable caption="Messages, newest first" columns={COLUMNS} rows={history.data.data} rowKey={(m) => m.id} empty="No messages match." />
          <Pager hasNext={Boolean(history.data.next_cursor)} hasPrevious={pages.hasPrevious} onNext={() => pages.next(history.data?.next_cursor)} onPrevious={pages.previous} />
          <p>
            <button type="button" onClick={history.reload} disabled={history.loading}>
              Refresh
            </button>
          </p>
        </>
      ) : history.error ? null : (
        <Loading what="Loading messages" />
      )}
    </section>
  );
}

// ---------------------------------------------------------------------------------------------
// sending

function SendForm() {
  const navigate = useNavigate();
  const send = useAction();
  const [channel, setChannel] = useState<Channel>('email');
  const [to, setTo] = useState('');
  const [subject, setSubject] = useState('');
  const [text, setText] = useState('');
  const [transactional, setTransactional] = useState(false);
  const [sendAt, setSendAt] = useState('');
  const headingId = useId();

  async function submit(event: FormEvent) {
    event.preventDefault();
    const scheduledAt = instantOf(sendAt);
    const accepted = await send.run((client) =>
      must(
        client.POST('/v1/messages/send', {
          body: {
            channel,
            to: to.trim(),
            message: text,
            ...(channel === 'email' && subject ? { subject } : {}),
            ...(transactional ? { transactional: true } : {}),
            ...(scheduledAt ? { scheduled_at: scheduledAt } : {}),
          },
        }),
      ),
    );
    if (accepted) navigate(`/messages/${accepted.id}`);
  }

  return (
    <section className="card" aria-labelledby={headingId}>
      <h2 id={headingId}>Send a message</h2>
      <form className="stack" aria-labelledby={headingId} onSubmit={submit}>
        <SelectField<Channel> label="Channel" value={channel} options={CHANNELS.map(channelOption)} onChange={setChannel} />
        <TextField
          label="To"
          value={to}
          onChange={setTo}
          required
          hint={channel === 'email' ? 'An email address' : channel === 'push' ? 'A device token' : 'A phone number in E.164, e.g. +14155550123'}
        />
        {channel === 'email' ? <TextField label="Subject" value={subject} onChange={setSubject} /> : null}
        <TextArea label="Message text" value={text} onChange={setText} required />
        <Checkbox label="Transactional (a receipt or a one-time code: no marketing hold applies)" checked={transactional} onChange={setTransactional} />
        <TextField label="Send at" type="datetime-local" value={sendAt} onChange={setSendAt} hint="Leave empty to send now" />
        <ErrorNote error={send.error} />
        <div>
          <button type="submit" className="primary" disabled={send.pending}>
            Send message
          </button>
        </div>
      </form>
    </section>
  );
}

export function MessagesPage() {
  const { can } = useSession();
  return (
    <>
      <PageHeader title="Messages" />
      {can('write') ? <SendForm /> : null}
      <MessageHistory />
    </>
  );
}

// ---------------------------------------------------------------------------------------------
// one message



const EVENT_NAMES: Record<TimelineEvent['type'], string> = {
  MessageAccepted: 'Accepted',
  MessageQueued: 'Queued',
  MessageCancelled: 'Cancelled',
  MessageDispatching: 'Handed to the dispatcher',
  MessageHeld: 'Held by the sending policy',
  MessageDispatchDeferred: 'Dispatch deferred',
  MessageSent: 'Sent',
  MessageDelivered: 'Delivered',
  MessageFailed: 'Failed',
  MessageLinkClicked: 'Link clicked',
  MessageOpened: 'Opened',
};

function eventDetails(event: TimelineEvent): string[] {
  const d = event.details;
  const out: string[] = [];
  if (event.reason) out.push(`reason: ${event.reason}`);
  if (d.provider) out.push(`provider: ${d.provider}`);
  if (d.provider_message_id) out.push(`provider message id: ${d.provider_message_id}`);
  if (d.attempt !== undefined) out.push(`attempt ${d.attempt}`);
  if (d.until) out.push(`until ${formatTime(d.until)}`);
  if (d.retry_at) out.push(`retry at ${formatTime(d.retry_at)}`);
  if (d.scheduled_at) out.push(`scheduled for ${formatTime(d.scheduled_at)}`);
  if (d.detail) out.push(d.detail);
  if (d.url) out.push(d.url);
  if (event.actor) out.push(`by ${event.actor}`);
  return out;
}

function Timeline({ events }: { events: TimelineEvent[] }) {
  if (!events.length) return <p className="empty">No events yet.</p>;
  return (
    <ol className="timeline" aria-label="Timeline">
      {events.map((event) => {
        const details = eventDetails(event);
        return (
          <li key={event.revision}>
            <strong>{EVENT_NAMES[event.type] ?? event.type}</strong>
            {event.status ? (
              <>
                {' '}
                → <Status value={event.status} />
              </>
            ) : null}{' '}
            <time dateTime={event.at}>{formatTime(event.at)}</time>
            {details.length ? <div className="hint">{details.join(' · ')}</div> : null}
          </li>
        );
      })}
    </ol>
  );
}

function MessageFacts({ message }: { message: Message }) {
  return (
    <dl className="facts" aria-label="Message">
      <Fact term="ID">
        <code>{message.id}</code>
      </Fact>
      <StatusFact value={message.status} />
      {message.held ? (
        <Fact term="Held">
          {message.held.reason}
          {message.held.until ? `, until ${formatTime(message.held.until)}` : ''}
        </Fact>
      ) : null}
      {message.reason ? <Fact term="Reason">{message.reason}</Fact> : null}
      <Fact term="Channel">{message.channel}</Fact>
      <Fact term="Recipient">{message.to}</Fact>
      {message.sender ? <Fact term="Sender">{message.sender}</Fact> : null}
      {message.from_name ? <Fact term="From name">{message.from_name}</Fact> : null}
      {message.reply_to ? <Fact term="Reply to">{message.reply_to}</Fact> : null}
      <Fact term="Transactional">{message.transactional ? 'yes' : 'no'}</Fact>
      {message.category ? <Fact term="Category">{message.category}</Fact> : null}
      {message.resend_of ? (
        <Fact term="Resend of">
          <Link to={`/messages/${message.resend_of}`}>
            <code>{message.resend_of}</code>
          </Link>
        </Fact>
      ) : null}
      <Fact term="Provider">{message.provider ?? '—'}</Fact>
      {message.provider_message_id ? (
        <Fact term="Provider message ID">
          <code>{message.provider_message_id}</code>
        </Fact>
      ) : null}
      <Fact term="Attempts">{message.attempts}</Fact>
      <Fact term="Created">{formatTime(message.created_at)}</Fact>
      {message.scheduled_at ? <Fact term="Scheduled for">{formatTime(message.scheduled_at)}</Fact> : null}
      {message.queued_at ? <Fact term="Queued">{formatTime(message.queued_at)}</Fact> : null}
      {message.sent_at ? <Fact term="Sent">{formatTime(message.sent_at)}</Fact> : null}
      {message.delivered_at ? <Fact term="Delivered">{formatTime(message.delivered_at)}</Fact> : null}
      {message.failed_at ? <Fact term="Failed">{formatTime(message.failed_at)}</Fact> : null}
      {message.cancelled_at ? <Fact term="Cancelled">{formatTime(message.cancelled_at)}</Fact> : null}
    </dl>
  );
}

function MessageContent({ message }: { message: Message }) {
  return (
    <section className="card" aria-labelledby="content-heading">
      <h2 id="content-heading">Content</h2>
      {message.subject !== undefined ? (
        <p>
          <strong>Subject:</strong> {message.subject}
        </p>
      ) : null}
      <div className="message-text">{message.message}</div>
      {message.htmlmessage ? (
        <details>
          <summary>HTML version (as source)</summary>
          <pre className="message-html">{message.htmlmessage}</pre>
        </details>
      ) : null}
      {message.webhook_url ? (
        <p className="hint">
          Status webhook: <code>{message.webhook_url}</code>
        </p>
      ) : null}
    </section>
  );
}

/** Cancel and Resend, for a role that may write; a refusal shows the API's message. */
function MessageActions({ message, onChanged }: { message: Message; onChanged: () => void }) {
  const navigate = useNavigate();
  const cancel = useAction();
  const resend = useAction();
  const [cancelled, setCancelled] = useState(false);
  return (
    <>
      <div className="message-actions row">
        {CANCELLABLE.includes(message.status) ? (
          <ConfirmButton
            label="Cancel message"
            title="Cancel this message?"
            confirmLabel="Yes, cancel it"
            dismissLabel="Keep it"
            danger
            onConfirm={async () => {
              const done = await cancel.run((client) => must(client.DELETE('/v1/messages/{id}', { params: { path: { id: message.id } } })));
              if (done) setCancelled(true);
              onChanged();
            }}
          >
            <p>
              The message to {message.to} will not be sent. A message already picked up for dispatch can no longer be cancelled.
            </p>
          </ConfirmButton>
        ) : null}
        <ConfirmButton
          label="Resend"
          title="Resend this message?"
          confirmLabel="Send it again"
          onConfirm={async () => {
            const accepted = await resend.run((client) => must(client.POST('/v1/messages/{id}/resend', { params: { path: { id: message.id } }, body: {} })));
            if (accepted) navigate(`/messages/${accepted.id}`);
          }}
        >
          <p>A new message with the same content goes to {message.to}.</p>
        </ConfirmButton>
      </div>
      {cancelled && message.status === 'cancelled' ? <Notice>The message was cancelled.</Notice> : null}
      <ErrorNote error={cancel.error} />
      <ErrorNote error={resend.error} />
    </>
  );
}

export function MessagePage() {
  const { id = '' } = useParams();
  const { can } = useSession();
  const [pollMs, setPollMs] = useState<number | undefined>(POLL_MS);
  const loaded = useLoad(
    async (client) => {
      const [message, timeline] = await Promise.all([
        must(client.GET('/v1/messages/{id}', { params: { path: { id } } })),
        must(client.GET('/v1/messages/{id}/timeline', { params: { path: { id } } })),
      ]).catch((err: unknown) => {
        // no such message: nothing to follow (any other failure is tried again)
        if (err instanceof ApiFailure && err.status === 404) setPollMs(undefined);
        throw err;
      });
      setPollMs(message.status === 'scheduled' ? SCHEDULED_POLL_MS : MOVING.includes(message.status) ? POLL_MS : undefined);
      return { message, timeline };
    },
    [id],
    pollMs,
  );
  const message = loaded.data?.message.id === id ? loaded.data.message : undefined;
  const timeline = message ? loaded.data?.timeline : undefined;
  return (
    <>
      <PageHeader title="Message">
        <Link to="/messages">All messages</Link>
      </PageHeader>
      <ErrorNote error={loaded.error} />
      {message && timeline ? (
        <>
          {can('write') ? <MessageActions key={message.id} message={message} onChanged={loaded.reload} /> : null}
          <section className="card" aria-labelledby="facts-heading">
            <h2 id="facts-heading">Details</h2>
            <MessageFacts message={message} />
          </section>
          <MessageContent message={message} />
          <section className="card" aria-labelledby="timeline-heading">
            <h2 id="timeline-heading">Timeline</h2>
            <Timeline events={timeline.events} />
          </section>
        </>
      ) : loaded.error ? null : (
        <Loading what="Loading the message" />
      )}
    </>
  );
}
