// Drives the live desk in headless Chromium, as an arbiter would: the round page
// open while a sheet is dropped into the scanner's folder; the game appears, opens
// with the keyboard; a move is corrected with the keyboard (`E`, the move, `Enter`);
// the page comes back with the game re-read around it; a reload still shows it.
//
//   node tests/browser/desk.mjs BASE_URL SHEET WATCH_DIR
//
// The move typed is the one the game plays at the same side's next turn, played a
// turn earlier (3. Nc3 where the game had 3. Nf3 4. Nc3), so that the moves after it
// must change. Prints one JSON line.
import { chromium } from "playwright-core";
import fs from "node:fs";
import path from "node:path";

const [base, sheet, watch] = process.argv.slice(2);
const stem = path.basename(sheet).replace(/\.[^.]+$/, "");
const executablePath = process.env.CHROMIUM || "/usr/bin/chromium";
const browser = await chromium.launch({
  executablePath,
  headless: true,
  args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});
const result = { errors: [] };
try {
  const page = await (await browser.newContext()).newPage();
  page.on("pageerror", e => result.errors.push(String(e)));
  await page.goto(base + "/");
  result.before = await page.$$eval("tr.game", rows => rows.length);
  // The scanner writes under a hidden name and renames the file into place.
  const tmp = path.join(watch, "." + path.basename(sheet) + ".part");
  fs.copyFileSync(sheet, tmp);
  fs.renameSync(tmp, path.join(watch, path.basename(sheet)));
  await page.waitForSelector(`#queue tr[data-file="${path.basename(sheet)}"]`, { timeout: 30000 });
  result.queued = await page.$eval(`#queue tr[data-file="${path.basename(sheet)}"] td:last-child`, td => td.textContent);
  await page.waitForSelector(`tr.game[data-stem="${stem}"]`, { timeout: 180000 });
  result.queue = await page.$eval(`#queue tr[data-file="${path.basename(sheet)}"] td:last-child`, td => td.textContent);
  // Open it with the keyboard.
  await Promise.all([page.waitForURL("**/games/" + stem), page.keyboard.press("Enter")]);
  await page.waitForSelector(".mv");
  const plan = await page.evaluate(() => {
    const s = DATA.sheets[0], ms = s.moves;
    for (let i = 0; i + 2 < ms.length; i++) {
      const a = ms[i], b = ms[i + 2];
      if (!a.san || !b.san || a.side !== b.side || b.san === a.san || a.ply == null) continue;
      const want = b.san.replace(/[+#]$/, "");
      if (s.positions[a.pos].legal.some(l => l.san === want)) {
        return { index: i, move: want, sans: ms.map(m => m.san), selected: sel };
      }
    }
    return null;
  });
  if (!plan) throw new Error("no move to correct on this sheet");
  result.plan = plan;
  // To the cell with the arrow keys, then `E`, the move, `Enter`.
  const steps = plan.index - plan.selected;
  for (let k = 0; k < Math.abs(steps); k++) await page.keyboard.press(steps > 0 ? "ArrowDown" : "ArrowUp");
  result.title = await page.$eval("#title", el => el.textContent);
  await page.keyboard.press("e");
  await page.keyboard.type(plan.move);
  await Promise.all([page.waitForEvent("load", { timeout: 120000 }), page.keyboard.press("Enter")]);
  await page.waitForSelector(".mv");
  const after = () => page.evaluate(i => ({
    sans: DATA.sheets[0].moves.map(m => m.san),
    state: DATA.sheets[0].moves[i].state,
    row: document.querySelector('.mv[data-index="' + i + '"]').className,
    message: document.getElementById("msg").textContent,
    selected: sel,
  }), plan.index);
  result.after = await after();
  await page.reload();
  await page.waitForSelector(".mv");
  result.reloaded = await after();
  console.log(JSON.stringify(result));
} catch (e) {
  result.failure = String(e);
  console.log(JSON.stringify(result));
  process.exitCode = 1;
} finally {
  await browser.close();
}
