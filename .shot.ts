import { launchBrowser } from './test/e2e/browser.ts';
const browser = await launchBrowser();
const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
await page.goto(process.argv[2]);
await page.waitForSelector('#status.live');
await page.waitForTimeout(4000);
await page.screenshot({ path: process.argv[3] });
await browser.close();
