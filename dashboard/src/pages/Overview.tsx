// The overview (README "Analytics and deliverability", README "Billing"): the account's messages sent,
// delivered, failed and clicked over a chosen period (GET /v1/account/analytics), as stat cards, a
// chart per day and a chart per channel, each chart followed by a table with the same numbers; email
// deliverability health (GET /v1/account/deliverability) and every channel's delivery and failure
// rates (GET /v1/account/channel-deliverability); and the prepaid balance (GET /v1/account/balance).
// The figures change as messages go out, so the page loads them again every 15 seconds.
import { type ReactNode, useId, useState } from 'react';
import { Link } from 'react-router';
import { Bar, BarChart, CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { type components, must } from '../api.ts';
import { DataTable, ErrorNote, Loading, PageHeader, SelectField, Status } from '../components/ui.tsx';
import { CHANNEL_NAMES, type Channel, formatMoney, formatNumber, formatPercent, formatTime } from '../format.ts';
import { useLoad } from '../hooks.ts';
import './Overview.css';

type AnalyticsReport = components['schemas']['AnalyticsReport'];
type DeliverabilityReport = components['schemas']['DeliverabilityReport'];
type ChannelDeliverabilityReport = components['schemas']['ChannelDeliverabilityReport'];

/** The figures counted per day and channel, with the colours the charts draw them in (AA contrast on white). */
const METRICS = [
  { key: 'sent', label: 'Sent', color: '#1d4ed8' },
  { key: 'delivered', label: 'Delivered', color: '#067647' },
  { key: 'failed', label: 'Failed', color: '#b42318' },
  { key: 'clicked', label: 'Clicked', color: '#8a4b00' },
] as const;
type Metric = (typeof METRICS)[number]['key'];
type Counts = Record<Metric, number>;

const PERIODS = [
  { value: '7', label: 'Last 7 days' },
  { value: '30', label: 'Last 30 days' },
  { value: '90', label: 'Last 90 days' },
] as const;
type PeriodDays = (typeof PERIODS)[number]['value'];

const REFRESH_MS = 15_000;

const isoDay = (date: Date) => date.toISOString().slice(0, 10);

/** The UTC days from..to (both included) of the `days` days ending today. */
function rangeOf(days: number): { from: string; to: string } {
  const now = new Date();
  const from = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() - (days - 1)));
  return { from: isoDay(from), to: isoDay(now) };
}

const dayFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeZone: 'UTC' });
const shortDayFormat = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric', timeZone: 'UTC' });
/** A UTC day (YYYY-MM-DD) as the reader writes dates. */
export const formatDay = (day: string) => dayFormat.format(Date.parse(`${day}T00:00:00Z`));
const formatShortDay = (day: string) => shortDayFormat.format(Date.parse(`${day}T00:00:00Z`));

const zero = (): Counts => ({ sent: 0, delivered: 0, failed: 0, clicked: 0 });

function addInto(into: Counts, row: Counts): void {
  for (const m of METRICS) into[m.key] += row[m.key];
}

/** The report's rows summed over channels, one per day in order. */
function perDay(report: AnalyticsReport): ({ day: string } & Counts)[] {
  const days = new Map<string, { day: string } & Counts>();
  for (const row of report.days) {
    const entry = days.get(row.day) ?? { day: row.day, ...zero() };
    addInto(entry, row);
    days.set(row.day, entry);
  }
  return [...days.values()].sort((a, b) => a.day.localeCompare(b.day));
}

/** The report's rows summed over days, one per channel. */
function perChannel(report: AnalyticsReport): ({ channel: Channel } & Counts)[] {
  return report.channels.map((channel) => {
    const entry = { channel, ...zero() };
    for (const row of report.days) if (row.channel === channel) addInto(entry, row);
    return entry;
  });
}

const countColumns = METRICS.map((m) => ({ header: m.label, cell: (row: Counts) => formatNumber(row[m.key]) }));

/** A labelled section with its own heading. */
function Section({ title, children }: { title: string; children: ReactNode }) {
  const id = useId();
  return (
    <section aria-labelledby={id} className="overview-section">
      <h2 id={id}>{title}</h2>
      {children}
    </section>
  );
}

/** One stat card: the term, then the figure. */
function Stat({ label, value }: { label: string; value: string }) {
  return (
    <div className="stat">
      <dt>{label}</dt>
      <dd>{value}</dd>
    </div>
  );
}

/** A chart read as one image with a name; the numbers it draws are in the table given as `table`. */
function Chart({ label, children, table }: { label: string; children: ReactNode; table: ReactNode }) {
  return (
    <figure className="overview-chart">
      <div role="img" aria-label={label} className="chart">
        <ResponsiveContainer width="100%" height={280}>
          {children}
        </ResponsiveContainer>
      </div>
      {table}
    </figure>
  );
}

function Totals({ report }: { report: AnalyticsReport }) {
  const { totals } = report;
  return (
    <dl className="cards">
      {METRICS.map((m) => (
        <Stat key={m.key} label={m.label} value={formatNumber(totals[m.key])} />
      ))}
      <Stat label="Delivery rate" value={formatPercent(totals.delivery_rate)} />
      <Stat label="Click rate" value={formatPercent(totals.click_rate)} />
    </dl>
  );
}

function DailyChart({ report }: { report: AnalyticsReport }) {
  const rows = perDay(report);
  const label = `Chart of messages per day from ${formatDay(report.from)} to ${formatDay(report.to)}: sent, delivered, failed and clicked. The table "Messages per day" has its numbers.`;
  return (
    <Chart
      label={label}
      table={
        <DataTable
          caption="Messages per day"
          columns={[{ header: 'Day', cell: (row: (typeof rows)[number]) => <time dateTime={row.day}>{formatDay(row.day)}</time> }, ...countColumns]}
          rows={[...rows].reverse()}
          rowKey={(row) => row.day}
        />
      }
    >
      <LineChart data={rows} accessibilityLayer={false} margin={{ top: 8, right: 16, bottom: 8, left: 0 }}>
        <CartesianGrid stroke="#d4d9e0" strokeDasharray="3 3" />
        <XAxis dataKey="day" tickFormatter={formatShortDay} tick={{ fill: '#4d5561' }} minTickGap={16} />
        <YAxis allowDecimals={false} tick={{ fill: '#4d5561' }} width={48} />
        <Tooltip labelFormatter={(day) => formatDay(String(day))} />
        <Legend itemSorter={null} />
        {METRICS.map((m) => (
          <Line key={m.key} type="linear" dataKey={m.key} name={m.label} stroke={m.color} strokeWidth={2} dot={{ r: 2 }} isAnimationActive={false} />
        ))}
      </LineChart>
    </Chart>
  );
}

function ChannelChart({ report }: { report: AnalyticsReport }) {
  const rows = perChannel(report).map((row) => ({ ...row, name: CHANNEL_NAMES[row.channel] }));
  const label = `Bar chart of messages per channel from ${formatDay(report.from)} to ${formatDay(report.to)}: sent, delivered, failed and clicked. The table "Messages per channel" has its numbers.`;
  return (
    <Chart
      label={label}
      table={
        <DataTable
          caption="Messages per channel"
          columns={[{ header: 'Channel', cell: (row: (typeof rows)[number]) => row.name }, ...countColumns]}
          rows={rows}
          rowKey={(row) => row.channel}
        />
      }
    >
      <BarChart data={rows} accessibilityLayer={false} margin={{ top: 8, right: 16, bottom: 8, left: 0 }}>
        <CartesianGrid stroke="#d4d9e0" strokeDasharray="3 3" />
        <XAxis dataKey="name" tick={{ fill: '#4d5561' }} />
        <YAxis allowDecimals={false} tick={{ fill: '#4d5561' }} width={48} />
        <Tooltip />
        <Legend itemSorter={null} />
        {METRICS.map((m) => (
          <Bar key={m.key} dataKey={m.key} name={m.label} fill={m.color} isAnimationActive={false} />
        ))}
      </BarChart>
    </Chart>
  );
}

function Activity({ days }: { days: PeriodDays }) {
  const range = rangeOf(Number(days));
  const analytics = useLoad((client) => must(client.GET('/v1/account/analytics', { params: { query: range } })), [range.from, range.to], REFRESH_MS);
  if (!analytics.data) return analytics.error ? <ErrorNote error={analytics.error} /> : <Loading what="Loading the messages" />;
  const report = analytics.data;
  return (
    <>
      <ErrorNote error={analytics.error} />
      <p className="hint">
        From {formatDay(report.from)} to {formatDay(report.to)} (UTC days), every channel.
      </p>
      <Section title="Totals">
        <Totals report={report} />
      </Section>
      <Section title="Messages per day">
        <DailyChart report={report} />
      </Section>
      <Section title="Messages per channel">
        <ChannelChart report={report} />
      </Section>
    </>
  );
}

const HEALTH_TEXT: Record<DeliverabilityReport['health']['status'], string> = {
  healthy: 'Bounce and complaint rates are below the bulk-sender thresholds.',
  at_risk: 'A rate has reached the at-risk threshold: see the reasons below.',
  critical: 'A rate has reached the critical threshold: see the reasons below.',
  insufficient_data: 'Too few delivered emails in the last 30 days to judge; the figures are shown below.',
};

const WINDOW_NAMES = { '7d': 'Last 7 days', '30d': 'Last 30 days' } as const;
type Window = keyof typeof WINDOW_NAMES;
const WINDOWS: Window[] = ['7d', '30d'];

function EmailHealth({ report }: { report: DeliverabilityReport }) {
  const { health, thresholds } = report;
  const rows = WINDOWS.map((w) => ({ window: w, ...report.windows[w] }));
  return (
    <div className="card">
      <h3>Email health</h3>
      <p>
        <Status value={health.status} /> {HEALTH_TEXT[health.status]}
      </p>
      {health.reasons.length ? (
        <ul>
          {health.reasons.map((reason) => (
            <li key={`${reason.metric}-${reason.window}`}>
              <Status value={reason.status} /> {reason.message}
            </li>
          ))}
        </ul>
      ) : null}
      <DataTable
        caption="Email deliverability"
        columns={[
          { header: 'Window', cell: (row: (typeof rows)[number]) => `${WINDOW_NAMES[row.window]} (${formatDay(row.from)} – ${formatDay(row.to)})` },
          { header: 'Sent', cell: (row) => formatNumber(row.sent) },
          { header: 'Delivered', cell: (row) => formatNumber(row.delivered) },
          { header: 'Bounced', cell: (row) => formatNumber(row.bounced) },
          { header: 'Complaints', cell: (row) => formatNumber(row.complaints) },
          { header: 'Bounce rate', cell: (row) => formatPercent(row.bounce_rate, 2) },
          { header: 'Complaint rate', cell: (row) => formatPercent(row.complaint_rate, 3) },
        ]}
        rows={rows}
        rowKey={(row) => row.window}
      />
      <p className="hint">
        Complaint rate: at risk from {formatPercent(thresholds.complaint_rate.at_risk_from)}, critical from {formatPercent(thresholds.complaint_rate.critical_from)} (
        {thresholds.complaint_rate.source}). Bounce rate: at risk from {formatPercent(thresholds.bounce_rate.at_risk_from)}, critical from{' '}
        {formatPercent(thresholds.bounce_rate.critical_from)} ({thresholds.bounce_rate.source}). A verdict needs {formatNumber(thresholds.min_delivered)} delivered emails in 30 days.
      </p>
    </div>
  );
}

function ChannelRates({ report }: { report: ChannelDeliverabilityReport }) {
  type Row = ChannelDeliverabilityReport['channels'][number];
  const windowColumns = WINDOWS.flatMap((w) => {
    const days = w === '7d' ? '7 days' : '30 days';
    return [
      { header: `Sent, ${days}`, cell: (row: Row) => formatNumber(row.windows[w].sent) },
      { header: `Delivered, ${days}`, cell: (row: Row) => formatNumber(row.windows[w].delivered) },
      { header: `Failed, ${days}`, cell: (row: Row) => formatNumber(row.windows[w].failed) },
      { header: `Delivery rate, ${days}`, cell: (row: Row) => formatPercent(row.windows[w].delivery_rate) },
      { header: `Failure rate, ${days}`, cell: (row: Row) => formatPercent(row.windows[w].failure_rate) },
    ];
  });
  return (
    <DataTable
      caption="Delivery by channel"
      columns={[{ header: 'Channel', cell: (row: Row) => CHANNEL_NAMES[row.channel] }, ...windowColumns]}
      rows={report.channels}
      rowKey={(row) => row.channel}
    />
  );
}

function Deliverability() {
  const email = useLoad((client) => must(client.GET('/v1/account/deliverability')), [], REFRESH_MS);
  const channels = useLoad((client) => must(client.GET('/v1/account/channel-deliverability')), [], REFRESH_MS);
  return (
    <Section title="Deliverability">
      <ErrorNote error={email.error} />
      {email.data ? <EmailHealth report={email.data} /> : email.error ? null : <Loading what="Loading email deliverability" />}
      <ErrorNote error={channels.error} />
      {channels.data ? <ChannelRates report={channels.data} /> : channels.error ? null : <Loading what="Loading delivery by channel" />}
    </Section>
  );
}

function Balance() {
  const balance = useLoad((client) => must(client.GET('/v1/account/balance')), [], REFRESH_MS);
  return (
    <Section title="Balance">
      <ErrorNote error={balance.error} />
      {balance.data ? (
        <dl className="cards">
          <Stat label="Prepaid balance" value={formatMoney(balance.data.balance, balance.data.currency)} />
          <Stat label="Last change" value={formatTime(balance.data.updated_at)} />
        </dl>
      ) : balance.error ? null : (
        <Loading what="Loading the balance" />
      )}
      <p>
        <Link to="/billing">Plan, usage and the balance ledger</Link>
      </p>
    </Section>
  );
}

export function Overview() {
  const [days, setDays] = useState<PeriodDays>('30');
  return (
    <>
      <PageHeader title="Overview">
        <SelectField label="Period" value={days} options={PERIODS} onChange={setDays} />
      </PageHeader>
      <Activity days={days} />
      <Balance />
      <Deliverability />
    </>
  );
}
