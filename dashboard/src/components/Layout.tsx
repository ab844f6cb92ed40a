// The signed-in frame: the navigation (README "The dashboard": links named Overview, Messages, …),
// who is signed in and as what, the service's own waits (a 503 being retried, read models rebuilding),
// and the page.
import { Suspense, useEffect, useState } from 'react';
import { NavLink, Outlet, useLocation } from 'react-router';
import { useLoad } from '../hooks.ts';
import { must } from '../api.ts';
import { useSession, useSessionState } from '../session.tsx';
import { PageErrorBoundary } from './ErrorBoundary.tsx';
import { Loading, Progress } from './ui.tsx';

export const NAVIGATION = [
  { to: '/', label: 'Overview' },
  { to: '/messages', label: 'Messages' },
  { to: '/contacts', label: 'Contacts' },
  { to: '/lists', label: 'Lists' },
  { to: '/segments', label: 'Segments' },
  { to: '/campaigns', label: 'Campaigns' },
  { to: '/domains', label: 'Domains' },
  { to: '/webhooks', label: 'Webhooks' },
  { to: '/conversations', label: 'Conversations' },
  { to: '/api-keys', label: 'API keys' },
  { to: '/billing', label: 'Billing' },
] as const;

/** Read models being rebuilt (GET /health): reads may lag behind until they catch up. */
function RebuildBanner() {
  // looked at every 10 s, and every 2 s while a rebuild moves
  const [moving, setMoving] = useState(false);
  const health = useLoad((client) => must(client.GET('/health')), [], moving ? 2000 : 10_000);
  const rebuilding = (health.data?.projections ?? []).filter((p) => p.rebuild || p.status === 'rebuilding');
  useEffect(() => setMoving(rebuilding.length > 0), [rebuilding.length]);
  if (!rebuilding.length) return null;
  return (
    <div className="banner" role="status">
      {rebuilding.map((p) => {
        const lag = p.rebuild?.lag ?? p.lag;
        const done = Number(p.rebuild?.position ?? p.position);
        return <Progress key={p.name} label={`Rebuilding ${p.name} (${lag} events to go)`} value={done} max={done + lag} />;
      })}
    </div>
  );
}

export function Layout() {
  const { me, role, signOut } = useSession();
  const { waiting } = useSessionState();
  const { pathname } = useLocation();
  return (
    <div className="frame">
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="top">
        <span className="brand">engage</span>
        <span className="who">
          {me.account.name} · {me.user?.email ?? 'session'} ({role})
        </span>
        <button type="button" onClick={signOut}>
          Sign out
        </button>
      </header>
      <nav className="side" aria-label="Main">
        <ul>
          {NAVIGATION.map((item) => (
            <li key={item.to}>
              <NavLink to={item.to} end={item.to === '/'}>
                {item.label}
              </NavLink>
            </li>
          ))}
        </ul>
      </nav>
      <main id="main" tabIndex={-1}>
        {waiting ? (
          <div className="banner" role="status">
            <Progress label="The service asked to wait; trying again" />
          </div>
        ) : null}
        <RebuildBanner />
        {/* keyed by the path: a page that failed to draw is drawn afresh when the user goes elsewhere */}
        <PageErrorBoundary key={pathname}>
          {/* a page's bundle loads when it is first opened */}
          <Suspense fallback={<Loading what="Loading the page" />}>
            <Outlet />
          </Suspense>
        </PageErrorBoundary>
      </main>
    </div>
  );
}
