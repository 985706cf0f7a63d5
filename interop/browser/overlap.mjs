// Overlap check of optimus' HTML pages (issue 22): each page is loaded from
// file:// in headless Chromium (Debian's /usr/bin/chromium, driven by
// playwright-core), offline, at each --width (800 and 1400 px unless told),
// and fails when
//   - two text labels of one chart overlap: every line of text echarts drew
//     (zrender's display list: the "tspan" elements, one per line of a
//     label, title, legend item or axis label that is shown; labels echarts
//     hid to avoid overlap are not in it) is measured in the chart's own
//     pixels (getBoundingRect, then the element's transform), and two
//     lines of different texts whose boxes (rotated with the label) overlap
//     by more than TOL px overlap; a label a clip path hides (a scrolling
//     legend's other pages) is not counted;
//   - a label leaves its chart (its box reaches TOL px beyond the canvas:
//     cut off);
//   - the page is wider than the window (a chart or table that does not
//     fit: the document scrolls sideways);
//   - the page logs an error.
// On the first page it draws a chart of two overlapping labels and one
// apart, and fails unless it finds exactly that overlap (a self-test).
// Usage: node overlap.mjs [--width PX]... [--tol PX] PAGE.html...
// Exit status 0 when every page passes at every width, 1 otherwise.
import { chromium } from "playwright-core";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";

const args = process.argv.slice(2);
const widths = [];
let tol = 2;
const pages = [];
for (let i = 0; i < args.length; i++) {
  switch (args[i]) {
    case "--width": widths.push(Number(args[++i])); break;
    case "--tol": tol = Number(args[++i]); break;
    default: pages.push(args[i]);
  }
}
if (widths.length === 0) widths.push(800, 1400);
if (pages.length === 0) {
  console.error("usage: node overlap.mjs [--width PX]... [--tol PX] PAGE.html...");
  process.exit(2);
}

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync"],
});

// measure runs in the page: the problems of every chart of the manifest.
function measure([tol, selfTest]) {
  const problems = [];
  if (selfTest) {
    // A chart of three labels, two of them on top of each other, drawn
    // beside the page's: the check must find exactly that overlap, or it
    // cannot be trusted.
    const div = document.createElement("div");
    div.style.cssText = "width:300px;height:200px";
    document.body.appendChild(div);
    const t = echarts.init(div, null, { renderer: "canvas" });
    t.setOption({ animation: false, graphic: [
      { type: "text", left: 20, top: 20, style: { text: "first label", font: "14px sans-serif" } },
      { type: "text", left: 30, top: 24, style: { text: "second label", font: "14px sans-serif" } },
      { type: "text", left: 20, top: 120, style: { text: "apart", font: "14px sans-serif" } },
    ] });
    const found = labelProblems("selftest", t, tol);
    t.dispose();
    div.remove();
    if (found.length !== 1 || !/"first label" and "second label" overlap/.test(found[0])) {
      problems.push("self-test: two overlapping labels gave " + JSON.stringify(found) + ": the check cannot be trusted");
    }
  }
  const doc = document.documentElement;
  if (doc.scrollWidth > window.innerWidth + 1) {
    const wide = [];
    for (const el of document.querySelectorAll("body *")) {
      const r = el.getBoundingClientRect();
      if (r.right > window.innerWidth + 1 && !el.closest(".gridwide, .gridbox")) wide.push(el.tagName.toLowerCase() + (el.id ? "#" + el.id : el.className ? "." + el.className : ""));
      if (wide.length >= 3) break;
    }
    problems.push(`the page is ${doc.scrollWidth} px wide in a ${window.innerWidth} px window (${wide.join(", ")})`);
  }
  const manifest = JSON.parse(document.getElementById("optimus-charts").textContent);
  let labels = 0;
  for (const c of manifest) {
    const inst = echarts.getInstanceByDom(document.getElementById(c.id));
    if (!inst) { problems.push(`${c.id}: not drawn`); continue; }
    const found = labelProblems(c.id, inst, tol, (n) => { labels += n; });
    problems.push(...found);
  }
  return { problems, labels, charts: manifest.length };
  // labelProblems measures the text of one echarts instance.
  function labelProblems(id, inst, tol, count) {
    const problems = [];
    const c = { id };
    const W = inst.getWidth(), H = inst.getHeight();
    const list = inst.getZr().storage.getDisplayList(true);
    const boxes = [];
    for (const el of list) {
      if (el.type !== "tspan" && el.type !== "text") continue;
      const text = el.style && el.style.text != null ? String(el.style.text).trim() : "";
      if (!text || el.invisible || (el.style.opacity === 0)) continue;
      const r = el.getBoundingRect();
      if (r.width <= 0 || r.height <= 0) continue;
      const m = el.transform || [1, 0, 0, 1, 0, 0];
      // The label's four corners on the canvas: a rotated label is a
      // rotated box, not its axis-aligned hull.
      let corners = [[r.x, r.y], [r.x + r.width, r.y], [r.x + r.width, r.y + r.height], [r.x, r.y + r.height]]
        .map(([x, y]) => [m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5]]);
      // A label clipped away (a scrolling legend's hidden page) is not
      // seen: keep only labels whose centre lies inside every clip path.
      const cx = (corners[0][0] + corners[2][0]) / 2, cy = (corners[0][1] + corners[2][1]) / 2;
      let hidden = false;
      for (const cp of el.__clipPaths || []) {
        const b = cp.getBoundingRect().clone();
        if (cp.transform) b.applyTransform(cp.transform);
        if (!b.contain(cx, cy)) { hidden = true; break; }
        // What is seen of an unrotated label is its box cut to the clip
        // (the last item of a scrolling legend's page, partly under its pager).
        if (m[1] === 0 && m[2] === 0) {
          corners = corners.map(([x, y]) => [Math.min(Math.max(x, b.x), b.x + b.width), Math.min(Math.max(y, b.y), b.y + b.height)]);
        }
      }
      if (hidden) continue;
      boxes.push({ text, owner: el.parent || el, corners });
    }
    let n = 0;
    for (const b of boxes) {
      const xs = b.corners.map((c) => c[0]), ys = b.corners.map((c) => c[1]);
      const x0 = Math.min(...xs), x1 = Math.max(...xs), y0 = Math.min(...ys), y1 = Math.max(...ys);
      if (x0 < -tol || y0 < -tol || x1 > W + tol || y1 > H + tol) {
        if (n++ < 3) problems.push(`${c.id}: ${JSON.stringify(b.text.slice(0, 60))} is cut off (box ${Math.round(x0)},${Math.round(y0)}–${Math.round(x1)},${Math.round(y1)} in a ${W}×${H} chart)`);
      }
    }
    for (let i = 0; i < boxes.length; i++) {
      for (let j = i + 1; j < boxes.length; j++) {
        const a = boxes[i], b = boxes[j];
        if (a.owner === b.owner) continue; // lines of one text
        const d = depth(a.corners, b.corners);
        if (d > tol && n++ < 3) {
          problems.push(`${c.id}: ${JSON.stringify(a.text.slice(0, 60))} and ${JSON.stringify(b.text.slice(0, 60))} overlap (by ${Math.round(d)} px)`);
        }
      }
    }
    if (n > 3) problems.push(`${c.id}: ${n - 3} more`);
    if (count) count(boxes.length);
    return problems;
  }

  // depth is how far two convex quadrilaterals overlap: the least overlap
  // of their projections on the edge normals of both (separating axes);
  // 0 or less when they do not touch.
  function depth(p, q) {
    let least = Infinity;
    for (const poly of [p, q]) {
      for (let k = 0; k < 2; k++) {
        const ex = poly[k + 1][0] - poly[k][0], ey = poly[k + 1][1] - poly[k][1];
        const len = Math.hypot(ex, ey) || 1;
        const nx = -ey / len, ny = ex / len;
        const proj = (pts) => pts.map((c) => c[0] * nx + c[1] * ny);
        const a = proj(p), b = proj(q);
        least = Math.min(least, Math.min(Math.max(...a), Math.max(...b)) - Math.max(Math.min(...a), Math.min(...b)));
      }
    }
    return least;
  }
}

let failed = false;
let first = true; // the self-test runs on the first page
for (const file of pages) {
  const path = resolve(file);
  const url = pathToFileURL(path).href;
  for (const width of widths) {
    const ctx = await browser.newContext({ viewport: { width, height: 900 } });
    await ctx.route((u) => u.href !== url, (r) => r.abort());
    const page = await ctx.newPage();
    const errors = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
    await page.goto(url, { waitUntil: "load", timeout: 300_000 });
    await page.waitForFunction(() => {
      const m = JSON.parse(document.getElementById("optimus-charts").textContent);
      return m.every((c) => window.echarts && echarts.getInstanceByDom(document.getElementById(c.id)));
    }, null, { timeout: 300_000 });
    const r = await page.evaluate(measure, [tol, first]);
    first = false;
    await ctx.close();
    const problems = errors.map((e) => "error: " + e).concat(r.problems);
    if (problems.length) failed = true;
    console.log(`${problems.length ? "FAIL" : "ok  "} ${file} at ${width} px: ${r.charts} charts, ${r.labels} text labels measured` +
      problems.map((p) => "\n     " + p).join(""));
  }
}
await browser.close();
process.exit(failed ? 1 : 0);
