// Hostile names in optimus' pages (scripts/browser-hostile.sh). Two verbs:
//
//   node hostile.mjs rename OUTDIR FILE.csv...
//     rewrites the job, node and model columns of CSV tables (as optimus
//     convert --format csv writes them) so that every distinct name becomes
//     one of the payloads below, the same name the same payload in every
//     file, and writes each file into OUTDIR under its own name.
//
//   node hostile.mjs check PAGE.html...
//     loads each page in headless Chromium (Debian's /usr/bin/chromium,
//     driven by playwright-core) from file://, offline, and fails it when a
//     payload ran or the page broke:
//       - a payload ran: document.body.dataset got a key, a dialog opened
//         (alert), or an element the page never writes (img, svg, iframe,
//         object, embed, an extra script) appeared;
//       - the page broke: a console error or page error (a SyntaxError from a
//         name that ate its closing quote), a Content-Security-Policy
//         violation, a request, a chart of the manifest without its echarts
//         instance, with other series than listed, or with a blank canvas;
//     on load and after a deterministic sample of tooltips: echarts' showTip
//     on the middle item of every series of every chart and on the first
//     item carrying each payload class not shown yet on the page, and the
//     mouse at five points of every chart. A chart whose job axis is paged
//     by a vertical slider (the plan grid beyond 60 jobs shows 30 at a
//     time) is paged through: for each window of jobs in turn, echarts'
//     dataZoom action moves the jobs' slider there (and the nodes' slider
//     to the nodes those jobs use), the job axis must then show exactly
//     that window, and the check shows the tooltip of the window's middle
//     item and of its first item of each payload class, each of which
//     must hold that cell's job and node names as text, and moves the
//     mouse over the chart. A tooltip that shows a payload must show it as
//     text, and over all pages the tooltips must have shown every payload
//     class. It prints, per page, the charts' series types, how many
//     tooltips it showed of how many items, and the windows it paged.
// Exit status 0 when every page passes, 1 otherwise.
import { chromium } from "playwright-core";
import { readFileSync, writeFileSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

// One payload of each class: go-echarts' function marker around code (it
// used to delete the markers, leaving raw JavaScript in the options), a
// name ending in the marker (it ate the closing quote), markup that runs
// when set as innerHTML (tooltips), the end of a script element, quotes,
// backslashes and a template literal, the line separators, a long name,
// and control and bidi characters. Each that runs code marks the page
// (document.body.dataset) or opens a dialog.
const payloads = (tag) => [
  `__f__(document.body.dataset.f${tag}=1)__f__`,
  `${tag}__f__`,
  `<img src=x onerror=document.body.dataset.img${tag}=1>`,
  `</script><script>document.body.dataset.script${tag}=1</script>`,
  `q"'\\\`\${document.body.dataset.tpl${tag}=1}\`\\`,
  `${tag}\u2028line\u2029para`,
  `${tag}-long-`.repeat(120),
  `<svg onload=alert(1)>${tag}`,
  `__f__function(){document.body.dataset.fn${tag}=1}()__f__`,
  `${tag}\u202eevil\u2066\x1b[31m\x07`,
];
const renamed = { job: payloads("job"), node: payloads("node"), model: payloads("model") };

// parseCSV reads RFC 4180 CSV: quoted fields may hold commas, quotes
// (doubled) and newlines.
function parseCSV(text) {
  const rows = [];
  let row = [], field = "", quoted = false, i = 0;
  while (i < text.length) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') { field += '"'; i += 2; continue; }
      if (c === '"') { quoted = false; i++; continue; }
      field += c; i++; continue;
    }
    if (c === '"') { quoted = true; i++; continue; }
    if (c === ",") { row.push(field); field = ""; i++; continue; }
    if (c === "\r" && text[i + 1] === "\n") i++;
    if (c === "\n" || c === "\r") { row.push(field); rows.push(row); row = []; field = ""; i++; continue; }
    field += c; i++;
  }
  if (field !== "" || row.length) { row.push(field); rows.push(row); }
  return rows;
}

const csvField = (s) => (/[",\r\n\u2028\u2029]/.test(s) || s !== s.trim() ? '"' + s.replaceAll('"', '""') + '"' : s);

function rename(outDir, files) {
  const tables = files.map((f) => ({ f, rows: parseCSV(readFileSync(f, "utf8")) }));
  // Distinct names per column in order of first appearance over the files.
  const maps = {};
  for (const col of Object.keys(renamed)) {
    maps[col] = new Map();
    for (const { rows } of tables) {
      const k = rows[0].indexOf(col);
      if (k < 0) continue;
      for (const r of rows.slice(1)) {
        const v = r[k];
        if (v === "" || maps[col].has(v)) continue;
        const n = maps[col].size, p = renamed[col];
        maps[col].set(v, n < p.length ? p[n] : p[n % p.length] + " #" + n);
      }
    }
  }
  for (const { f, rows } of tables) {
    for (const [col, m] of Object.entries(maps)) {
      const k = rows[0].indexOf(col);
      if (k < 0) continue;
      for (const r of rows.slice(1)) if (m.has(r[k])) r[k] = m.get(r[k]);
    }
    writeFileSync(join(outDir, basename(f)), rows.map((r) => r.map(csvField).join(",")).join("\n") + "\n");
  }
}

const executablePath = process.env.CHROMIUM || "/usr/bin/chromium";
const chromiumArgs = [
  "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync",
];

// Installed before the page's own scripts (through the DevTools protocol,
// which the page's CSP does not govern): records CSP violations, and every
// element the page never writes as it is inserted (a tooltip's markup is
// gone again by the time the check looks).
const foreign = "img, svg, iframe, object, embed, link, base, form";
function watch(foreign) {
  window.__violations = [];
  window.__inserted = [];
  document.addEventListener("securitypolicyviolation", (e) => {
    window.__violations.push(`${e.violatedDirective} blocked ${e.blockedURI || "inline"} (${e.sourceFile}:${e.lineNumber})`);
  });
  new MutationObserver((records) => {
    for (const r of records) {
      for (const n of r.addedNodes) {
        if (n.nodeType !== 1) continue;
        const hits = n.matches(foreign) ? [n] : [...n.querySelectorAll(foreign)];
        for (const h of hits) window.__inserted.push(h.outerHTML.slice(0, 120));
      }
    }
  }).observe(document, { childList: true, subtree: true });
}

// What ran or was injected, read in the page.
function ran() {
  const out = [];
  const keys = Object.keys(document.body.dataset);
  if (keys.length) out.push("a payload ran: document.body.dataset has " + keys.join(", "));
  if (window.__inserted?.length) out.push(`markup injected: ${window.__inserted.length} elements, the first ${window.__inserted[0]}`);
  const scripts = [...document.scripts].filter((s) => s.type !== "application/json");
  if (scripts.length !== 2) out.push(`${scripts.length} executable script elements, want 2 (echarts and page.js)`);
  for (const v of window.__violations || []) out.push("CSP violation: " + v);
  return out;
}

// The charts of the manifest, drawn: instance, series and a canvas with ink.
function drawn() {
  const m = document.getElementById("optimus-charts");
  if (!m) return { problems: ["no chart manifest (#optimus-charts)"], charts: [] };
  if (typeof echarts === "undefined") return { problems: ["echarts is not defined"], charts: [] };
  const problems = [], charts = [];
  for (const c of JSON.parse(m.textContent)) {
    const el = document.getElementById(c.id);
    const inst = el && echarts.getInstanceByDom(el);
    if (!inst) { problems.push(`${c.id}: no echarts instance`); continue; }
    const series = (inst.getOption().series || []).map((s) => ({ name: s.name, data: (s.data || []).length }));
    if (JSON.stringify(series) !== JSON.stringify(c.series)) problems.push(`${c.id}: echarts holds ${JSON.stringify(series).slice(0, 300)}, the page meant ${JSON.stringify(c.series).slice(0, 300)}`);
    const canvas = el.querySelector("canvas");
    let ink = 0;
    if (canvas) {
      const d = canvas.getContext("2d").getImageData(0, 0, canvas.width, canvas.height).data;
      for (let i = 0; i < d.length; i += 4) if (d[i + 3] > 0 && (d[i] < 245 || d[i + 1] < 245 || d[i + 2] < 245)) ink++;
      ink /= canvas.width * canvas.height;
    }
    if (ink < 0.01) problems.push(`${c.id}: the chart looks blank (${(100 * ink).toFixed(2)}% inked)`);
    charts.push({ id: c.id, series: series.length });
  }
  return { problems, charts };
}

// The payload classes (payloads' indices), each known by the prefixes of
// its job, node and model names: what the sample must show in tooltips.
const classes = renamed.job.map((_, k) => ({ k, prefixes: Object.values(renamed).map((p) => p[k].slice(0, 14)) }));
const carries = (text, c) => c.prefixes.some((p) => text.includes(p));

// Shows a deterministic sample of the tooltips of chart id: the middle
// item of every series, then, for each payload class not
// shown yet on the page (shown lists them), the first item whose data,
// category or series name carries that payload. It returns the tooltips'
// text, the series types, and the number of items the chart has.
async function showTips([id, prefixes, shown]) {
  const el = document.getElementById(id);
  const inst = echarts.getInstanceByDom(el);
  const texts = [];
  const opt = inst.getOption();
  const series = opt.series || [];
  const show = async (s, i) => {
    inst.dispatchAction({ type: "showTip", seriesIndex: s, dataIndex: i });
    await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
    for (const t of el.querySelectorAll("div")) {
      if (t.style.zIndex === "9999999" && t.style.display !== "none" && t.textContent) texts.push(t.textContent);
    }
  };
  let items = 0;
  for (let s = 0; s < series.length; s++) {
    const n = (series[s].data || []).length;
    items += n;
    if (n > 0) await show(s, n >> 1);
  }
  // Which payloads an item carries: the strings of its data, of the
  // category at its index on a category axis, and of its series' name.
  const strings = (v, out) => {
    if (typeof v === "string") out.push(v);
    else if (v && typeof v === "object") for (const x of Object.values(v)) strings(x, out);
    return out;
  };
  const categories = [...(opt.xAxis || []), ...(opt.yAxis || [])].filter((a) => a.type === "category" && a.data).map((a) => a.data);
  const seen = (k) => shown.includes(k) || texts.some((t) => prefixes[k].some((p) => t.includes(p)));
  for (let k = 0; k < prefixes.length; k++) {
    if (seen(k)) continue;
    find: for (let s = 0; s < series.length; s++) {
      const data = series[s].data || [];
      for (let i = 0; i < data.length; i++) {
        const carried = strings(data[i], [series[s].name || ""]);
        for (const c of categories) carried.push(...strings(c[i], []));
        if (carried.some((x) => prefixes[k].some((p) => x.includes(p)))) { await show(s, i); break find; }
      }
    }
  }
  inst.dispatchAction({ type: "hideTip" });
  return { texts, types: [...new Set(series.map((x) => x.type))], items };
}

// Moves chart id to window k of its job axis when a vertical slider
// windows that axis (the y axis, a category axis; the plan grid beyond 60
// jobs), each window as many jobs as the slider shows at first. Returns
// null for a chart without such a slider, else the number of windows,
// this window's jobs, the axis' extent after the move, its cells, the
// tooltips shown and the problems found.
async function showWindow([id, prefixes, k]) {
  const inst = echarts.getInstanceByDom(document.getElementById(id));
  const model = inst.getModel();
  let jobsZoom = -1, nodesZoom = -1;
  model.eachComponent("dataZoom", (m, i) => {
    if (m.subType !== "slider") return;
    if (m.getOrient() === "vertical") jobsZoom = i; else nodesZoom = i;
  });
  if (jobsZoom < 0) return null;
  const opt = inst.getOption();
  const jobs = opt.yAxis[0].data.length;
  // The size of the window the page opened on (k = 0 reads it first).
  window.__windowSize ??= {};
  const z = opt.dataZoom[jobsZoom];
  const size = window.__windowSize[id] ??= z.endValue - z.startValue + 1;
  const data = opt.series[0].data || [];
  const el = document.getElementById(id);
  const frame = () => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
  const tipText = () => [...el.querySelectorAll("div")].filter((t) => t.style.zIndex === "9999999" && t.style.display !== "none" && t.textContent).map((t) => t.textContent);
  const problems = [];
  const start = k * size, end = Math.min(jobs, start + size) - 1;
  const inWindow = [];
  for (let i = 0; i < data.length; i++) {
    const y = data[i].value[1];
    if (y >= start && y <= end) inWindow.push(i);
  }
  inst.dispatchAction({ type: "dataZoom", dataZoomIndex: jobsZoom, startValue: start, endValue: end });
  if (nodesZoom >= 0 && inWindow.length) {
    const xs = inWindow.map((i) => data[i].value[0]);
    inst.dispatchAction({ type: "dataZoom", dataZoomIndex: nodesZoom, startValue: Math.min(...xs), endValue: Math.max(...xs) });
  }
  await frame();
  const extent = model.getComponent("yAxis", 0).axis.scale.getExtent();
  if (extent[0] !== start || extent[1] !== end) problems.push(`${id}: moved to jobs ${start}-${end}, the axis shows ${extent.join("-")}`);
  // The middle cell of the window, then the first of each payload class.
  const picks = inWindow.length ? [inWindow[inWindow.length >> 1]] : [];
  for (const ps of prefixes) {
    const i = inWindow.find((i) => ps.some((p) => String(data[i].name).includes(p)));
    if (i !== undefined && !picks.includes(i)) picks.push(i);
  }
  const tips = [];
  for (const i of picks) {
    inst.dispatchAction({ type: "showTip", seriesIndex: 0, dataIndex: i });
    await frame();
    const texts = tipText();
    // A cell's name is "label|job on node": the tooltip must say "job on
    // node" as text, every character of both names.
    const want = String(data[i].name).split("|").slice(1).join("|");
    if (!texts.some((t) => t.includes(want))) problems.push(`${id}: jobs ${start}-${end}: the tooltip of cell ${i} does not show ${JSON.stringify(want.slice(0, 80))} as text (it shows ${JSON.stringify(texts.join(" / ").slice(0, 160))})`);
    tips.push(...texts);
  }
  inst.dispatchAction({ type: "hideTip" });
  if (!tips.length) problems.push(`${id}: jobs ${start}-${end}: no tooltip shown`);
  return { windows: Math.ceil(jobs / size), size, jobs, start, end, cells: inWindow.length, tips, problems };
}

// The mouse over a chart: a person's pointer, not echarts' showTip, at the
// centre and four points around it, the tooltip read after each.
const mousePoints = [[0.5, 0.5], [0.2, 0.25], [0.8, 0.25], [0.2, 0.75], [0.8, 0.75]];

// A page's load and each step may take long on a busy machine; the check
// is of what the page does, not how fast.
const timeout = 120_000;

// checkPage checks one page in a context of its own (a fresh profile: no
// cache, storage or routes shared with the pages before it) of browser.
async function checkPage(browser, file) {
  const path = resolve(file);
  const url = pathToFileURL(path).href;
  const problems = [];
  const result = { page: basename(path), charts: 0, tooltips: [], items: 0, types: new Set(), problems, paged: [] };
  const ctx = await browser.newContext({ offline: true, viewport: { width: 1300, height: 900 }, deviceScaleFactor: 1 });
  ctx.setDefaultTimeout(timeout);
  try {
    await ctx.route("**/*", (route) => {
      const u = route.request().url();
      if (u === url) return route.continue();
      problems.push("request left the page: " + u.slice(0, 200));
      return route.abort();
    });
    await ctx.addInitScript(watch, foreign);
    const page = await ctx.newPage();
    page.on("console", (m) => { if (m.type() === "error") problems.push("console error: " + m.text().slice(0, 300)); });
    page.on("pageerror", (e) => problems.push("page error: " + e.message.slice(0, 300)));
    page.on("dialog", (d) => { problems.push("a payload ran: a dialog opened: " + d.message()); d.dismiss().catch(() => {}); });
    await page.goto(url, { waitUntil: "load" });
    for (const p of await page.evaluate(ran)) problems.push("on load: " + p);
    const d = await page.evaluate(drawn);
    problems.push(...d.problems);
    result.charts = d.charts.length;
    const prefixes = classes.map((c) => c.prefixes);
    for (const c of d.charts) {
      const shown = classes.filter((x) => result.tooltips.some((t) => carries(t, x))).map((x) => x.k);
      const tips = await page.evaluate(showTips, [c.id, prefixes, shown]);
      result.tooltips.push(...tips.texts);
      result.items += tips.items;
      for (const ty of tips.types) result.types.add(ty);
      const loc = page.locator("#" + c.id);
      await loc.scrollIntoViewIfNeeded();
      const b = await loc.boundingBox();
      if (!b) continue;
      const hover = async () => {
        for (const [x, y] of mousePoints) {
          await page.mouse.move(b.x + x * b.width, b.y + y * b.height);
          result.tooltips.push(...await page.evaluate((id) => [...document.getElementById(id).querySelectorAll("div")]
            .filter((t) => t.style.zIndex === "9999999" && t.style.display !== "none" && t.textContent).map((t) => t.textContent), c.id));
        }
        await page.mouse.move(0, 0);
      };
      await hover();
      // A paged job axis: every window in turn, its tooltips and the
      // pointer over it.
      let w = await page.evaluate(showWindow, [c.id, prefixes, 0]);
      if (w) {
        let tips = 0, k = 0;
        for (;;) {
          problems.push(...w.problems);
          result.tooltips.push(...w.tips);
          tips += w.tips.length;
          await hover();
          if (++k >= w.windows) break;
          w = await page.evaluate(showWindow, [c.id, prefixes, k]);
        }
        result.paged.push(`${c.id}: ${k} windows of ${w.size} of ${w.jobs} jobs, ${tips} tooltips`);
      }
    }
    for (const p of await page.evaluate(ran)) problems.push("after the tooltips: " + p);
  } catch (e) {
    problems.push("check failed: " + e.message);
  } finally {
    await ctx.close();
  }
  return result;
}

async function check(pages) {
  let failed = 0, shownAsText = 0;
  const browser = await chromium.launch({ executablePath, headless: true, args: chromiumArgs, timeout });
  const classesShown = new Set(), types = new Set();
  for (const f of pages) {
    const r = await checkPage(browser, f);
    shownAsText += r.tooltips.filter((t) => t.includes("<img src=x onerror=")).length;
    for (const c of classes) if (r.tooltips.some((t) => carries(t, c))) classesShown.add(c.k);
    for (const ty of r.types) types.add(ty);
    if (r.problems.length) {
      failed++;
      console.log(`FAIL ${r.page}`);
      for (const p of [...new Set(r.problems)].slice(0, 20)) console.log("  " + p);
    } else {
      console.log(`ok   ${r.page}: ${r.charts} charts drawn (${[...r.types].sort().join(", ")}), ${r.tooltips.length} tooltips shown of ${r.items} items` +
        (r.paged.length ? `, paged through ${r.paged.join("; ")}` : "") + ", nothing ran");
    }
  }
  await browser.close();
  // The sample must have shown every payload class in a tooltip, as text
  // (the <img> payload so too): a check that never showed one would prove
  // nothing about it.
  if (pages.length > 1) {
    const missed = classes.filter((c) => !classesShown.has(c.k)).map((c) => JSON.stringify(c.prefixes[0]));
    if (missed.length) {
      failed++;
      console.log(`FAIL no tooltip showed the payload classes ${missed.join(", ")}: the sample did not reach those names`);
    }
    if (shownAsText === 0) {
      failed++;
      console.log("FAIL no tooltip showed the <img> payload as text: the hover check did not reach the names");
    }
  }
  console.log(failed ? `hostile: ${failed} of ${pages.length} pages failed` : `hostile: ${pages.length} pages passed; ` +
    `${classesShown.size} of ${classes.length} payload classes shown in tooltips, series types ${[...types].sort().join(", ")}; ` +
    `the <img> payload was shown as text in ${shownAsText} tooltips`);
  return failed ? 1 : 0;
}

const [verb, ...rest] = process.argv.slice(2);
if (verb === "rename" && rest.length >= 2) {
  rename(rest[0], rest.slice(1));
} else if (verb === "check" && rest.length >= 1) {
  process.exit(await check(rest));
} else {
  console.error("usage: node hostile.mjs rename OUTDIR FILE.csv... | check PAGE.html...");
  process.exit(2);
}
