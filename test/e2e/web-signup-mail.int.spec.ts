// Sign-up in the web application when a mail host is configured (issue 18): the answer is 202,
// the app says where the code went, the link in the mail opens the confirmation screen, and
// only then does the person sign in.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser } from 'playwright-core';
import { SmtpServer } from '../../services/delivery/test/support/smtp-server.js';
import { startTestFleet, type TestFleet } from '../support/fleet.js';
import { checkScreen, ensureWebBuilt, launchBrowser, openApp, type AppSession } from '../support/web-app.js';

describe('web app: sign up, confirm the address from the mail, sign in', () => {
  let smtp: SmtpServer;
  let t: TestFleet;
  let browser: Browser;
  let app: AppSession;

  beforeAll(async () => {
    await ensureWebBuilt();
    smtp = await SmtpServer.start();
    t = await startTestFleet({ DELIVERY_SMTP_URL: smtp.url, GATEWAY_AUTH_IP_RPM: '1000' });
    browser = await launchBrowser();
    app = await openApp(browser, t);
  }, 120_000);
  afterAll(async () => {
    await app?.close();
    await browser?.close();
    await t?.stop();
    await smtp?.close();
  });

  it('signs up, is told to check the mail, confirms by the code and signs in', async () => {
    const page = app.page;
    await page.goto('/signup');
    await page.getByLabel('Your name').fill('Cy Quay');
    await page.getByLabel('E-mail').fill('cy@quay.test');
    await page.getByLabel('Password').fill('quay-side-walks');
    await page.getByLabel('Workspace name').fill('Quay');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('heading', { name: 'Check your e-mail' }).waitFor();
    await page.getByRole('status').getByText('cy@quay.test').waitFor();
    await checkScreen(page, 'signup-mailed');

    // The mail carries the code on a line of its own (quoted-printable soft breaks undone).
    for (let i = 0; i < 100 && !smtp.mails.some((m) => m.to.includes('cy@quay.test')); i++)
      await new Promise((r) => setTimeout(r, 50));
    const mail = smtp.mails.find((m) => m.to.includes('cy@quay.test'))!;
    const body = mail.data
      .replace(/=\r?\n/g, '')
      .replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
    const code = /\r?\n([A-Za-z0-9_-]{43})(?:\r?\n|$)/.exec(body)?.[1];
    expect(code).toBeDefined();

    // Signing in before confirming is refused, in the envelope.
    await page.goto('/signin');
    await page.getByLabel('E-mail').fill('cy@quay.test');
    await page.getByLabel('Password').fill('quay-side-walks');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page
      .getByRole('alert')
      .getByText(/not confirmed yet/)
      .waitFor();

    await page.goto('/verify');
    await page.getByLabel('Confirmation code').fill(code!);
    await page.getByRole('button', { name: 'Confirm' }).click();
    await page.getByRole('status').getByText('Your address is confirmed.').waitFor();
    await page.getByRole('link', { name: 'Continue' }).click();
    await page.waitForURL('**/signin');
    await page.getByLabel('E-mail').fill('cy@quay.test');
    await page.getByLabel('Password').fill('quay-side-walks');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Projects' }).waitFor();
    await page.getByText('Quay').first().waitFor();
    // Confirmed: no banner asking for the code.
    await expect(page.getByRole('region', { name: 'Confirm your e-mail' }).count()).resolves.toBe(0);
    expect(app.strayRequests()).toEqual([]);
    expect(app.pageErrors).toEqual([]);
  }, 180_000);
});
