// Billing (README "Billing"): the plan with this month's usage against what it includes and the
// upgrades above it (GET /v1/account/plan), the messages sent and charged per month
// (GET /v1/account/usage), the prepaid balance and its ledger page by page (GET /v1/account/balance,
// GET /v1/account/balance/transactions), the billing currency (GET/PUT /v1/account/billing-currency:
// a change converts the balance, so it is confirmed first) and the invoice details
// (GET/PUT /v1/account/billing-details). Changing the currency or the details needs the settings
// capability; everyone else reads them.
import { type FormEvent, type ReactNode, useId, useState } from 'react';
import { Link } from 'react-router';
import { type ApiError, type components, type EngageClient, must } from '../api.ts';
import { ConfirmButton, DataTable, ErrorNote, Loading, Notice, PageHeader, Pager, SelectField, TextField, useCursor } from '../components/ui.tsx';
import { CHANNEL_NAMES, CHANNELS, type Channel, formatMoney, formatNumber, formatTime } from '../format.ts';
import { useAction, useLoad } from '../hooks.ts';
import { useSession } from '../session.tsx';
import './Billing.css';

type LedgerEntry = components['schemas']['LedgerEntry'];
type Currency = LedgerEntry['currency'];
type Volumes = Record<Channel, number>;

const LEDGER_PAGE = 10;

const KIND_NAMES: Record<LedgerEntry['kind'], string> = { message: 'Message', refund: 'Refund', top_up: 'Top-up', conversion: 'Conversion' };

const monthFormat = new Intl.DateTimeFormat(undefined, { month: 'long', year: 'numeric', timeZone: 'UTC' });
const formatMonth = (month: string) => monthFormat.format(Date.parse(`${month}-01T00:00:00Z`));

/** A list price: an amount per month or year, or "contact sales" when it is agreed. */
function formatPrice(price: { amount: string | null; currency: Currency; period: 'month' | 'year' }): string {
  return price.amount === null ? 'Agreed with sales' : `${formatMoney(price.amount, price.currency)} per ${price.period}`;
}

/** Included volumes per channel, the non-zero ones. */
function formatVolumes(volumes: Volumes | null): string {
  if (!volumes) return 'Agreed with sales';
  const parts = CHANNELS.filter((c) => volumes[c] > 0).map((c) => `${CHANNEL_NAMES[c]} ${formatNumber(volumes[c])}`);
  return parts.length ? parts.join(', ') : 'None';
}

/** A labelled section with its own heading. */
function Section({ title, children }: { title: string; children: ReactNode }) {
  const id = useId();
  return (
    <section aria-labelledby={id} className="billing-section">
      <h2 id={id}>{title}</h2>
      {children}
    </section>
  );
}

/** What a section shows before its answer: the API's error, or that it is loading. */
function Pending({ error, what }: { error?: ApiError; what: string }) {
  return error ? <ErrorNote error={error} /> : <Loading what={what} />;
}

function PlanSection({ version }: { version: number }) {
  const plan = useLoad((client) => must(client.GET('/v1/account/plan')), [version]);
  if (!plan.data) return <Section title="Plan"><Pending error={plan.error} what="Loading the plan" /></Section>;
  const p = plan.data;
  const usage = CHANNELS.map((channel) => ({ channel, ...p.usage_this_month[channel] }));
  return (
    <Section title="Plan">
      <ErrorNote error={plan.error} />
      <div className="card">
        <dl className="facts">
          <dt>Plan</dt>
          <dd>{p.name}</dd>
          <dt>Billed</dt>
          <dd>{p.period === 'annual' ? 'Annually' : 'Monthly'}</dd>
          <dt>Price</dt>
          <dd>{formatPrice(p.price)}</dd>
          <dt>Included</dt>
          <dd>
            {formatVolumes(p.included.volumes)} per {p.included.period}
          </dd>
          <dt>Data region</dt>
          <dd>{p.region.mode}</dd>
        </dl>
      </div>
      <DataTable
        caption="This month's usage"
        columns={[
          { header: 'Channel', cell: (row: (typeof usage)[number]) => CHANNEL_NAMES[row.channel] },
          { header: 'Sent this month', cell: (row) => formatNumber(row.messages) },
          { header: 'Included per month', cell: (row) => (row.included === null ? 'None' : formatNumber(row.included)) },
          { header: 'Remaining', cell: (row) => (row.remaining === null ? '—' : formatNumber(row.remaining)) },
        ]}
        rows={usage}
        rowKey={(row) => row.channel}
      />
      <p className="hint">Included messages are shown against this month's usage; every message is still charged to the balance at its price.</p>
      <DataTable
        caption="Upgrade options"
        empty="There is no plan above this one."
        columns={[
          { header: 'Plan', cell: (row: (typeof p.upgrade_options)[number]) => row.name },
          { header: 'Price', cell: (row) => formatPrice(row.price) },
          { header: 'Included', cell: (row) => `${formatVolumes(row.included.volumes)} per ${row.included.period}` },
          { header: 'How to upgrade', cell: (row) => (row.self_serve ? 'Self-serve: ask the operator to change the plan' : 'Contact sales') },
        ]}
        rows={p.upgrade_options}
        rowKey={(row) => row.tier}
      />
    </Section>
  );
}

function UsageSection({ version }: { version: number }) {
  const usage = useLoad((client) => must(client.GET('/v1/account/usage')), [version]);
  if (!usage.data) return <Section title="Usage"><Pending error={usage.error} what="Loading the usage" /></Section>;
  const u = usage.data;
  const rows = [...u.months].reverse().flatMap((m) =>
    CHANNELS.map((channel) => ({ month: m.month, channel, ...m.channels[channel] })).filter((row) => row.messages > 0 || row.other_currencies?.length),
  );
  return (
    <Section title="Usage">
      <ErrorNote error={usage.error} />
      <DataTable
        caption={`Messages sent and charged, ${formatMonth(u.from)} to ${formatMonth(u.to)}`}
        empty={`No message was sent from ${formatMonth(u.from)} to ${formatMonth(u.to)}.`}
        columns={[
          { header: 'Month', cell: (row: (typeof rows)[number]) => formatMonth(row.month) },
          { header: 'Channel', cell: (row) => CHANNEL_NAMES[row.channel] },
          { header: 'Messages', cell: (row) => formatNumber(row.messages) },
          {
            header: 'Charged',
            cell: (row) => (
              <>
                {formatMoney(row.amount, row.currency)}
                {row.other_currencies?.map((other) => (
                  <div key={other.currency} className="hint">
                    and {formatMoney(other.amount, other.currency)} ({formatNumber(other.messages)} {other.messages === 1 ? 'message' : 'messages'}) in {other.currency} before the
                    currency changed
                  </div>
                ))}
              </>
            ),
          },
        ]}
        rows={rows}
        rowKey={(row) => `${row.month}-${row.channel}`}
      />
    </Section>
  );
}

function Ledger() {
  const pages = useCursor();
  const ledger = useLoad(
    (client) => must(client.GET('/v1/account/balance/transactions', { params: { query: { limit: LEDGER_PAGE, ...(pages.cursor ? { cursor: pages.cursor } : {}) } } })),
    [pages.cursor],
  );
  if (!ledger.data) return <Pending error={ledger.error} what="Loading the ledger" />;
  const { data, next_cursor } = ledger.data;
  return (
    <>
      <ErrorNote error={ledger.error} />
      <DataTable
        caption="Balance ledger, newest first"
        empty="The ledger has no entry yet: nothing was charged or credited."
        columns={[
          { header: 'When', cell: (row: LedgerEntry) => formatTime(row.at) },
          { header: 'Kind', cell: (row) => KIND_NAMES[row.kind] },
          { header: 'Description', cell: (row) => row.description },
          { header: 'Channel', cell: (row) => (row.channel ? `${CHANNEL_NAMES[row.channel]}${row.country ? ` (${row.country})` : ''}` : '—') },
          { header: 'Message', cell: (row) => (row.message_id ? <Link to={`/messages/${row.message_id}`}>{row.message_id}</Link> : '—') },
          { header: 'Amount', cell: (row) => <span className={row.amount.startsWith('-') ? 'debit' : 'credit'}>{formatMoney(row.amount, row.currency)}</span> },
        ]}
        rows={data}
        rowKey={(row) => row.id}
      />
      <Pager hasNext={next_cursor !== null} hasPrevious={pages.hasPrevious} onNext={() => pages.next(next_cursor)} onPrevious={pages.previous} />
    </>
  );
}

function BalanceSection({ version }: { version: number }) {
  const balance = useLoad((client) => must(client.GET('/v1/account/balance')), [version]);
  return (
    <Section title="Balance">
      {balance.data ? (
        <dl className="facts card">
          <dt>Prepaid balance</dt>
          <dd>{formatMoney(balance.data.balance, balance.data.currency)}</dd>
          <dt>Last change</dt>
          <dd>{formatTime(balance.data.updated_at)}</dd>
        </dl>
      ) : (
        <Pending error={balance.error} what="Loading the balance" />
      )}
      {balance.data ? <ErrorNote error={balance.error} /> : null}
      {/* a new version starts the ledger again at its newest page */}
      <Ledger key={version} />
    </Section>
  );
}

const putCurrency = (client: EngageClient, currency: Currency) => must(client.PUT('/v1/account/billing-currency', { body: { currency } }));
type CurrencyChange = Awaited<ReturnType<typeof putCurrency>>;

/** The form that changes the billing currency: the change converts the balance, so it asks first. */
function CurrencyChooser({ current, options, conversion, onChanged }: { current: Currency; options: Currency[]; conversion: string; onChanged: () => void }) {
  const [choice, setChoice] = useState<Currency>(current);
  const [done, setDone] = useState<CurrencyChange>();
  const action = useAction();
  return (
    <div className="stack">
      <div className="row">
        <SelectField label="Billing currency" value={choice} options={options} onChange={setChoice} />
        <ConfirmButton
          label="Change billing currency"
          title={`Change the billing currency to ${choice}?`}
          confirmLabel="Convert the balance"
          disabled={choice === current || action.pending}
          onConfirm={async () => {
            setDone(undefined);
            const answer = await action.run((client) => putCurrency(client, choice));
            if (answer) {
              setDone(answer);
              onChanged();
            }
          }}
        >
          <p>
            From {current} to {choice}.
          </p>
          <p>{conversion}</p>
        </ConfirmButton>
      </div>
      <ErrorNote error={action.error} />
      {done ? (
        <Notice>
          {done.changed
            ? `The billing currency is now ${done.currency} (from ${done.previous}, at ${done.rate} per ${done.previous}, rates of ${done.rates_date}). The balance is ${formatMoney(done.balance, done.currency)}.`
            : `${done.currency} was already the billing currency: nothing changed.`}
        </Notice>
      ) : null}
    </div>
  );
}

function CurrencySection({ version, onChanged }: { version: number; onChanged: () => void }) {
  const { can } = useSession();
  const currency = useLoad((client) => must(client.GET('/v1/account/billing-currency')), [version]);
  if (!currency.data) return <Section title="Billing currency"><Pending error={currency.error} what="Loading the billing currency" /></Section>;
  const c = currency.data;
  return (
    <Section title="Billing currency">
      <ErrorNote error={currency.error} />
      <dl className="facts card">
        <dt>Currency</dt>
        <dd>{c.currency}</dd>
        <dt>Last change</dt>
        <dd>
          {c.last_change
            ? `${c.last_change.from} to ${c.last_change.to} at ${c.last_change.rate} (rates of ${c.last_change.rates_date}), ${formatTime(c.last_change.at)}`
            : 'Never changed'}
        </dd>
      </dl>
      <p className="hint">{c.conversion}</p>
      {can('settings') ? <CurrencyChooser current={c.currency} options={c.options} conversion={c.conversion} onChanged={onChanged} /> : null}
    </Section>
  );
}

const loadDetails = (client: EngageClient) => must(client.GET('/v1/account/billing-details'));
type Details = Awaited<ReturnType<typeof loadDetails>>;

interface DetailsForm {
  company: string;
  line1: string;
  line2: string;
  city: string;
  postal_code: string;
  region: string;
  country: string;
  tax_id: string;
  email: string;
}

function formOf(details: Details): DetailsForm {
  const a = details.address;
  return {
    company: details.company ?? '',
    line1: a?.line1 ?? '',
    line2: a?.line2 ?? '',
    city: a?.city ?? '',
    postal_code: a?.postal_code ?? '',
    region: a?.region ?? '',
    country: a?.country ?? '',
    tax_id: details.tax_id?.value ?? '',
    email: details.email ?? '',
  };
}

/** The optional fields left empty are left out of the body. */
const optional = (key: string, value: string) => (value.trim() ? { [key]: value.trim() } : {});

/** The form that replaces the invoice details. */
function DetailsEditor({ details, onSaved }: { details: Details; onSaved: () => void }) {
  const [form, setForm] = useState<DetailsForm>(() => formOf(details));
  const [saved, setSaved] = useState(false);
  const action = useAction();
  const headingId = useId();
  const set = (key: keyof DetailsForm) => (value: string) => {
    setSaved(false);
    setForm((f) => ({ ...f, [key]: value }));
  };
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setSaved(false);
    const body = {
      company: form.company,
      address: { line1: form.line1, city: form.city, country: form.country.trim().toUpperCase(), ...optional('line2', form.line2), ...optional('postal_code', form.postal_code), ...optional('region', form.region) },
      ...optional('tax_id', form.tax_id),
      ...optional('email', form.email),
    };
    const answer = await action.run((client) => must(client.PUT('/v1/account/billing-details', { body })));
    if (answer) {
      setSaved(true);
      onSaved();
    }
  };
  return (
    <form className="stack card" aria-labelledby={headingId} onSubmit={submit}>
      <h3 id={headingId}>Edit billing details</h3>
      <TextField label="Company" value={form.company} onChange={set('company')} required autoComplete="organization" />
      <TextField label="Address line 1" value={form.line1} onChange={set('line1')} required autoComplete="address-line1" />
      <TextField label="Address line 2" value={form.line2} onChange={set('line2')} autoComplete="address-line2" />
      <div className="row">
        <TextField label="City" value={form.city} onChange={set('city')} required autoComplete="address-level2" />
        <TextField label="Postal code" value={form.postal_code} onChange={set('postal_code')} autoComplete="postal-code" />
        <TextField label="Region" value={form.region} onChange={set('region')} autoComplete="address-level1" />
      </div>
      <TextField label="Country" value={form.country} onChange={set('country')} required hint="Two-letter ISO code, e.g. DE or US" autoComplete="country" />
      <TextField label="Tax id" value={form.tax_id} onChange={set('tax_id')} hint="VAT, GST or business number, checked for the country's format" />
      <TextField label="Billing email" type="email" value={form.email} onChange={set('email')} hint="Where invoices go" autoComplete="email" />
      <ErrorNote error={action.error} />
      {saved ? <Notice>Billing details saved.</Notice> : null}
      <div className="row">
        <button type="submit" className="primary" disabled={action.pending}>
          {action.pending ? 'Saving…' : 'Save billing details'}
        </button>
      </div>
    </form>
  );
}

function DetailsSection({ version }: { version: number }) {
  const { can } = useSession();
  const [round, setRound] = useState(0);
  const details = useLoad(loadDetails, [version, round]);
  if (!details.data) return <Section title="Billing details"><Pending error={details.error} what="Loading the billing details" /></Section>;
  const d = details.data;
  const a = d.address;
  return (
    <Section title="Billing details">
      <ErrorNote error={details.error} />
      <dl className="facts card">
        <dt>Company</dt>
        <dd>{d.company ?? 'Not set'}</dd>
        <dt>Address</dt>
        <dd>{a ? [a.line1, a.line2, [a.postal_code, a.city].filter(Boolean).join(' '), a.region, a.country].filter(Boolean).join(', ') : 'Not set'}</dd>
        <dt>Tax id</dt>
        <dd>{d.tax_id ? `${d.tax_id.value} (${d.tax_id.type})` : 'Not set'}</dd>
        <dt>Billing email</dt>
        <dd>{d.email ?? 'Not set'}</dd>
        <dt>Updated</dt>
        <dd>{formatTime(d.updated_at)}</dd>
      </dl>
      {can('settings') ? <DetailsEditor details={d} onSaved={() => setRound((r) => r + 1)} /> : null}
    </Section>
  );
}

export function BillingPage() {
  // a currency change converts the balance and prices: every section loads again
  const [version, setVersion] = useState(0);
  const changed = () => setVersion((v) => v + 1);
  return (
    <>
      <PageHeader title="Billing" />
      <PlanSection version={version} />
      <BalanceSection version={version} />
      <UsageSection version={version} />
      <CurrencySection version={version} onChanged={changed} />
      <DetailsSection version={version} />
    </>
  );
}
