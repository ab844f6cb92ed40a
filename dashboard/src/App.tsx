// The dashboard's pages under /app (README "The dashboard"). Signed out, every path shows the sign-in
// form and comes back to the same page once signed in.
import { BrowserRouter, Link, Route, Routes } from 'react-router';
import { Layout } from './components/Layout.tsx';
import { Loading, PageHeader } from './components/ui.tsx';
import { ApiKeysPage } from './pages/ApiKeys.tsx';
import { BillingPage } from './pages/Billing.tsx';
import { CampaignPage, CampaignsPage } from './pages/Campaigns.tsx';
import { ContactPage, ContactsPage } from './pages/Contacts.tsx';
import { ConversationPage, ConversationsPage } from './pages/Conversations.tsx';
import { DomainsPage, EmailDomainPage } from './pages/Domains.tsx';
import { ListPage, ListsPage } from './pages/Lists.tsx';
import { MessagePage, MessagesPage } from './pages/Messages.tsx';
import { Overview } from './pages/Overview.tsx';
import { SegmentEditor, SegmentsPage } from './pages/Segments.tsx';
import { SignIn } from './pages/SignIn.tsx';
import { WebhookPage, WebhooksPage } from './pages/Webhooks.tsx';
import { SessionProvider, useSessionState } from './session.tsx';

function NotFound() {
  return (
    <>
      <PageHeader title="Not found" />
      <p>
        There is no page here. <Link to="/">Back to the overview</Link>.
      </p>
    </>
  );
}

function Pages() {
  const { session, restoring } = useSessionState();
  if (restoring) return <Loading what="Signing in" />;
  if (!session) return <SignIn />;
  return (
    <Routes>
      <Route element={<Layout />}>
        <Route index element={<Overview />} />
        <Route path="messages" element={<MessagesPage />} />
        <Route path="messages/:id" element={<MessagePage />} />
        <Route path="contacts" element={<ContactsPage />} />
        <Route path="contacts/:id" element={<ContactPage />} />
        <Route path="lists" element={<ListsPage />} />
        <Route path="lists/:id" element={<ListPage />} />
        <Route path="segments" element={<SegmentsPage />} />
        <Route path="segments/new" element={<SegmentEditor />} />
        <Route path="segments/:id" element={<SegmentEditor />} />
        <Route path="campaigns" element={<CampaignsPage />} />
        <Route path="campaigns/:id" element={<CampaignPage />} />
        <Route path="domains" element={<DomainsPage />} />
        <Route path="domains/email/:id" element={<EmailDomainPage />} />
        <Route path="webhooks" element={<WebhooksPage />} />
        <Route path="webhooks/:id" element={<WebhookPage />} />
        <Route path="conversations" element={<ConversationsPage />} />
        <Route path="conversations/:id" element={<ConversationPage />} />
        <Route path="api-keys" element={<ApiKeysPage />} />
        <Route path="billing" element={<BillingPage />} />
        <Route path="*" element={<NotFound />} />
      </Route>
    </Routes>
  );
}

export function App() {
  return (
    <BrowserRouter basename="/app">
      <SessionProvider>
        <Pages />
      </SessionProvider>
    </BrowserRouter>
  );
}
