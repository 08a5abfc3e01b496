(function () {
  "use strict";
  function key(cell, numeric) {
    var v = cell.getAttribute("data-v");
    if (numeric) { var x = parseFloat(v); return isNaN(x) ? null : x; }
    return (v === null ? cell.textContent : v).toLowerCase();
  }
  function norm(text) {
    return text.toLowerCase().replace(/\s*\([^)]*\)\s*$/, "").trim().replace(/\s+/g, "_");
  }
  // A filter condition "column<number" (<, <=, >, >=, =, !=; spaces around the operator
  // allowed: "p < 0.01") compares a numeric column; "column=text" (or !=) a text column,
  // whole cell, any case. The column is named by its header (spaces or _, the unit in
  // brackets left out: "hardware type=c220g5", "CI case=1"), its field name, or a unique
  // prefix of either. Other words match anywhere in the row.
  var OPERATOR = /\s*(<=|>=|!=|<|>|=)\s*/g;
  var CONDITION = /^([^<>=!]+?)(<=|>=|!=|<|>|=)(.+)$/;
  var NUMBER = /^(-?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?)%?$/i;
  function column(table, name) {
    var heads = Array.prototype.slice.call(table.querySelectorAll("thead th"));
    var wanted = name.toLowerCase().replace(/\s+/g, "_");
    var names = heads.map(function (h) {
      return [norm(h.textContent), (h.getAttribute("data-field") || "").toLowerCase(),
              h.textContent.toLowerCase().trim().replace(/\s+/g, "_")];
    });
    for (var i = 0; i < names.length; i++) {
      if (names[i].indexOf(wanted) >= 0) { return i; }
    }
    var hits = [];
    names.forEach(function (n, i) {
      if (n.some(function (x) { return x.indexOf(wanted) === 0; })) { hits.push(i); }
    });
    return hits.length === 1 ? hits[0] : -1;
  }
  function test(x, op, y) {
    if (x === null) { return false; }
    switch (op) {
      case "<": return x < y; case "<=": return x <= y; case ">": return x > y;
      case ">=": return x >= y; case "=": return x === y; default: return x !== y;
    }
  }
  // The parts of a filter: conditions (a column named by the longest run of the words
  // before the operator that names one) and plain words; problems say why a condition
  // cannot match (no such column, a comparison of text), never silently.
  function parse(table, input) {
    var words = input.replace(OPERATOR, "$1").split(/\s+/).filter(Boolean);
    var parts = [], problems = [];
    words.forEach(function (w) {
      var m = CONDITION.exec(w);
      if (!m) { parts.push({text: w}); return; }
      var name = m[1], col = column(table, name), taken = 0;
      var before = parts.filter(function (p) { return p.text !== undefined; });
      for (var k = 1; col < 0 && k <= Math.min(3, before.length); k++) {
        var words_before = before.slice(before.length - k).map(function (p) { return p.text; });
        col = column(table, words_before.concat([name]).join("_"));
        taken = col >= 0 ? k : 0;
      }
      if (taken) {
        var drop = before.slice(before.length - taken);
        parts = parts.filter(function (p) { return drop.indexOf(p) < 0; });
        name = drop.map(function (p) { return p.text; }).concat([name]).join(" ");
      }
      if (col < 0) { problems.push("no column \u201c" + name + "\u201d"); return; }
      var number = NUMBER.exec(m[3]);
      if (number) { parts.push({col: col, op: m[2], value: parseFloat(number[1])}); return; }
      if (m[2] === "=" || m[2] === "!=") {
        parts.push({col: col, op: m[2], word: m[3]}); return;
      }
      problems.push("\u201c" + w + "\u201d compares text: use = or !=");
    });
    return {parts: parts, problems: problems};
  }
  function matcher(parts) {
    return function (row) {
      var text = row.textContent.toLowerCase();
      return parts.every(function (p) {
        if (p.text !== undefined) { return text.indexOf(p.text) >= 0; }
        if (p.word !== undefined) {
          var cell = row.cells[p.col].textContent.toLowerCase().trim();
          return (cell === p.word) === (p.op === "=");
        }
        return test(key(row.cells[p.col], true), p.op, p.value);
      });
    };
  }
  // The frozen key columns: their left offsets are measured on the header row (every
  // cell of a column has its width), then written to the shown rows' key cells; reading
  // and writing in turn would lay the whole table out again for each cell.
  function freeze(table, shown) {
    var frozen = Number(table.getAttribute("data-frozen")) || 0;
    if (!frozen) { return; }
    var head = table.tHead.rows[0].cells;
    var offsets = [], left = 0;
    for (var i = 0; i < frozen; i++) {
      offsets.push(left + "px");
      // whole pixels, each column overlapping the one before by less than one: no gap
      // through which the scrolled cells show
      left = Math.floor(left + head[i].getBoundingClientRect().width);
    }
    [table.tHead.rows[0]].concat(shown).forEach(function (row) {
      for (var j = 0; j < frozen && j < row.cells.length; j++) {
        row.cells[j].style.left = offsets[j];
      }
    });
  }
  function count(n) { return n.toLocaleString("en-US"); }
  // A table's rows live here, not in the document: "all" in the current sort order,
  // "shown" those the filter keeps; the <tbody> holds one page of "shown". A table longer
  // than a page was written with the rows after the first page as the text of a
  // <script type="text/html"> block (no element made while the page loads): they become
  // rows the first time the reader sorts, filters, pages or downloads.
  var states = {};
  function state(table) {
    var body = table.tBodies[0];
    var more = body.querySelector("script.more-rows");
    var pager = document.querySelector('.pager[data-table="' + table.id + '"]');
    var st = {table: table, body: body, more: more, all: null, shown: null, parts: [],
              page: 0, size: pager ? Number(pager.getAttribute("data-page-rows")) : 0,
              pager: pager};  // size 0: no pager, every row shown
    states[table.id] = st;
    return st;
  }
  function rows(st) {
    if (st.all === null) {
      st.all = Array.prototype.slice.call(st.body.rows);
      if (st.more) {
        var parsed = document.createElement("template");
        parsed.innerHTML = st.more.textContent;  // escaped text: no markup from the data
        st.all = st.all.concat(Array.prototype.slice.call(parsed.content.children));
      }
      st.shown = st.all.filter(matcher(st.parts));
    }
    return st.all;
  }
  function draw(st) {
    rows(st);
    var size = st.size || Math.max(st.shown.length, 1);
    var pages = Math.max(1, Math.ceil(st.shown.length / size));
    st.page = Math.min(Math.max(st.page, 0), pages - 1);
    var start = st.page * size;
    var page = st.shown.slice(start, start + size);
    Array.prototype.slice.call(st.body.rows).forEach(function (r) { st.body.removeChild(r); });
    var fragment = document.createDocumentFragment();
    page.forEach(function (r) { fragment.appendChild(r); });
    st.body.insertBefore(fragment, st.more);
    if (st.pager) {
      var end = Math.min(start + size, st.shown.length);
      st.pager.querySelector(".page-shown").textContent = st.shown.length
        ? "rows " + count(start + 1) + "\u2013" + count(end) + " of " + count(st.shown.length)
        : "no rows";
      st.pager.querySelector(".page-prev").disabled = st.page === 0;
      st.pager.querySelector(".page-next").disabled = st.page >= pages - 1;
    }
    freeze(st.table, page);
  }
  function csvCell(cell) {
    var v = cell.getAttribute("data-v");
    var text = v === null ? cell.textContent : v;
    return /[",\n\r]/.test(text) ? "\"" + text.replace(/"/g, "\"\"") + "\"" : text;
  }
  // The table as CSV: every row the filter keeps (on every page), in the shown order;
  // numbers at full precision.
  window.perfwarehouseCsv = function (id) {
    var table = document.getElementById(id);
    var st = states[id] || state(table);
    rows(st);
    var lines = [Array.prototype.map.call(table.querySelectorAll("thead th"), function (h) {
      return csvCell({getAttribute: function () { return null; }, textContent: h.textContent});
    }).join(",")];
    st.shown.forEach(function (row) {
      lines.push(Array.prototype.map.call(row.cells, csvCell).join(","));
    });
    return lines.join("\r\n") + "\r\n";
  };
  document.querySelectorAll("table.sortable").forEach(function (table) {
    var st = state(table);
    var heads = table.querySelectorAll("thead th");
    freeze(table, Array.prototype.slice.call(st.body.rows));
    heads.forEach(function (th, col) {
      th.querySelector("button").addEventListener("click", function () {
        var ascending = th.getAttribute("aria-sort") !== "ascending";
        heads.forEach(function (h) { h.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
        var numeric = th.getAttribute("data-type") === "num";
        var keyed = rows(st).map(function (r, i) { return [key(r.cells[col], numeric), i, r]; });
        keyed.sort(function (a, b) {
          var x = a[0], y = b[0];
          if (x === y) { return a[1] - b[1]; }
          if (x === null) { return 1; }
          if (y === null) { return -1; }
          return (x < y ? -1 : 1) * (ascending ? 1 : -1);
        });
        st.all = keyed.map(function (k) { return k[2]; });
        st.shown = st.all.filter(matcher(st.parts));
        st.page = 0;
        draw(st);
      });
    });
    if (st.pager) {
      st.pager.querySelector(".page-prev").addEventListener("click", function () {
        st.page -= 1; draw(st);
      });
      st.pager.querySelector(".page-next").addEventListener("click", function () {
        st.page += 1; draw(st);
      });
    }
  });
  document.querySelectorAll("button.csv").forEach(function (button) {
    button.addEventListener("click", function () {
      var id = button.getAttribute("data-table");
      var blob = new Blob([window.perfwarehouseCsv(id)], {type: "text/csv"});
      var a = document.createElement("a");
      a.href = URL.createObjectURL(blob);
      a.download = button.getAttribute("data-file");
      document.body.appendChild(a);
      a.click();
      a.remove();
    });
  });
  document.querySelectorAll("input.table-search").forEach(function (input) {
    var table = document.getElementById(input.getAttribute("data-table"));
    var counter = document.getElementById(input.getAttribute("data-counter"));
    var st = states[table.id] || state(table);
    input.addEventListener("input", function () {
      var filter = parse(table, input.value.toLowerCase());
      st.parts = filter.parts;
      st.shown = rows(st).filter(matcher(filter.parts));
      st.page = 0;
      draw(st);
      counter.textContent = count(st.shown.length) + " of " + count(st.all.length) +
        (st.all.length === 1 ? " row" : " rows") +
        (filter.problems.length ? " (" + filter.problems.join("; ") + ": left out)" : "");
    });
  });
})();
