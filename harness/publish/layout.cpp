// The layout of every page: inline CSS (no file, font or script from anywhere), light and dark.
#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "build_info.h"
#include "publish/html.h"
#include "publish/pages.h"

namespace wmb::publish {

namespace {

constexpr const char* kStyle = R"css(
:root { color-scheme: light dark; --bg: #ffffff; --fg: #1d1f23; --muted: #5b6270; --line: #d9dce3;
  --card: #f6f7f9; --link: #0b5cad; --bad: #b3261e; --ok: #1b7f3b; }
@media (prefers-color-scheme: dark) {
  :root { --bg: #15171b; --fg: #e6e8ec; --muted: #a2a9b6; --line: #363b45; --card: #1e2127;
    --link: #8cbcff; --bad: #ff8a80; --ok: #7ddc94; }
}
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg);
  font: 15px/1.5 -apple-system, BlinkMacSystemFont, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
header.site { border-bottom: 1px solid var(--line); padding: .6rem 1.2rem; }
header.site a { font-weight: 600; }
main { max-width: 78rem; margin: 0 auto; padding: 1rem 1.2rem 3rem; }
a { color: var(--link); }
h1 { font-size: 1.6rem; margin: .4rem 0 1rem; overflow-wrap: anywhere; }
h2 { font-size: 1.25rem; margin: 2rem 0 .6rem; border-bottom: 1px solid var(--line); padding-bottom: .2rem;
  overflow-wrap: anywhere; }
h4 { font-size: 1rem; margin: 1rem 0 .3rem; overflow-wrap: anywhere; }
h3 { font-size: 1.05rem; margin: 1.3rem 0 .4rem; overflow-wrap: anywhere; }
table { border-collapse: collapse; width: 100%; margin: .4rem 0 1rem; font-size: .92rem; }
th, td { border: 1px solid var(--line); padding: .3rem .5rem; text-align: left; vertical-align: top;
  overflow-wrap: break-word; }
th { background: var(--card); }
td.num { text-align: right; white-space: nowrap; }
td.nowrap { white-space: nowrap; }
code, pre { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .88em; }
pre { background: var(--card); padding: .6rem; overflow-x: auto; white-space: pre-wrap; overflow-wrap: anywhere; }
.muted { color: var(--muted); }
.bad { color: var(--bad); font-weight: 600; }
.ok { color: var(--ok); }
.badge { display: inline-block; border-radius: .3rem; padding: 0 .35rem; margin: .05rem .15rem .05rem 0;
  font-size: .82rem; color: #fff; white-space: nowrap; }
.badge.light { color: #111; }
.setting { display: inline-block; margin-right: .5rem; white-space: nowrap; }
.answer { font-weight: 600; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .15rem 1rem; margin: .4rem 0 1rem; }
dl.facts dt { color: var(--muted); }
dl.facts dd { margin: 0; overflow-wrap: anywhere; }
figure { margin: .6rem 0 1.2rem; }
figure img { max-width: 100%; height: auto; background: #fff; border: 1px solid var(--line); border-radius: .3rem; }
figcaption { color: var(--muted); font-size: .88rem; }
ul.files { columns: 2; font-size: .9rem; }
footer { color: var(--muted); font-size: .85rem; margin-top: 3rem; }
)css";

// plots/common.py STOPPED_BY_COLORS (Okabe-Ito): the same outcome, the same colour as the charts.
const std::map<std::string, std::pair<const char*, bool>>& stop_colors() {
  static const std::map<std::string, std::pair<const char*, bool>> m = {
      {"guard", {"#D55E00", false}},   {"pytorch", {"#0072B2", false}},     {"config", {"#CC79A7", true}},
      {"cap", {"#009E73", false}},     {"crash", {"#E69F00", true}},        {"timeout", {"#56B4E9", true}},
      {"interrupted", {"#F0E442", true}}, {"not_started", {"#999999", true}}, {"exited", {"#882255", false}},
      {"finished", {"#009E73", false}}, {"kernel", {"#332288", false}}};
  return m;
}

// "../../" for "folders/x/index.html".
std::string root_of(const std::string& rel) {
  std::string up;
  for (char c : rel)
    if (c == '/') up += "../";
  return up;
}

}  // namespace

std::string stop_badge(const std::string& stopped_by, int count) {
  const auto& m = stop_colors();
  const auto it = m.find(stopped_by);
  const char* color = it == m.end() ? "#BBBBBB" : it->second.first;
  const bool light = it == m.end() ? true : it->second.second;
  std::string text = html_escape(stopped_by.empty() ? "?" : stopped_by);
  if (count > 1) text += fmt::format(" &times;{}", count);
  return fmt::format("<span class=\"badge{}\" style=\"background:{}\">{}</span>", light ? " light" : "", color, text);
}

std::string page_layout(const std::string& title, const std::string& body, const std::string& rel,
                        const PageContext& ctx) {
  const std::string root = root_of(rel);
  std::string canonical;
  if (!ctx.base_url.empty())
    canonical = fmt::format("<link rel=\"canonical\" href=\"{}\">\n", html_escape(ctx.base_url + "/" + rel));
  return fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; img-src 'self' data:; "
      "style-src 'unsafe-inline'\">\n"
      "<meta name=\"referrer\" content=\"no-referrer\">\n"
      "<title>{}</title>\n{}<style>{}</style>\n</head>\n<body>\n"
      "<header class=\"site\"><a href=\"{}index.html\">wmbench results</a></header>\n<main>\n{}"
      "<footer>Made by <code>wmbench publish</code> (wmbench {}) from result folders that <code>wmbench "
      "check</code> accepted. Nothing here was edited by hand.</footer>\n</main>\n</body>\n</html>\n",
      html_escape(title), canonical, kStyle, root, body, WMBENCH_VERSION);
}

}  // namespace wmb::publish
