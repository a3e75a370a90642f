// Drives a generated review page in headless Chromium, as a reviewer would with the
// keyboard: jump to the first move flagged for review, type a correction, correct
// White's name in the game's headers, save.
//
//   node tests/browser/review.mjs OUTDIR/review.html MOVE DOWNLOAD_DIR
//
// MOVE is typed into the correction box after pressing `E` (the test picks a legal
// move). Prints one JSON line: the selected move before the fix, the status message,
// the path of the downloaded corrections file, and the notes under the game's fields.
import { chromium } from "playwright-core";
import { pathToFileURL } from "node:url";
import path from "node:path";

const [html, move, downloads] = process.argv.slice(2);
const executablePath = process.env.CHROMIUM || "/usr/bin/chromium";
const browser = await chromium.launch({
  executablePath,
  headless: true,
  args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});
try {
  const context = await browser.newContext({ acceptDownloads: true });
  const page = await context.newPage();
  const errors = [];
  page.on("pageerror", e => errors.push(String(e)));
  await page.goto(pathToFileURL(path.resolve(html)).href);
  await page.waitForSelector(".mv");
  await page.keyboard.press("n");
  const selected = await page.$eval(".mv.sel", el => ({
    index: +el.dataset.index,
    state: el.className,
    title: document.getElementById("title").textContent,
  }));
  // The notes under the game's fields (why the result is `*`, a result to check).
  const notes = await page.$$eval("#game .note", els => els.map(e => e.textContent));
  await page.keyboard.press("e");
  await page.keyboard.type(move);
  await page.keyboard.press("Enter");
  const message = await page.$eval("#msg", el => el.textContent);
  // A header the reviewer corrects: White's name, typed into the game's fields
  // (the keys typed there are not shortcuts).
  await page.fill("#h-white", "Nowak, Ewa");
  await page.press("#h-white", "Enter");
  const [download] = await Promise.all([page.waitForEvent("download"), page.keyboard.press("s")]);
  const saved = path.join(downloads, download.suggestedFilename());
  await download.saveAs(saved);
  console.log(JSON.stringify({ selected, message, saved, errors, notes }));
} finally {
  await browser.close();
}
