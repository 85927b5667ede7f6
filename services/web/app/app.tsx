import { Fragment, type ReactNode } from 'react';
import { match, navigate, useLocation, Link } from './router';
import { SessionProvider, useSession } from './session';
import { AcceptInvite, Forgot, Reset, Verify } from './screens/auth/tokens';
import { SecondFactor, SignIn, SignUp } from './screens/auth/sign-in';
import { ChangeRecordScreen } from './screens/projects/change-record';
import { NewProject } from './screens/projects/new-project';
import { PageDiffScreen } from './screens/projects/page-diff';
import { ProjectHome } from './screens/projects/project-home';
import { ProjectList } from './screens/projects/project-list';
import { ProjectSettings } from './screens/projects/project-settings';
import { ExportsScreen } from './screens/projects/exports';
import { LinkGraphScreen } from './screens/projects/link-graph';
import { PagesScreen } from './screens/projects/pages';
import { PageView } from './screens/projects/page-view';
import { ProjectWebhooksScreen } from './screens/projects/project-webhooks';
import { ChannelsScreen } from './screens/webhooks/channels';
import { CrawlScreen } from './screens/verbs/crawl';
import { ScrapeScreen } from './screens/verbs/scrape';
import { AccountScreen } from './screens/workspace/account';
import { KeysScreen } from './screens/workspace/keys';
import { MembersScreen } from './screens/workspace/members';
import { MonitorScreen } from './screens/workspace/monitor';
import { NotificationsScreen } from './screens/workspace/notifications';
import { UsageScreen } from './screens/workspace/usage';
import { Card, Layout } from './ui/layout';
import { ErrorNote, Loading } from './ui/states';

type Screen = (params: Record<string, string>) => ReactNode;

/** Screens anyone may open, signed in or not (e-mail links land here). */
const PUBLIC: [string, Screen][] = [
  ['/signin', () => <SignIn />],
  ['/signup', () => <SignUp />],
  ['/verify', () => <Verify />],
  ['/forgot', () => <Forgot />],
  ['/reset', () => <Reset />],
  ['/invite', () => <AcceptInvite />],
];

/** Screens behind the sign-in, inside the layout. */
const SIGNED_IN: [string, Screen][] = [
  ['/', () => <ProjectList />],
  ['/projects/new', () => <NewProject />],
  ['/projects/:id', (p) => <ProjectHome id={p.id!} />],
  ['/projects/:id/changes', (p) => <ChangeRecordScreen id={p.id!} />],
  ['/projects/:id/diff', (p) => <PageDiffScreen id={p.id!} />],
  ['/projects/:id/settings', (p) => <ProjectSettings id={p.id!} />],
  ['/projects/:id/pages', (p) => <PagesScreen id={p.id!} />],
  ['/projects/:id/page', (p) => <PageView id={p.id!} />],
  ['/projects/:id/links', (p) => <LinkGraphScreen id={p.id!} />],
  ['/projects/:id/exports', (p) => <ExportsScreen id={p.id!} />],
  ['/projects/:id/webhooks', (p) => <ProjectWebhooksScreen id={p.id!} />],
  ['/webhooks', () => <ChannelsScreen />],
  ['/scrape', () => <ScrapeScreen />],
  ['/crawl', () => <CrawlScreen />],
  ['/notifications', () => <NotificationsScreen />],
  ['/usage', () => <UsageScreen />],
  ['/monitor', () => <MonitorScreen />],
  ['/keys', () => <KeysScreen />],
  ['/members', () => <MembersScreen />],
  ['/account', () => <AccountScreen />],
];

const find = (table: [string, Screen][], path: string): ReactNode | null => {
  for (const [pattern, screen] of table) {
    const params = match(pattern, path);
    if (params) return screen(params);
  }
  return null;
};

const Routes = () => {
  const { path } = useLocation();
  const { session, error } = useSession();
  const open = find(PUBLIC, path);
  // Signed in, the sign-in and sign-up screens lead home.
  if (session && (path === '/signin' || path === '/signup')) {
    queueMicrotask(() => navigate('/', { replace: true }));
    return null;
  }
  if (open) return open;
  if (session === undefined)
    return error ? (
      <Card title="Tidemark">
        <ErrorNote error={error} />
      </Card>
    ) : (
      <Card title="Tidemark">
        <Loading />
      </Card>
    );
  if (session === null) {
    queueMicrotask(() => navigate('/signin', { replace: true }));
    return null;
  }
  if (session.mfa.enabled && !session.mfa.verifiedAt) return <SecondFactor />;
  const screen = find(SIGNED_IN, path);
  return (
    <Layout>
      {/* Keyed by workspace: after a switch every screen loads again, for the workspace now in use. */}
      <Fragment key={session.workspace.id}>
        {screen ?? (
          <>
            <h1>Not found</h1>
            <p>
              Nothing lives at this address. <Link to="/">Go to your projects</Link>
            </p>
          </>
        )}
      </Fragment>
    </Layout>
  );
};

export const App = () => (
  <SessionProvider>
    <Routes />
  </SessionProvider>
);
