// The README's picture of the dashboard (docs/dashboard.png): signs in to a running service through the
// form, sends a few days' worth of sandbox messages through the typed client with that session (some to
// the sandbox's failing recipients), and photographs the Overview in Debian's Chromium.
//
//   npx tsx dashboard/scripts/screenshot.ts http://localhost:3000 owner@engage.local <password> [docs/dashboard.png]
import { chromium } from 'playwright-core';
import { createClient } from '../../client/src/index.ts';

const [baseUrl, email, password, out = 'docs/dashboard.png'] = process.argv.slice(2);
if (!baseUrl || !email || !password) {
  process.stderr.write('usage: screenshot.ts <service URL> <email> <password> [output.png]\n');
  process.exit(2);
}

const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: ['--headless', '--no-sandbox', '--disable-gpu'] });
try {
  const page = await browser.newPage({ viewport: { width: 1360, height: 860 }, deviceScaleFactor: 1 });
  await page.goto(`${baseUrl}/app/`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('navigation', { name: 'Main' }).waitFor();

  const token = await page.evaluate(() => (JSON.parse(sessionStorage.getItem('engage.session') ?? '{}') as { token?: string }).token);
  const engage = createClient({ baseUrl, token: token! });
  const messages = [
    ...Array.from({ length: 60 }, (_, i) => ({ channel: 'email' as const, to: `customer${i}@example.com`, subject: 'Your receipt', message: `Thank you for order ${1000 + i}.`, transactional: true })),
    ...Array.from({ length: 6 }, () => ({ channel: 'email' as const, to: 'bounce@sandbox.engage.test', subject: 'Your receipt', message: 'Thank you.', transactional: true })),
    ...Array.from({ length: 30 }, (_, i) => ({ channel: 'sms' as const, to: `+1415555${String(1000 + i).padStart(4, '0')}`, message: `Your code is ${100000 + i}`, transactional: true })),
    ...Array.from({ length: 3 }, () => ({ channel: 'sms' as const, to: '+15005550003', message: 'Your code is 123456', transactional: true })),
  ];
  const sent = await engage.POST('/v1/messages/bulk', { body: { messages } });
  if (sent.error) throw new Error(`the bulk was refused: ${sent.error.message}`);
  // the sandbox reports delivery after its delay (200 ms); a picture needs no exact count: a moment is enough
  await new Promise((resolve) => setTimeout(resolve, 4000));
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Overview', exact: true }).click();
  await page.reload();
  await page.getByRole('navigation', { name: 'Main' }).waitFor();
  await page.getByLabel('Period').selectOption({ label: 'Last 7 days' });
  await page.waitForLoadState('networkidle');
  await page.screenshot({ path: out });
  process.stdout.write(`${out}\n`);
} finally {
  await browser.close();
}
