// `meshplan plan --html FILE`: one self-contained page (inline CSS and SVG, no scripts, no
// network) with the top plans' memory per phase, their step-time breakdown, and the
// throughput-vs-memory scatter with the Pareto frontier.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <functional>

#include "core/units.hpp"
#include "report/plan_report.hpp"
#include "report/time_report.hpp"

namespace meshplan {
namespace {

constexpr std::array<const char*, 18> kPalette = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948",
                                                  "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac", "#17becf", "#bcbd22",
                                                  "#7f7f7f", "#aec7e8", "#ffbb78", "#98df8a", "#c5b0d5", "#8c564b"};
constexpr double kLabelCharWidth = 6;  // px per character of a .small label
constexpr double kWidth = 760;
constexpr double kHeight = 300;
constexpr double kLeft = 60;
constexpr double kBottom = 40;
constexpr double kTop = 20;

std::string escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

const char* colour_of(const std::string& name, std::vector<std::string>& legend) {
  auto at = std::find(legend.begin(), legend.end(), name);
  if (at == legend.end()) at = legend.insert(legend.end(), name);
  return kPalette[static_cast<std::size_t>(at - legend.begin()) % kPalette.size()];
}

std::string legend_svg(const std::vector<std::string>& legend, double y) {
  std::string svg;
  double x = kLeft;
  for (std::size_t i = 0; i < legend.size(); ++i) {
    svg += fmt::format(R"(<rect x="{:.0f}" y="{:.0f}" width="10" height="10" fill="{}"/>)"
                       R"(<text x="{:.0f}" y="{:.0f}" class="small">{}</text>)",
                       x, y, kPalette[i % kPalette.size()], x + 14, y + 9, escape(legend[i]));
    x += 24 + 7.0 * static_cast<double>(legend[i].size());
    if (x > kWidth - 120) {
      x = kLeft;
      y += 16;
    }
  }
  return svg;
}

std::string axis_svg(double max_value, const std::string& unit) {
  std::string svg = fmt::format(R"(<line x1="{0}" y1="{1}" x2="{0}" y2="{2}" class="axis"/>)", kLeft, kTop,
                                kHeight - kBottom);
  for (int tick = 0; tick <= 4; ++tick) {
    const double value = max_value * tick / 4;
    const double y = kHeight - kBottom - (kHeight - kBottom - kTop) * tick / 4;
    svg += fmt::format(R"(<text x="{:.0f}" y="{:.0f}" class="small" text-anchor="end">{:.3g}</text>)", kLeft - 4, y + 4,
                       value);
  }
  return svg + fmt::format(R"(<text x="10" y="{:.0f}" class="small">{}</text>)", kTop - 6, escape(unit));
}

// Stacked bars: groups of (label, [(component, value)]).
using Stack = std::pair<std::string, std::vector<std::pair<std::string, double>>>;

std::string stacked_bars_svg(const std::string& id, const std::vector<Stack>& stacks, const std::string& unit,
                             double scale, double line_value) {
  double max_value = line_value;
  for (const Stack& stack : stacks) {
    double total = 0;
    for (const auto& part : stack.second) total += part.second / scale;
    max_value = std::max(max_value, total);
  }
  max_value = std::max(max_value * 1.05, 1e-9);
  std::vector<std::string> legend;
  std::string bars;
  const double plot_height = kHeight - kBottom - kTop;
  const double slot = (kWidth - kLeft - 10) / static_cast<double>(std::max<std::size_t>(1, stacks.size()));
  // Labels wider than their bar are written at an angle, in a band below the axis.
  std::size_t longest = 0;
  for (const Stack& stack : stacks) longest = std::max(longest, stack.first.size());
  const bool rotate = kLabelCharWidth * static_cast<double>(longest) > slot;
  const double label_band = rotate ? kLabelCharWidth * static_cast<double>(longest) * 0.65 : 0;
  for (std::size_t i = 0; i < stacks.size(); ++i) {
    const double x = kLeft + 6 + slot * static_cast<double>(i);
    double y = kHeight - kBottom;
    for (const auto& [name, value] : stacks[i].second) {
      const double height = plot_height * (value / scale) / max_value;
      y -= height;
      bars += fmt::format(R"(<rect x="{:.1f}" y="{:.1f}" width="{:.1f}" height="{:.1f}" fill="{}"><title>{}: {:.3g} {}</title></rect>)",
                          x, y, slot * 0.7, height, colour_of(name, legend), escape(name), value / scale, escape(unit));
    }
    if (rotate) {
      bars += fmt::format(R"svg(<text x="{0:.1f}" y="{1:.0f}" class="small" transform="rotate(40 {0:.1f} {1:.0f})">{2}</text>)svg",
                          x + slot * 0.2, kHeight - kBottom + 10, escape(stacks[i].first));
    } else {
      bars += fmt::format(R"(<text x="{:.1f}" y="{:.0f}" class="small">{}</text>)", x, kHeight - kBottom + 14,
                          escape(stacks[i].first));
    }
  }
  if (line_value > 0) {
    const double y = kHeight - kBottom - plot_height * line_value / max_value;
    bars += fmt::format(R"(<line x1="{}" y1="{:.1f}" x2="{}" y2="{:.1f}" class="limit"/>)", kLeft, y, kWidth - 10, y);
  }
  const double legend_rows = 1 + static_cast<double>(legend.size()) / 6;
  const double height = kHeight + label_band + 16 * legend_rows;
  return fmt::format(R"(<svg id="{}" width="{}" height="{:.0f}" viewBox="0 0 {} {:.0f}" role="img">{}{}{}</svg>)", id,
                     kWidth, height, kWidth, height, axis_svg(max_value, unit), bars,
                     legend_svg(legend, kHeight - 12 + label_band));
}

std::string scatter_svg(const PlanView& view) {
  const SearchResult& r = *view.result;
  double max_x = 1e-9;
  double max_y = 1e-9;
  auto extend = [&](double bytes, double tps) {
    max_x = std::max(max_x, bytes_to_gib(bytes));
    max_y = std::max(max_y, tps);
  };
  for (const auto& [bytes, tps] : r.sample) extend(bytes, tps);
  for (const PlanCandidate& c : r.pareto) extend(c.peak_bytes, c.tokens_per_second);
  max_x *= 1.05;
  max_y *= 1.05;
  const double plot_height = kHeight - kBottom - kTop;
  auto px = [&](double bytes) { return kLeft + (kWidth - kLeft - 10) * bytes_to_gib(bytes) / max_x; };
  auto py = [&](double tps) { return kHeight - kBottom - plot_height * tps / max_y; };
  std::string svg = axis_svg(max_y, "tokens/s");
  svg += fmt::format(R"(<line x1="{0}" y1="{1}" x2="{2}" y2="{1}" class="axis"/>)", kLeft, kHeight - kBottom, kWidth - 10);
  for (int tick = 0; tick <= 4; ++tick) {
    svg += fmt::format(R"(<text x="{:.0f}" y="{:.0f}" class="small" text-anchor="middle">{:.3g}</text>)",
                       kLeft + (kWidth - kLeft - 10) * tick / 4, kHeight - kBottom + 14, max_x * tick / 4);
  }
  svg += fmt::format(R"(<text x="{:.0f}" y="{:.0f}" class="small" text-anchor="end">peak memory per GPU (GiB)</text>)",
                     kWidth - 10, kHeight - 8);
  for (const auto& [bytes, tps] : r.sample) {
    svg += fmt::format(R"(<circle cx="{:.1f}" cy="{:.1f}" r="2" class="sample"/>)", px(bytes), py(tps));
  }
  std::string points;
  for (const PlanCandidate& c : r.pareto) points += fmt::format("{:.1f},{:.1f} ", px(c.peak_bytes), py(c.tokens_per_second));
  svg += fmt::format(R"(<polyline points="{}" class="frontier"/>)", points);
  for (const PlanCandidate& c : r.pareto) {
    svg += fmt::format(R"(<circle cx="{:.1f}" cy="{:.1f}" r="4" class="pareto"><title>{}</title></circle>)",
                       px(c.peak_bytes), py(c.tokens_per_second), escape(describe_strategy(c)));
  }
  if (!r.top.empty()) {
    const PlanCandidate& best = r.top.front();
    svg += fmt::format(R"(<circle cx="{:.1f}" cy="{:.1f}" r="6" class="winner"><title>winner: {}</title></circle>)",
                       px(best.peak_bytes), py(best.tokens_per_second), escape(describe_strategy(best)));
  }
  svg += fmt::format(R"(<line x1="{0:.1f}" y1="{1}" x2="{0:.1f}" y2="{2}" class="limit"/>)", px(r.usable_bytes), kTop,
                     kHeight - kBottom);
  return fmt::format(R"(<svg id="pareto-chart" width="{0}" height="{1}" viewBox="0 0 {0} {1}" role="img">{2}</svg>)",
                     kWidth, kHeight, svg);
}

std::string top_table_html(const PlanView& view) {
  std::string rows;
  for (std::size_t i = 0; i < view.result->top.size(); ++i) {
    const PlanCandidate& c = view.result->top[i];
    rows += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{:.1f}</td><td>{}</td><td>{:.2f}</td><td>{:.0f}</td>"
                        "<td>{}</td></tr>\n",
                        i + 1, escape(describe_strategy(c)), c.gpus, bytes_to_gib(c.peak_bytes),
                        plan_phase_name(c.peak_phase), c.step_seconds, c.tokens_per_second,
                        c.time.update_mfu > 0 ? fmt::format("{:.0f}%", c.time.update_mfu * 100) : "-");
  }
  // RL plans show the actor update's MFU (verl perf/mfu/actor), as the text table does.
  const char* mfu = view.workload_name == "rl" ? "update MFU" : "MFU";
  return fmt::format("<table id=\"top-plans\"><tr><th>#</th><th>plan</th><th>GPUs</th><th>peak GiB</th><th>phase</th>"
                     "<th>step s</th><th>tokens/s</th><th>{}</th></tr>\n",
                     mfu) +
         rows + "</table>\n";
}

}  // namespace

std::string render_plan_html(const PlanView& view) {
  const SearchResult& r = *view.result;
  std::vector<Stack> memory;
  for (std::size_t i = 0; i < view.top_memory.size(); ++i) {
    for (const PhaseBreakdown& phase : view.top_memory[i]) {
      memory.push_back({fmt::format("#{} {}", i + 1, phase.name), phase.components});
    }
  }
  std::vector<Stack> time;
  for (std::size_t i = 0; i < r.top.size(); ++i) {
    Stack stack{fmt::format("#{}", i + 1), {}};
    for (std::size_t c = 0; c < kTimeComponentCount; ++c) {
      if (r.top[i].time.seconds[c] > 0) {
        stack.second.emplace_back(std::string(time_component_name(static_cast<TimeComponent>(c))), r.top[i].time.seconds[c]);
      }
    }
    time.push_back(std::move(stack));
  }
  std::string body = fmt::format("<h1>meshplan plan: {} on {}</h1>\n<p>workload {}, objective {}, headroom {:.0f}%: "
                                 "searched {} candidates in {:.0f} ms, {} fit.</p>\n",
                                 escape(view.model_name), escape(view.cluster_text), escape(view.workload_name),
                                 escape(view.objective_name), view.headroom * 100, r.searched, view.elapsed_ms, r.feasible);
  if (view.baseline) {
    const PlanCandidate& b = view.baseline->baseline.candidate;
    body += fmt::format("<p id=\"baseline\">Your launch ({}): {}: {:.2f} s/step, peak {:.1f} GiB in {}, {}.{}</p>\n",
                        escape(view.baseline->source), escape(describe_strategy(b)), b.step_seconds,
                        bytes_to_gib(b.peak_bytes), plan_phase_name(b.peak_phase),
                        view.baseline->baseline.fits ? "fits" : "does not fit",
                        r.top.empty() ? "" : " Best plan: " + speedup_text(*view.baseline, r.top.front()) + " its speed.");
  }
  if (r.top.empty()) body += "<p class=\"nofit\">Nothing fits: see the closest miss in the terminal report.</p>\n";
  body += "<section id=\"plans\"><h2>Top plans</h2>\n" + top_table_html(view);
  if (view.accuracy) body += "<p id=\"accuracy\">" + escape(render_time_accuracy(*view.accuracy)) + "</p>\n";
  body += "</section>\n";
  body += "<section id=\"memory\"><h2>Memory per GPU by phase (GiB; line: usable memory)</h2>\n" +
          stacked_bars_svg("memory-chart", memory, "GiB", kGiB, bytes_to_gib(r.usable_bytes)) + "</section>\n";
  body += "<section id=\"time\"><h2>Step time by component (s)</h2>\n" + stacked_bars_svg("time-chart", time, "s", 1, 0) +
          "</section>\n";
  body += "<section id=\"pareto\"><h2>Throughput vs memory: sampled plans, Pareto frontier, winner</h2>\n" +
          scatter_svg(view) + "</section>\n";
  return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>meshplan plan: " +
         escape(view.model_name) +
         "</title>\n<style>\nbody{font-family:sans-serif;margin:2em;color:#222}table{border-collapse:collapse}"
         "td,th{border:1px solid #ccc;padding:2px 8px;text-align:left}.small{font-size:11px}"
         ".axis{stroke:#444}.limit{stroke:#d62728;stroke-dasharray:4 3}.sample{fill:#bbb}"
         ".frontier{fill:none;stroke:#1f77b4;stroke-width:2}.pareto{fill:#1f77b4}.winner{fill:#d62728}"
         ".nofit{color:#d62728}\n</style>\n</head>\n<body>\n" +
         body + "</body>\n</html>\n";
}

}  // namespace meshplan
