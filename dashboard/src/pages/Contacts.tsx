// Contacts (README "API conventions", Contacts): the account's contacts, searched and filtered as GET
// /v1/contacts takes it (q, email, phone, tag) and paged by cursor; a new contact; a CSV import whose
// progress is polled until it ends, with the rows it refused (README "Contacts import"). A contact's
// page shows its standard and custom fields, edits them (PATCH), lists its history (the events of its
// stream), and erases it after saying what erasure does (README "Personal data and erasure").
import { type FormEvent, useEffect, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { type components, type EngageClient, must } from '../api.ts';
import {
  type Column,
  ConfirmButton,
  DataTable,
  ErrorNote,
  Fact,
  Field,
  Loading,
  Notice,
  PageHeader,
  Pager,
  Progress,
  SelectField,
  Status,
  TextField,
  useCursor,
} from '../components/ui.tsx';
import { formatNumber, formatTime } from '../format.ts';
import { type Action, useAction, useLoad } from '../hooks.ts';
import { useSession } from '../session.tsx';
import './Audience.css';

export type Contact = components['schemas']['Contact'];
type CustomField = components['schemas']['CustomField'];
type Import = components['schemas']['Import'];
type HistoryEntry = components['schemas']['HistoryEntry'];

const PAGE_SIZE = 25;

/** What a contact is called on a page: its name, else its email, phone, external id or id. */
export function contactName(contact: Contact): string {
  const name = [contact.first_name, contact.last_name].filter(Boolean).join(' ');
  return name || contact.email || contact.phone || contact.external_id || contact.id;
}

const orDash = (value: string | null | undefined) => (value ? value : '—');

/** A value of any type as text (custom values, history changes). */
export function shown(value: unknown): string {
  if (value === null || value === undefined || value === '') return '—';
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (typeof value === 'number') return String(value);
  return JSON.stringify(value);
}

/** Contacts as a table, each linking to its page; `extra` adds a column (a remove button). */
export function ContactsTable({ caption, contacts, empty, extra }: { caption: string; contacts: Contact[]; empty?: string; extra?: Column<Contact> }) {
  const columns: Column<Contact>[] = [
    { header: 'Contact', cell: (c) => <Link to={`/contacts/${c.id}`}>{contactName(c)}</Link> },
    { header: 'Email', cell: (c) => orDash(c.email) },
    { header: 'Phone', cell: (c) => orDash(c.phone) },
    { header: 'Country', cell: (c) => orDash(c.country) },
    { header: 'Tags', cell: (c) => (c.tags.length ? c.tags.join(', ') : '—') },
    { header: 'Created', cell: (c) => formatTime(c.created_at) },
  ];
  return <DataTable caption={caption} columns={extra ? [...columns, extra] : columns} rows={contacts} rowKey={(c) => c.id} empty={empty} />;
}

const splitTags = (text: string) =>
  text
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);

interface Filters {
  q?: string;
  email?: string;
  phone?: string;
  tag?: string;
}

function SearchForm({ onSearch }: { onSearch: (filters: Filters) => void }) {
  const [q, setQ] = useState('');
  const [email, setEmail] = useState('');
  const [phone, setPhone] = useState('');
  const [tag, setTag] = useState('');
  function submit(event: FormEvent) {
    event.preventDefault();
    const filters: Filters = {};
    if (q.trim()) filters.q = q.trim();
    if (email.trim()) filters.email = email.trim();
    if (phone.trim()) filters.phone = phone.trim();
    if (tag.trim()) filters.tag = tag.trim();
    onSearch(filters);
  }
  function clear() {
    setQ('');
    setEmail('');
    setPhone('');
    setTag('');
    onSearch({});
  }
  return (
    <form role="search" aria-label="Search contacts" className="card audience-search" onSubmit={submit}>
      <div className="row">
        <TextField label="Search" value={q} onChange={setQ} hint="Names, email, phone or external id" />
        <TextField label="Email is" type="email" value={email} onChange={setEmail} />
        <TextField label="Phone is" value={phone} onChange={setPhone} placeholder="+14155550123" />
        <TextField label="Tag" value={tag} onChange={setTag} />
        <button type="submit" className="primary">
          Search
        </button>
        <button type="button" onClick={clear}>
          Clear
        </button>
      </div>
    </form>
  );
}

function NewContactForm({ onCreated }: { onCreated: (contact: Contact) => void }) {
  const [email, setEmail] = useState('');
  const [phone, setPhone] = useState('');
  const [firstName, setFirstName] = useState('');
  const [lastName, setLastName] = useState('');
  const [country, setCountry] = useState('');
  const [tags, setTags] = useState('');
  const create = useAction();
  async function submit(event: FormEvent) {
    event.preventDefault();
    const body = {
      ...(email.trim() ? { email: email.trim() } : {}),
      ...(phone.trim() ? { phone: phone.trim() } : {}),
      ...(firstName.trim() ? { first_name: firstName.trim() } : {}),
      ...(lastName.trim() ? { last_name: lastName.trim() } : {}),
      ...(country.trim() ? { country: country.trim() } : {}),
      ...(splitTags(tags).length ? { tags: splitTags(tags) } : {}),
    };
    const created = await create.run((client) => must(client.POST('/v1/contacts', { body })));
    if (!created) return;
    for (const reset of [setEmail, setPhone, setFirstName, setLastName, setCountry, setTags]) reset('');
    onCreated(created);
  }
  return (
    <form className="stack" aria-label="New contact" onSubmit={submit}>
      <div className="row">
        <TextField label="Email" type="email" value={email} onChange={setEmail} />
        <TextField label="Phone" value={phone} onChange={setPhone} placeholder="+14155550123" />
      </div>
      <div className="row">
        <TextField label="First name" value={firstName} onChange={setFirstName} />
        <TextField label="Last name" value={lastName} onChange={setLastName} />
        <TextField label="Country" value={country} onChange={setCountry} hint="Two letters, e.g. FR" />
      </div>
      <TextField label="Tags" value={tags} onChange={setTags} hint="Separated by commas" />
      <ErrorNote error={create.error} />
      <div>
        <button type="submit" className="primary" disabled={create.pending}>
          Create contact
        </button>
      </div>
    </form>
  );
}

const isFinal = (status: Import['status']) => status === 'completed' || status === 'failed';

/** One import as it goes: polled until it is completed or failed, then its counts and refused rows. */
export function ImportProgress({ id, onFinished }: { id: string; onFinished?: () => void }) {
  const [final, setFinal] = useState(false);
  const loaded = useLoad((client) => must(client.GET('/v1/contacts/imports/{id}', { params: { path: { id } } })), [id], final ? undefined : 1000);
  const imp = loaded.data;
  useEffect(() => {
    if (imp && isFinal(imp.status) && !final) {
      setFinal(true);
      onFinished?.();
    }
  }, [imp, final, onFinished]);
  if (!imp) return loaded.error ? <ErrorNote error={loaded.error} /> : <Loading what="Loading the import" />;
  const processed = imp.rows_imported + imp.rows_updated + imp.rows_failed;
  const name = imp.file_name ?? imp.id;
  return (
    <section className="card" aria-label={`Import of ${name}`}>
      <h3>Import of {name}</h3>
      <Progress label={`Importing ${name}`} value={imp.status === 'completed' ? Math.max(processed, 1) : processed} max={imp.status === 'completed' ? Math.max(processed, 1) : imp.rows_total || undefined} />
      <dl className="facts">
        <dt>Status</dt>
        <dd>
          <Status value={imp.status} />
        </dd>
        <dt>Rows in the file</dt>
        <dd>{formatNumber(imp.rows_total)}</dd>
        <dt>Contacts created</dt>
        <dd>{formatNumber(imp.rows_imported)}</dd>
        <dt>Contacts updated</dt>
        <dd>{formatNumber(imp.rows_updated)}</dd>
        <dt>Rows refused</dt>
        <dd>{formatNumber(imp.rows_failed)}</dd>
        {imp.failure_reason ? (
          <>
            <dt>Why it stopped</dt>
            <dd>{imp.failure_reason}</dd>
          </>
        ) : null}
      </dl>
      <ErrorNote error={loaded.error} />
      {imp.columns.length ? (
        <DataTable
          caption="How the columns were read"
          columns={[
            { header: 'Column', cell: (c) => c.header },
            { header: 'Field', cell: (c) => (c.field === 'ignore' ? 'ignored' : c.field) },
          ]}
          rows={imp.columns}
          rowKey={(c) => c.header}
        />
      ) : null}
      {imp.errors.length ? (
        <DataTable
          caption="Rows refused"
          columns={[
            { header: 'Row', cell: (e) => e.row },
            { header: 'Column', cell: (e) => e.column ?? 'the whole row' },
            { header: 'Problem', cell: (e) => e.message },
          ]}
          rows={imp.errors}
          rowKey={(e) => `${e.row}-${e.column ?? ''}-${e.message}`}
        />
      ) : null}
    </section>
  );
}

/** Sends a CSV file as the multipart upload the import routes take (the file part, and the options as fields). */
function uploadCsv(client: EngageClient, file: File, options: { tags?: string; default_country?: string }, listId?: string) {
  const body = { file: file.name, ...options };
  const bodySerializer = (fields: typeof body | string) => {
    const form = new FormData();
    form.append('file', file, file.name);
    if (typeof fields !== 'string') for (const [name, value] of Object.entries(fields)) if (name !== 'file' && typeof value === 'string') form.append(name, value);
    return form;
  };
  return must(
    listId
      ? client.POST('/v1/lists/{id}/import', { params: { path: { id: listId } }, body, bodySerializer })
      : client.POST('/v1/contacts/import', { body, bodySerializer }),
  );
}

/** The CSV upload form, then the import's progress (into a list when `listId` is given). */
export function ImportContacts({ listId, onFinished }: { listId?: string; onFinished?: () => void }) {
  const [file, setFile] = useState<File>();
  const [tags, setTags] = useState('');
  const [country, setCountry] = useState('');
  const [importId, setImportId] = useState<string>();
  const upload = useAction();
  async function submit(event: FormEvent) {
    event.preventDefault();
    if (!file) return;
    const options = { ...(tags.trim() ? { tags: tags.trim() } : {}), ...(country.trim() ? { default_country: country.trim() } : {}) };
    const accepted = await upload.run((client) => uploadCsv(client, file, options, listId));
    if (accepted) setImportId(accepted.id);
  }
  return (
    <>
      <form className="stack" aria-label="Import contacts" onSubmit={submit}>
        <Field label="CSV file" hint="A header row, then one contact a row: a column for email, phone or external id at least">
          {(id, describedBy) => <input id={id} type="file" accept=".csv,text/csv" required aria-describedby={describedBy} onChange={(e) => setFile(e.target.files?.[0])} />}
        </Field>
        <div className="row">
          <TextField label="Tags for every imported contact" value={tags} onChange={setTags} hint="Separated by commas" />
          <TextField label="Default country" value={country} onChange={setCountry} hint="Of phone numbers without +, e.g. FR" />
        </div>
        <ErrorNote error={upload.error} />
        <div>
          <button type="submit" className="primary" disabled={upload.pending || !file}>
            Import
          </button>
        </div>
      </form>
      {importId ? <ImportProgress key={importId} id={importId} onFinished={onFinished} /> : null}
    </>
  );
}

/** The account's latest imports; one can be shown with its progress and errors. */
function RecentImports({ round }: { round: number }) {
  const imports = useLoad((client) => must(client.GET('/v1/contacts/imports', { params: { query: { limit: 5 } } })), [round]);
  const [shownId, setShownId] = useState<string>();
  if (!imports.data) return imports.error ? <ErrorNote error={imports.error} /> : <Loading what="Loading the imports" />;
  return (
    <div className="audience-page">
      <DataTable
        caption="Recent imports"
        empty="No import yet."
        columns={[
          { header: 'File', cell: (i) => i.file_name ?? i.id },
          { header: 'Status', cell: (i) => <Status value={i.status} /> },
          { header: 'Created', cell: (i) => formatNumber(i.rows_imported) },
          { header: 'Updated', cell: (i) => formatNumber(i.rows_updated) },
          { header: 'Refused', cell: (i) => formatNumber(i.rows_failed) },
          { header: 'Started', cell: (i) => formatTime(i.created_at) },
          {
            header: 'Details',
            cell: (i) => (
              <button type="button" aria-label={`Show the import of ${i.file_name ?? i.id}`} onClick={() => setShownId(i.id)}>
                Show
              </button>
            ),
          },
        ]}
        rows={imports.data.data}
        rowKey={(i) => i.id}
      />
      {shownId ? <ImportProgress key={shownId} id={shownId} onFinished={imports.reload} /> : null}
    </div>
  );
}

export function ContactsPage() {
  const { can } = useSession();
  const [filters, setFilters] = useState<Filters>({});
  const [created, setCreated] = useState<Contact>();
  const [imported, setImported] = useState(0);
  const cursor = useCursor();
  const contacts = useLoad(
    (client) => must(client.GET('/v1/contacts', { params: { query: { ...filters, limit: PAGE_SIZE, ...(cursor.cursor ? { cursor: cursor.cursor } : {}) } } })),
    [JSON.stringify(filters), cursor.cursor],
  );
  const filtered = Object.keys(filters).length > 0;
  return (
    <>
      <PageHeader title="Contacts" />
      <SearchForm
        onSearch={(next) => {
          setFilters(next);
          cursor.reset();
        }}
      />
      <ErrorNote error={contacts.error} />
      {contacts.data ? (
        <>
          <ContactsTable caption={filtered ? 'Contacts found' : 'Contacts'} contacts={contacts.data.data} empty={filtered ? 'No contact matches.' : 'No contacts yet.'} />
          <Pager hasNext={!!contacts.data.next_cursor} hasPrevious={cursor.hasPrevious} onNext={() => cursor.next(contacts.data?.next_cursor)} onPrevious={cursor.previous} />
        </>
      ) : contacts.error ? null : (
        <Loading what="Loading contacts" />
      )}
      {can('write') ? (
        <>
          <section className="card" aria-labelledby="new-contact">
            <h2 id="new-contact">New contact</h2>
            {created ? (
              <Notice>
                Created <Link to={`/contacts/${created.id}`}>{contactName(created)}</Link>.
              </Notice>
            ) : null}
            <NewContactForm
              onCreated={(contact) => {
                setCreated(contact);
                contacts.reload();
              }}
            />
          </section>
          <section className="card" aria-labelledby="import-contacts">
            <h2 id="import-contacts">Import contacts</h2>
            <p className="hint">A CSV file: each row updates the contact with its email, phone or external id, or creates one.</p>
            <ImportContacts
              onFinished={() => {
                contacts.reload();
                setImported((n) => n + 1);
              }}
            />
          </section>
        </>
      ) : null}
      <section aria-labelledby="imports">
        <h2 id="imports">Imports</h2>
        <RecentImports round={imported} />
      </section>
    </>
  );
}

/** A contact's history: the events of its stream, oldest first, paged. */
function ContactHistory({ id, round }: { id: string; round: number }) {
  const cursor = useCursor();
  const history = useLoad(
    (client) => must(client.GET('/v1/contacts/{id}/history', { params: { path: { id }, query: { limit: 50, ...(cursor.cursor ? { cursor: cursor.cursor } : {}) } } })),
    [id, cursor.cursor, round],
  );
  return (
    <section aria-labelledby="contact-history">
      <h2 id="contact-history">History</h2>
      <ErrorNote error={history.error} />
      {history.data ? (
        history.data.data.length ? (
          <ol className="timeline" aria-label="History of the contact">
            {history.data.data.map((entry) => (
              <HistoryItem key={entry.revision} entry={entry} />
            ))}
          </ol>
        ) : (
          <p className="empty">No history.</p>
        )
      ) : history.error ? null : (
        <Loading what="Loading the history" />
      )}
      <Pager hasNext={!!history.data?.next_cursor} hasPrevious={cursor.hasPrevious} onNext={() => cursor.next(history.data?.next_cursor)} onPrevious={cursor.previous} />
    </section>
  );
}

function HistoryItem({ entry }: { entry: HistoryEntry }) {
  const changes = Object.entries(entry.changes);
  return (
    <li>
      <strong>{entry.type}</strong> <time dateTime={entry.at}>{formatTime(entry.at)}</time>
      {entry.actor ? <span className="hint"> by {entry.actor}</span> : null}
      {changes.length ? (
        <ul className="history-changes">
          {changes.map(([key, value]) => (
            <Change key={key} name={key} value={value} />
          ))}
        </ul>
      ) : null}
    </li>
  );
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** One recorded field of an event; an object (the fields a contact was created with) one level down. */
function Change({ name, value }: { name: string; value: unknown }) {
  if (!isRecord(value)) {
    return (
      <li>
        {name}: {shown(value)}
      </li>
    );
  }
  const entries = Object.entries(value);
  return (
    <li>
      {name}: {entries.length ? null : '—'}
      {entries.length ? (
        <ul>
          {entries.map(([key, inner]) => (
            <li key={key}>
              {key}: {shown(inner)}
            </li>
          ))}
        </ul>
      ) : null}
    </li>
  );
}

const STANDARD_FIELDS = [
  ['email', 'Email'],
  ['phone', 'Phone'],
  ['first_name', 'First name'],
  ['last_name', 'Last name'],
  ['country', 'Country'],
  ['language', 'Language'],
  ['timezone', 'Time zone'],
  ['external_id', 'External id'],
] as const;

type StandardField = (typeof STANDARD_FIELDS)[number][0];

function ContactFacts({ contact, fields }: { contact: Contact; fields: CustomField[] }) {
  const defined = new Set(fields.map((f) => f.key));
  const undefinedKeys = Object.keys(contact.custom_fields).filter((key) => !defined.has(key));
  return (
    <dl className="facts">
      {STANDARD_FIELDS.map(([key, label]) => (
        <Fact key={key} term={label}>{orDash(contact[key])}</Fact>
      ))}
      <Fact term="Tags">{contact.tags.length ? contact.tags.join(', ') : '—'}</Fact>
      {fields.map((f) => (
        <Fact key={f.key} term={f.label}>{shown(contact.custom_fields[f.key])}</Fact>
      ))}
      {undefinedKeys.map((key) => (
        <Fact key={key} term={`${key} (no longer defined)`}>{shown(contact.custom_fields[key])}</Fact>
      ))}
      <Fact term="Created">{formatTime(contact.created_at)}</Fact>
      <Fact term="Updated">{formatTime(contact.updated_at)}</Fact>
      <Fact term="Id">{contact.id}</Fact>
    </dl>
  );
}

/** A custom value as its form control holds it (text), and back as the API takes it. */
function customText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  return typeof value === 'string' ? value : String(value);
}

function customValue(field: CustomField, text: string): unknown {
  if (text.trim() === '') return null;
  if (field.type === 'number') return Number.isFinite(Number(text)) ? Number(text) : text;
  if (field.type === 'boolean') return text === 'true';
  return field.type === 'text' ? text : text.trim();
}

function CustomFieldInput({ field, value, onChange }: { field: CustomField; value: string; onChange: (value: string) => void }) {
  if (field.type === 'boolean')
    return (
      <SelectField
        label={field.label}
        value={value}
        options={[
          { value: '', label: 'Not set' },
          { value: 'true', label: 'Yes' },
          { value: 'false', label: 'No' },
        ]}
        onChange={onChange}
      />
    );
  if (field.type === 'select') return <SelectField label={field.label} value={value} options={[{ value: '', label: 'Not set' }, ...(field.options ?? [])]} onChange={onChange} />;
  return <TextField label={field.label} type={field.type === 'number' ? 'number' : field.type === 'date' ? 'date' : 'text'} value={value} onChange={onChange} />;
}

/** Edits a contact: only what changed is sent (PATCH merges; an emptied field is removed). */
function EditContact({ contact, fields, onSaved, onCancel }: { contact: Contact; fields: CustomField[]; onSaved: (contact: Contact) => void; onCancel: () => void }) {
  const [standard, setStandard] = useState<Record<StandardField, string>>(() => Object.fromEntries(STANDARD_FIELDS.map(([key]) => [key, contact[key] ?? ''])) as Record<StandardField, string>);
  const [tags, setTags] = useState(contact.tags.join(', '));
  const [custom, setCustom] = useState<Record<string, string>>(() => Object.fromEntries(fields.map((f) => [f.key, customText(contact.custom_fields[f.key])])));
  const save = useAction();
  async function submit(event: FormEvent) {
    event.preventDefault();
    const changed: Partial<Record<StandardField, string | null>> = {};
    for (const [key] of STANDARD_FIELDS) if (standard[key].trim() !== (contact[key] ?? '')) changed[key] = standard[key].trim() || null;
    const nextTags = splitTags(tags);
    const customChanged: Record<string, unknown> = {};
    for (const f of fields) if (custom[f.key] !== customText(contact.custom_fields[f.key])) customChanged[f.key] = customValue(f, custom[f.key]);
    const body = {
      ...changed,
      ...(nextTags.join('\u0000') !== contact.tags.join('\u0000') ? { tags: nextTags } : {}),
      ...(Object.keys(customChanged).length ? { custom_fields: customChanged } : {}),
    };
    if (!Object.keys(body).length) return onCancel();
    const saved = await save.run((client) => must(client.PATCH('/v1/contacts/{id}', { params: { path: { id: contact.id } }, body })));
    if (saved) onSaved(saved);
  }
  return (
    <form className="stack card" aria-label="Edit contact" onSubmit={submit}>
      <h2>Edit contact</h2>
      <div className="audience-grid">
        {STANDARD_FIELDS.map(([key, label]) => (
          <TextField key={key} label={label} type={key === 'email' ? 'email' : 'text'} value={standard[key]} onChange={(v) => setStandard((s) => ({ ...s, [key]: v }))} />
        ))}
      </div>
      <TextField label="Tags" value={tags} onChange={setTags} hint="Separated by commas" />
      {fields.length ? (
        <fieldset className="audience-grid">
          <legend>Custom fields</legend>
          {fields.map((f) => (
            <CustomFieldInput key={f.key} field={f} value={custom[f.key] ?? ''} onChange={(v) => setCustom((c) => ({ ...c, [f.key]: v }))} />
          ))}
        </fieldset>
      ) : null}
      <ErrorNote error={save.error} />
      <div className="row">
        <button type="submit" className="primary" disabled={save.pending}>
          Save contact
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

type Erasure = { id: string; erased: true; erasure_id: string; erased_at: string; keys_destroyed: number };

/** What erasing does, said before it is done (README "Personal data and erasure"). */
function EraseContact({ contact, erase, onErased }: { contact: Contact; erase: Action; onErased: (erasure: Erasure) => void }) {
  const [reason, setReason] = useState('');
  return (
    <ConfirmButton
      label="Erase"
      title={`Erase ${contactName(contact)}?`}
      confirmLabel="Erase contact"
      danger
      onConfirm={async () => {
        const erased = await erase.run((client) => must(client.POST('/v1/contacts/{id}/erase', { params: { path: { id: contact.id } }, body: reason.trim() ? { reason: reason.trim() } : {} })));
        if (erased) onErased(erased);
      }}
    >
      <p>
        Erasing destroys the keys that sealed this contact&apos;s personal data: its email, phone, names, external id, custom values and the properties of its tracked
        events read as <code>[erased]</code> everywhere from now on, in the history too. This cannot be undone.
      </p>
      <p>
        The contact leaves every list and segment, its email and phone are free for another contact, and each of its addresses stays suppressed for good: a message
        to them is accepted and fails. Its country, language, time zone and tags stay, and counts stay right.
      </p>
      <TextField label="Reason (optional)" value={reason} onChange={setReason} hint="Kept with the erasure, e.g. a request's reference" />
    </ConfirmButton>
  );
}

/** /contacts/:id: drawn again (its state fresh) for another contact. */
export function ContactPage() {
  const { id = '' } = useParams();
  return <ContactView key={id} id={id} />;
}

function ContactView({ id }: { id: string }) {
  const { can } = useSession();
  const navigate = useNavigate();
  const contact = useLoad((client) => must(client.GET('/v1/contacts/{id}', { params: { path: { id } } })), [id]);
  const fields = useLoad((client) => must(client.GET('/v1/contacts/fields')), []);
  const [editing, setEditing] = useState(false);
  const [saved, setSaved] = useState(false);
  const [erasure, setErasure] = useState<Erasure>();
  const [round, setRound] = useState(0);
  const remove = useAction();
  const erase = useAction();

  if (erasure)
    return (
      <div className="audience-page">
        <PageHeader title="Contact erased" />
        <Notice>
          The contact was erased on {formatTime(erasure.erased_at)}: {formatNumber(erasure.keys_destroyed)} data {erasure.keys_destroyed === 1 ? 'key' : 'keys'} destroyed. Erasure{' '}
          <code>{erasure.erasure_id}</code>.
        </Notice>
        <p>
          <Link to="/contacts">Back to the contacts</Link>
        </p>
        <ContactHistory id={id} round={round} />
      </div>
    );
  if (!contact.data)
    return (
      <div className="audience-page">
        <PageHeader title="Contact" />
        {contact.error ? <ErrorNote error={contact.error} /> : <Loading what="Loading the contact" />}
        <p>
          <Link to="/contacts">Back to the contacts</Link>
        </p>
      </div>
    );
  const shownContact = contact.data;
  const definitions = fields.data?.data ?? [];
  return (
    <div className="audience-page">
      <PageHeader title={contactName(shownContact)}>
        {can('write') && !editing ? (
          <button type="button" onClick={() => setEditing(true)}>
            Edit
          </button>
        ) : null}
        {can('write') ? (
          <ConfirmButton
            label="Delete"
            title={`Delete ${contactName(shownContact)}?`}
            confirmLabel="Delete contact"
            danger
            onConfirm={async () => {
              const deleted = await remove.run((client) => must(client.DELETE('/v1/contacts/{id}', { params: { path: { id } } })));
              if (deleted) navigate('/contacts');
            }}
          >
            <p>The contact leaves every list and is no longer listed. Its history is kept; to destroy its personal data, erase it instead.</p>
          </ConfirmButton>
        ) : null}
        {can('settings') ? (
          <EraseContact
            contact={shownContact}
            erase={erase}
            onErased={(e) => {
              setErasure(e);
              setRound((r) => r + 1);
            }}
          />
        ) : null}
      </PageHeader>
      <p>
        <Link to="/contacts">Back to the contacts</Link>
      </p>
      <ErrorNote error={erase.error ?? remove.error} />
      <ErrorNote error={fields.error} />
      {saved ? <Notice>Contact saved.</Notice> : null}
      {editing ? (
        <EditContact
          contact={shownContact}
          fields={definitions}
          onCancel={() => setEditing(false)}
          onSaved={() => {
            setEditing(false);
            setSaved(true);
            contact.reload();
            setRound((r) => r + 1);
          }}
        />
      ) : (
        <section className="card" aria-labelledby="contact-fields">
          <h2 id="contact-fields">Fields</h2>
          <ContactFacts contact={shownContact} fields={definitions} />
        </section>
      )}
      <ContactHistory id={id} round={round} />
    </div>
  );
}
