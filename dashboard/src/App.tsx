// The dashboard's pages under /app (README "The dashboard"). Signed out, every path shows the sign-in
// form and comes back to the same page once signed in.
import { lazy } from 'react';
import { BrowserRouter, Link, Route, Routes } from 'react-router';
import { Layout } from './components/Layout.tsx';
import { Loading, PageHeader } from './components/ui.tsx';
import { SignIn } from './pages/SignIn.tsx';
import { SessionProvider, useSessionState } from './session.tsx';

// each area's pages are their own bundle, loaded when first opened (the charts' library only with the overview)
const ApiKeysPage = lazy(() => import('./pages/ApiKeys.tsx').then((m) => ({ default: m.ApiKeysPage })));
const BillingPage = lazy(() => import('./pages/Billing.tsx').then((m) => ({ default: m.BillingPage })));
const CampaignPage = lazy(() => import('./pages/Campaigns.tsx').then((m) => ({ default: m.CampaignPage })));
const CampaignsPage = lazy(() => import('./pages/Campaigns.tsx').then((m) => ({ default: m.CampaignsPage })));
const ContactPage = lazy(() => import('./pages/Contacts.tsx').then((m) => ({ default: m.ContactPage })));
const ContactsPage = lazy(() => import('./pages/Contacts.tsx').then((m) => ({ default: m.ContactsPage })));
const ConversationPage = lazy(() => import('./pages/Conversations.tsx').then((m) => ({ default: m.ConversationPage })));
const ConversationsPage = lazy(() => import('./pages/Conversations.tsx').then((m) => ({ default: m.ConversationsPage })));
const DomainsPage = lazy(() => import('./pages/Domains.tsx').then((m) => ({ default: m.DomainsPage })));
const EmailDomainPage = lazy(() => import('./pages/Domains.tsx').then((m) => ({ default: m.EmailDomainPage })));
const ListPage = lazy(() => import('./pages/Lists.tsx').then((m) => ({ default: m.ListPage })));
const ListsPage = lazy(() => import('./pages/Lists.tsx').then((m) => ({ default: m.ListsPage })));
const MessagePage = lazy(() => import('./pages/Messages.tsx').then((m) => ({ default: m.MessagePage })));
const MessagesPage = lazy(() => import('./pages/Messages.tsx').then((m) => ({ default: m.MessagesPage })));
const Overview = lazy(() => import('./pages/Overview.tsx').then((m) => ({ default: m.Overview })));
const SegmentEditor = lazy(() => import('./pages/Segments.tsx').then((m) => ({ default: m.SegmentEditor })));
const SegmentsPage = lazy(() => import('./pages/Segments.tsx').then((m) => ({ default: m.SegmentsPage })));
const WebhookPage = lazy(() => import('./pages/Webhooks.tsx').then((m) => ({ default: m.WebhookPage })));
const WebhooksPage = lazy(() => import('./pages/Webhooks.tsx').then((m) => ({ default: m.WebhooksPage })));

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
