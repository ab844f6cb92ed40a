// The dashboard in a real browser: a test server (serving the dashboard built from the current sources
// at /app), headless Chromium, and a page signed in as a user of a given role through the sign-in form.
// Pages are found the way a person finds them: by role and accessible name, never by CSS class.
import { randomBytes } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import type { Role } from '../../commands/account.ts';
import { addUser } from '../../src/accounts/service.ts';
import { launchChromium, seriousViolations } from '../support/browser.ts';
import { type TestServer, testServerForSuite } from '../support/harness.ts';
import type { TestAccount } from '../support/accounts.ts';

export interface DashboardSuite {
  server: TestServer;
  browser: () => Browser;
}

/** A test server and a browser for the file's tests. */
export function dashboardSuite(overrides: Record<string, string> = {}): DashboardSuite {
  const server = testServerForSuite(overrides);
  let browser: Browser | undefined;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });
  return {
    server,
    browser: () => {
      if (!browser) throw new Error('the browser is not running');
      return browser;
    },
  };
}

export interface Credentials {
  email: string;
  password: string;
}

/** Another user of the account, with `role`. */
export async function userWithRole(server: TestServer, account: TestAccount, role: Role): Promise<Credentials> {
  const email = `${role}-${randomBytes(5).toString('hex')}@example.com`;
  const password = `${role} password ${randomBytes(4).toString('hex')}`;
  await addUser(server.engage, account.accountId, { email, password, role }, { actor: 'test' });
  await server.caughtUp(['auth']);
  return { email, password };
}

/** A new page (its own browser context) at `path` under /app, signed in through the form as `who`. */
export async function signedIn(suite: DashboardSuite, who: Credentials, path = '/'): Promise<Page> {
  const context = await suite.browser().newContext();
  const page = await context.newPage();
  await page.goto(`${suite.server.url}/app${path}`);
  await page.getByLabel('Email').fill(who.email);
  await page.getByLabel('Password').fill(who.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('navigation', { name: 'Main' }).waitFor();
  return page;
}

/** Opens a page from the main navigation. */
export async function openFromNavigation(page: Page, name: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true }).click();
  await page.getByRole('heading', { level: 1 }).first().waitFor();
}

/** axe-core finds no serious or critical violation on the page as it is now. */
export async function expectAccessible(page: Page, where: string): Promise<void> {
  const violations = await seriousViolations(page);
  expect(violations, `accessibility of ${where}`).toEqual([]);
}
