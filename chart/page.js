// Draws the charts of an optimus page. Every chart's echarts options are a
// JSON data block (<script type="application/json" id="options-ID">), read
// with JSON.parse: a name from the tables stays a string and cannot become
// code. Functions (tooltip and label formatters) are never in the data: the
// block names them ({"path": "name"}) and they come from the table below.
// Every string from the tables that a formatter puts into HTML (echarts sets
// tooltips as innerHTML) goes through escapeHTML first.
(function () {
  "use strict";
  var entities = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
  function escapeHTML(s) {
    return String(s).replace(/[&<>"']/g, function (c) { return entities[c]; });
  }
  // p.marker is echarts' own HTML (a coloured dot), never table data.
  function marker(p) { return typeof p.marker === "string" ? p.marker : ""; }
  // at is item i of a point's value, "" when the item has no such value
  // (a mark line or area is hovered too).
  function at(p, i) { return Array.isArray(p.value) && p.value[i] !== undefined ? p.value[i] : ""; }
  // mark is the tooltip of a mark line or area: its own name.
  function mark(p) { return p.componentType === "markLine" || p.componentType === "markArea" ? escapeHTML(p.name) : null; }
  // allocationTip is the allocation-over-time tooltip with its time
  // in unit (div seconds, to 2 decimals).
  function allocationTip(ps, div, unit) {
    var s = ps.filter(function (p) { return at(p, 2) + at(p, 3) > 0; }).reverse().map(function (p) {
      return marker(p) + escapeHTML(p.seriesName) + ": " + escapeHTML(at(p, 2)) + " PS + " + escapeHTML(at(p, 3)) + (at(p, 3) === 1 ? " worker" : " workers");
    });
    var t = ps.length ? at(ps[0], 0) : 0;
    if (div !== 1 && typeof t === "number") t = Math.round(100 * t / div) / 100;
    return "from " + escapeHTML(t) + unit + "<br/>" + (s.length ? s.join("<br/>") : "no tasks");
  }
  var formatters = {
    // plan: a cell's name is "label|job on node", its label "2P 3W".
    planCellTooltip: function (p) {
      var s = String(p.name === undefined ? "" : p.name).split("|");
      var tasks = s[0].replace(/(\d+)P/, "$1 PS").replace(/(\d+)W/, function (_, n) { return n + (n === "1" ? " worker" : " workers"); });
      return escapeHTML(s.slice(1).join("|")) + "<br/>" + escapeHTML(tasks);
    },
    planCellLabel: function (p) { return String(p.name).split("|")[0]; },
    percent: function (v) { return v + " %"; },
    // loss: a point is [step, value].
    lossTooltip: function (p) {
      return mark(p) || escapeHTML(p.seriesName) + "<br/>step " + escapeHTML(at(p, 0)) + ": " + escapeHTML(at(p, 1));
    },
    // speed: a point is [w, speed, what it is].
    speedTooltip: function (p) {
      return mark(p) || escapeHTML(p.seriesName) + "<br/>" + (at(p, 2) !== "" ? escapeHTML(at(p, 2)) + ", " : "") +
        "w = " + escapeHTML(at(p, 0)) + ": " + escapeHTML(at(p, 1)) + " steps/s";
    },
    // simulation: the JCT CDF, a point is [JCT, share].
    jctTooltip: function (ps) {
      return ps.map(function (p) {
        return marker(p) + escapeHTML(p.seriesName) + ": " + Math.round(100 * at(p, 1)) + "% of jobs within " + escapeHTML(at(p, 0)) + " s";
      }).join("<br/>");
    },
    // simulation: allocation over time, a point is [time, top of the
    // job's band, PS, workers]; the bands come top first.
    simAllocationTooltip: function (ps) { return allocationTip(ps, 1, " s"); },
    // the same on an axis in hours or minutes (simulation_time.go's withTimeUnit).
    simAllocationTooltipHours: function (ps) { return allocationTip(ps, 3600, " h"); },
    simAllocationTooltipMinutes: function (ps) { return allocationTip(ps, 60, " min"); },
    // simulation: prediction accuracy, a point is [true, predicted,
    // progress %] in the axes' unit.
    accuracyTooltip: function (p) {
      if (p.seriesType === "line") return escapeHTML(p.seriesName);
      return escapeHTML(p.seriesName) + "<br/>true " + escapeHTML(at(p, 0)) + ", predicted " + escapeHTML(at(p, 1)) +
        (at(p, 2) !== "" ? "<br/>at " + escapeHTML(at(p, 2)) + "% of its steps" : "");
    },
    // axes over time hold seconds; their labels say hours or minutes, the
    // unit the tables use.
    secondsAsHours: function (v) { return String(Math.round(v / 36) / 100); },
    secondsAsMinutes: function (v) { return String(Math.round(v / 0.6) / 100); },
    share: function (v) { return v + " (" + Math.round(100 * v) + "% of the cluster)"; },
    jobs: function (v) { return v + " jobs"; },
    // a slider's end labels (canvas text, not HTML): a category's name,
    // cut to 12 characters so that it stays inside the chart.
    sliderLabel: function (v, s) { s = String(s); return s.length > 12 ? s.slice(0, 11) + "\u2026" : s; },
  };
  // set puts value at a dotted path ("series.0.label.formatter").
  function set(obj, path, value) {
    var keys = path.split(".");
    for (var i = 0; i < keys.length - 1; i++) {
      if (obj[keys[i]] === null || typeof obj[keys[i]] !== "object") obj[keys[i]] = {};
      obj = obj[keys[i]];
    }
    obj[keys[keys.length - 1]] = value;
  }
  // Tables of many rows (class "interactive"): a click on a heading sorts
  // by that column (numbers as numbers), the filter box above hides the
  // rows that do not contain its text. Only existing rows are moved or
  // hidden and only text is read or set: nothing from the table becomes
  // markup.
  function cellKey(td, numeric) {
    var t = td ? td.textContent : "";
    if (!numeric) return t.toLowerCase();
    var m = /-?[0-9][0-9.,]*(e[-+]?[0-9]+)?/i.exec(t);
    if (!m) return -Infinity;
    var v = parseFloat(m[0].replace(/,/g, ""));
    var unit = t.slice(m.index + m[0].length).trim().split(" ")[0];
    var scale = { min: 60, h: 3600, d: 86400, M: 1e6 }[unit] || 1;
    return v * scale;
  }
  Array.prototype.forEach.call(document.querySelectorAll("table.grid.interactive"), function (table) {
    var body = table.tBodies[0];
    var heads = table.tHead.rows[0].cells;
    var rows = Array.prototype.slice.call(body.rows);
    Array.prototype.forEach.call(heads, function (th, c) {
      th.addEventListener("click", function () {
        var desc = th.getAttribute("aria-sort") === "ascending";
        var numeric = rows.some(function (r) { return r.cells[c] && r.cells[c].classList.contains("num"); });
        var keyed = rows.map(function (r, i) { return { r: r, i: i, k: cellKey(r.cells[c], numeric) }; });
        keyed.sort(function (a, b) {
          var d = a.k < b.k ? -1 : a.k > b.k ? 1 : 0;
          return (desc ? -d : d) || a.i - b.i;
        });
        Array.prototype.forEach.call(heads, function (h) { h.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", desc ? "descending" : "ascending");
        keyed.forEach(function (x) { body.appendChild(x.r); });
      });
    });
    var tools = table.parentNode.previousElementSibling;
    var input = tools && tools.querySelector("input.gridfilter");
    var count = tools && tools.querySelector(".gridcount");
    if (!input) return;
    input.addEventListener("input", function () {
      var q = input.value.toLowerCase();
      var shown = 0;
      rows.forEach(function (r) {
        var hit = q === "" || r.textContent.toLowerCase().indexOf(q) >= 0;
        r.style.display = hit ? "" : "none";
        if (hit) shown++;
      });
      if (count) count.textContent = shown + " of " + rows.length + " rows";
    });
  });
  var drawn = [];
  window.addEventListener("resize", function () { drawn.forEach(function (ch) { ch.resize(); }); });
  var manifest = JSON.parse(document.getElementById("optimus-charts").textContent);
  manifest.forEach(function (c) {
    try {
      var spec = JSON.parse(document.getElementById("options-" + c.id).textContent);
      Object.keys(spec.functions || {}).forEach(function (path) {
        var f = formatters[spec.functions[path]];
        if (typeof f !== "function") throw new Error("no formatter " + spec.functions[path]);
        set(spec.option, path, f);
      });
      // A chart narrower than its set width (a window narrower than the
      // chart: CSS max-width) is drawn at the width it has, and redrawn
      // when the window changes.
      var chart = echarts.init(document.getElementById(c.id), null, { renderer: "canvas" });
      chart.setOption(spec.option);
      drawn.push(chart);
    } catch (e) {
      console.error("optimus: chart " + c.id + ": " + e.message);
    }
  });
})();
