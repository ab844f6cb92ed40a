// Segments (README "Segments"): saved rule sets, each with its live count, and an editor whose rule
// builder is made from GET /v1/segments/schema (the account's fields, each field type's operators and
// their value types): rows of field, operator and value, groups matching all or any of their rules.
// As the rules change, the editor counts them with POST /v1/segments/preview (debounced) and shows the
// count as text labelled "Matching contacts" (README "The dashboard"); saving creates (POST) or replaces
// (PUT) the segment, whose members are then listed, paged.
import { type FormEvent, useEffect, useId, useMemo, useState } from 'react';
import { Link, useLocation, useNavigate, useParams } from 'react-router';
import { type ApiError, type components, must } from '../api.ts';
import { ConfirmButton, DataTable, ErrorNote, Field, Loading, Notice, PageHeader, Pager, SelectField, TextField, useCursor } from '../components/ui.tsx';
import { formatNumber, formatTime } from '../format.ts';
import { useAction, useLoad } from '../hooks.ts';
import { useSession } from '../session.tsx';
import { ContactsTable, contactName } from './Contacts.tsx';
import './Audience.css';

type Segment = components['schemas']['Segment'];
type RuleSetInput = components['schemas']['SegmentRuleSetInput'];
type RuleInput = Exclude<RuleSetInput['rules'][number], RuleSetInput>;
type RuleSchema = components['schemas']['SegmentRuleSchema'];
type SchemaField = RuleSchema['fields'][number];
type OperatorSpec = SchemaField['operators'][number];
type ValueType = OperatorSpec['value'];
type ContactList = components['schemas']['List'];
type Match = RuleSetInput['match'];

const PAGE_SIZE = 25;
/** the schema's field that stands for every event name: the rule names `event.<the name typed>` */
const EVENT_FIELD = 'event.<name>';

export function SegmentsPage() {
  const { can } = useSession();
  const cursor = useCursor();
  const segments = useLoad((client) => must(client.GET('/v1/segments', { params: { query: { limit: PAGE_SIZE, ...(cursor.cursor ? { cursor: cursor.cursor } : {}) } } })), [cursor.cursor]);
  return (
    <div className="audience-page">
      <PageHeader title="Segments">
        {can('write') ? (
          <Link className="button primary" to="/segments/new">
            New segment
          </Link>
        ) : null}
      </PageHeader>
      <ErrorNote error={segments.error} />
      {segments.data ? (
        <>
          <DataTable
            caption="Segments"
            empty="No segments yet."
            columns={[
              { header: 'Name', cell: (s) => <Link to={`/segments/${s.id}`}>{s.name}</Link> },
              { header: 'Description', cell: (s) => s.description ?? '—' },
              { header: 'Matching contacts', cell: (s) => formatNumber(s.count) },
              { header: 'Updated', cell: (s) => formatTime(s.updated_at) },
            ]}
            rows={segments.data.data}
            rowKey={(s) => s.id}
          />
          <Pager hasNext={!!segments.data.next_cursor} hasPrevious={cursor.hasPrevious} onNext={() => cursor.next(segments.data?.next_cursor)} onPrevious={cursor.previous} />
        </>
      ) : segments.error ? null : (
        <Loading what="Loading segments" />
      )}
    </div>
  );
}

// ——— the rule builder's drafts: what the controls hold, and the rule set the API takes ———

interface RuleDraft {
  kind: 'rule';
  key: number;
  /** a field of the schema (EVENT_FIELD for events) */
  field: string;
  eventName: string;
  operator: string;
  /** text of one value (the first of a range; lines of a list of strings) */
  value: string;
  /** the second of a number range */
  to: string;
  /** the options chosen (option[]) */
  options: string[];
  count: string;
  withinDays: string;
  /** a saved rule on a field the schema no longer has (a custom field deleted since): sent as it was */
  saved?: RuleInput;
}

interface GroupDraft {
  kind: 'group';
  key: number;
  match: Match;
  items: Draft[];
}

type Draft = RuleDraft | GroupDraft;

let lastKey = 0;
const nextKey = () => ++lastKey;

function newRule(schema: RuleSchema): RuleDraft {
  const field = schema.fields[0];
  return { kind: 'rule', key: nextKey(), field: field.field, eventName: '', operator: field.operators[0]?.operator ?? '', value: '', to: '', options: [], count: '', withinDays: '' };
}

const newGroup = (schema: RuleSchema): GroupDraft => ({ kind: 'group', key: nextKey(), match: 'all', items: [newRule(schema)] });

const fieldOf = (schema: RuleSchema, field: string) => schema.fields.find((f) => f.field === field);
const operatorOf = (spec: SchemaField | undefined, operator: string) => spec?.operators.find((o) => o.operator === operator);

const text = (v: unknown) => (v === undefined || v === null ? '' : String(v));

/** A saved rule set as the builder's drafts. */
function draftOf(set: RuleSetInput, schema: RuleSchema): GroupDraft {
  return {
    kind: 'group',
    key: nextKey(),
    match: set.match,
    items: set.rules.map((item): Draft => {
      if ('match' in item) return draftOf(item, schema);
      const isEvent = item.field.startsWith('event.');
      const field = isEvent ? EVENT_FIELD : item.field;
      const spec = fieldOf(schema, field);
      const op = operatorOf(spec, item.operator);
      const draft: RuleDraft = {
        kind: 'rule',
        key: nextKey(),
        field,
        eventName: isEvent ? item.field.slice('event.'.length) : '',
        operator: item.operator,
        value: '',
        to: '',
        options: [],
        count: text(item.count),
        withinDays: text(item.within_days),
      };
      if (!spec || !op) return { ...draft, saved: item };
      const value = item.value;
      if (op.value === 'number_range' && Array.isArray(value)) return { ...draft, value: text(value[0]), to: text(value[1]) };
      if (op.value === 'option[]' && Array.isArray(value)) return { ...draft, options: value.map(text) };
      if (op.value === 'string[]' && Array.isArray(value)) return { ...draft, value: value.map(text).join('\n') };
      return { ...draft, value: text(value) };
    }),
  };
}

const asNumber = (raw: string): number | string => (raw.trim() !== '' && Number.isFinite(Number(raw)) ? Number(raw) : raw.trim());

/** The value a rule sends, or undefined while its control is still empty. */
function valueOf(type: ValueType, r: RuleDraft): unknown {
  switch (type) {
    case 'none':
      return undefined;
    case 'string[]': {
      const lines = r.value
        .split('\n')
        .map((l) => l.trim())
        .filter(Boolean);
      return lines.length ? lines : undefined;
    }
    case 'option[]':
      return r.options.length ? r.options : undefined;
    case 'number_range':
      return r.value.trim() && r.to.trim() ? [asNumber(r.value), asNumber(r.to)] : undefined;
    case 'number':
    case 'days':
      return r.value.trim() ? asNumber(r.value) : undefined;
    default:
      return r.value.trim() ? r.value.trim() : undefined;
  }
}

/** The rule set the API takes, and whether a rule still lacks a value (then it is not counted yet). */
function ruleSetOf(group: GroupDraft, schema: RuleSchema): { rules: RuleSetInput; complete: boolean } {
  let complete = true;
  const rules = group.items.map((item): RuleSetInput['rules'][number] => {
    if (item.kind === 'group') {
      const inner = ruleSetOf(item, schema);
      complete &&= inner.complete;
      return inner.rules;
    }
    if (item.saved) return item.saved;
    const spec = fieldOf(schema, item.field);
    const op = operatorOf(spec, item.operator);
    const field = item.field === EVENT_FIELD ? `event.${item.eventName.trim()}` : item.field;
    const rule: RuleInput = { field, operator: item.operator };
    if (item.field === EVENT_FIELD && !item.eventName.trim()) complete = false;
    if (op && op.value !== 'none') {
      const value = valueOf(op.value, item);
      if (value === undefined) complete = false;
      else rule.value = value;
    }
    if (op?.count) {
      if (item.count.trim()) rule.count = Number(item.count);
      else if (op.count === 'required') complete = false;
    }
    if (op?.within_days && item.withinDays.trim()) rule.within_days = Number(item.withinDays);
    return rule;
  });
  return { rules: { match: group.match, rules }, complete };
}

// ——— the builder's controls ———

const OPERATOR_WORDS: Record<string, string> = {
  eq: 'is',
  neq: 'is not',
  contains: 'contains',
  not_contains: 'does not contain',
  starts_with: 'starts with',
  ends_with: 'ends with',
  in: 'is one of',
  not_in: 'is none of',
  is_set: 'is set',
  is_not_set: 'is not set',
  gt: 'is more than',
  gte: 'is at least',
  lt: 'is less than',
  lte: 'is at most',
  between: 'is between',
  before: 'is before',
  after: 'is after',
  on: 'is on',
  within_last_days: 'is within the last … days',
  more_than_days_ago: 'is more than … days ago',
  is_true: 'is true',
  is_false: 'is false',
  has: 'has',
  not_has: 'does not have',
  performed: 'performed (at least … times)',
  not_performed: 'not performed',
  performed_at_most: 'performed at most … times',
};

function operatorLabel(spec: SchemaField, operator: string): string {
  if (spec.type === 'list') return operator === 'in' ? 'is a member of' : 'is not a member of';
  if (spec.type === 'suppressed') return operator === 'is_true' ? 'yes' : 'no';
  return OPERATOR_WORDS[operator] ?? operator;
}

function ValueControl({ type, spec, rule, lists, onChange, schema }: { type: ValueType; spec: SchemaField; rule: RuleDraft; lists: ContactList[]; onChange: (patch: Partial<RuleDraft>) => void; schema: RuleSchema }) {
  const hint = schema.value_types[type];
  switch (type) {
    case 'none':
      return null;
    case 'option':
      return <SelectField label="Value" value={rule.value} options={[{ value: '', label: 'Choose…' }, ...(spec.options ?? [])]} onChange={(value) => onChange({ value })} />;
    case 'option[]':
      return (
        <Field label="Values" hint="Choose one or more">
          {(id, describedBy) => (
            <select id={id} multiple aria-describedby={describedBy} value={rule.options} onChange={(e) => onChange({ options: Array.from(e.target.selectedOptions, (o) => o.value) })}>
              {(spec.options ?? []).map((o) => (
                <option key={o} value={o}>
                  {o}
                </option>
              ))}
            </select>
          )}
        </Field>
      );
    case 'list_id':
      return <SelectField label="List" value={rule.value} options={[{ value: '', label: 'Choose a list…' }, ...lists.map((l) => ({ value: l.id, label: l.name }))]} onChange={(value) => onChange({ value })} />;
    case 'string[]':
      return (
        <Field label="Values" hint="One a line">
          {(id, describedBy) => <textarea id={id} rows={3} aria-describedby={describedBy} value={rule.value} onChange={(e) => onChange({ value: e.target.value })} />}
        </Field>
      );
    case 'number_range':
      return (
        <>
          <TextField label="From" type="number" value={rule.value} onChange={(value) => onChange({ value })} />
          <TextField label="To" type="number" value={rule.to} onChange={(to) => onChange({ to })} />
        </>
      );
    case 'number':
      return <TextField label="Value" type="number" value={rule.value} onChange={(value) => onChange({ value })} />;
    case 'days':
      return <TextField label="Days" type="number" value={rule.value} onChange={(value) => onChange({ value })} hint={hint} />;
    case 'day':
      return <TextField label="Day" type="date" value={rule.value} onChange={(value) => onChange({ value })} />;
    case 'date':
      return <TextField label="Date" value={rule.value} onChange={(value) => onChange({ value })} placeholder="YYYY-MM-DD" hint="A day, or a date-time with its offset" />;
    default:
      return <TextField label="Value" value={rule.value} onChange={(value) => onChange({ value })} />;
  }
}

interface BuilderContext {
  schema: RuleSchema;
  lists: ContactList[];
}

function RuleRow({ rule, name, context, onChange, onRemove, removable }: { rule: RuleDraft; name: string; context: BuilderContext; onChange: (rule: RuleDraft) => void; onRemove: () => void; removable: boolean }) {
  const { schema, lists } = context;
  const spec = fieldOf(schema, rule.field);
  const op = operatorOf(spec, rule.operator);
  const patch = (p: Partial<RuleDraft>) => onChange({ ...rule, ...p });
  return (
    <fieldset className="rule">
      <legend>{name}</legend>
      {spec && !rule.saved ? (
        <div className="row">
          <SelectField
            label="Field"
            value={rule.field}
            options={schema.fields.map((f) => ({ value: f.field, label: f.label }))}
            onChange={(field) => {
              const next = fieldOf(schema, field);
              patch({ field, operator: next?.operators[0]?.operator ?? '', value: '', to: '', options: [], count: '', withinDays: '' });
            }}
          />
          {rule.field === EVENT_FIELD ? <TextField label="Event name" value={rule.eventName} onChange={(eventName) => patch({ eventName })} /> : null}
          <SelectField
            label="Operator"
            value={rule.operator}
            options={spec.operators.map((o) => ({ value: o.operator, label: operatorLabel(spec, o.operator) }))}
            onChange={(operator) => {
              const same = operatorOf(spec, operator)?.value === op?.value;
              patch(same ? { operator } : { operator, value: '', to: '', options: [] });
            }}
          />
          {op ? <ValueControl type={op.value} spec={spec} rule={rule} lists={lists} schema={schema} onChange={patch} /> : null}
          {op?.count ? <TextField label="Times" type="number" value={rule.count} onChange={(count) => patch({ count })} hint={op.count === 'required' ? 'Required' : 'At least once when left empty'} /> : null}
          {op?.within_days ? <TextField label="Within days" type="number" value={rule.withinDays} onChange={(withinDays) => patch({ withinDays })} hint="Empty: ever" /> : null}
          <RemoveButton name={name} disabled={!removable} onRemove={onRemove} />
        </div>
      ) : (
        <div className="row">
          <p>
            <code>{JSON.stringify(rule.saved ?? { field: rule.field, operator: rule.operator })}</code> (a field this account no longer defines: kept as saved)
          </p>
          <RemoveButton name={name} disabled={!removable} onRemove={onRemove} />
        </div>
      )}
    </fieldset>
  );
}

function RemoveButton({ name, disabled, onRemove }: { name: string; disabled: boolean; onRemove: () => void }) {
  return (
    <button type="button" aria-label={`Remove ${name.toLowerCase()}`} disabled={disabled} onClick={onRemove}>
      Remove
    </button>
  );
}

function GroupEditor({ group, path, depth, context, onChange, onRemove }: { group: GroupDraft; path: string; depth: number; context: BuilderContext; onChange: (group: GroupDraft) => void; onRemove?: () => void }) {
  const top = depth === 1;
  const name = top ? 'Rules' : `Group ${path}`;
  const where = top ? '' : ` to group ${path}`;
  const replace = (index: number, item: Draft) => onChange({ ...group, items: group.items.map((it, i) => (i === index ? item : it)) });
  const remove = (index: number) => onChange({ ...group, items: group.items.filter((_, i) => i !== index) });
  const removable = group.items.length > 1;
  return (
    <fieldset className={top ? 'rule-set' : 'rule-set nested'}>
      <legend>{name}</legend>
      <SelectField
        label={top ? 'Match' : `Match in group ${path}`}
        value={group.match}
        options={[
          { value: 'all', label: 'All of these rules' },
          { value: 'any', label: 'Any of these rules' },
        ]}
        onChange={(match) => onChange({ ...group, match })}
      />
      {group.items.map((item, i) => {
        const at = top ? `${i + 1}` : `${path}.${i + 1}`;
        return item.kind === 'rule' ? (
          <RuleRow key={item.key} rule={item} name={`Rule ${at}`} context={context} removable={removable} onChange={(r) => replace(i, r)} onRemove={() => remove(i)} />
        ) : (
          <GroupEditor key={item.key} group={item} path={at} depth={depth + 1} context={context} onChange={(g) => replace(i, g)} onRemove={removable ? () => remove(i) : undefined} />
        );
      })}
      <div className="row">
        <button type="button" onClick={() => onChange({ ...group, items: [...group.items, newRule(context.schema)] })}>
          Add rule{where}
        </button>
        {depth < context.schema.limits.max_depth ? (
          <button type="button" onClick={() => onChange({ ...group, items: [...group.items, newGroup(context.schema)] })}>
            Add group{where}
          </button>
        ) : null}
        {onRemove ? (
          <button type="button" onClick={onRemove}>
            Remove group {path}
          </button>
        ) : null}
      </div>
    </fieldset>
  );
}

/** The live count of the rules as they are, asked for 300 ms after the last change. */
function LiveCount({ rules, complete }: { rules: RuleSetInput; complete: boolean }) {
  const labelId = useId();
  const wanted = complete ? JSON.stringify(rules) : '';
  const [asked, setAsked] = useState('');
  useEffect(() => {
    const timer = setTimeout(() => setAsked(wanted), 300);
    return () => clearTimeout(timer);
  }, [wanted]);
  const preview = useLoad((client) => (asked ? must(client.POST('/v1/segments/preview', { body: { rules: JSON.parse(asked) as RuleSetInput, sample: true } })) : Promise.resolve(undefined)), [asked]);
  const settled = asked === wanted && !preview.loading;
  const count = !complete || !asked || preview.error || !preview.data ? '—' : formatNumber(preview.data.count);
  return (
    <section className="card live-count" aria-label="Live count">
      <dl className="stat">
        <dt id={labelId}>Matching contacts</dt>
        <dd>
          <output aria-labelledby={labelId} aria-busy={!settled}>
            {count}
          </output>
        </dd>
      </dl>
      {!complete ? <p className="hint">Give every rule its value to count.</p> : !settled ? <p className="hint">Counting…</p> : null}
      {complete && asked ? <ErrorNote error={preview.error} /> : null}
      {complete && settled && preview.data?.sample?.length ? (
        <>
          <h3 id={`${labelId}-sample`}>First matching contacts</h3>
          <ul aria-labelledby={`${labelId}-sample`}>
            {preview.data.sample.map((c) => (
              <li key={c.id}>
                <Link to={`/contacts/${c.id}`}>{contactName(c)}</Link>
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </section>
  );
}

function SegmentMembers({ id, round }: { id: string; round: number }) {
  const cursor = useCursor();
  const members = useLoad(
    (client) => must(client.GET('/v1/segments/{id}/contacts', { params: { path: { id }, query: { limit: PAGE_SIZE, ...(cursor.cursor ? { cursor: cursor.cursor } : {}) } } })),
    [id, cursor.cursor, round],
  );
  return (
    <section aria-labelledby="segment-members">
      <h2 id="segment-members">Members</h2>
      <p className="hint">The contacts the saved rules match now.</p>
      <ErrorNote error={members.error} />
      {members.data ? (
        <>
          <ContactsTable caption="Members of the segment" contacts={members.data.data} empty="No contact matches the saved rules." />
          <Pager hasNext={!!members.data.next_cursor} hasPrevious={cursor.hasPrevious} onNext={() => cursor.next(members.data?.next_cursor)} onPrevious={cursor.previous} />
        </>
      ) : members.error ? null : (
        <Loading what="Loading the members" />
      )}
    </section>
  );
}

/** /segments/new and /segments/:id: one editor, drawn again for another segment. */
export function SegmentEditor() {
  const { id } = useParams();
  return <Editor key={id ?? 'new'} id={id} />;
}

function Editor({ id }: { id?: string }) {
  const schema = useLoad((client) => must(client.GET('/v1/segments/schema')), []);
  const lists = useLoad((client) => must(client.GET('/v1/lists', { params: { query: { limit: 500 } } })), []);
  const segment = useLoad((client) => (id ? must(client.GET('/v1/segments/{id}', { params: { path: { id } } })) : Promise.resolve(undefined)), [id]);
  const error = schema.error ?? segment.error;
  if (!schema.data || (id && !segment.data))
    return (
      <div className="audience-page">
        <PageHeader title={id ? 'Segment' : 'New segment'} />
        {error ? <ErrorNote error={error} /> : <Loading what="Loading the segment" />}
        <p>
          <Link to="/segments">Back to the segments</Link>
        </p>
      </div>
    );
  return <SegmentForm schema={schema.data} lists={lists.data?.data ?? []} listsError={lists.error} segment={segment.data} onSaved={segment.reload} />;
}

function SegmentForm({ schema, lists, listsError, segment, onSaved }: { schema: RuleSchema; lists: ContactList[]; listsError?: ApiError; segment?: Segment; onSaved: () => void }) {
  const { can } = useSession();
  const navigate = useNavigate();
  const location = useLocation();
  const [name, setName] = useState(segment?.name ?? '');
  const [description, setDescription] = useState(segment?.description ?? '');
  const [draft, setDraft] = useState<GroupDraft>(() => (segment ? draftOf(segment.rules, schema) : newGroup(schema)));
  const [round, setRound] = useState(0);
  const [saved, setSaved] = useState<boolean>(() => (location.state as { saved?: boolean } | null)?.saved === true);
  const save = useAction();
  const remove = useAction();
  const built = useMemo(() => ruleSetOf(draft, schema), [draft, schema]);
  const context = useMemo(() => ({ schema, lists }), [schema, lists]);
  const canWrite = can('write');

  async function submit(event: FormEvent) {
    event.preventDefault();
    setSaved(false);
    const body = { name: name.trim(), ...(description.trim() ? { description: description.trim() } : {}), rules: built.rules };
    const answer = await save.run((client) =>
      must(segment ? client.PUT('/v1/segments/{id}', { params: { path: { id: segment.id } }, body }) : client.POST('/v1/segments', { body })),
    );
    if (!answer) return;
    if (!segment) return navigate(`/segments/${answer.id}`, { replace: true, state: { saved: true } });
    setSaved(true);
    setRound((r) => r + 1);
    onSaved();
  }

  return (
    <div className="audience-page">
      <PageHeader title={segment ? segment.name : 'New segment'}>
        {segment && canWrite ? (
          <ConfirmButton
            label="Delete"
            title={`Delete the segment ${segment.name}?`}
            confirmLabel="Delete segment"
            danger
            onConfirm={async () => {
              const deleted = await remove.run((client) => must(client.DELETE('/v1/segments/{id}', { params: { path: { id: segment.id } } })));
              if (deleted) navigate('/segments');
            }}
          >
            <p>The segment&apos;s rules are deleted. Its contacts are not touched.</p>
          </ConfirmButton>
        ) : null}
      </PageHeader>
      <p>
        <Link to="/segments">Back to the segments</Link>
      </p>
      {saved ? <Notice>Segment saved.</Notice> : null}
      {!canWrite ? <p className="hint">You can try rules and see their count; saving a segment needs the member role or above.</p> : null}
      <ErrorNote error={remove.error ?? listsError} />
      <div className="segment-editor">
        <form className="stack segment-form" aria-label={segment ? 'Edit segment' : 'New segment'} onSubmit={submit}>
          <fieldset className="plain" disabled={!canWrite}>
            <div className="row">
              <TextField label="Name" value={name} onChange={setName} required />
              <TextField label="Description" value={description} onChange={setDescription} />
            </div>
          </fieldset>
          <GroupEditor group={draft} path="" depth={1} context={context} onChange={setDraft} />
          <ErrorNote error={save.error} />
          {canWrite ? (
            <div>
              <button type="submit" className="primary" disabled={save.pending}>
                Save segment
              </button>
            </div>
          ) : null}
        </form>
        <LiveCount rules={built.rules} complete={built.complete} />
      </div>
      {segment ? (
        <>
          <dl className="facts card">
            <dt>Saved count</dt>
            <dd>{formatNumber(segment.count)}</dd>
            <dt>Updated</dt>
            <dd>{formatTime(segment.updated_at)}</dd>
            <dt>Id</dt>
            <dd>{segment.id}</dd>
          </dl>
          <SegmentMembers id={segment.id} round={round} />
        </>
      ) : null}
    </div>
  );
}
