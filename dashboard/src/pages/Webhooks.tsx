// Webhooks (README "Webhooks" and "Webhook replay"): the account's endpoints for platform events and
// the catalogue of events they subscribe to, adding one (its signing secret shown once), and the
// per-message signing secret. An endpoint's page: its settings (url, events, enabled or disabled,
// delete), a test ping, its deliveries (retry a failed one; refreshed while any is pending), and
// replays of a window of the log with their progress (refreshed until they are final), cancellable.
import { type FormEvent, useId, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { type components, must } from '../api.ts';
import {
  Checkbox, ConfirmButton, DataTable, ErrorNote, Field, Loading, Notice, PageHeader, Pager, Progress, SecretOnce, SelectField, Status, TextField, useCursor,
} from '../components/ui.tsx';
import { formatNumber, formatTime, instantOf } from '../format.ts';
import { useAction, useLoad } from '../hooks.ts';
import { useSession } from '../session.tsx';
import './Webhooks.css';

type Endpoint = components['schemas']['WebhookEndpoint'];
type Delivery = components['schemas']['WebhookDelivery'];
type Replay = components['schemas']['WebhookReplay'];
type EventName = Endpoint['events'][number];
interface CatalogueEvent {
  name: EventName;
  description: string;
}
type DeliveryFilter = 'all' | Delivery['status'];

/** Deliveries and replays are refreshed this often while one is still on its way, and the list of deliveries at rest. */
const BUSY_POLL_MS = 1500;
const IDLE_POLL_MS = 3000;
const DELIVERIES_PER_PAGE = 20;
const REPLAYS_PER_PAGE = 10;

const eventsText = (events: readonly EventName[]) => (events.length ? events.join(', ') : 'every event');
const replayActive = (replay: Replay) => replay.status === 'scanning' || replay.status === 'delivering';

// ---------------------------------------------------------------------------------------------------
// Shared pieces

/** Checkboxes over the catalogue of events; none checked means `noneMeans`. */
function EventPicker(props: { legend: string; catalogue: readonly CatalogueEvent[]; selected: readonly EventName[]; onChange: (events: EventName[]) => void; noneMeans: string }) {
  const hintId = useId();
  const toggle = (name: EventName, on: boolean) => props.onChange(props.catalogue.map((e) => e.name).filter((n) => (n === name ? on : props.selected.includes(n))));
  return (
    <fieldset className="event-picker" aria-describedby={hintId}>
      <legend>{props.legend}</legend>
      <ul>
        {props.catalogue.map((event) => (
          <li key={event.name}>
            <Checkbox label={event.name} checked={props.selected.includes(event.name)} onChange={(on) => toggle(event.name, on)} />
            <span className="hint">{event.description}</span>
          </li>
        ))}
      </ul>
      <p id={hintId} className="hint">
        {props.selected.length ? `${props.selected.length} of ${props.catalogue.length} checked.` : `None checked: ${props.noneMeans}.`}
      </p>
    </fieldset>
  );
}

/** A date and time (to the second) in the browser's time zone, given to the API as RFC 3339. */
function DateTimeField({ label, value, onChange, hint, required }: { label: string; value: string; onChange: (value: string) => void; hint?: string; required?: boolean }) {
  return (
    <Field label={label} hint={hint}>
      {(id, describedBy) => <input id={id} type="datetime-local" step={1} value={value} required={required} aria-describedby={describedBy} onChange={(e) => onChange(e.target.value)} />}
    </Field>
  );
}

// ---------------------------------------------------------------------------------------------------
// /webhooks

export function WebhooksPage() {
  const { can } = useSession();
  const endpoints = useLoad((client) => must(client.GET('/v1/webhook-endpoints')), []);
  return (
    <>
      <PageHeader title="Webhooks" />
      <p className="hint">Platform events are POSTed to each endpoint, signed with its own secret. Per-message status updates go to a message's own webhook_url.</p>
      <ErrorNote error={endpoints.error} />
      {endpoints.data ? (
        <DataTable
          caption="Webhook endpoints"
          rows={endpoints.data.data}
          rowKey={(e) => e.id}
          empty="No webhook endpoints yet."
          columns={[
            { header: 'URL', cell: (e) => <Link to={`/webhooks/${e.id}`}>{e.url}</Link> },
            { header: 'Events', cell: (e) => eventsText(e.events) },
            { header: 'Status', cell: (e) => <Status value={e.status} /> },
            { header: 'Created', cell: (e) => formatTime(e.created_at) },
          ]}
        />
      ) : endpoints.loading ? (
        <Loading what="Loading the endpoints" />
      ) : null}
      {can('write') && endpoints.data ? <AddEndpoint catalogue={endpoints.data.events} onAdded={endpoints.reload} /> : null}
      {can('settings') ? <AccountSecret /> : null}
    </>
  );
}

/** The form that registers an endpoint; its signing secret is shown once, after it. */
function AddEndpoint({ catalogue, onAdded }: { catalogue: readonly CatalogueEvent[]; onAdded: () => void }) {
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<EventName[]>([]);
  const [added, setAdded] = useState<{ id: string; url: string; secret: string }>();
  const action = useAction();
  const headingId = useId();

  async function submit(event: FormEvent) {
    event.preventDefault();
    const created = await action.run((client) => must(client.POST('/v1/webhook-endpoints', { body: { url, events } })));
    if (!created) return;
    setAdded({ id: created.id, url: created.url, secret: created.secret });
    setUrl('');
    setEvents([]);
    onAdded();
  }

  return (
    <section className="card webhooks-card" aria-labelledby={headingId}>
      <h2 id={headingId}>Add endpoint</h2>
      {added ? (
        <>
          <Notice>
            Endpoint added: <Link to={`/webhooks/${added.id}`}>{added.url}</Link>.
          </Notice>
          <SecretOnce label="Signing secret" value={added.secret} />
        </>
      ) : null}
      <form className="stack" onSubmit={submit} aria-labelledby={headingId}>
        <TextField label="URL" type="url" value={url} onChange={setUrl} required placeholder="https://example.com/engage-events" hint="Where the events are POSTed; it must answer 2xx." />
        <EventPicker legend="Events" catalogue={catalogue} selected={events} onChange={setEvents} noneMeans="every event" />
        <ErrorNote error={action.error} />
        <div>
          <button type="submit" className="primary" disabled={action.pending}>
            Add endpoint
          </button>
        </div>
      </form>
    </section>
  );
}

/** The account's per-message signing secret (shown on request), and rotating it. */
function AccountSecret() {
  const [secret, setSecret] = useState<string>();
  const [rotated, setRotated] = useState(false);
  const action = useAction();
  const headingId = useId();

  async function show() {
    const answer = await action.run((client) => must(client.GET('/v1/account/webhook-secret')));
    if (answer) {
      setSecret(answer.secret);
      setRotated(false);
    }
  }
  async function rotate() {
    const answer = await action.run((client) => must(client.POST('/v1/account/webhook-secret/rotate', { body: {} })));
    if (answer) {
      setSecret(answer.secret);
      setRotated(true);
    }
  }

  return (
    <section className="card webhooks-card" aria-labelledby={headingId}>
      <h2 id={headingId}>Per-message signing secret</h2>
      <p className="hint">Signs the status updates POSTed to a message's webhook_url (message.queued, message.sent, message.delivered, message.failed).</p>
      {secret ? (
        <div className="account-secret">
          {rotated ? <Notice>The secret was rotated: every delivery attempt from now on is signed with this one.</Notice> : null}
          <p>
            Current secret: <code>{secret}</code>
          </p>
        </div>
      ) : null}
      <ErrorNote error={action.error} />
      <div className="row">
        {secret ? (
          <button type="button" onClick={() => setSecret(undefined)}>
            Hide secret
          </button>
        ) : (
          <button type="button" onClick={show} disabled={action.pending}>
            Show secret
          </button>
        )}
        <ConfirmButton label="Rotate secret" title="Rotate the per-message signing secret?" confirmLabel="Rotate secret" onConfirm={rotate} disabled={action.pending}>
          <p>A new secret is issued now. Every delivery attempt after this, retries included, is signed with it: receivers must be given the new one.</p>
        </ConfirmButton>
      </div>
    </section>
  );
}

// ---------------------------------------------------------------------------------------------------
// /webhooks/:id

export function WebhookPage() {
  const { id = '' } = useParams();
  // the API has no read of one endpoint: it is found in the account's list (one page)
  const endpoints = useLoad((client) => must(client.GET('/v1/webhook-endpoints')), []);
  const endpoint = endpoints.data?.data.find((e) => e.id === id);

  if (!endpoints.data) {
    return (
      <>
        <PageHeader title="Webhook endpoint" />
        <ErrorNote error={endpoints.error} />
        {endpoints.loading ? <Loading what="Loading the endpoint" /> : null}
      </>
    );
  }
  if (!endpoint) {
    return (
      <>
        <PageHeader title="Webhook endpoint" />
        <p>
          There is no webhook endpoint {id} in this account. <Link to="/webhooks">Back to the webhooks</Link>.
        </p>
      </>
    );
  }
  return (
    <>
      <PageHeader title="Webhook endpoint">
        <Link to="/webhooks">All endpoints</Link>
      </PageHeader>
      <ErrorNote error={endpoints.error} />
      <EndpointFacts endpoint={endpoint} />
      <EndpointSettings key={endpoint.id} endpoint={endpoint} catalogue={endpoints.data.events} onChanged={endpoints.reload} />
      <Deliveries endpoint={endpoint} />
      <Replays endpoint={endpoint} catalogue={endpoints.data.events} />
    </>
  );
}

function EndpointFacts({ endpoint }: { endpoint: Endpoint }) {
  return (
    <section className="card" aria-label="Endpoint">
      <dl className="facts">
        <dt>URL</dt>
        <dd>
          <code>{endpoint.url}</code>
        </dd>
        <dt>Status</dt>
        <dd>
          <Status value={endpoint.status} />
        </dd>
        <dt>Events</dt>
        <dd>{eventsText(endpoint.events)}</dd>
        <dt>Created</dt>
        <dd>{formatTime(endpoint.created_at)}</dd>
        <dt>Changed</dt>
        <dd>{formatTime(endpoint.updated_at)}</dd>
        <dt>ID</dt>
        <dd>
          <code>{endpoint.id}</code>
        </dd>
      </dl>
    </section>
  );
}

/** Edit url and events, enable or disable, delete, send a test ping (write controls for can('write')). */
function EndpointSettings({ endpoint, catalogue, onChanged }: { endpoint: Endpoint; catalogue: readonly CatalogueEvent[]; onChanged: () => void }) {
  const { can } = useSession();
  const navigate = useNavigate();
  const [url, setUrl] = useState(endpoint.url);
  const [events, setEvents] = useState<EventName[]>(endpoint.events);
  const [saved, setSaved] = useState(false);
  const action = useAction();
  const headingId = useId();
  if (!can('write')) return null;
  const path = { params: { path: { id: endpoint.id } } };

  async function save(event: FormEvent) {
    event.preventDefault();
    setSaved(false);
    const changed = await action.run((client) => must(client.PATCH('/v1/webhook-endpoints/{id}', { ...path, body: { url, events } })));
    if (changed) {
      setSaved(true);
      onChanged();
    }
  }
  async function setStatus(status: Endpoint['status']) {
    if (await action.run((client) => must(client.PATCH('/v1/webhook-endpoints/{id}', { ...path, body: { status } })))) onChanged();
  }
  async function remove() {
    if (await action.run((client) => must(client.DELETE('/v1/webhook-endpoints/{id}', path)))) navigate('/webhooks');
  }

  return (
    <section className="card webhooks-card" aria-labelledby={headingId}>
      <h2 id={headingId}>Settings</h2>
      <form className="stack" onSubmit={save} aria-labelledby={headingId}>
        <TextField label="URL" type="url" value={url} onChange={setUrl} required />
        <EventPicker legend="Events" catalogue={catalogue} selected={events} onChange={setEvents} noneMeans="every event" />
        {saved ? <Notice>The endpoint was saved.</Notice> : null}
        <ErrorNote error={action.error} />
        <div className="row">
          <button type="submit" className="primary" disabled={action.pending}>
            Save endpoint
          </button>
        </div>
      </form>
      <div className="row endpoint-actions">
        {endpoint.status === 'active' ? (
          <ConfirmButton label="Disable endpoint" title="Disable this endpoint?" confirmLabel="Disable endpoint" onConfirm={() => setStatus('disabled')} disabled={action.pending}>
            <p>It gets nothing more until it is enabled again: its pending deliveries and replays are cancelled.</p>
          </ConfirmButton>
        ) : (
          <button type="button" onClick={() => setStatus('active')} disabled={action.pending}>
            Enable endpoint
          </button>
        )}
        <ConfirmButton label="Delete endpoint" title="Delete this endpoint?" confirmLabel="Delete endpoint" danger onConfirm={remove} disabled={action.pending}>
          <p>
            <code>{endpoint.url}</code> gets nothing more, retries included, and the endpoint is gone with its deliveries.
          </p>
        </ConfirmButton>
      </div>
      <SendTest endpoint={endpoint} />
    </section>
  );
}

/** POST …/test: a ping now, and what the receiver answered. */
function SendTest({ endpoint }: { endpoint: Endpoint }) {
  const action = useAction();
  const [outcome, setOutcome] = useState<{ ok: boolean; status_code: number | null; latency_ms: number; error: string | null }>();
  async function ping() {
    setOutcome(undefined);
    const answer = await action.run((client) => must(client.POST('/v1/webhook-endpoints/{id}/test', { params: { path: { id: endpoint.id } }, body: {} })));
    if (answer) setOutcome(answer);
  }
  return (
    <div className="send-test">
      <button type="button" onClick={ping} disabled={action.pending}>
        {action.pending ? 'Sending test…' : 'Send test'}
      </button>
      <ErrorNote error={action.error} />
      {outcome?.ok ? (
        <p role="status">
          The ping was answered {outcome.status_code} in {formatNumber(outcome.latency_ms)} ms.
        </p>
      ) : outcome ? (
        <div role="alert" className="error-note">
          The ping failed: {outcome.status_code !== null ? `the receiver answered ${outcome.status_code}` : 'no answer'}
          {outcome.error ? ` (${outcome.error})` : ''}, after {formatNumber(outcome.latency_ms)} ms.
        </div>
      ) : null}
    </div>
  );
}

// ---------------------------------------------------------------------------------------------------
// Deliveries

const DELIVERY_FILTERS: { value: DeliveryFilter; label: string }[] = [
  { value: 'all', label: 'All' },
  { value: 'pending', label: 'Pending' },
  { value: 'delivered', label: 'Delivered' },
  { value: 'failed', label: 'Failed' },
  { value: 'cancelled', label: 'Cancelled' },
];

/** A delivery the API will send again now: a failed one, or one waiting for its next retry. */
const retriable = (d: Delivery) => d.status === 'failed' || (d.status === 'pending' && d.attempts > 0);

function Deliveries({ endpoint }: { endpoint: Endpoint }) {
  const { can } = useSession();
  const cursor = useCursor();
  const [filter, setFilter] = useState<DeliveryFilter>('all');
  const [busy, setBusy] = useState(false);
  // refreshed quickly while a delivery is pending; the first page also at rest, for new events
  const everyMs = busy ? BUSY_POLL_MS : cursor.cursor ? undefined : IDLE_POLL_MS;
  const deliveries = useLoad(
    async (client) => {
      const page = await must(
        client.GET('/v1/webhook-endpoints/{id}/deliveries', {
          params: { path: { id: endpoint.id }, query: { limit: DELIVERIES_PER_PAGE, ...(cursor.cursor ? { cursor: cursor.cursor } : {}), ...(filter === 'all' ? {} : { status: filter }) } },
        }),
      );
      setBusy(page.data.some((d) => d.status === 'pending'));
      return page;
    },
    [endpoint.id, cursor.cursor, filter],
    everyMs,
  );
  const retry = useAction();
  const headingId = useId();

  async function retryNow(delivery: Delivery) {
    const answer = await retry.run((client) => must(client.POST('/v1/webhook-endpoints/{id}/deliveries/{deliveryId}/retry', { params: { path: { id: endpoint.id, deliveryId: delivery.id } }, body: {} })));
    if (answer) deliveries.reload();
  }

  return (
    <section aria-labelledby={headingId}>
      <h2 id={headingId}>Deliveries</h2>
      <div className="row deliveries-tools">
        <SelectField
          label="Show deliveries"
          value={filter}
          options={DELIVERY_FILTERS}
          onChange={(value) => {
            setFilter(value);
            cursor.reset();
          }}
        />
        <button type="button" onClick={deliveries.reload} disabled={deliveries.loading}>
          Refresh deliveries
        </button>
      </div>
      <ErrorNote error={deliveries.error} />
      <ErrorNote error={retry.error} />
      {deliveries.data ? (
        <DataTable
          caption="Deliveries, newest first"
          rows={deliveries.data.data}
          rowKey={(d) => d.id}
          empty={filter === 'all' ? 'No deliveries yet.' : `No ${filter} deliveries.`}
          columns={[
            { header: 'Event', cell: (d) => <DeliveryEvent delivery={d} /> },
            { header: 'Status', cell: (d) => <Status value={d.status} /> },
            { header: 'Attempts', cell: (d) => formatNumber(d.attempts) },
            { header: 'Response', cell: (d) => <DeliveryResponse delivery={d} /> },
            { header: 'Created', cell: (d) => formatTime(d.created_at) },
            { header: 'Delivered or next attempt', cell: (d) => (d.delivered_at ? formatTime(d.delivered_at) : d.next_attempt_at ? `next ${formatTime(d.next_attempt_at)}` : '—') },
            ...(can('write')
              ? [
                  {
                    header: 'Actions',
                    cell: (d: Delivery) =>
                      retriable(d) ? (
                        <button type="button" onClick={() => retryNow(d)} disabled={retry.pending} aria-label={`Retry the ${d.event} delivery of ${formatTime(d.created_at)}`}>
                          Retry
                        </button>
                      ) : null,
                  },
                ]
              : []),
          ]}
        />
      ) : deliveries.loading ? (
        <Loading what="Loading the deliveries" />
      ) : null}
      <Pager hasNext={Boolean(deliveries.data?.next_cursor)} hasPrevious={cursor.hasPrevious} onNext={() => cursor.next(deliveries.data?.next_cursor)} onPrevious={cursor.previous} />
    </section>
  );
}

function DeliveryEvent({ delivery }: { delivery: Delivery }) {
  return (
    <>
      <code className="event-name">{delivery.event}</code>
      {delivery.replay_id ? <span className="hint"> (replay)</span> : null}
    </>
  );
}

function DeliveryResponse({ delivery }: { delivery: Delivery }) {
  if (delivery.status_code === null && !delivery.error) return <>—</>;
  return (
    <>
      {delivery.status_code !== null ? <span>HTTP {delivery.status_code}</span> : null}
      {delivery.latency_ms !== null ? <span className="hint"> in {formatNumber(delivery.latency_ms)} ms</span> : null}
      {delivery.error ? <div className="delivery-error">{delivery.error}</div> : null}
    </>
  );
}

// ---------------------------------------------------------------------------------------------------
// Replays

function Replays({ endpoint, catalogue }: { endpoint: Endpoint; catalogue: readonly CatalogueEvent[] }) {
  const { can } = useSession();
  const cursor = useCursor();
  const [chosen, setChosen] = useState<string>();
  const [busy, setBusy] = useState(false);
  const replays = useLoad(
    async (client) => {
      const page = await must(
        client.GET('/v1/webhook-endpoints/{id}/replays', { params: { path: { id: endpoint.id }, query: { limit: REPLAYS_PER_PAGE, ...(cursor.cursor ? { cursor: cursor.cursor } : {}) } } }),
      );
      setBusy(page.data.some(replayActive));
      return page;
    },
    [endpoint.id, cursor.cursor],
    busy ? BUSY_POLL_MS : undefined,
  );
  // the replay followed: the one chosen, else the newest still running
  const followed = chosen ?? replays.data?.data.find(replayActive)?.id;
  const headingId = useId();

  return (
    <section aria-labelledby={headingId}>
      <h2 id={headingId}>Replays</h2>
      <p className="hint">A replay delivers the account's events from a window of the log again, with their original ids, to this endpoint.</p>
      {can('write') ? (
        <StartReplay
          endpoint={endpoint}
          catalogue={catalogue}
          onStarted={(replay) => {
            setChosen(replay.id);
            cursor.reset();
            replays.reload();
          }}
        />
      ) : null}
      {followed ? <ReplayProgress key={followed} endpointId={endpoint.id} replayId={followed} onChanged={replays.reload} /> : null}
      <ErrorNote error={replays.error} />
      {replays.data ? (
        <DataTable
          caption="Replays, newest first"
          rows={replays.data.data}
          rowKey={(r) => r.id}
          empty="No replays yet."
          columns={[
            { header: 'Requested', cell: (r) => formatTime(r.created_at) },
            { header: 'Window', cell: (r) => <ReplayWindow replay={r} /> },
            { header: 'Events', cell: (r) => eventsText(r.types) },
            { header: 'Status', cell: (r) => <Status value={r.status} /> },
            { header: 'Delivered', cell: (r) => `${formatNumber(r.delivered)} of ${formatNumber(r.found)}${r.failed ? `, ${formatNumber(r.failed)} failed` : ''}` },
            {
              header: 'Progress',
              cell: (r) =>
                r.id === followed ? (
                  'shown above'
                ) : (
                  <button type="button" onClick={() => setChosen(r.id)} aria-label={`Show progress of the replay requested ${formatTime(r.created_at)}`}>
                    Show progress
                  </button>
                ),
            },
          ]}
        />
      ) : replays.loading ? (
        <Loading what="Loading the replays" />
      ) : null}
      <Pager hasNext={Boolean(replays.data?.next_cursor)} hasPrevious={cursor.hasPrevious} onNext={() => cursor.next(replays.data?.next_cursor)} onPrevious={cursor.previous} />
    </section>
  );
}

function ReplayWindow({ replay }: { replay: Replay }) {
  const show = (input: string) => (Number.isNaN(Date.parse(input)) ? input : formatTime(input));
  return (
    <>
      from {show(replay.from_input)} until {replay.until_input ? show(replay.until_input) : 'the latest event when requested'}
    </>
  );
}

/** The form that starts a replay: a window (times in the browser's zone) and the event types. */
function StartReplay({ endpoint, catalogue, onStarted }: { endpoint: Endpoint; catalogue: readonly CatalogueEvent[]; onStarted: (replay: Replay) => void }) {
  const [from, setFrom] = useState('');
  const [until, setUntil] = useState('');
  const [types, setTypes] = useState<EventName[]>([]);
  const action = useAction();
  const headingId = useId();
  // only what the endpoint subscribes to can be replayed to it (an empty subscription is every event)
  const offered = endpoint.events.length ? catalogue.filter((e) => endpoint.events.includes(e.name)) : catalogue;

  async function submit(event: FormEvent) {
    event.preventDefault();
    // a time the browser cannot read goes as written, for the API to name the field
    const body = { from: instantOf(from) ?? from, ...(until ? { until: instantOf(until) ?? until } : {}), ...(types.length ? { types } : {}) };
    const started = await action.run((client) => must(client.POST('/v1/webhook-endpoints/{id}/replay', { params: { path: { id: endpoint.id } }, body })));
    if (started) onStarted(started);
  }

  return (
    <form className="stack card webhooks-card" onSubmit={submit} aria-labelledby={headingId}>
      <h3 id={headingId}>Replay events</h3>
      <div className="row">
        <DateTimeField label="From" value={from} onChange={setFrom} required hint="Your local time; the first event at or after it." />
        <DateTimeField label="Until" value={until} onChange={setUntil} hint="Empty: up to the latest event now." />
      </div>
      <EventPicker legend="Event types to replay" catalogue={offered} selected={types} onChange={setTypes} noneMeans="every event this endpoint subscribes to" />
      {endpoint.status === 'disabled' ? <p className="hint">A disabled endpoint cannot be replayed to: enable it first.</p> : null}
      <ErrorNote error={action.error} />
      <div>
        <button type="submit" className="primary" disabled={action.pending}>
          Start replay
        </button>
      </div>
    </form>
  );
}

/** One replay's progress, polled until it is final, and its cancel. */
function ReplayProgress({ endpointId, replayId, onChanged }: { endpointId: string; replayId: string; onChanged: () => void }) {
  const { can } = useSession();
  const [final, setFinal] = useState(false);
  const path = { params: { path: { id: endpointId, replayId } } };
  const replay = useLoad(
    async (client) => {
      const answer = await must(client.GET('/v1/webhook-endpoints/{id}/replays/{replayId}', path));
      if (!replayActive(answer)) setFinal(true);
      return answer;
    },
    [endpointId, replayId],
    final ? undefined : BUSY_POLL_MS,
  );
  const cancel = useAction();
  const headingId = useId();
  const r = replay.data;

  async function cancelReplay() {
    if (await cancel.run((client) => must(client.POST('/v1/webhook-endpoints/{id}/replays/{replayId}/cancel', { ...path, body: {} })))) {
      replay.reload();
      onChanged();
    }
  }

  return (
    <section className="card webhooks-card replay-progress" aria-labelledby={headingId}>
      <h3 id={headingId}>Replay progress</h3>
      <ErrorNote error={replay.error} />
      {r ? (
        <>
          <p>
            <Status value={r.status} /> <ReplayWindow replay={r} />
          </p>
          <Progress label="Replay deliveries" value={r.delivered} max={r.found || undefined} />
          <dl className="facts">
            <dt>Found</dt>
            <dd>{formatNumber(r.found)}</dd>
            <dt>Delivered</dt>
            <dd>{formatNumber(r.delivered)}</dd>
            <dt>Failed</dt>
            <dd>{formatNumber(r.failed)}</dd>
            <dt>Pending</dt>
            <dd>{formatNumber(r.pending)}</dd>
            <dt>Cancelled</dt>
            <dd>{formatNumber(r.cancelled)}</dd>
            {r.cancel_reason ? (
              <>
                <dt>Why cancelled</dt>
                <dd>{r.cancel_reason}</dd>
              </>
            ) : null}
            <dt>Finished</dt>
            <dd>{formatTime(r.completed_at)}</dd>
          </dl>
          <ErrorNote error={cancel.error} />
          {can('write') && replayActive(r) ? (
            <ConfirmButton label="Cancel replay" title="Cancel this replay?" confirmLabel="Cancel replay" danger onConfirm={cancelReplay} disabled={cancel.pending}>
              <p>The deliveries it has not made yet are cancelled, and nothing more of it is sent.</p>
            </ConfirmButton>
          ) : null}
        </>
      ) : replay.loading ? (
        <Loading what="Loading the replay" />
      ) : null}
    </section>
  );
}
