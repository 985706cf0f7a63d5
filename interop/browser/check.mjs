// Browser check of optimus' HTML pages (optimus chart KIND, optimus report):
// each page is loaded from file:// in headless Chromium (Debian's
// /usr/bin/chromium, driven by playwright-core) with no network, and must
//   - log no console error and throw no page error,
//   - make no request other than for the page itself (every other request
//     is blocked and counted: the page must be self-contained),
//   - draw every chart its manifest lists (the JSON in #optimus-charts): the
//     echarts instance on the chart's element has the listed series with
//     the listed number of data items each,
//   - show pixels: a screenshot of each chart is not blank.
// Usage: node check.mjs [--screenshots DIR] [--json FILE] [--must-fail PAGE.html]... PAGE.html...
// A --must-fail page (a negative control) is checked in the same browser
// and must fail: its problems are printed, each line "  must fail: ...",
// and it counts as failed if it passes.
// Exit status 0 when every page passes and every --must-fail page fails,
// 1 otherwise.
import { chromium } from "playwright-core";
import { statSync, writeFileSync, mkdirSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const args = process.argv.slice(2);
let shots = "";
let jsonOut = "";
const pages = [];
const mustFail = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === "--screenshots") shots = args[++i];
  else if (args[i] === "--json") jsonOut = args[++i];
  else if (args[i] === "--must-fail") mustFail.push(args[++i]);
  else pages.push(args[i]);
}
if (pages.length + mustFail.length === 0 || mustFail.includes(undefined)) {
  console.error("usage: node check.mjs [--screenshots DIR] [--json FILE] [--must-fail PAGE.html]... PAGE.html...");
  process.exit(2);
}
const executablePath = process.env.CHROMIUM || "/usr/bin/chromium";

// The flags the project runs Chromium with (as root, in CI). One browser
// checks every page, each in a context of its own (a fresh profile: no
// cache, storage or routes shared with the pages before it); launching
// Chromium once per page cost more than most pages' checks.
const chromiumArgs = [
  "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync",
];

// Counts the pixels of a PNG that differ from the background (white), in
// the whole image and in each of rects ({x, y, w, h} in its pixels), by
// drawing it on a canvas in inkPage, a blank page of the same browser in a
// context of its own (so never one of the pages under check). One
// screenshot of the whole page, cut into its charts here, costs far less
// than a screenshot of each chart.
async function inkOf(inkPage, png, rects) {
  return await inkPage.evaluate(async ([b64, rects]) => {
    const img = new Image();
    img.src = "data:image/png;base64," + b64;
    await img.decode();
    const c = document.createElement("canvas");
    c.width = img.width; c.height = img.height;
    const g = c.getContext("2d");
    g.drawImage(img, 0, 0);
    const count = (x, y, w, h) => {
      x = Math.max(0, Math.round(x)); y = Math.max(0, Math.round(y));
      w = Math.min(c.width - x, Math.round(w)); h = Math.min(c.height - y, Math.round(h));
      if (w <= 0 || h <= 0) return { width: 0, height: 0, ink: 0, colours: 0 };
      const d = g.getImageData(x, y, w, h).data;
      let ink = 0;
      const colours = new Set();
      for (let i = 0; i < d.length; i += 4) {
        if (d[i] < 245 || d[i + 1] < 245 || d[i + 2] < 245) ink++;
        if (colours.size < 64) colours.add((d[i] << 16) | (d[i + 1] << 8) | d[i + 2]);
      }
      return { width: w, height: h, ink, colours: colours.size };
    };
    return { page: count(0, 0, c.width, c.height), rects: rects.map((r) => count(r.x, r.y, r.w, r.h)) };
  }, [png.toString("base64"), rects]);
}

// The screenshot's pixels per CSS pixel: whether a chart is blank shows at
// half the resolution, which costs a quarter of the pixels to capture,
// encode and count; screenshots kept for a person are at full resolution.
const scale = shots ? 1 : 0.5;

// A page's load and each step may take long on a busy machine; the check
// is of what the page does, not how fast.
const timeout = 120_000;

async function checkPage(browser, inkPage, file, keepShot = true) {
  const path = resolve(file);
  const url = pathToFileURL(path).href;
  const problems = [];
  const result = { page: basename(path), bytes: statSync(path).size, charts: [], problems };
  const ctx = await browser.newContext({ offline: true, viewport: { width: 1300, height: 900 }, deviceScaleFactor: scale });
  ctx.setDefaultTimeout(timeout);
  try {
    // Everything but the page itself (and the screenshots decoded from data:
    // URLs) is blocked and reported.
    await ctx.route("**/*", (route) => {
      const u = route.request().url();
      if (u === url || u.startsWith("data:")) return route.continue();
      problems.push("request left the page: " + u);
      return route.abort();
    });
    const page = await ctx.newPage();
    page.on("console", (m) => { if (m.type() === "error") problems.push("console error: " + m.text()); });
    page.on("pageerror", (e) => problems.push("page error: " + e.message));
    page.on("requestfailed", (r) => { if (r.url() !== url) problems.push("request failed: " + r.url()); });
    await page.goto(url, { waitUntil: "load", timeout });
    const drawn = await page.evaluate(() => {
      const m = document.getElementById("optimus-charts");
      if (!m) return { error: "no chart manifest (#optimus-charts)" };
      if (typeof echarts === "undefined") return { error: "echarts is not defined: its script did not load" };
      const want = JSON.parse(m.textContent);
      return {
        want,
        got: want.map((c) => {
          const el = document.getElementById(c.id);
          const inst = el && echarts.getInstanceByDom(el);
          if (!inst) return { id: c.id, error: "no echarts instance" };
          const opt = inst.getOption();
          return { id: c.id, series: (opt.series || []).map((s) => ({ name: s.name, data: (s.data || []).length })) };
        }),
      };
    });
    if (drawn.error) {
      problems.push(drawn.error);
      return result;
    }
    // The page as drawn, and where each chart lies on it (a CSS pixel is
    // scale screenshot pixels).
    const full = await page.screenshot({ fullPage: true });
    const rects = await page.evaluate(([ids, scale]) => ids.map((id) => {
      const el = document.getElementById(id);
      if (!el) return { x: 0, y: 0, w: 0, h: 0 };
      const r = el.getBoundingClientRect();
      return { x: (r.left + window.scrollX) * scale, y: (r.top + window.scrollY) * scale, w: r.width * scale, h: r.height * scale };
    }), [drawn.want.map((w) => w.id), scale]);
    const inks = await inkOf(inkPage, full, rects);
    for (let i = 0; i < drawn.want.length; i++) {
      const w = drawn.want[i], g = drawn.got[i];
      const chart = { id: w.id, series: g.series || [] };
      result.charts.push(chart);
      if (g.error) { problems.push(`${w.id}: ${g.error}`); continue; }
      const ws = JSON.stringify(w.series), gs = JSON.stringify(g.series);
      if (ws !== gs) problems.push(`${w.id}: echarts holds series ${gs}, the page meant ${ws}`);
      if (w.series.reduce((n, s) => n + s.data, 0) === 0) problems.push(`${w.id}: no data at all`);
      const ink = inks.rects[i];
      chart.ink = ink.width * ink.height > 0 ? ink.ink / (ink.width * ink.height) : 0;
      chart.colours = ink.colours;
      // A drawn chart has axes, labels and marks: well over 1% of its area
      // inked and more than a handful of colours.
      if (chart.ink < 0.01 || ink.colours < 4) problems.push(`${w.id}: the chart looks blank (${(100 * chart.ink).toFixed(2)}% inked, ${ink.colours} colours)`);
    }
    result.ink = inks.page.ink / (inks.page.width * inks.page.height);
    if (inks.page.ink === 0) problems.push("the page screenshot is blank");
    if (shots && keepShot) {
      mkdirSync(shots, { recursive: true });
      writeFileSync(join(shots, basename(path).replace(/\.html$/, "") + ".png"), full);
    }
  } catch (e) {
    problems.push("check failed: " + e.message);
  } finally {
    await ctx.close();
  }
  return result;
}

const browser = await chromium.launch({ executablePath, headless: true, args: chromiumArgs, timeout });
const inkCtx = await browser.newContext({ offline: true });
inkCtx.setDefaultTimeout(timeout);
const inkPage = await inkCtx.newPage();
let failed = 0;
const results = [];
for (const f of pages) {
  const r = await checkPage(browser, inkPage, f);
  results.push(r);
  const summary = r.charts.map((c) => `${c.id}[${c.series.map((s) => s.data).join(",")}]`).join(" ");
  if (r.problems.length) {
    failed++;
    console.log(`FAIL ${r.page} (${r.bytes} bytes)`);
    for (const p of r.problems) console.log("  " + p);
  } else {
    console.log(`ok   ${r.page} (${r.bytes} bytes): ${r.charts.length} charts drawn: ${summary}`);
  }
}
// The negative controls, in the same browser (starting Chromium again
// cost more than checking a page).
let caught = 0;
for (const f of mustFail) {
  const r = await checkPage(browser, inkPage, f, false);
  if (r.problems.length) {
    caught++;
    console.log(`ok   ${r.page} failed, as it must:`);
    for (const p of r.problems) console.log("  must fail: " + p);
  } else {
    failed++;
    console.log(`FAIL ${r.page} passed, but it must fail: the check cannot be trusted`);
  }
}
await browser.close();
if (jsonOut) writeFileSync(jsonOut, JSON.stringify(results, null, 2) + "\n");
const caughtNote = mustFail.length ? `, ${caught} of ${mustFail.length} pages that must fail failed` : "";
console.log(failed ? `browser: ${failed} of ${pages.length + mustFail.length} pages failed their check${caughtNote}` : `browser: ${pages.length} pages passed${caughtNote}`);
process.exit(failed ? 1 : 0);
