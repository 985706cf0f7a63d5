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
//   - a bar is thinner than --min-bar px (2 unless told) across its
//     category axis: every bar series' item layouts (echarts' model:
//     series.getData().getItemLayout(i), the rectangle echarts draws), in
//     the chart's CSS pixels. A bar a dataZoom window hides is not drawn
//     and not measured: echarts filters it out of the series' data
//     (filterMode "filter", the default), gives it no value ("empty") or
//     lays it out beyond the grid's rectangle ("weakFilter", "none"); the
//     check counts such bars as hidden and prints how many;
//   - a dataZoom slider draws beyond its chart's canvas (more than half a
//     pixel): its frame, handles and drag bar, and its end labels, which
//     echarts shows while the slider is hovered or dragged;
//   - the page is wider than the window (a chart or table that does not
//     fit: the document scrolls sideways);
//   - the page logs an error.
// On the first page it draws, beside the page's charts, a chart of two
// overlapping labels and one apart, a chart of 400 bars in 300 px, one of
// 400 bars of which a slider shows 10, and one whose slider hangs over its
// right edge, and fails unless it finds exactly that overlap, those thin
// bars, the 390 hidden bars and that slider (a self-test: each check can
// fail, and hidden bars do not count).
// Usage: node overlap.mjs [--width PX]... [--tol PX] [--min-bar PX] PAGE.html...
// Exit status 0 when every page passes at every width, 1 otherwise.
import { chromium } from "playwright-core";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";

const args = process.argv.slice(2);
const widths = [];
let tol = 2;
let minBar = 2;
const pages = [];
for (let i = 0; i < args.length; i++) {
  switch (args[i]) {
    case "--width": widths.push(Number(args[++i])); break;
    case "--tol": tol = Number(args[++i]); break;
    case "--min-bar": minBar = Number(args[++i]); break;
    default: pages.push(args[i]);
  }
}
if (widths.length === 0) widths.push(800, 1400);
if (pages.length === 0) {
  console.error("usage: node overlap.mjs [--width PX]... [--tol PX] [--min-bar PX] PAGE.html...");
  process.exit(2);
}

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync"],
});

// measure runs in the page: the problems of every chart of the manifest.
function measure([tol, selfTest, minBar]) {
  const problems = [];
  // The self-test's charts, each drawn beside the page's and measured by
  // the same functions as the page's charts.
  const scratch = (w, h, option) => {
    const div = document.createElement("div");
    div.style.cssText = `width:${w}px;height:${h}px`;
    document.body.appendChild(div);
    const t = echarts.init(div, null, { renderer: "canvas" });
    t.setOption(Object.assign({ animation: false }, option));
    return { t, done: () => { t.dispose(); div.remove(); } };
  };
  if (selfTest) {
    const many = Array.from({ length: 400 }, (_, i) => "c" + i);
    const values = many.map((_, i) => 1 + (i % 7));
    // 400 bars in 300 px: each well under 2 px.
    let c = scratch(300, 200, { xAxis: { type: "category", data: many }, yAxis: { type: "value" },
      series: [{ type: "bar", name: "thin", data: values }] });
    // (at 2 px whatever --min-bar says: the test's bars are 0.6 and 16 px)
    let b = barStats("selftest-thin", c.t, 2);
    c.done();
    if (b.bars !== 400 || b.problems.length !== 1 || !/selftest-thin: 400 bars of "thin" are thinner than 2 px/.test(b.problems[0])) {
      problems.push("self-test: 400 bars in 300 px gave " + JSON.stringify(b) + ": the bar check cannot be trusted");
    }
    // The same bars, a slider showing 10: those are wide, the other 390
    // are not drawn.
    c = scratch(300, 200, { xAxis: { type: "category", data: many }, yAxis: { type: "value" },
      dataZoom: [{ type: "slider", startValue: 0, endValue: 9, height: 20 }],
      series: [{ type: "bar", name: "zoomed", data: values }] });
    b = barStats("selftest-zoomed", c.t, 2);
    const z = sliderStats("selftest-zoomed", c.t);
    c.done();
    if (b.bars !== 10 || b.hidden !== 390 || b.problems.length || z.sliders !== 1 || z.problems.length) {
      problems.push("self-test: 10 of 400 bars in a zoom window gave " + JSON.stringify([b, z]) + ": the bar or slider check cannot be trusted");
    }
    // A vertical slider whose handles hang over the right edge.
    c = scratch(300, 200, { xAxis: { type: "value" }, yAxis: { type: "category", data: many },
      dataZoom: [{ type: "slider", yAxisIndex: 0, orient: "vertical", right: -6, startValue: 0, endValue: 9 }],
      series: [{ type: "bar", name: "across", data: values }] });
    const out = sliderStats("selftest-slider", c.t);
    c.done();
    if (out.sliders !== 1 || out.problems.length !== 1 || !/selftest-slider: a slider draws beyond/.test(out.problems[0])) {
      problems.push("self-test: a slider over the edge gave " + JSON.stringify(out) + ": the slider check cannot be trusted");
    }
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
  let labels = 0, ms = 0;
  const bars = { bars: 0, hidden: 0, thinnest: Infinity, where: "", sliders: 0 };
  for (const c of manifest) {
    const inst = echarts.getInstanceByDom(document.getElementById(c.id));
    if (!inst) { problems.push(`${c.id}: not drawn`); continue; }
    const found = labelProblems(c.id, inst, tol, (n) => { labels += n; });
    problems.push(...found);
    const t0 = performance.now();
    const b = barStats(c.id, inst, minBar), z = sliderStats(c.id, inst);
    ms += performance.now() - t0;
    problems.push(...b.problems, ...z.problems);
    bars.bars += b.bars;
    bars.hidden += b.hidden;
    bars.sliders += z.sliders;
    if (b.thinnest < bars.thinnest) { bars.thinnest = b.thinnest; bars.where = b.where; }
  }
  return { problems, labels, charts: manifest.length, bars, ms };

  // barStats measures the bars of one echarts instance: how many are
  // drawn, how many a zoom window hides, the thinnest across its
  // category axis, and a problem per series with bars under minBar px.
  function barStats(id, inst, minBar) {
    const out = { bars: 0, hidden: 0, thinnest: Infinity, where: "", problems: [] };
    for (const s of inst.getModel().getSeries()) {
      if (s.subType !== "bar") continue;
      const cs = s.coordinateSystem;
      if (!cs || cs.type !== "cartesian2d") { out.problems.push(`${id}: bar series ${JSON.stringify(s.name)} is not on a grid: not measured`); continue; }
      const base = cs.getBaseAxis(), across = base.isHorizontal() ? "width" : "height";
      const area = cs.getArea();
      const data = s.getData();
      // Filtered out by a zoom window: not in the series' data at all.
      out.hidden += s.getRawData().count() - data.count();
      const valueDim = data.mapDimension(cs.getOtherAxis(base).dim);
      let thin = 0, thinnest = Infinity, at = "";
      for (let i = 0; i < data.count(); i++) {
        const v = data.get(valueDim, i);
        let l = data.getItemLayout(i);
        // echarts' large mode lays bars out as points with one width.
        if (!l && typeof data.getLayout("barWidth") === "number") l = { x: 0, y: 0, width: data.getLayout("barWidth"), height: data.getLayout("barWidth") };
        if (v == null || Number.isNaN(v) || !l || ![l.x, l.y, l.width, l.height].every(Number.isFinite)) { out.hidden++; continue; }
        const x0 = Math.min(l.x, l.x + l.width), x1 = Math.max(l.x, l.x + l.width);
        const y0 = Math.min(l.y, l.y + l.height), y1 = Math.max(l.y, l.y + l.height);
        if (!l.large && (x1 < area.x || x0 > area.x + area.width || y1 < area.y || y0 > area.y + area.height)) { out.hidden++; continue; }
        const t = Math.abs(l[across]);
        out.bars++;
        if (t < thinnest) { thinnest = t; at = data.getName(i); }
        if (t < minBar) thin++;
      }
      if (thinnest < out.thinnest) { out.thinnest = thinnest; out.where = `${id} ${JSON.stringify(String(s.name).slice(0, 40))}`; }
      if (thin) out.problems.push(`${id}: ${thin} bars of ${JSON.stringify(String(s.name).slice(0, 60))} are thinner than ${minBar} px (the thinnest ${thinnest.toFixed(2)} px, at ${JSON.stringify(String(at).slice(0, 40))})`);
    }
    return out;
  }

  // sliderStats finds what a dataZoom slider of one echarts instance
  // draws beyond the canvas (by more than half a pixel): its frame,
  // handles, drag bar and data shadow, and its end labels, which are
  // hidden until the slider is hovered or dragged but then shown where
  // they are laid out.
  function sliderStats(id, inst) {
    const out = { sliders: 0, problems: [] };
    const groups = new Set();
    inst.getModel().eachComponent("dataZoom", (m) => {
      if (m.subType !== "slider" || m.get("show") === false) return;
      const v = inst.getViewOfComponentModel(m);
      if (v) { groups.add(v.group); out.sliders++; }
    });
    if (!groups.size) return out;
    const W = inst.getWidth(), H = inst.getHeight();
    let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
    for (const el of inst.getZr().storage.getDisplayList(true)) {
      let p = el;
      while (p && !groups.has(p)) p = p.parent;
      if (!p) continue;
      const text = el.type === "tspan" || el.type === "text";
      if (el.invisible && !(text && el.style && String(el.style.text ?? "").trim())) continue; // an invisible zone that takes the mouse
      const r = el.getBoundingRect().clone();
      if (r.width <= 0 && r.height <= 0) continue;
      if (el.transform) r.applyTransform(el.transform);
      x0 = Math.min(x0, r.x); y0 = Math.min(y0, r.y); x1 = Math.max(x1, r.x + r.width); y1 = Math.max(y1, r.y + r.height);
    }
    if (x0 < -0.5 || y0 < -0.5 || x1 > W + 0.5 || y1 > H + 0.5) {
      out.problems.push(`${id}: a slider draws beyond its ${W}×${H} canvas (box ${x0.toFixed(1)},${y0.toFixed(1)}–${x1.toFixed(1)},${y1.toFixed(1)})`);
    }
    return out;
  }
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
    const r = await page.evaluate(measure, [tol, first, minBar]);
    first = false;
    await ctx.close();
    const problems = errors.map((e) => "error: " + e).concat(r.problems);
    if (problems.length) failed = true;
    const b = r.bars;
    const barText = b.bars ? `${b.bars} bars, the thinnest ${b.thinnest.toFixed(2)} px (${b.where})` : "no bars";
    console.log(`${problems.length ? "FAIL" : "ok  "} ${file} at ${width} px: ${r.charts} charts, ${r.labels} text labels measured; ` +
      `${barText}, ${b.hidden} hidden by a zoom window; ${b.sliders} sliders measured; bars and sliders measured in ${Math.round(r.ms)} ms` +
      problems.map((p) => "\n     " + p).join(""));
  }
}
await browser.close();
process.exit(failed ? 1 : 0);
