// The configuration viewer of a report site (perfwarehouse/reports/drilldown.py): shows the
// configuration named after '#' from window.PW_CONFIGURATIONS (the campaign's data file),
// its verdict, the table of its analyses and two charts filled into the page's Vega-Lite
// templates. Every string goes in as text (textContent), never as markup.
(function () {
  "use strict";
  var status = document.getElementById("report-status");
  var violations = 0;
  document.addEventListener("securitypolicyviolation", function () {
    violations += 1;
    status.setAttribute("data-violations", String(violations));
  });
  status.setAttribute("data-violations", "0");
  var store = window.PW_CONFIGURATIONS || {configurations: {}};
  var templates = JSON.parse(document.getElementById("viewer-templates").textContent);
  var WORDS = {alarm: "Action needed", ok: "Nothing found", info: "Verdict",
               missing: "Not analysed yet"};
  var KINDS = ["fixed", "random", "other"];
  function text(id, value) { document.getElementById(id).textContent = value; }
  function verdictBox(level, said, word) {
    var box = document.createElement("section");
    box.className = "verdict " + level;
    box.id = "verdict";
    box.setAttribute("role", "status");
    box.setAttribute("aria-label", "Verdict");
    var strong = document.createElement("strong");
    strong.className = "verdict-level";
    strong.textContent = word || WORDS[level] || "Verdict";
    var span = document.createElement("span");
    span.className = "verdict-text";
    span.textContent = said;
    box.appendChild(strong);
    box.appendChild(span);
    var holder = document.getElementById("viewer-verdict");
    holder.textContent = "";
    holder.appendChild(box);
  }
  function table(c) {
    var t = document.getElementById("viewer-table");
    t.textContent = "";
    var head = t.createTHead().insertRow();
    c.columns.forEach(function (label) {
      var th = document.createElement("th");
      th.textContent = label;
      th.scope = "col";
      head.appendChild(th);
    });
    var body = t.createTBody();
    c.rows.forEach(function (row) {
      var tr = body.insertRow();
      row.forEach(function (cell) { tr.insertCell().textContent = cell === null ? "" : cell; });
    });
  }
  function fill(name, c, values) {
    var spec = JSON.parse(JSON.stringify(templates[name]).split("@@UNIT_TITLE@@")
      .join(JSON.stringify(c.unit).slice(1, -1)));
    spec.title.subtitle = c.title;
    spec.datasets = {};
    spec.datasets[name] = values;
    return spec;
  }
  function draw(id, spec, drawn) {
    var el = document.getElementById(id);
    el.textContent = "";
    text(id + "-caption", spec.description || "");
    if (typeof vegaEmbed !== "function") {
      el.setAttribute("data-chart-status", "failed");
      return Promise.resolve();
    }
    return vegaEmbed(el, spec, {renderer: "svg", actions: false, mode: "vega-lite"}).then(
      function () {
        var items = el.querySelectorAll("g.role-mark > *").length;
        el.setAttribute("data-chart-status", items > 0 ? "drawn" : "empty");
        drawn.push(items);
      },
      function (err) { el.setAttribute("data-chart-status", "failed"); el.textContent = String(err); });
  }
  // the configuration named after '#': only the data file's own keys (not "__proto__" or
  // "constructor" of every object), and a broken percent-escape names none
  function wanted() {
    var raw = location.hash.slice(1);
    var key;
    try { key = decodeURIComponent(raw); } catch (e) { key = raw; }
    var own = Object.prototype.hasOwnProperty.call(store.configurations, key);
    return {raw: raw, key: key, c: own ? store.configurations[key] : null};
  }
  function show() {
    var chosen = wanted();
    var key = chosen.key;
    var c = chosen.c;
    var section = document.getElementById("viewer");
    if (!c) {
      section.hidden = true;
      if (chosen.raw) {
        verdictBox("info", "Campaign " + (store.campaign || "") + " has no configuration \u201c" +
                   key + "\u201d; pick one in the list below.", "No such configuration");
        status.setAttribute("data-missing", key);
      }
      status.setAttribute("data-state", "done");
      return;
    }
    status.removeAttribute("data-missing");
    status.setAttribute("data-state", "drawing");
    section.hidden = false;
    document.title = "Configuration " + c.title + " — " + store.campaign;
    verdictBox(c.level, "Campaign " + store.campaign + ": " + c.verdict);
    text("viewer-title", "Configuration " + c.title);
    text("viewer-about", c.about);
    table(c);
    var ecdf = c.ecdf.map(function (r) {
      return {hardware_type: c.hw[r[0]], order_kind: KINDS[r[1]], value: r[2], ecdf: r[3]};
    });
    var trials = c.trials.map(function (r) {
      return {hardware_type: c.hw[r[0]], order_kind: KINDS[r[1]], time: r[2] * 60000, value: r[3]};
    });
    c.trend.forEach(function (r, i) {
      trials.push({hardware_type: c.hw[r[0]], time: Date.parse(r[1]), trend: r[2], label: r[3],
                   end: i % 2 === 1});
    });
    var drawn = [];
    window.scrollTo(0, 0);
    draw("viewer-ecdf", fill("ecdf", c, ecdf), drawn).then(function () {
      return draw("viewer-trials", fill("trials", c, trials), drawn);
    }).then(function () {
      status.setAttribute("data-configuration", key);
      status.setAttribute("data-drawn", String(drawn.filter(function (n) { return n > 0; }).length));
      status.setAttribute("data-resources",
        String(performance.getEntriesByType("resource").length));
      status.setAttribute("data-state", "done");
    });
  }
  var filter = document.getElementById("viewer-filter");
  filter.addEventListener("input", function () {
    var words = filter.value.toLowerCase().split(/\s+/).filter(Boolean);
    document.querySelectorAll("ul.configurations > li").forEach(function (li) {
      var t = li.textContent.toLowerCase();
      li.hidden = !words.every(function (w) { return t.indexOf(w) >= 0; });
    });
  });
  window.addEventListener("hashchange", show);
  show();
})();
