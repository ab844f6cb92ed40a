// Domains (README "Email domains", "Link domains and click tracking"): the account's email sending
// domains and link domains. An email domain's page shows the DNS records to publish (each with a Copy
// button) and what the last live check found of each, checks them again (Verify), decides from pasted
// headers whether mail is DKIM-signed for the domain, says whether it is ready for DMARC enforcement,
// lists its DMARC aggregate reports, and runs its warm-up and its BIMI logo. A link domain shows the
// CNAME to publish and is verified from the list.
import { type FormEvent, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { type ApiError, type components, type EngageClient, must } from '../api.ts';
import { type Column, ConfirmButton, DataTable, ErrorNote, Loading, Notice, PageHeader, Pager, SelectField, Status, TextArea, TextField, useCursor } from '../components/ui.tsx';
import { formatNumber, formatPercent, formatTime } from '../format.ts';
import { useAction, useLoad } from '../hooks.ts';
import { useSession } from '../session.tsx';
import './Domains.css';

type EmailDomain = components['schemas']['EmailDomain'];
type DnsRecord = EmailDomain['records'][number];
type LinkDomain = components['schemas']['LinkDomain'];
type DkimAlgorithm = EmailDomain['dkim']['algorithm'];
type WarmupAction = 'start' | 'pause' | 'resume' | 'stop';

const RECORD_NAMES: Record<DnsRecord['kind'], string> = { spf: 'SPF', dkim: 'DKIM', dmarc: 'DMARC', return_path: 'Return path', mx: 'MX' };
const ALGORITHMS: readonly { value: DkimAlgorithm; label: string }[] = [
  { value: 'rsa-sha256', label: 'RSA-2048 (rsa-sha256)' },
  { value: 'ed25519-sha256', label: 'Ed25519 (ed25519-sha256)' },
];
const CRITERIA: Record<string, string> = {
  dkim_verified: 'The domain is verified (DKIM and SPF pass)',
  enough_reports: 'Reports cover at least 14 days and 100 messages',
  dmarc_pass_rate: 'At least 98% of reported messages pass DMARC',
  every_sender_aligned: 'Every source sending 1% or more of the mail passes DMARC for 95% of it',
};

/** The name a domain is shown by: its Unicode form, with the ASCII one when they differ. */
const domainName = (d: { domain: string; unicode_domain: string }) => (d.unicode_domain === d.domain ? d.domain : `${d.unicode_domain} (${d.domain})`);

/** A clipboard failure, said as the API says its own. */
const clipboardError = (err: unknown): ApiError => ({ error: 'clipboard', message: `Could not copy: ${err instanceof Error ? err.message : String(err)}` });

/** A "Copy" button named for what it copies, saying when it has. */
function CopyButton({ what, value }: { what: string; value: string }) {
  const [copied, setCopied] = useState(false);
  const [error, setError] = useState<ApiError>();
  return (
    <span className="copy-record">
      <button
        type="button"
        aria-label={`Copy ${what}`}
        onClick={async () => {
          setError(undefined);
          try {
            await navigator.clipboard.writeText(value);
            setCopied(true);
          } catch (err) {
            setCopied(false);
            setError(clipboardError(err));
          }
        }}
      >
        Copy
      </button>
      <span role="status" className="hint">
        {copied ? 'Copied' : ''}
      </span>
      <ErrorNote error={error} />
    </span>
  );
}

// ——— the Domains page ———

export function DomainsPage() {
  return (
    <>
      <PageHeader title="Domains" />
      <EmailDomainsSection />
      <LinkDomainsSection />
    </>
  );
}

function AddEmailDomainForm() {
  const navigate = useNavigate();
  const action = useAction();
  const [domain, setDomain] = useState('');
  const [algorithm, setAlgorithm] = useState<DkimAlgorithm>('rsa-sha256');
  async function submit(e: FormEvent) {
    e.preventDefault();
    const added = await action.run((client) => must(client.POST('/v1/account/email-domains', { body: { domain, dkim_algorithm: algorithm } })));
    if (added) navigate(`/domains/email/${added.id}`);
  }
  return (
    <form className="row" onSubmit={submit} aria-label="Add an email domain">
      <TextField label="Email domain" value={domain} onChange={setDomain} required placeholder="mail.example.com" />
      <SelectField label="DKIM key" value={algorithm} options={ALGORITHMS} onChange={setAlgorithm} />
      <button type="submit" className="primary" disabled={action.pending}>
        Add email domain
      </button>
      <ErrorNote error={action.error} />
    </form>
  );
}

function EmailDomainsSection() {
  const { can } = useSession();
  const pages = useCursor();
  const domains = useLoad((client) => must(client.GET('/v1/account/email-domains', { params: { query: pages.cursor ? { cursor: pages.cursor } : {} } })), [pages.cursor]);
  const remove = useAction();
  const [removed, setRemoved] = useState<string>();

  const columns: Column<EmailDomain>[] = [
    { header: 'Domain', cell: (d) => <Link to={`/domains/email/${d.id}`}>{domainName(d)}</Link> },
    { header: 'Status', cell: (d) => <Status value={d.status} /> },
    {
      header: 'Required records',
      cell: (d) => {
        const required = d.records.filter((r) => r.required);
        return `${required.filter((r) => r.status === 'pass').length} of ${required.length} pass`;
      },
    },
    { header: 'Last checked', cell: (d) => formatTime(d.checked_at) },
    { header: 'Warm-up', cell: (d) => d.warmup.status.replace('_', ' ') },
  ];
  if (can('write')) {
    columns.push({
      header: 'Actions',
      cell: (d) => (
        <ConfirmButton
          label={`Delete ${d.domain}`}
          title={`Delete ${d.domain}?`}
          confirmLabel="Delete the domain"
          danger
          onConfirm={async () => {
            const done = await remove.run((client) => must(client.DELETE('/v1/account/email-domains/{id}', { params: { path: { id: d.id } } })));
            if (done) setRemoved(d.domain);
            domains.reload();
          }}
        >
          <p>Its DKIM key is removed with it: mail from {d.domain} is no longer signed.</p>
        </ConfirmButton>
      ),
    });
  }

  return (
    <section className="card" aria-labelledby="email-domains">
      <h2 id="email-domains">Email domains</h2>
      <p className="hint">The domains the account sends email from: mail from a verified one is DKIM-signed with its key.</p>
      {can('write') ? <AddEmailDomainForm /> : null}
      <ErrorNote error={remove.error} />
      {removed ? <Notice>{removed} is deleted.</Notice> : null}
      <ErrorNote error={domains.error} />
      {domains.data ? (
        <>
          <DataTable caption="Email domains" columns={columns} rows={domains.data.data} rowKey={(d) => d.id} empty="No email domain yet." />
          <Pager hasNext={Boolean(domains.data.next_cursor)} hasPrevious={pages.hasPrevious} onNext={() => pages.next(domains.data?.next_cursor)} onPrevious={pages.previous} />
        </>
      ) : domains.loading ? (
        <Loading what="Loading email domains" />
      ) : null}
    </section>
  );
}

/** What a link domain's last check found, as text. */
function linkCheckText(d: LinkDomain): string {
  if (!d.checked_at) return 'Not checked yet';
  const found = d.found.length ? `found ${d.found.join(', ')}` : 'found no CNAME';
  return d.error ? `${found}: ${d.error}` : found;
}

function LinkDomainsSection() {
  const { can } = useSession();
  const pages = useCursor();
  const domains = useLoad((client) => must(client.GET('/v1/account/link-domains', { params: { query: pages.cursor ? { cursor: pages.cursor } : {} } })), [pages.cursor]);
  const add = useAction();
  const act = useAction();
  const [domain, setDomain] = useState('');
  const [said, setSaid] = useState<string>();

  async function submit(e: FormEvent) {
    e.preventDefault();
    const added = await add.run((client) => must(client.POST('/v1/account/link-domains', { body: { domain } })));
    if (added) {
      setDomain('');
      setSaid(`${added.domain} is added: publish its CNAME record, then verify it.`);
      domains.reload();
    }
  }

  async function verify(d: LinkDomain) {
    setSaid(undefined);
    const checked = await act.run((client) => must(client.POST('/v1/account/link-domains/{id}/verify', { params: { path: { id: d.id } } })));
    if (checked) setSaid(checked.status === 'verified' ? `${checked.domain} is verified.` : `${checked.domain} is still pending: ${linkCheckText(checked)}.`);
    domains.reload();
  }

  const columns: Column<LinkDomain>[] = [
    { header: 'Domain', cell: (d) => domainName(d) },
    { header: 'Status', cell: (d) => <Status value={d.status} /> },
    {
      header: 'CNAME record',
      cell: (d) => (
        <span className="record-line">
          <code>{d.record.name}</code> {d.record.type} <code>{d.record.value}</code> <CopyButton what={`the CNAME target of ${d.domain}`} value={d.record.value} />
        </span>
      ),
    },
    { header: 'Last check', cell: (d) => `${linkCheckText(d)}${d.checked_at ? ` (${formatTime(d.checked_at)})` : ''}` },
  ];
  if (can('write')) {
    columns.push({
      header: 'Actions',
      cell: (d) => (
        <span className="domain-actions">
          <button type="button" disabled={act.pending} onClick={() => verify(d)}>
            Verify {d.domain}
          </button>
          <ConfirmButton
            label={`Delete ${d.domain}`}
            title={`Delete ${d.domain}?`}
            confirmLabel="Delete the link domain"
            danger
            onConfirm={async () => {
              const done = await act.run((client) => must(client.DELETE('/v1/account/link-domains/{id}', { params: { path: { id: d.id } } })));
              if (done) setSaid(`${d.domain} is deleted.`);
              domains.reload();
            }}
          >
            <p>Links sent from now on no longer go through {d.domain}; links already sent keep working while it points here.</p>
          </ConfirmButton>
        </span>
      ),
    });
  }

  return (
    <section className="card" aria-labelledby="link-domains">
      <h2 id="link-domains">Link domains</h2>
      <p className="hint">Tracked links in HTML email go through the account's newest verified link domain: point its CNAME at the target shown.</p>
      {can('write') ? (
        <form className="row" onSubmit={submit} aria-label="Add a link domain">
          <TextField label="Link domain" value={domain} onChange={setDomain} required placeholder="links.example.com" />
          <button type="submit" className="primary" disabled={add.pending}>
            Add link domain
          </button>
        </form>
      ) : null}
      <ErrorNote error={add.error} />
      <ErrorNote error={act.error} />
      {said ? <Notice>{said}</Notice> : null}
      <ErrorNote error={domains.error} />
      {domains.data ? (
        <>
          <DataTable caption="Link domains" columns={columns} rows={domains.data.data} rowKey={(d) => d.id} empty="No link domain yet." />
          <Pager hasNext={Boolean(domains.data.next_cursor)} hasPrevious={pages.hasPrevious} onNext={() => pages.next(domains.data?.next_cursor)} onPrevious={pages.previous} />
        </>
      ) : domains.loading ? (
        <Loading what="Loading link domains" />
      ) : null}
    </section>
  );
}

// ——— an email domain's page ———

async function loadEmailDomain(client: EngageClient, id: string): Promise<EmailDomain> {
  return must(client.GET('/v1/account/email-domains/{id}', { params: { path: { id } } }));
}

/** A record's last check: its status, and what DNS answered (folded away: a DKIM key is long). */
function CheckResult({ record }: { record: DnsRecord }) {
  return (
    <>
      <Status value={record.status} />
      {record.found.length ? (
        <details className="dns-found">
          <summary>What DNS answered ({record.found.length})</summary>
          <ul>
            {record.found.map((f, i) => (
              <li key={i}>
                <code>{f}</code>
              </li>
            ))}
          </ul>
        </details>
      ) : record.status !== 'unchecked' ? (
        <span className="hint"> nothing found</span>
      ) : null}
    </>
  );
}

function RecordsSection({ domain }: { domain: EmailDomain }) {
  const columns: Column<DnsRecord>[] = [
    { header: 'Record', cell: (r) => `${RECORD_NAMES[r.kind]}${r.required ? ' (required)' : ' (optional)'}` },
    { header: 'Type', cell: (r) => r.type },
    {
      header: 'Host',
      cell: (r) => (
        <span className="record-line">
          <code>{r.name}</code> <CopyButton what={`the ${RECORD_NAMES[r.kind]} record's host`} value={r.name} />
        </span>
      ),
    },
    {
      header: 'Value',
      // the MX row describes what is needed rather than giving a value to paste
      cell: (r) =>
        r.kind === 'mx' ? (
          <span>{r.value}</span>
        ) : (
          <span className="record-line">
            <code className="record-value">{r.value}</code> <CopyButton what={`the ${RECORD_NAMES[r.kind]} record's value`} value={r.value} />
          </span>
        ),
    },
    { header: 'Last check', cell: (r) => <CheckResult record={r} /> },
  ];
  return (
    <section className="card" aria-labelledby="dns-records">
      <h2 id="dns-records">DNS records</h2>
      <p className="hint">Publish these at your DNS provider, then verify. The domain is verified while its required records pass.</p>
      <DataTable caption="DNS records to publish" columns={columns} rows={domain.records} rowKey={(r) => r.kind} />
    </section>
  );
}

/** What a verification found, in a sentence. */
function verificationText(domain: EmailDomain): string {
  const failing = domain.records.filter((r) => r.required && r.status !== 'pass').map((r) => `${RECORD_NAMES[r.kind]} ${r.status}`);
  const optional = domain.records.filter((r) => !r.required).map((r) => `${RECORD_NAMES[r.kind]} ${r.status}`);
  const head = domain.status === 'verified' ? `${domain.domain} is verified: every required record passes.` : `${domain.domain} is pending: ${failing.join(', ')}.`;
  return `${head} Optional records: ${optional.join(', ')}.`;
}

function SigningSection({ domain, onChecked }: { domain: EmailDomain; onChecked: () => void }) {
  const { can } = useSession();
  const action = useAction();
  const [headers, setHeaders] = useState('');
  const [results, setResults] = useState('');
  const [check, setCheck] = useState<Awaited<ReturnType<typeof checkSigning>>>();

  async function submit(e: FormEvent) {
    e.preventDefault();
    const answer = await action.run((client) => checkSigning(client, domain.id, headers, results));
    if (answer) {
      setCheck(answer);
      onChecked();
    }
  }

  const last = domain.signing;
  return (
    <section className="card" aria-labelledby="signing">
      <h2 id="signing">DKIM signing</h2>
      <p className="hint">Paste the headers of a message sent from the domain, as a mailbox shows them: the check says whether it carries a DKIM signature for {domain.domain} (no DNS lookup).</p>
      <p>
        Last verdict: {last ? <><Status value={last.verdict} /> ({formatTime(last.checked_at)}){last.decided_by ? `, decided by the ${last.decided_by.source.replace('_', ' ')} for ${last.decided_by.d} (${last.decided_by.alignment})` : ''}</> : 'not checked yet'}
      </p>
      {can('write') ? (
        <form className="stack" onSubmit={submit}>
          <TextArea label="Message headers" value={headers} onChange={setHeaders} rows={8} required hint="The raw headers (folded lines are fine), or a JSON map of them." />
          <TextArea label="Authentication-Results (optional)" value={results} onChange={setResults} rows={2} />
          <ErrorNote error={action.error} />
          <div className="row">
            <button type="submit" className="primary" disabled={action.pending}>
              Check signing
            </button>
          </div>
        </form>
      ) : null}
      {check ? (
        <div role="status" className="signing-result">
          <p>
            Verdict: <Status value={check.verdict} />
            {check.decided_by ? ` decided by the ${check.decided_by.source.replace('_', ' ')} for ${check.decided_by.d}${check.decided_by.s ? ` (selector ${check.decided_by.s})` : ''}, ${check.decided_by.alignment} alignment` : ''}
          </p>
          {check.signatures.length ? (
            <ul aria-label="DKIM signatures found">
              {check.signatures.map((s, i) => (
                <li key={i}>
                  d={s.d} s={s.s} a={s.a}: {s.malformed ? `cannot count (${s.malformed})` : s.alignment ? `${s.alignment}ly aligned` : 'not aligned'}
                </li>
              ))}
            </ul>
          ) : (
            <p>No DKIM-Signature header found.</p>
          )}
          {check.results.length ? (
            <ul aria-label="DKIM results found">
              {check.results.map((r, i) => (
                <li key={i}>
                  dkim={r.result} {r.d ? `header.d=${r.d}` : ''} by {r.authserv_id}: {r.alignment ? `${r.alignment}ly aligned` : 'not aligned'}
                </li>
              ))}
            </ul>
          ) : null}
        </div>
      ) : null}
    </section>
  );
}

function checkSigning(client: EngageClient, id: string, headers: string, authenticationResults: string) {
  return must(
    client.POST('/v1/account/email-domains/{id}/check-signing', {
      params: { path: { id } },
      body: { headers, ...(authenticationResults.trim() ? { authentication_results: authenticationResults } : {}) },
    }),
  );
}

function ReadinessSection({ id, round }: { id: string; round: number }) {
  const readiness = useLoad((client) => must(client.GET('/v1/account/email-domains/{id}/dmarc/readiness', { params: { path: { id } } })), [id, round]);
  const r = readiness.data;
  return (
    <section className="card" aria-labelledby="dmarc-readiness">
      <h2 id="dmarc-readiness">DMARC readiness</h2>
      <ErrorNote error={readiness.error} />
      {r ? (
        <>
          <p className="dmarc-verdict">
            {r.ready ? 'Ready for p=quarantine: every criterion holds.' : 'Not ready for p=quarantine yet.'}
          </p>
          <ul className="dmarc-criteria" aria-label="Criteria">
            {r.criteria.map((c) => (
              <li key={c.name}>
                <Status value={c.pass ? 'pass' : 'fail'} /> {CRITERIA[c.name] ?? c.name}: {c.detail}
                {c.sources?.length ? ` (held back by ${c.sources.join(', ')})` : ''}
              </li>
            ))}
          </ul>
          <DataTable
            caption="Records to publish for p=quarantine"
            rows={r.records}
            rowKey={(rec) => rec.name}
            columns={[
              { header: 'Type', cell: (rec) => rec.type },
              {
                header: 'Host',
                cell: (rec) => (
                  <span className="record-line">
                    <code>{rec.name}</code> <CopyButton what={`the host ${rec.name}`} value={rec.name} />
                  </span>
                ),
              },
              {
                header: 'Value',
                cell: (rec) => (
                  <span className="record-line">
                    <code>{rec.value}</code> <CopyButton what={`the value for ${rec.name}`} value={rec.value} />
                  </span>
                ),
              },
              { header: 'Published by', cell: (rec) => rec.published_by ?? 'this domain' },
            ]}
          />
        </>
      ) : readiness.loading ? (
        <Loading what="Loading DMARC readiness" />
      ) : null}
    </section>
  );
}

function DmarcReportsSection({ id, round, onStored }: { id: string; round: number; onStored: () => void }) {
  const { can } = useSession();
  const overview = useLoad((client) => must(client.GET('/v1/account/email-domains/{id}/dmarc', { params: { path: { id }, query: { limit: 20 } } })), [id, round]);
  const upload = useAction();
  const [xml, setXml] = useState('');
  const [stored, setStored] = useState<string>();

  async function submit(e: FormEvent) {
    e.preventDefault();
    setStored(undefined);
    const answer = await upload.run((client) => must(client.POST('/v1/account/email-domains/{id}/dmarc', { params: { path: { id } }, body: { xml } })));
    if (answer) {
      setXml('');
      setStored(answer.duplicate ? `The report ${answer.report.report_id} of ${answer.report.org_name} was stored already: it is not counted again.` : `The report ${answer.report.report_id} of ${answer.report.org_name} is stored.`);
      onStored();
    }
  }

  const data = overview.data;
  const rollup = data?.rollup;
  return (
    <section className="card" aria-labelledby="dmarc-reports">
      <h2 id="dmarc-reports">DMARC reports</h2>
      <ErrorNote error={overview.error} />
      {rollup ? (
        <dl className="facts">
          <dt>Reports ({rollup.window_days} days)</dt>
          <dd>{formatNumber(rollup.reports)}</dd>
          <dt>Reporters</dt>
          <dd>{rollup.reporters.length ? rollup.reporters.join(', ') : '—'}</dd>
          <dt>Days</dt>
          <dd>{rollup.first_day ? `${rollup.first_day} to ${rollup.last_day}` : '—'}</dd>
          <dt>Messages</dt>
          <dd>{formatNumber(rollup.messages)}</dd>
          <dt>Passing DMARC</dt>
          <dd>{rollup.messages ? `${formatNumber(rollup.dmarc_pass)} (${formatPercent(rollup.dmarc_pass / rollup.messages)})` : '—'}</dd>
        </dl>
      ) : null}
      {data ? (
        <DataTable
          caption="Recent DMARC reports, newest first"
          rows={data.reports}
          rowKey={(r) => `${r.org_name} ${r.report_id}`}
          empty="No DMARC report yet: they come to the rua address of the DMARC record."
          columns={[
            { header: 'Reporter', cell: (r) => r.org_name },
            { header: 'Report', cell: (r) => r.report_id },
            { header: 'Period', cell: (r) => `${formatTime(r.begin)} to ${formatTime(r.end)}` },
            { header: 'Messages', cell: (r) => formatNumber(r.messages) },
            { header: 'Passing DMARC', cell: (r) => formatNumber(r.sources.reduce((n, s) => n + s.dmarc_pass, 0)) },
            { header: 'Policy', cell: (r) => `p=${r.policy.p}` },
          ]}
        />
      ) : overview.loading ? (
        <Loading what="Loading DMARC reports" />
      ) : null}
      {can('write') ? (
        <form className="stack" onSubmit={submit}>
          <TextArea label="Aggregate report XML" value={xml} onChange={setXml} rows={4} required hint="One RFC 7489 report (.xml; unzip it first)." />
          <ErrorNote error={upload.error} />
          <div className="row">
            <button type="submit" disabled={upload.pending}>
              Add report
            </button>
          </div>
        </form>
      ) : null}
      {stored ? <Notice>{stored}</Notice> : null}
    </section>
  );
}

/** The warm-up actions the state allows (README "Email domains": warm-up). */
function warmupActions(status: EmailDomain['warmup']['status']): { action: WarmupAction; label: string }[] {
  switch (status) {
    case 'not_started':
    case 'stopped':
      return [{ action: 'start', label: 'Start warm-up' }];
    case 'active':
      return [
        { action: 'pause', label: 'Pause warm-up' },
        { action: 'stop', label: 'Stop warm-up' },
      ];
    case 'paused':
      return [
        { action: 'resume', label: 'Resume warm-up' },
        { action: 'stop', label: 'Stop warm-up' },
      ];
  }
}

function WarmupSection({ domain, onChanged }: { domain: EmailDomain; onChanged: () => void }) {
  const { can } = useSession();
  const action = useAction();
  const w = domain.warmup;
  async function change(to: WarmupAction) {
    const changed = await action.run((client) => must(client.POST('/v1/account/email-domains/{id}/warmup', { params: { path: { id: domain.id } }, body: { action: to } })));
    if (changed) onChanged();
  }
  return (
    <section className="card" aria-labelledby="warmup">
      <h2 id="warmup">Warm-up</h2>
      <p className="hint">While warm-up runs, marketing email from the domain is capped per day, from 50 on day 1 to unlimited from day 22; mail over the cap waits for the next day.</p>
      <dl className="facts">
        <dt>State</dt>
        <dd>
          <Status value={w.status.replace('_', ' ')} />
        </dd>
        <dt>Started</dt>
        <dd>{formatTime(w.started_at)}</dd>
        <dt>Day</dt>
        <dd>{w.day ?? '—'}</dd>
        <dt>Cap today</dt>
        <dd>{w.cap_today === null ? 'none' : formatNumber(w.cap_today)}</dd>
        <dt>Sent today</dt>
        <dd>{formatNumber(w.sent_today)}</dd>
      </dl>
      {can('write') ? (
        <div className="row warmup-actions">
          {warmupActions(w.status).map((a) => (
            <button key={a.action} type="button" disabled={action.pending} onClick={() => change(a.action)}>
              {a.label}
            </button>
          ))}
        </div>
      ) : null}
      <ErrorNote error={action.error} />
    </section>
  );
}

function BimiSection({ domain, onChanged }: { domain: EmailDomain; onChanged: () => void }) {
  const { can } = useSession();
  const action = useAction();
  const [url, setUrl] = useState(domain.bimi?.logo_url ?? '');
  const [record, setRecord] = useState(domain.bimi?.record);
  async function save(logoUrl: string | null) {
    const answer = await action.run((client) => must(client.PUT('/v1/account/email-domains/{id}/bimi', { params: { path: { id: domain.id } }, body: { logo_url: logoUrl } })));
    if (answer) {
      setRecord(answer.record);
      if (logoUrl === null) setUrl('');
      onChanged();
    }
  }
  return (
    <section className="card" aria-labelledby="bimi">
      <h2 id="bimi">BIMI logo</h2>
      <p className="hint">An https SVG Tiny PS file, square. Mailbox providers show it only at DMARC enforcement and, for most, with a mark certificate.</p>
      <p>Logo: {domain.bimi ? <a href={domain.bimi.logo_url}>{domain.bimi.logo_url}</a> : 'none'}</p>
      {can('write') ? (
        <form
          className="row"
          onSubmit={(e) => {
            e.preventDefault();
            void save(url);
          }}
        >
          <TextField label="BIMI logo URL" type="url" value={url} onChange={setUrl} required placeholder="https://example.com/logo.svg" />
          <button type="submit" disabled={action.pending}>
            Save logo
          </button>
          {domain.bimi ? (
            <button type="button" disabled={action.pending} onClick={() => save(null)}>
              Remove logo
            </button>
          ) : null}
        </form>
      ) : null}
      <ErrorNote error={action.error} />
      {record ? (
        <p className="record-line">
          Publish: <code>{record.name}</code> {record.type} <code>{record.value}</code> <CopyButton what="the BIMI record's value" value={record.value} />
        </p>
      ) : null}
    </section>
  );
}

export function EmailDomainPage() {
  const { id = '' } = useParams();
  const { can } = useSession();
  const navigate = useNavigate();
  const loaded = useLoad((client) => loadEmailDomain(client, id), [id]);
  const verify = useAction();
  const remove = useAction();
  const [verified, setVerified] = useState<EmailDomain>();
  const [round, setRound] = useState(0);
  const domain = loaded.data;

  const refresh = () => {
    loaded.reload();
    setRound((r) => r + 1);
  };

  async function runVerify() {
    setVerified(undefined);
    const checked = await verify.run((client) => must(client.POST('/v1/account/email-domains/{id}/verify', { params: { path: { id } } })));
    if (checked) setVerified(checked);
    refresh();
  }

  if (!domain) {
    return (
      <>
        <PageHeader title="Email domain" />
        <ErrorNote error={loaded.error} />
        {loaded.loading ? <Loading what="Loading the domain" /> : null}
        <p>
          <Link to="/domains">All domains</Link>
        </p>
      </>
    );
  }

  return (
    <>
      <PageHeader title={`Email domain ${domainName(domain)}`}>
        {can('write') ? (
          <>
            <button type="button" className="primary" disabled={verify.pending} onClick={runVerify}>
              {verify.pending ? 'Verifying…' : 'Verify'}
            </button>
            <ConfirmButton
              label="Delete domain"
              title={`Delete ${domain.domain}?`}
              confirmLabel="Delete the domain"
              danger
              onConfirm={async () => {
                const done = await remove.run((client) => must(client.DELETE('/v1/account/email-domains/{id}', { params: { path: { id } } })));
                if (done) navigate('/domains');
              }}
            >
              <p>Its DKIM key is removed with it: mail from {domain.domain} is no longer signed.</p>
            </ConfirmButton>
          </>
        ) : null}
      </PageHeader>
      <p>
        <Link to="/domains">All domains</Link>
      </p>
      <ErrorNote error={loaded.error} />
      <ErrorNote error={verify.error} />
      <ErrorNote error={remove.error} />
      {verify.pending ? <Loading what="Checking the DNS records" /> : null}
      {verified ? <Notice>{verificationText(verified)}</Notice> : null}
      <section className="card" aria-labelledby="domain-state">
        <h2 id="domain-state">Status</h2>
        <dl className="facts">
          <dt>Status</dt>
          <dd>
            <Status value={domain.status} />
          </dd>
          <dt>DKIM selector</dt>
          <dd>
            <code>{domain.dkim.selector}</code>
          </dd>
          <dt>DKIM algorithm</dt>
          <dd>{domain.dkim.algorithm}</dd>
          <dt>Last checked</dt>
          <dd>{formatTime(domain.checked_at)}</dd>
          <dt>Verified</dt>
          <dd>{formatTime(domain.verified_at)}</dd>
          <dt>Added</dt>
          <dd>{formatTime(domain.created_at)}</dd>
        </dl>
      </section>
      <RecordsSection domain={domain} />
      <SigningSection domain={domain} onChecked={loaded.reload} />
      <ReadinessSection id={id} round={round} />
      <DmarcReportsSection id={id} round={round} onStored={() => setRound((r) => r + 1)} />
      <WarmupSection domain={domain} onChanged={loaded.reload} />
      <BimiSection key={domain.bimi?.logo_url ?? ''} domain={domain} onChanged={loaded.reload} />
    </>
  );
}

