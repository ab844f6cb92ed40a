// Conversations (README "Inbound messages and conversations"): the inbox, one conversation per
// contact and channel, newest activity first, filtered and paged; a conversation's thread of inbound
// and outbound messages with their times, a reply form, and closing, reopening or marking it read.
// Both refresh by polling, since contacts write in on their own.
import { type FormEvent, useId, useState } from 'react';
import { Link, useParams } from 'react-router';
import { ApiFailure, type components, must } from '../api.ts';
import { type Column, DataTable, ErrorNote, Fact, FilterButtons, IdLink, Loading, Notice, PageHeader, Pager, SelectField, Status, StatusFact, TextArea, TextField, useCursor } from '../components/ui.tsx';
import { formatNumber, formatTime } from '../format.ts';
import { useAction, useLoad } from '../hooks.ts';
import { useSession } from '../session.tsx';
import './Conversations.css';

type Conversation = components['schemas']['Conversation'];
type ThreadEntry = components['schemas']['ConversationMessage'];
type Channel = Conversation['channel'];

const CHANNELS: readonly Channel[] = ['sms', 'whatsapp', 'email'];
const INBOX_POLL_MS = 10_000;
const THREAD_POLL_MS = 4000;
const PAGE_SIZE = 25;
const THREAD_PAGE_SIZE = 100;


// ---------------------------------------------------------------------------------------------
// the inbox

interface InboxFilters {
  status: Conversation['status'] | '';
  channel: Channel | '';
  unread: 'true' | 'false' | '';
  assignee: string;
}

const NO_FILTERS: InboxFilters = { status: '', channel: '', unread: '', assignee: '' };

function InboxFilterForm({ applied, onApply }: { applied: InboxFilters; onApply: (filters: InboxFilters) => void }) {
  const [draft, setDraft] = useState(applied);
  const set = <K extends keyof InboxFilters>(key: K) => (value: InboxFilters[K]) => setDraft((d) => ({ ...d, [key]: value }));
  function submit(event: FormEvent) {
    event.preventDefault();
    onApply(draft);
  }
  return (
    <form className="inbox-filters row" aria-label="Filter conversations" onSubmit={submit}>
      <SelectField<InboxFilters['status']> label="Status" value={draft.status} options={[{ value: '', label: 'Open or closed' }, 'open', 'closed']} onChange={set('status')} />
      <SelectField<InboxFilters['channel']> label="Channel" value={draft.channel} options={[{ value: '', label: 'Any channel' }, ...CHANNELS]} onChange={set('channel')} />
      <SelectField<InboxFilters['unread']>
        label="Read"
        value={draft.unread}
        options={[
          { value: '', label: 'Read or unread' },
          { value: 'true', label: 'Unread' },
          { value: 'false', label: 'Read' },
        ]}
        onChange={set('unread')}
      />
      <TextField label="Assignee" value={draft.assignee} onChange={set('assignee')} hint='"none" for the unassigned' />
      <FilterButtons
        onClear={() => {
          setDraft(NO_FILTERS);
          onApply(NO_FILTERS);
        }}
      />
    </form>
  );
}

const INBOX_COLUMNS: Column<Conversation>[] = [
  {
    header: 'Conversation',
    cell: (c) => <IdLink to={`/conversations/${c.id}`} id={c.id} />,
  },
  {
    header: 'Contact',
    cell: (c) => (
      <Link to={`/contacts/${c.contact_id}`}>
        <code>{c.contact_id}</code>
      </Link>
    ),
  },
  { header: 'Channel', cell: (c) => c.channel },
  { header: 'Status', cell: (c) => <Status value={c.status} /> },
  { header: 'Unread', cell: (c) => (c.unread_count ? <strong>{formatNumber(c.unread_count)} unread</strong> : 'read') },
  { header: 'Messages', cell: (c) => formatNumber(c.message_count) },
  { header: 'Assignee', cell: (c) => c.assignee ?? '—' },
  { header: 'Last message', cell: (c) => formatTime(c.last_message_at) },
];

export function ConversationsPage() {
  const [filters, setFilters] = useState<InboxFilters>(NO_FILTERS);
  const pages = useCursor();
  const inbox = useLoad(
    (client) =>
      must(
        client.GET('/v1/conversations', {
          params: {
            query: {
              limit: PAGE_SIZE,
              ...(pages.cursor ? { cursor: pages.cursor } : {}),
              ...(filters.status ? { status: filters.status } : {}),
              ...(filters.channel ? { channel: filters.channel } : {}),
              ...(filters.unread ? { unread: filters.unread } : {}),
              ...(filters.assignee.trim() ? { assignee: filters.assignee.trim() } : {}),
            },
          },
        }),
      ),
    [pages.cursor, filters],
    INBOX_POLL_MS,
  );
  return (
    <>
      <PageHeader title="Conversations" />
      <p className="hint">What contacts write in by sms, WhatsApp or email, one conversation per contact and channel.</p>
      <InboxFilterForm
        applied={filters}
        onApply={(next) => {
          setFilters(next);
          pages.reset();
        }}
      />
      <ErrorNote error={inbox.error} />
      {inbox.data ? (
        <>
          <DataTable caption="Inbox, newest activity first" columns={INBOX_COLUMNS} rows={inbox.data.data} rowKey={(c) => c.id} empty="No conversations here." />
          <Pager hasNext={Boolean(inbox.data.next_cursor)} hasPrevious={pages.hasPrevious} onNext={() => pages.next(inbox.data?.next_cursor)} onPrevious={pages.previous} />
        </>
      ) : inbox.error ? null : (
        <Loading what="Loading the inbox" />
      )}
    </>
  );
}

// ---------------------------------------------------------------------------------------------
// one conversation



/** The contact's address: who wrote in, or who the replies went to. */
function contactAddress(entries: ThreadEntry[]): string | undefined {
  const inbound = entries.find((e) => e.direction === 'inbound' && e.from);
  return inbound?.from ?? entries.find((e) => e.direction === 'outbound' && e.to)?.to ?? undefined;
}

function ConversationFacts({ id, conversation, address }: { id: string; conversation: Conversation; address?: string }) {
  return (
    <dl className="facts" aria-label="Conversation">
      <Fact term="ID">
        <code>{id}</code>
      </Fact>
      {address ? <Fact term="Contact address">{address}</Fact> : null}
      <Fact term="Contact">
        <Link to={`/contacts/${conversation.contact_id}`}>
          <code>{conversation.contact_id}</code>
        </Link>
      </Fact>
      <Fact term="Channel">{conversation.channel}</Fact>
      <StatusFact value={conversation.status} />
      <Fact term="Unread">{conversation.unread_count ? `${formatNumber(conversation.unread_count)} unread` : 'read'}</Fact>
      <Fact term="Assignee">{conversation.assignee ?? 'nobody'}</Fact>
      <Fact term="Started">{formatTime(conversation.created_at)}</Fact>
    </dl>
  );
}

function Bubble({ entry }: { entry: ThreadEntry }) {
  const inbound = entry.direction === 'inbound';
  return (
    <li className={`bubble ${entry.direction}`}>
      <div className="bubble-meta">
        <strong>{inbound ? `Received from ${entry.from ?? 'the contact'}` : entry.automatic === 'help' ? 'Sent automatically (HELP answer)' : `Sent to ${entry.to ?? 'the contact'}`}</strong>{' '}
        <time dateTime={entry.created_at}>{formatTime(entry.created_at)}</time>
      </div>
      {entry.subject ? (
        <div>
          <strong>Subject:</strong> {entry.subject}
        </div>
      ) : null}
      <div className="bubble-body">{entry.body ?? '…'}</div>
      <div className="bubble-meta">
        {entry.keyword ? <span>keyword {entry.keyword.toUpperCase()} · </span> : null}
        {inbound ? (
          <>
            {entry.provider ? <span>via {entry.provider}</span> : null}
            {entry.authentication ? (
              <span>
                {' '}
                · SPF {entry.authentication.spf}, DKIM {entry.authentication.dkim}, DMARC {entry.authentication.dmarc}
              </span>
            ) : null}
          </>
        ) : (
          <>
            {entry.status ? <Status value={entry.status} /> : null}{' '}
            {entry.id.startsWith('msg_') ? (
              <Link to={`/messages/${entry.id}`}>
                <code>{entry.id}</code>
              </Link>
            ) : null}
          </>
        )}
      </div>
    </li>
  );
}

function ReplyForm({ conversationId, channel, onSent }: { conversationId: string; channel?: Channel; onSent: () => void }) {
  const reply = useAction();
  const [text, setText] = useState('');
  const [subject, setSubject] = useState('');
  const [sent, setSent] = useState<string>();
  const headingId = useId();
  async function submit(event: FormEvent) {
    event.preventDefault();
    setSent(undefined);
    const accepted = await reply.run((client) =>
      must(
        client.POST('/v1/conversations/{id}/reply', {
          params: { path: { id: conversationId } },
          body: { message: text, ...(channel === 'email' && subject ? { subject } : {}) },
        }),
      ),
    );
    if (accepted) {
      setText('');
      setSubject('');
      setSent(accepted.id);
      onSent();
    }
  }
  return (
    <section className="card" aria-labelledby={headingId}>
      <h2 id={headingId}>Reply</h2>
      <form className="stack" aria-labelledby={headingId} onSubmit={submit}>
        {channel === 'email' ? <TextField label="Subject" value={subject} onChange={setSubject} hint="Leave empty to answer Re: the contact's subject" /> : null}
        <TextArea label="Reply text" value={text} onChange={setText} required />
        <ErrorNote error={reply.error} />
        {sent ? (
          <Notice>
            Reply sent: <Link to={`/messages/${sent}`}>{sent}</Link>
          </Notice>
        ) : null}
        <div>
          <button type="submit" className="primary" disabled={reply.pending}>
            Send reply
          </button>
        </div>
      </form>
    </section>
  );
}

/** Close or reopen, mark read: the API answers the conversation as it now is. */
function ConversationActions({ conversation, onChanged }: { conversation: Conversation; onChanged: () => void }) {
  const update = useAction();
  const patch = async (body: { status?: Conversation['status']; read?: boolean }) => {
    const done = await update.run((client) => must(client.PATCH('/v1/conversations/{id}', { params: { path: { id: conversation.id } }, body })));
    if (done) onChanged();
  };
  return (
    <>
      <div className="row conversation-actions">
        {conversation.status === 'open' ? (
          <button type="button" disabled={update.pending} onClick={() => patch({ status: 'closed' })}>
            Close conversation
          </button>
        ) : (
          <button type="button" disabled={update.pending} onClick={() => patch({ status: 'open' })}>
            Reopen conversation
          </button>
        )}
        {conversation.read ? (
          <button type="button" disabled={update.pending} onClick={() => patch({ read: false })}>
            Mark as unread
          </button>
        ) : (
          <button type="button" disabled={update.pending} onClick={() => patch({ read: true })}>
            Mark as read
          </button>
        )}
      </div>
      <ErrorNote error={update.error} />
    </>
  );
}

export function ConversationPage() {
  const { id = '' } = useParams();
  const { can } = useSession();
  const pages = useCursor();
  const [pollMs, setPollMs] = useState<number | undefined>(THREAD_POLL_MS);
  const loaded = useLoad(
    async (client) => {
      const [thread, conversation] = await Promise.all([
        must(client.GET('/v1/conversations/{id}/messages', { params: { path: { id }, query: { limit: THREAD_PAGE_SIZE, ...(pages.cursor ? { cursor: pages.cursor } : {}) } } })),
        must(client.GET('/v1/conversations/{id}', { params: { path: { id } } })),
      ]).catch((err: unknown) => {
        // no such conversation: nothing to follow (any other failure is tried again)
        if (err instanceof ApiFailure && err.status === 404) setPollMs(undefined);
        throw err;
      });
      setPollMs(THREAD_POLL_MS);
      return { id, thread, conversation };
    },
    [id, pages.cursor],
    pollMs,
  );
  const data = loaded.data?.id === id ? loaded.data : undefined;
  const threadHeading = useId();
  return (
    <>
      <PageHeader title="Conversation">
        <Link to="/conversations">Inbox</Link>
      </PageHeader>
      <ErrorNote error={loaded.error} />
      {data ? (
        <>
          <section className="card" aria-label="Details">
            <ConversationFacts id={id} conversation={data.conversation} address={contactAddress(data.thread.data)} />
            {can('write') ? <ConversationActions conversation={data.conversation} onChanged={loaded.reload} /> : null}
          </section>
          <section aria-labelledby={threadHeading}>
            <h2 id={threadHeading}>Thread</h2>
            {data.thread.data.length ? (
              <ol className="thread" aria-labelledby={threadHeading}>
                {data.thread.data.map((entry) => (
                  <Bubble key={entry.id} entry={entry} />
                ))}
              </ol>
            ) : (
              <p className="empty">No messages yet.</p>
            )}
            <Pager hasNext={Boolean(data.thread.next_cursor)} hasPrevious={pages.hasPrevious} onNext={() => pages.next(data.thread.next_cursor)} onPrevious={pages.previous} />
          </section>
          {can('write') ? <ReplyForm conversationId={id} channel={data.conversation.channel} onSent={loaded.reload} /> : null}
        </>
      ) : loaded.error ? null : (
        <Loading what="Loading the conversation" />
      )}
    </>
  );
}
