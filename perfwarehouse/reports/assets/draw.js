(function () {
  "use strict";
  var status = document.getElementById("report-status");
  var violations = [];
  document.addEventListener("securitypolicyviolation", function (e) {
    violations.push(String(e.blockedURI || e.violatedDirective));
    status.setAttribute("data-violations", String(violations.length));
    status.setAttribute("data-violation-list", violations.join(" "));
  });
  var charts = Array.prototype.slice.call(document.querySelectorAll("[data-chart-id]"));
  var counts = {drawn: 0, empty: 0, failed: 0};
  var warnings = null;
  var consoleWarn = console.warn;
  console.warn = function () {
    if (warnings) { warnings.push(Array.prototype.join.call(arguments, " ")); }
    return consoleWarn.apply(console, arguments);
  };
  function settle(el, state, message) {
    counts[state] += 1;
    el.setAttribute("data-chart-status", state);
    if (warnings && warnings.length) {
      el.setAttribute("data-chart-warnings", warnings.join(" | "));
    }
    if (state !== "drawn") {
      var p = document.createElement("p");
      p.className = "chart-failed";
      p.textContent = "This chart could not be drawn: " + message;
      el.parentNode.insertBefore(p, el.nextSibling);
    }
  }
  function draw(el) {
    warnings = [];
    var id = el.getAttribute("data-chart-id");
    var spec;
    try {
      spec = JSON.parse(document.getElementById("spec-" + id).textContent);
      if (typeof vegaEmbed !== "function") { throw new Error("vega-embed is missing"); }
    } catch (err) {
      settle(el, "failed", String(err));
      return Promise.resolve();
    }
    return vegaEmbed(el, spec, {renderer: "svg", actions: false, mode: "vega-lite"}).then(
      function () {
        var items = el.querySelectorAll("g.role-mark > *").length;
        el.setAttribute("data-chart-items", String(items));
        settle(el, items > 0 ? "drawn" : "empty", "no marks to draw");
      },
      function (err) { settle(el, "failed", String(err)); });
  }
  charts.reduce(function (done, el) {
    return done.then(function () { return draw(el); });
  }, Promise.resolve()).then(function () {
    warnings = null;
    status.setAttribute("data-charts", String(charts.length));
    status.setAttribute("data-drawn", String(counts.drawn));
    status.setAttribute("data-empty", String(counts.empty));
    status.setAttribute("data-failed", String(counts.failed));
    status.setAttribute("data-resources",
      String(performance.getEntriesByType("resource").length));
    status.setAttribute("data-violations", String(violations.length));
    status.setAttribute("data-state", "done");
  });
})();
