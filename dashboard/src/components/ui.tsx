// The dashboard's shared pieces: every control has a visible label or an accessible name, errors are
// alerts carrying the API's message, progress is a labelled progressbar (README "The dashboard").
import { type ReactNode, useEffect, useId, useRef, useState } from 'react';
import { Link } from 'react-router';
import type { ApiError } from '../api.ts';

export function PageHeader({ title, children }: { title: string; children?: ReactNode }) {
  useEffect(() => {
    document.title = `${title} · engage`;
  }, [title]);
  return (
    <header className="page-header">
      <h1>{title}</h1>
      {children ? <div className="page-actions">{children}</div> : null}
    </header>
  );
}

/** A per-field issue of a 400: its path is the field's name (`to`, `messages.3.to`), or a list of its parts. */
interface Issue {
  path?: string | (string | number)[];
  message: string;
}

const issuePath = (path: Issue['path']): string => (Array.isArray(path) ? path.join('.') : (path ?? ''));

/** The API's error message (and its per-field issues), announced to screen readers. */
export function ErrorNote({ error }: { error?: ApiError }) {
  if (!error) return null;
  const issues = (error as { issues?: Issue[] }).issues;
  return (
    <div role="alert" className="error-note">
      <strong>{error.message}</strong>
      {Array.isArray(issues) && issues.length ? (
        <ul>
          {issues.map((issue, i) => (
            <li key={i}>
              {issuePath(issue.path) ? <code>{issuePath(issue.path)}</code> : null} {issue.message}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

export function Notice({ children }: { children: ReactNode }) {
  return (
    <div role="status" className="notice">
      {children}
    </div>
  );
}

export function Loading({ what = 'Loading' }: { what?: string }) {
  return (
    <p role="status" className="loading">
      {what}…
    </p>
  );
}

/** A labelled form control: the label names the input given as the child's render argument's id. */
export function Field({ label, hint, children }: { label: string; hint?: string; children: (id: string, describedBy?: string) => ReactNode }) {
  const id = useId();
  const hintId = hint ? `${id}-hint` : undefined;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {children(id, hintId)}
      {hint ? (
        <small id={hintId} className="hint">
          {hint}
        </small>
      ) : null}
    </div>
  );
}

export function TextField(props: { label: string; value: string; onChange: (value: string) => void; type?: string; hint?: string; required?: boolean; placeholder?: string; autoComplete?: string }) {
  return (
    <Field label={props.label} hint={props.hint}>
      {(id, describedBy) => (
        <input
          id={id}
          type={props.type ?? 'text'}
          value={props.value}
          required={props.required}
          placeholder={props.placeholder}
          autoComplete={props.autoComplete}
          aria-describedby={describedBy}
          onChange={(e) => props.onChange(e.target.value)}
        />
      )}
    </Field>
  );
}

export function TextArea(props: { label: string; value: string; onChange: (value: string) => void; rows?: number; hint?: string; required?: boolean }) {
  return (
    <Field label={props.label} hint={props.hint}>
      {(id, describedBy) => (
        <textarea id={id} rows={props.rows ?? 4} value={props.value} required={props.required} aria-describedby={describedBy} onChange={(e) => props.onChange(e.target.value)} />
      )}
    </Field>
  );
}

export function SelectField<T extends string>(props: { label: string; value: T; options: readonly (T | { value: T; label: string })[]; onChange: (value: T) => void; hint?: string }) {
  return (
    <Field label={props.label} hint={props.hint}>
      {(id, describedBy) => (
        <select id={id} value={props.value} aria-describedby={describedBy} onChange={(e) => props.onChange(e.target.value as T)}>
          {props.options.map((o) => {
            const option = typeof o === 'string' ? { value: o, label: o } : o;
            return (
              <option key={option.value} value={option.value}>
                {option.label}
              </option>
            );
          })}
        </select>
      )}
    </Field>
  );
}

export function Checkbox({ label, checked, onChange }: { label: string; checked: boolean; onChange: (checked: boolean) => void }) {
  const id = useId();
  return (
    <div className="checkbox">
      <input id={id} type="checkbox" checked={checked} onChange={(e) => onChange(e.target.checked)} />
      <label htmlFor={id}>{label}</label>
    </div>
  );
}

/** A labelled progress bar; without `max` it is indeterminate. */
export function Progress({ label, value, max }: { label: string; value?: number; max?: number }) {
  const known = value !== undefined && max !== undefined && max > 0;
  return (
    <div className="progress">
      <progress aria-label={label} value={known ? value : undefined} max={known ? max : undefined} />
      <span>
        {label}
        {known ? ` ${Math.min(100, Math.round((value! / max!) * 100))}%` : '…'}
      </span>
    </div>
  );
}

/** A status as text (a badge): the text is what the page is read by. */
export function Status({ value }: { value: string }) {
  return <span className={`status status-${value}`}>{value}</span>;
}

/** A fact of a <dl>: its term and its value. */
export function Fact({ term, children }: { term: string; children: ReactNode }) {
  return (
    <>
      <dt>{term}</dt>
      <dd>{children}</dd>
    </>
  );
}

/** The status as a fact of a <dl>, in a polite live region named Status: a change is announced, and found by its name. */
export function StatusFact({ value }: { value: string }) {
  const id = useId();
  return (
    <>
      <dt id={id}>Status</dt>
      <dd>
        <span role="status" aria-labelledby={id}>
          <Status value={value} />
        </span>
      </dd>
    </>
  );
}

export interface Column<T> {
  header: string;
  cell: (row: T) => ReactNode;
}

/** A table with a caption (its accessible name); `empty` is said when there are no rows. */
export function DataTable<T>({ caption, columns, rows, rowKey, empty = 'Nothing here yet.' }: { caption: string; columns: Column<T>[]; rows: T[]; rowKey: (row: T) => string; empty?: string }) {
  if (!rows.length) return <p className="empty">{empty}</p>;
  return (
    <div className="table-wrap">
      <table>
        <caption>{caption}</caption>
        <thead>
          <tr>
            {columns.map((c) => (
              <th key={c.header} scope="col">
                {c.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={rowKey(row)}>
              {columns.map((c) => (
                <td key={c.header}>{c.cell(row)}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/**
 * A button that asks first, in a modal dialog (the browser's own <dialog>: focus is kept inside and
 * Escape closes it). The dialog's confirming button is named `confirmLabel`, the other `dismissLabel`.
 */
export function ConfirmButton(props: { label: string; title: string; children: ReactNode; confirmLabel: string; onConfirm: () => void | Promise<void>; danger?: boolean; disabled?: boolean; /** the button that closes the dialog doing nothing (default "Cancel") */ dismissLabel?: string }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const [busy, setBusy] = useState(false);
  return (
    <>
      <button type="button" className={props.danger ? 'danger' : undefined} disabled={props.disabled} onClick={() => dialog.current?.showModal()}>
        {props.label}
      </button>
      <dialog ref={dialog} aria-labelledby={titleId}>
        <h2 id={titleId}>{props.title}</h2>
        <div className="dialog-body">{props.children}</div>
        <div className="dialog-actions">
          <button type="button" onClick={() => dialog.current?.close()}>
            {props.dismissLabel ?? 'Cancel'}
          </button>
          <button
            type="button"
            className={props.danger ? 'danger' : 'primary'}
            disabled={busy}
            onClick={async () => {
              setBusy(true);
              try {
                await props.onConfirm();
              } finally {
                setBusy(false);
                dialog.current?.close();
              }
            }}
          >
            {props.confirmLabel}
          </button>
        </div>
      </dialog>
    </>
  );
}

/** A secret shown this once (an API key, a signing secret), with a copy button. */
export function SecretOnce({ label, value }: { label: string; value: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <div className="secret" role="region" aria-label={label}>
      <p>
        <strong>{label}</strong>: copy it now, it is not shown again.
      </p>
      <code>{value}</code>
      <button
        type="button"
        onClick={async () => {
          await navigator.clipboard?.writeText(value).catch(() => undefined);
          setCopied(true);
        }}
      >
        {copied ? 'Copied' : `Copy ${label.toLowerCase()}`}
      </button>
    </div>
  );
}

/** A filter form's buttons: apply what is entered (the form's submit), or clear every filter. */
export function FilterButtons({ onClear }: { onClear: () => void }) {
  return (
    <div className="row">
      <button type="submit">Apply filters</button>
      <button type="button" onClick={onClear}>
        Clear filters
      </button>
    </div>
  );
}

/** A link to a resource's page, named by its id. */
export function IdLink({ to, id }: { to: string; id: string }) {
  return (
    <Link to={to}>
      <code>{id}</code>
    </Link>
  );
}

/** Previous and next page over a cursor-paged list. */
export function Pager({ hasNext, hasPrevious, onNext, onPrevious }: { hasNext: boolean; hasPrevious: boolean; onNext: () => void; onPrevious: () => void }) {
  if (!hasNext && !hasPrevious) return null;
  return (
    <nav className="pager" aria-label="Pages">
      <button type="button" disabled={!hasPrevious} onClick={onPrevious}>
        Previous page
      </button>
      <button type="button" disabled={!hasNext} onClick={onNext}>
        Next page
      </button>
    </nav>
  );
}

/** The cursors of a paged list: the current one and the way back. */
export function useCursor(): { cursor?: string; next: (cursor: string | null | undefined) => void; previous: () => void; hasPrevious: boolean; reset: () => void } {
  const [stack, setStack] = useState<(string | undefined)[]>([undefined]);
  return {
    cursor: stack[stack.length - 1],
    next: (cursor) => cursor && setStack((s) => [...s, cursor]),
    previous: () => setStack((s) => (s.length > 1 ? s.slice(0, -1) : s)),
    hasPrevious: stack.length > 1,
    reset: () => setStack([undefined]),
  };
}
