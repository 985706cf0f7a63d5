// Scale check of optimus' HTML pages: each page is loaded from file:// in
// headless Chromium (Debian's /usr/bin/chromium, driven by playwright-core)
// with no network, in a window WIDTH pixels wide, and measured:
//   - bytes: the page's size on disk,
//   - render_ms: from navigation to every chart of the manifest drawn
//     (an echarts instance on each chart element, after the load event);
//     with --repeat N the median of N loads, each in a fresh context
//     (the pages in turn, so that a busy machine slows them alike),
//   - heap_mb: the JS heap in use once drawn,
//   - height_px: the document's height at that width.
// With --max-bytes, --max-ms or --max-height a page over the limit fails.
// Every table that scrolls, sorts and filters (table.grid.interactive) is
// sorted and filtered once and must do it right (see checkGrids).
// The colours of the policies are compared across pages too: every series
// of a chart whose legend names a policy (the options block's
// "optimusPolicy" marker is not needed: a series named like a policy of
// chart/palette.json) must use that policy's colour, so that a policy has
// one colour on every page.
// Usage: node scale.mjs [--width 1400] [--repeat N] [--max-bytes N] [--max-ms N]
//                       [--max-height N] [--json FILE] PAGE.html...
// Exit status 0 when every page passes, 1 otherwise.
import { chromium } from "playwright-core";
import { statSync, readFileSync, writeFileSync } from "node:fs";
import { resolve, dirname, join } from "node:path";
import { pathToFileURL, fileURLToPath } from "node:url";

const args = process.argv.slice(2);
let width = 1400, repeat = 1, maxBytes = 0, maxMs = 0, maxHeight = 0, jsonOut = "";
const pages = [];
for (let i = 0; i < args.length; i++) {
  switch (args[i]) {
    case "--width": width = Number(args[++i]); break;
    case "--repeat": repeat = Math.max(1, Number(args[++i])); break;
    case "--max-bytes": maxBytes = Number(args[++i]); break;
    case "--max-ms": maxMs = Number(args[++i]); break;
    case "--max-height": maxHeight = Number(args[++i]); break;
    case "--json": jsonOut = args[++i]; break;
    default: pages.push(args[i]);
  }
}
if (pages.length === 0) {
  console.error("usage: node scale.mjs [--width PX] [--max-bytes N] [--max-ms N] [--max-height N] [--json FILE] PAGE.html...");
  process.exit(2);
}
const here = dirname(fileURLToPath(import.meta.url));
const palette = JSON.parse(readFileSync(join(here, "..", "..", "chart", "palette.json"), "utf8"));

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--enable-precise-memory-info"],
});
let failed = false;
const results = [];

// checkGrids sorts and filters every interactive table of a page as a
// reader would (a click on the first heading, twice; the first row's first
// cell typed into the filter) and returns what went wrong: rows out of
// order, a filter that hides a matching row or shows another, or an
// element added to the table (the script may only move rows).
async function checkGrids(page) {
  const problems = [];
  const n = await page.locator("table.grid.interactive").count();
  for (let g = 0; g < n; g++) {
    const table = page.locator("table.grid.interactive").nth(g);
    const elements = () => table.evaluate((t) => t.getElementsByTagName("*").length);
    const before = await elements();
    const firsts = () => table.evaluate((t) => Array.from(t.tBodies[0].rows).map((r) => r.cells[0].textContent.toLowerCase()));
    const head = table.locator("thead th").first();
    for (const dir of ["ascending", "descending"]) {
      await head.click();
      const got = await firsts();
      const want = [...got].sort();
      if (dir === "descending") want.reverse();
      if (JSON.stringify(got) !== JSON.stringify(want)) problems.push(`grid ${g}: rows not in ${dir} order after a click on its first heading`);
      if ((await head.getAttribute("aria-sort")) !== dir) problems.push(`grid ${g}: heading not marked ${dir}`);
    }
    const rows = await firsts();
    const q = rows[Math.floor(rows.length / 2)];
    const filter = page.locator("input.gridfilter").nth(g);
    await filter.fill(q);
    const shown = await table.evaluate((t, q) => Array.from(t.tBodies[0].rows).map((r) => [r.style.display !== "none", r.textContent.toLowerCase().includes(q)]), q);
    if (shown.some(([vis, hit]) => vis !== hit) || !shown.some(([vis]) => vis)) problems.push(`grid ${g}: the filter ${JSON.stringify(q)} shows rows that lack it or hides rows that have it`);
    await filter.fill("");
    if ((await elements()) !== before) problems.push(`grid ${g}: sorting or filtering added elements to the table`);
  }
  return { problems, checked: n };
}

async function load(file) {
  const path = resolve(file);
  const ctx = await browser.newContext({ viewport: { width, height: 900 } });
  await ctx.route((u) => u.href !== pathToFileURL(path).href, (r) => r.abort());
  const page = await ctx.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
  const t0 = Date.now();
  await page.goto(pathToFileURL(path).href, { waitUntil: "load", timeout: 300_000 });
  await page.waitForFunction(() => {
    const m = JSON.parse(document.getElementById("optimus-charts").textContent);
    return m.every((c) => window.echarts && echarts.getInstanceByDom(document.getElementById(c.id)));
  }, null, { timeout: 300_000 });
  const ms = Date.now() - t0;
  const m = await page.evaluate(() => {
    const manifest = JSON.parse(document.getElementById("optimus-charts").textContent);
    const colours = [];
    for (const c of manifest) {
      const opt = echarts.getInstanceByDom(document.getElementById(c.id)).getOption();
      for (const s of opt.series || []) {
        const col = (s.lineStyle && s.lineStyle.color) || (s.itemStyle && s.itemStyle.color) || "";
        colours.push({ chart: c.id, name: String(s.name), colour: String(col) });
      }
    }
    return {
      height: document.documentElement.scrollHeight,
      heap: performance.memory ? performance.memory.usedJSHeapSize : 0,
      colours,
    };
  });
  const grids = await checkGrids(page);
  await ctx.close();
  return { ms, errors: errors.concat(grids.problems), grids: grids.checked, ...m };
}

const runs = pages.map(() => []);
for (let k = 0; k < repeat; k++) {
  for (let n = 0; n < pages.length; n++) runs[n].push(await load(pages[n]));
}
for (let n = 0; n < pages.length; n++) {
  const file = pages[n];
  const times = runs[n].map((x) => x.ms).sort((a, b) => a - b);
  const m = runs[n][0];
  const r = { page: file, bytes: statSync(resolve(file)).size, render_ms: times[Math.floor((times.length - 1) / 2)], render_ms_all: runs[n].map((x) => x.ms),
    heap_mb: Math.round(m.heap / 1e5) / 10, height_px: m.height, width_px: width, grids_checked: m.grids, problems: [] };
  for (const e of runs[n].flatMap((x) => x.errors)) r.problems.push("error: " + e);
  if (maxBytes && r.bytes > maxBytes) r.problems.push(`${r.bytes} bytes > ${maxBytes}`);
  if (maxMs && r.render_ms > maxMs) r.problems.push(`rendered in ${r.render_ms} ms > ${maxMs}`);
  if (maxHeight && r.height_px > maxHeight) r.problems.push(`${r.height_px} px tall > ${maxHeight}`);
  // A series named after a policy (alone, or "policy (knowledge)") must
  // have the policy's colour from chart/palette.json.
  for (const s of m.colours) {
    const name = s.name.replace(/ \((fitted|oracle)\)$/, "");
    const want = palette.policies[name];
    if (want && s.colour && s.colour.toLowerCase() !== want.toLowerCase()) {
      r.problems.push(`${s.chart}: series ${JSON.stringify(s.name)} is ${s.colour}, the palette says ${want}`);
    }
  }
  if (r.problems.length) failed = true;
  results.push(r);
  console.log(`${r.problems.length ? "FAIL" : "ok  "} ${file}: ${r.bytes} bytes, ${r.render_ms} ms (median of [${r.render_ms_all.join(", ")}]), ${r.heap_mb} MB heap, ${r.height_px} px tall at ${width} px, ${r.grids_checked} tables sorted and filtered` +
    r.problems.map((p) => "\n     " + p).join(""));
}
await browser.close();
if (jsonOut) writeFileSync(jsonOut, JSON.stringify(results, null, 2) + "\n");
process.exit(failed ? 1 : 0);
