// API keys (README "API keys and credentials"): the account's keys (never their secrets) with their
// scopes and state (active, rotating until the old key's expiry, revoked). With the settings
// capability: create a key (a name and scopes; none checked is full access), shown once; rotate one
// (a new key shown once, the old one working until its expiry) or revoke one, each after a
// confirmation. Without it the API refuses key management, and the page says what it answered.
import { type FormEvent, useId, useState } from 'react';
import { type components, must } from '../api.ts';
import { Checkbox, ConfirmButton, DataTable, ErrorNote, Loading, Notice, PageHeader, SecretOnce, Status, TextField } from '../components/ui.tsx';
import { formatTime } from '../format.ts';
import { useAction, useLoad } from '../hooks.ts';
import { useSession } from '../session.tsx';
import './ApiKeys.css';

type ApiKey = components['schemas']['ApiKey'];
type Scope = NonNullable<ApiKey['scopes']>[number];

const SCOPES: { scope: Scope; what: string }[] = [
  { scope: 'read', what: 'read contacts, messages, analytics' },
  { scope: 'write', what: 'send, create and change' },
  { scope: 'settings', what: 'keys, secrets and account settings' },
];

/** A new key, shown once: created, or issued by rotating the key `name` (which works until `oldExpiresAt`). */
interface Issued {
  key: string;
  name: string;
  oldExpiresAt?: string;
}

/** How a key is named in buttons and notices: its name and prefix (a rotated key keeps its name). */
const keyName = (k: ApiKey) => (k.name ? `${k.name} (${k.prefix}…)` : `${k.prefix}…`);
const scopesText = (scopes: ApiKey['scopes']) => (scopes === null ? 'full access' : scopes.length ? scopes.join(', ') : 'none');

/** active, rotating (the old key of a rotation, until it expires), expired, or revoked */
function stateOf(k: ApiKey, now = Date.now()): { value: string; detail?: string } {
  if (k.revoked_at) return { value: 'revoked', detail: formatTime(k.revoked_at) };
  if (k.expires_at) return Date.parse(k.expires_at) > now ? { value: 'rotating', detail: `works until ${formatTime(k.expires_at)}` } : { value: 'expired', detail: formatTime(k.expires_at) };
  return { value: 'active' };
}

export function ApiKeysPage() {
  const { can, role } = useSession();
  const keys = useLoad((client) => must(client.GET('/v1/account/api-keys')), []);
  const [issued, setIssued] = useState<Issued>();
  const rowAction = useAction();
  const manage = can('settings');

  async function rotate(k: ApiKey) {
    setIssued(undefined);
    const rotated = await rowAction.run((client) => must(client.POST('/v1/account/api-keys/{id}/rotate', { params: { path: { id: k.id } } })));
    if (!rotated) return;
    setIssued({ key: rotated.key, name: keyName(k), oldExpiresAt: rotated.old_key_expires_at });
    keys.reload();
  }
  async function revoke(k: ApiKey) {
    if (await rowAction.run((client) => must(client.DELETE('/v1/account/api-keys/{id}', { params: { path: { id: k.id } } })))) keys.reload();
  }

  return (
    <>
      <PageHeader title="API keys" />
      <p className="hint">An API key goes in the X-API-Key header. Its scopes limit what it may do; a key without a scope list has full access.</p>
      {manage ? null : <p>Managing API keys needs the owner or admin role; you are signed in as {role}.</p>}
      {issued ? <IssuedKey issued={issued} /> : null}
      <ErrorNote error={keys.error} />
      <ErrorNote error={rowAction.error} />
      {keys.data ? (
        <DataTable
          caption="API keys"
          rows={keys.data.data}
          rowKey={(k) => k.id}
          empty="No API keys."
          columns={[
            { header: 'Name', cell: (k) => k.name ?? <span className="hint">unnamed</span> },
            { header: 'Prefix', cell: (k) => <code className="key-prefix">{k.prefix}…</code> },
            { header: 'Scopes', cell: (k) => scopesText(k.scopes) },
            { header: 'Created', cell: (k) => formatTime(k.created_at) },
            { header: 'State', cell: (k) => <KeyState apiKey={k} replaced={keys.data?.data.find((o) => o.id === k.replaces)} /> },
            ...(manage ? [{ header: 'Actions', cell: (k: ApiKey) => <KeyActions apiKey={k} busy={rowAction.pending} onRotate={() => rotate(k)} onRevoke={() => revoke(k)} /> }] : []),
          ]}
        />
      ) : keys.loading ? (
        <Loading what="Loading the keys" />
      ) : null}
      {manage ? (
        <CreateKey
          onCreated={(created) => {
            setIssued(created);
            keys.reload();
          }}
        />
      ) : null}
    </>
  );
}

/** The key's state as text, with its expiry or revocation, and the key it replaced when rotated. */
function KeyState({ apiKey, replaced }: { apiKey: ApiKey; replaced?: ApiKey }) {
  const state = stateOf(apiKey);
  return (
    <>
      <Status value={state.value} />
      {state.detail ? <span className="key-state-detail"> {state.detail}</span> : null}
      {replaced ? <div className="key-state-detail">replaces {replaced.prefix}…</div> : null}
    </>
  );
}

function KeyActions({ apiKey, busy, onRotate, onRevoke }: { apiKey: ApiKey; busy: boolean; onRotate: () => Promise<void>; onRevoke: () => Promise<void> }) {
  if (apiKey.revoked_at) return null;
  const name = keyName(apiKey);
  const rotating = apiKey.expires_at !== null;
  return (
    <div className="row key-actions">
      {rotating ? null : (
        <ConfirmButton label={`Rotate ${name}`} title={`Rotate the key ${name}?`} confirmLabel="Rotate key" onConfirm={onRotate} disabled={busy}>
          <p>A new key with the same scopes is issued now and shown once. The old key keeps working for 24 hours, then stops.</p>
        </ConfirmButton>
      )}
      <ConfirmButton label={`Revoke ${name}`} title={`Revoke the key ${name}?`} confirmLabel="Revoke key" danger onConfirm={onRevoke} disabled={busy}>
        <p>
          The key <code>{apiKey.prefix}…</code> stops working at once: every request made with it is refused from now on.
        </p>
      </ConfirmButton>
    </div>
  );
}

function IssuedKey({ issued }: { issued: Issued }) {
  return (
    <div className="card issued-key">
      {issued.oldExpiresAt ? (
        <Notice>
          The key {issued.name} was rotated. The old key keeps working until {formatTime(issued.oldExpiresAt)}.
        </Notice>
      ) : (
        <Notice>The key {issued.name} was created.</Notice>
      )}
      <SecretOnce label="New API key" value={issued.key} />
    </div>
  );
}

/** The form that creates a key; none of the scopes checked is full access. */
function CreateKey({ onCreated }: { onCreated: (issued: Issued) => void }) {
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<Scope[]>([]);
  const action = useAction();
  const headingId = useId();
  const accessId = useId();

  const toggle = (scope: Scope, on: boolean) => setScopes(SCOPES.map((s) => s.scope).filter((s) => (s === scope ? on : scopes.includes(s))));

  async function submit(event: FormEvent) {
    event.preventDefault();
    const body = { ...(name.trim() ? { name: name.trim() } : {}), ...(scopes.length ? { scopes } : {}) };
    const created = await action.run((client) => must(client.POST('/v1/account/api-keys', { body })));
    if (!created) return;
    onCreated({ key: created.key, name: created.name ?? 'unnamed' });
    setName('');
    setScopes([]);
  }

  return (
    <section className="card keys-card" aria-labelledby={headingId}>
      <h2 id={headingId}>Create key</h2>
      <form className="stack" onSubmit={submit} aria-labelledby={headingId}>
        <TextField label="Name" value={name} onChange={setName} hint="What the key is for, e.g. the service that uses it." />
        <fieldset className="scope-picker" aria-describedby={accessId}>
          <legend>Scopes</legend>
          {SCOPES.map((s) => (
            <div key={s.scope} className="scope-choice">
              <Checkbox label={s.scope} checked={scopes.includes(s.scope)} onChange={(on) => toggle(s.scope, on)} />
              <span className="hint">{s.what}</span>
            </div>
          ))}
          <p id={accessId} className="scope-summary">
            {scopes.length ? `This key will have only: ${scopes.join(', ')}.` : 'None checked: this key will have full access (every scope).'}
          </p>
        </fieldset>
        <ErrorNote error={action.error} />
        <div>
          <button type="submit" className="primary" disabled={action.pending}>
            Create key
          </button>
        </div>
      </form>
    </section>
  );
}
