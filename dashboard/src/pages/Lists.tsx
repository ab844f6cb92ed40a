// Contact lists (README "API conventions", Contact lists): the lists, pinned first, each with its live
// member count, and a new list; a list's page with its members (paged by cursor), a contact added by
// id or email, a member removed, the list pinned or unpinned, renamed, filled from a CSV file (README
// "Contacts import"), and deleted after asking (its contacts are kept).
import { type FormEvent, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { ApiFailure, type components, type EngageClient, must } from '../api.ts';
import { ConfirmButton, DataTable, ErrorNote, Loading, Notice, PageHeader, Pager, TextField, useCursor } from '../components/ui.tsx';
import { formatNumber, formatTime } from '../format.ts';
import { useAction, useLoad } from '../hooks.ts';
import { useSession } from '../session.tsx';
import { type Contact, ContactsTable, contactName, ImportContacts } from './Contacts.tsx';
import './Audience.css';

type ContactList = components['schemas']['List'];

const PAGE_SIZE = 25;

function NewListForm({ onCreated }: { onCreated: (list: ContactList) => void }) {
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const create = useAction();
  async function submit(event: FormEvent) {
    event.preventDefault();
    const created = await create.run((client) =>
      must(client.POST('/v1/lists', { body: { name: name.trim(), ...(description.trim() ? { description: description.trim() } : {}) } })),
    );
    if (!created) return;
    setName('');
    setDescription('');
    onCreated(created);
  }
  return (
    <form className="stack" aria-label="New list" onSubmit={submit}>
      <div className="row">
        <TextField label="Name" value={name} onChange={setName} required />
        <TextField label="Description" value={description} onChange={setDescription} />
      </div>
      <ErrorNote error={create.error} />
      <div>
        <button type="submit" className="primary" disabled={create.pending}>
          Create list
        </button>
      </div>
    </form>
  );
}

export function ListsPage() {
  const { can } = useSession();
  const cursor = useCursor();
  const [created, setCreated] = useState<ContactList>();
  const lists = useLoad((client) => must(client.GET('/v1/lists', { params: { query: { limit: PAGE_SIZE, ...(cursor.cursor ? { cursor: cursor.cursor } : {}) } } })), [cursor.cursor]);
  return (
    <div className="audience-page">
      <PageHeader title="Lists" />
      <ErrorNote error={lists.error} />
      {lists.data ? (
        <>
          <DataTable
            caption="Lists"
            empty="No lists yet."
            columns={[
              { header: 'Name', cell: (l) => <Link to={`/lists/${l.id}`}>{l.name}</Link> },
              { header: 'Description', cell: (l) => l.description ?? '—' },
              { header: 'Members', cell: (l) => formatNumber(l.member_count) },
              { header: 'Pinned', cell: (l) => (l.favorite ? 'Pinned' : '—') },
              { header: 'Created', cell: (l) => formatTime(l.created_at) },
            ]}
            rows={lists.data.data}
            rowKey={(l) => l.id}
          />
          <Pager hasNext={!!lists.data.next_cursor} hasPrevious={cursor.hasPrevious} onNext={() => cursor.next(lists.data?.next_cursor)} onPrevious={cursor.previous} />
        </>
      ) : lists.error ? null : (
        <Loading what="Loading lists" />
      )}
      {can('write') ? (
        <section className="card" aria-labelledby="new-list">
          <h2 id="new-list">New list</h2>
          {created ? (
            <Notice>
              Created <Link to={`/lists/${created.id}`}>{created.name}</Link>.
            </Notice>
          ) : null}
          <NewListForm
            onCreated={(list) => {
              setCreated(list);
              lists.reload();
            }}
          />
        </section>
      ) : null}
    </div>
  );
}

/** The contact a person means: an id (ct_…) as it is, else the contact with that email. */
async function findContactId(client: EngageClient, given: string): Promise<string> {
  const wanted = given.trim();
  if (/^ct_/i.test(wanted)) return wanted;
  const found = await must(client.GET('/v1/contacts', { params: { query: wanted.includes('@') ? { email: wanted, limit: 1 } : { q: wanted, limit: 2 } } }));
  if (found.data.length === 1) return found.data[0].id;
  const message = found.data.length ? `Several contacts match "${wanted}": give the contact's id or email.` : `No contact matches "${wanted}".`;
  throw new ApiFailure({ error: 'not_found', message }, 404);
}

function AddMember({ listId, onAdded }: { listId: string; onAdded: (list: ContactList, added: boolean) => void }) {
  const [who, setWho] = useState('');
  const add = useAction();
  async function submit(event: FormEvent) {
    event.preventDefault();
    const answer = await add.run(async (client) => {
      const contactId = await findContactId(client, who);
      const answer = client.POST('/v1/lists/{id}/contacts', { params: { path: { id: listId } }, body: { contact_id: contactId } });
      const list = await must(answer);
      // 201: added; 200: it was on the list already
      return { list, added: (await answer).response.status === 201 };
    });
    if (!answer) return;
    setWho('');
    onAdded(answer.list, answer.added);
  }
  return (
    <form className="row" aria-label="Add a contact to the list" onSubmit={submit}>
      <TextField label="Contact id or email" value={who} onChange={setWho} required hint="An id (ct_…), an email, or a name that only one contact has" />
      <button type="submit" className="primary" disabled={add.pending}>
        Add to list
      </button>
      <ErrorNote error={add.error} />
    </form>
  );
}

function EditList({ list, onSaved, onCancel }: { list: ContactList; onSaved: () => void; onCancel: () => void }) {
  const [name, setName] = useState(list.name);
  const [description, setDescription] = useState(list.description ?? '');
  const save = useAction();
  async function submit(event: FormEvent) {
    event.preventDefault();
    const saved = await save.run((client) =>
      must(client.PATCH('/v1/lists/{id}', { params: { path: { id: list.id } }, body: { name: name.trim(), description: description.trim() || null } })),
    );
    if (saved) onSaved();
  }
  return (
    <form className="stack card" aria-label="Edit list" onSubmit={submit}>
      <TextField label="Name" value={name} onChange={setName} required />
      <TextField label="Description" value={description} onChange={setDescription} />
      <ErrorNote error={save.error} />
      <div className="row">
        <button type="submit" className="primary" disabled={save.pending}>
          Save list
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

function Members({ listId, round, onChanged }: { listId: string; round: number; onChanged: () => void }) {
  const { can } = useSession();
  const cursor = useCursor();
  const remove = useAction();
  const [removed, setRemoved] = useState<string>();
  const members = useLoad(
    (client) => must(client.GET('/v1/lists/{id}/contacts', { params: { path: { id: listId }, query: { limit: PAGE_SIZE, ...(cursor.cursor ? { cursor: cursor.cursor } : {}) } } })),
    [listId, cursor.cursor, round],
  );
  async function removeMember(contact: Contact) {
    const done = await remove.run((client) => must(client.DELETE('/v1/lists/{id}/contacts/{contactId}', { params: { path: { id: listId, contactId: contact.id } } })));
    if (!done) return;
    setRemoved(contactName(contact));
    onChanged();
  }
  return (
    <section aria-labelledby="list-members">
      <h2 id="list-members">Members</h2>
      {removed ? <Notice>Removed {removed} from the list.</Notice> : null}
      <ErrorNote error={remove.error ?? members.error} />
      {members.data ? (
        <>
          <ContactsTable
            caption="Members"
            contacts={members.data.data}
            empty="No one on this list yet."
            extra={
              can('write')
                ? {
                    header: 'Remove',
                    cell: (c) => (
                      <button type="button" disabled={remove.pending} aria-label={`Remove ${contactName(c)} from the list`} onClick={() => removeMember(c)}>
                        Remove
                      </button>
                    ),
                  }
                : undefined
            }
          />
          <Pager hasNext={!!members.data.next_cursor} hasPrevious={cursor.hasPrevious} onNext={() => cursor.next(members.data?.next_cursor)} onPrevious={cursor.previous} />
        </>
      ) : members.error ? null : (
        <Loading what="Loading the members" />
      )}
    </section>
  );
}

/** /lists/:id: drawn again (its state fresh) for another list. */
export function ListPage() {
  const { id = '' } = useParams();
  return <ListView key={id} id={id} />;
}

function ListView({ id }: { id: string }) {
  const { can } = useSession();
  const navigate = useNavigate();
  const list = useLoad((client) => must(client.GET('/v1/lists/{id}', { params: { path: { id } } })), [id]);
  const [round, setRound] = useState(0);
  const [editing, setEditing] = useState(false);
  const [said, setSaid] = useState<string>();
  const favorite = useAction();
  const remove = useAction();
  const changed = () => {
    list.reload();
    setRound((r) => r + 1);
  };

  if (!list.data)
    return (
      <div className="audience-page">
        <PageHeader title="List" />
        {list.error ? <ErrorNote error={list.error} /> : <Loading what="Loading the list" />}
        <p>
          <Link to="/lists">Back to the lists</Link>
        </p>
      </div>
    );
  const shown = list.data;
  return (
    <div className="audience-page">
      <PageHeader title={shown.name}>
        {can('write') ? (
          <>
            <button
              type="button"
              aria-pressed={shown.favorite}
              className="pin"
              disabled={favorite.pending}
              onClick={async () => {
                const done = await favorite.run((client) => must(client.PATCH('/v1/lists/{id}/favorite', { params: { path: { id } }, body: { favorite: !shown.favorite } })));
                if (done) list.reload();
              }}
            >
              <span aria-hidden="true">{shown.favorite ? '★ ' : '☆ '}</span>
              Pinned
            </button>
            {!editing ? (
              <button type="button" onClick={() => setEditing(true)}>
                Edit
              </button>
            ) : null}
            <ConfirmButton
              label="Delete"
              title={`Delete the list ${shown.name}?`}
              confirmLabel="Delete list"
              danger
              onConfirm={async () => {
                const deleted = await remove.run((client) => must(client.DELETE('/v1/lists/{id}', { params: { path: { id } } })));
                if (deleted) navigate('/lists');
              }}
            >
              <p>The list is deleted. Its {formatNumber(shown.member_count)} contacts are kept; only their membership of this list goes.</p>
            </ConfirmButton>
          </>
        ) : null}
      </PageHeader>
      <p>
        <Link to="/lists">Back to the lists</Link>
      </p>
      <ErrorNote error={favorite.error ?? remove.error} />
      {said ? <Notice>{said}</Notice> : null}
      {editing ? (
        <EditList
          list={shown}
          onCancel={() => setEditing(false)}
          onSaved={() => {
            setEditing(false);
            setSaid('List saved.');
            list.reload();
          }}
        />
      ) : (
        <section className="card" aria-label="About the list">
          <dl className="facts">
            <dt>Description</dt>
            <dd>{shown.description ?? '—'}</dd>
            <dt>Members</dt>
            <dd>{formatNumber(shown.member_count)}</dd>
            <dt>Pinned</dt>
            <dd>{shown.favorite ? 'Yes: listed first' : 'No'}</dd>
            <dt>Created</dt>
            <dd>{formatTime(shown.created_at)}</dd>
            <dt>Id</dt>
            <dd>{shown.id}</dd>
          </dl>
        </section>
      )}
      {can('write') ? (
        <section className="card" aria-labelledby="add-member">
          <h2 id="add-member">Add a contact</h2>
          <AddMember
            listId={id}
            onAdded={(_, added) => {
              setSaid(added ? 'Contact added to the list.' : 'That contact is on the list already.');
              changed();
            }}
          />
        </section>
      ) : null}
      <Members listId={id} round={round} onChanged={changed} />
      {can('write') ? (
        <section className="card" aria-labelledby="import-list">
          <h2 id="import-list">Import contacts into this list</h2>
          <ImportContacts listId={id} onFinished={changed} />
        </section>
      ) : null}
    </div>
  );
}
