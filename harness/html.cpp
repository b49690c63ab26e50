// The HTML report: a page built from the CaseResults, heatmaps drawn by an
// inline script from the data embedded beside each canvas.
#include "html.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>

#include "outfile.hpp"
#include "table.hpp"

namespace ltt {

std::string html_escape(const std::string& s) {
  std::string o;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (static_cast<unsigned char>(c) >= 0x80) {  // UTF-8 kept; a byte that is none of it (the page is UTF-8) is U+FFFD
      const size_t n = utf8_length(s, i);
      if (n == 0) {
        o += "\xEF\xBF\xBD";
      } else {
        o.append(s, i, n);
        i += n - 1;
      }
      continue;
    }
    switch (c) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      case '\t': case '\n': case '\r': o += c; break;
      default:
        // A control character is no character of XML (an SVG) or of HTML's text: U+FFFD in its place.
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) o += "\xEF\xBF\xBD";
        else o += c;
    }
  }
  return o;
}

namespace {

const auto esc = html_escape;

const char* kStyle = R"(<style>
body{font-family:sans-serif;margin:20px;color:#222}
table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #ccc;padding:3px 7px;text-align:right}
th{background:#eee}.FAIL{background:#fdd;font-weight:bold}.pass{background:#dfd}
.case{border-top:2px solid #888;margin-top:24px;padding-top:8px}
canvas{border:1px solid #999;image-rendering:pixelated;margin:4px 12px 4px 0}
.maps{display:flex;flex-wrap:wrap}.map{font-size:12px}code{background:#f4f4f4;padding:2px 4px;word-break:break-all}
.legend{font-size:12px;color:#555}
</style>)";

// Draws every canvas from the JSON beside it: colour per cell, shard edges as
// lines; then records on the canvas what it drew (for a reader or a test):
// data-drawn, data-hot-cols (hidden-column ranges of the cells that are hot).
const char* kScript = R"(<script>
window.onerror = function (m) { document.body.setAttribute('data-js-error', String(m)); };
function colour(kind, v) {
  if (kind === 'steps' || kind === 'rank') {
    if (v <= 0) return [255, 255, 255];
    const t = Math.min(1, Math.log10(1 + v) / 4);
    return [255, Math.round(200 * (1 - t)), Math.round(120 * (1 - t))];
  }
  if (v <= 1) { const t = Math.sqrt(v); return [Math.round(255 - 200 * t), Math.round(255 - 120 * t), 255]; }
  const t = Math.min(1, Math.log10(v) / 3);
  return [255, Math.round(160 * (1 - t)), 0];
}
function hot(kind, v) { return kind === 'err_bound' ? v > 1 : v > 0; }
document.querySelectorAll('canvas[data-map]').forEach(function (cv) {
  const d = JSON.parse(document.getElementById(cv.getAttribute('data-map')).textContent);
  const kind = cv.getAttribute('data-kind'), vals = d[kind];
  const sx = Math.max(1, Math.floor(1024 / d.cols)), sy = Math.max(1, Math.floor(256 / d.rows));
  cv.width = d.cols * sx; cv.height = d.rows * sy;
  const g = cv.getContext('2d');
  const hotCols = new Set();
  for (let i = 0; i < d.rows; ++i) for (let j = 0; j < d.cols; ++j) {
    const v = vals[i * d.cols + j], c = colour(kind, v);
    g.fillStyle = 'rgb(' + c[0] + ',' + c[1] + ',' + c[2] + ')';
    g.fillRect(j * sx, i * sy, sx, sy);
    if (hot(kind, v)) hotCols.add(j);
  }
  g.strokeStyle = 'rgba(0,0,0,0.6)'; g.setLineDash([3, 2]);
  for (let e = d.shard; e < d.H; e += d.shard) {
    const x = Math.round(e * d.cols / d.H) * sx + 0.5;
    g.beginPath(); g.moveTo(x, 0); g.lineTo(x, cv.height); g.stroke();
  }
  const ranges = [], cols = Array.from(hotCols).sort(function (a, b) { return a - b; });
  for (let k = 0; k < cols.length; ) {
    let e = k; while (e + 1 < cols.length && cols[e + 1] === cols[e] + 1) ++e;
    // Cell j holds the hidden columns c with floor(c cols / H) = j: ceil(j H / cols) .. ceil((j + 1) H / cols) - 1.
    const lo = Math.ceil(cols[k] * d.H / d.cols), hi = Math.ceil((cols[e] + 1) * d.H / d.cols) - 1;
    ranges.push(lo + '-' + hi); k = e + 1;
  }
  cv.setAttribute('data-hot-cols', ranges.join(','));
  cv.setAttribute('data-drawn', '1');
});
document.body.setAttribute('data-ready', '1');
</script>)";

std::string hist_svg(const std::array<size_t, 4>& h) {
  size_t mx = 1;
  for (size_t v : h) mx = std::max(mx, v);
  std::string s = "<svg width='260' height='90' font-size='11'>";
  const char* names[4] = {"0", "1", "2", "3+"};
  for (int k = 0; k < 4; ++k) {
    const double frac = std::log10(1.0 + static_cast<double>(h[static_cast<size_t>(k)])) / std::log10(1.0 + static_cast<double>(mx));
    const int bh = static_cast<int>(60 * frac);
    s += cat("<rect x='", 10 + 60 * k, "' y='", 70 - bh, "' width='40' height='", bh, "' fill='#58a'/>");
    s += cat("<text x='", 10 + 60 * k, "' y='84'>", names[k], " ULP: ", h[static_cast<size_t>(k)], "</text>");
  }
  return s + "</svg>";
}

// The page into `path`; the OS's reason when it cannot be written.
Status save(const std::string& path, const std::string& page) { return write_text_file("--html", path, page); }

}  // namespace

Status write_html(const std::string& path, const std::string& title, const std::string& command,
                  const std::vector<CaseResult>& results, const std::vector<std::string>& notes,
                  const std::string& verdict, double wall_seconds) {
  size_t failed = 0;
  for (const auto& r : results) failed += r.ok ? 0 : 1;
  std::string h = "<!DOCTYPE html>\n<html><head><meta charset='utf-8'><title>" + esc(title) + "</title>" + kStyle +
                  "</head><body>\n";
  h += cat("<h1>", esc(title), ": ", failed == 0 ? "pass" : "FAIL", "</h1>\n<p>", counted(results.size(), "case"), ", ", failed,
           " failed, ", fmt("%.1f", wall_seconds), " s. Command: <code>", esc(command), "</code></p>\n");
  for (const auto& n : notes) h += "<p class='note'>" + esc(n) + "</p>\n";
  const bool passing_maps = std::any_of(results.begin(), results.end(), [](const CaseResult& r) { return r.ok && r.heat.rows; });
  h += cat("<p class='legend'>", esc(verdict), passing_maps ? ". Heatmaps below for every case (--html-all).</p>\n"
                                                            : ". Heatmaps below for each failing case.</p>\n");
  // The table's columns, and the outputs given where verify says which (a directory's case file).
  const bool outputs = std::any_of(results.begin(), results.end(), [](const CaseResult& r) { return !r.outputs_note.empty(); });
  h += cat("<table id='summary'><tr><th>case</th><th>tier</th><th>T</th><th>M</th><th>dist</th><th>algo</th><th>outside</th>"
           "<th>steps</th><th>ambiguous %</th><th>max err/bound</th><th>ULP 0/1/2/3+</th><th>ranks</th><th>rerun</th><th>gate fails</th>"
           "<th>verdict</th>",
           outputs ? "<th>outputs</th>" : "", "</tr>\n");
  for (size_t i = 0; i < results.size(); ++i) {
    const auto& r = results[i];
    const std::string checks = join(r.failed_checks());
    h += cat("<tr class='", r.ok ? "pass" : "FAIL", "'><td>", r.heat.rows || !r.ok ? cat("<a href='#case-", i, "'>", i, "</a>") : std::to_string(i),
             "</td><td>", r.tier, "</td><td>", r.p.T, "</td><td>", r.p.M, "</td><td>", name(r.p.dist), "</td><td>",
             name(r.contract.algo), "</td><td>", r.outside, "</td><td>", r.steps_shown(), "</td><td>", r.ambiguous_shown(), "</td><td>",
             r.max_ratio_shown(), "</td><td>", r.ulp_hist[0], "/", r.ulp_hist[1], "/", r.ulp_hist[2], "/", r.ulp_hist[3], "</td><td>",
             r.ranks_shown(), "</td><td>", r.rerun_shown(), "</td><td>", r.gate_shown(), "</td><td>",
             r.ok ? std::string("pass") : "FAIL (" + esc(checks) + ")", "</td>",
             outputs ? cat("<td>", esc(r.outputs_note), "</td>") : std::string(), "</tr>\n");
  }
  h += "</table>\n";
  for (size_t i = 0; i < results.size(); ++i) {
    const auto& r = results[i];
    if (r.heat.rows == 0 && r.ok) continue;  // a failing case always has its section, with or without maps (a stopped one has none)
    const auto& ht = r.heat;
    nlohmann::json d{{"rows", ht.rows}, {"cols", ht.cols}, {"M", ht.M}, {"H", ht.H}, {"shard", ht.shard},
                     {"err_bound", ht.err_bound}, {"steps", ht.steps}, {"rank", ht.rank_diff}};
    h += cat("<div class='case' id='case-", i, "' data-tier='", r.tier, "' data-tp='", r.p.T, "' data-tokens='", r.p.M, "'>\n<h2>case ", i,
             ": tier ", r.tier, ", T ", r.p.T, ", M ", r.p.M, ", ", name(r.p.dist), ", ", name(r.contract.algo), ": ",
             r.ok ? "pass" : "FAIL", "</h2>\n");
    if (!r.ok) {
      h += cat(r.stopped.empty() ? std::string() : cat("<p>stopped, no output to judge: ", esc(r.stopped), "</p>\n"),
               "<p>failed checks: <b>", esc(join(r.failed_checks())), "</b>; ", counted(r.outside, "element"), " outside their admissible sets",
               r.bad_rank >= 0 ? cat("; rank ", r.bad_rank, " differs from rank ", r.base_rank) : std::string(), "</p>\n",
               r.missing_rounding_points() ? cat("<p>", esc(r.missing_rounding_note()), ".</p>\n") : std::string(),
               r.product_rounded_first() ? cat("<p>", esc(r.product_rounded_note()), ".</p>\n") : std::string(),
               r.rows_moved ? cat("<p>", esc(r.rows_moved_note()), ".</p>\n") : std::string(),
               r.rows_outside ? cat("<p>The row check failed in ", r.rows_outside, " of ", counted(r.rows_checked, "row"), ": ",
                                    esc(r.row_outside_text), ".</p>\n")
                              : std::string(),
               r.note.empty() ? std::string() : cat("<p>", esc(r.note), "</p>\n"));
      if (!r.first.empty()) {
        h += "<ul>";
        for (const auto& f : r.first) h += "<li><code>" + esc(f) + "</code></li>";
        h += "</ul>\n";
      }
      if (r.farthest_unlisted()) h += "<p>farthest: <code>" + esc(r.farthest_text) + "</code></p>\n";
    }
    auto close_case = [&h, &r] {
      if (!r.repro.empty()) h += "<p>reproduce: <code>" + esc(r.repro) + "</code></p>\n";
      if (!r.dump.empty()) h += "<p>case file: <code>" + esc(r.dump) + "</code></p>\n";
      h += "</div>\n";
    };
    if (ht.rows == 0) {
      close_case();
      continue;
    }
    h += cat("<script type='application/json' id='map-", i, "'>", d.dump(), "</script>\n<div class='maps'>");
    const std::string rank_label = cat("where rank ", r.bad_rank, "'s output differs from rank ", r.base_rank, "'s");
    const std::string kinds[3][2] = {{"steps", "bf16 steps outside the admissible set"}, {"err_bound", "|y - truth| / rigorous bound"},
                                     {"rank", rank_label}};
    for (const auto& k : kinds) {
      if (k[0] == "rank" && ht.rank_diff.empty()) continue;
      h += cat("<div class='map'>", k[1], " (", ht.rows, " x ", ht.cols, " cells over ", ht.M, " tokens x ", ht.H,
               " hidden columns; dashed: shard edges every ", ht.shard, ")<br><canvas id='", k[0], "-", i, "' data-map='map-", i,
               "' data-kind='", k[0], "'></canvas></div>");
    }
    h += "</div>\n<p>ULP histogram against the emulated reference (a diagnostic):<br>" + hist_svg(r.ulp_hist) + "</p>\n";
    close_case();
  }
  h += kScript;
  h += "\n</body></html>\n";
  return save(path, h);
}

Status write_html_table(const std::string& path, const std::string& title, const std::string& command,
                        const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows,
                        const std::vector<std::string>& notes, bool pass) {
  std::string h = "<!DOCTYPE html>\n<html><head><meta charset='utf-8'><title>" + esc(title) + "</title>" + kStyle +
                  "</head><body>\n" + cat("<h1>", esc(title), ": ", pass ? "pass" : "FAIL", "</h1>\n<p>Command: <code>",
                                           esc(command), "</code></p>\n<table id='summary'><tr>");
  for (const auto& c : header) h += "<th>" + esc(c) + "</th>";
  h += "</tr>\n";
  for (const auto& row : rows) {
    h += "<tr>";
    for (const auto& c : row) h += "<td>" + esc(c) + "</td>";
    h += "</tr>\n";
  }
  h += "</table>\n";
  if (!notes.empty()) {
    h += "<ul>";
    for (const auto& n : notes) h += "<li><code>" + esc(n) + "</code></li>";
    h += "</ul>\n";
  }
  h += "<script>document.body.setAttribute('data-ready', '1');</script>\n</body></html>\n";
  return save(path, h);
}

}  // namespace ltt
