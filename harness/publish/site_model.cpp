#include "publish/site_model.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "io/files.h"
#include "common/units.h"
#include "compare/compare.h"
#include "publish/html.h"
#include "check/check.h"

namespace wmb::publish {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

bool ends_with(const std::string& s, const std::string& suf) {
  return s.size() >= suf.size() && s.compare(s.size() - suf.size(), suf.size(), suf) == 0;
}

std::string base_name(std::string p) {
  while (p.size() > 1 && p.back() == '/') p.pop_back();
  const auto k = p.find_last_of('/');
  return k == std::string::npos ? p : p.substr(k + 1);
}

std::string join(const std::string& dir, const std::string& name) {
  return dir.empty() || dir.back() == '/' ? dir + name : dir + "/" + name;
}

// A folder that is a result folder (rather than a parent of some).
bool looks_like_result_folder(const Folder& f) {
  for (const char* n : {"summary.json", "machine.json", "runs"})
    if (f.exists(n)) return true;
  return false;
}

std::string first_lines(const std::vector<std::string>& v, size_t n) {
  std::string out;
  for (size_t i = 0; i < v.size() && i < n; ++i) out += (i ? "; " : "") + v[i];
  if (v.size() > n) out += fmt::format("; and {} more", v.size() - n);
  return out;
}

void take_folder(const std::string& path, Site& site, std::set<std::string>& slugs) {
  const CheckResult c = check_result_folder(path);
  if (c.unreadable) {
    site.skipped.push_back({path, "not a result folder: " + first_lines(c.problems, 1)});
    return;
  }
  if (!c.problems.empty()) {
    site.skipped.push_back(
        {path, fmt::format("wmbench check found {} problem(s): {}", c.problems.size(), first_lines(c.problems, 3))});
    return;
  }
  PublishedFolder pf;
  pf.path = path;
  pf.name = base_name(path);
  try {
    pf.input = history::load_input(path);
    pf.info = history::folder_info(pf.input);
    pf.report = load_report(path);
    Folder f(path);
    if (f.exists("tune.json")) pf.tune = f.read_json("tune.json");
    for (const auto& e : f.list(""))
      if (S_ISREG(e.mode) && is_raw_file(e.name)) pf.raw_files.push_back(e.name);
    if (auto r = f.stat("runs"); r && S_ISDIR(r->mode))
      for (const auto& e : f.list("runs"))
        if (S_ISREG(e.mode) && is_raw_file("runs/" + e.name)) pf.raw_files.push_back("runs/" + e.name);
    // A file publish could not copy (over the bound every read has) skips this folder, named,
    // rather than stopping the whole site half-way.
    for (const auto& rel : pf.raw_files) {
      struct stat st {};
      if (::fstatat(f.fd(), rel.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && static_cast<uint64_t>(st.st_size) > kMaxReadBytes) {
        site.skipped.push_back({path, fmt::format("{} is {}, over the {} a file of the site may be; the folder is left out",
                                                  f.display(rel), format_size(static_cast<uint64_t>(st.st_size)),
                                                  format_size(kMaxReadBytes))});
        return;
      }
    }
  } catch (const std::exception& e) {  // HistoryError, FileError, InputError: named, skipped
    site.skipped.push_back({path, e.what()});
    return;
  }
  for (const auto& n : c.notes) pf.notes_text += n + "\n";
  std::string s = slug(pf.name);
  for (int k = 2; slugs.count(s); ++k) s = fmt::format("{}-{}", slug(pf.name), k);
  slugs.insert(s);
  pf.slug = s;
  site.folders.push_back(std::move(pf));
}

// Version parts for torch_less: {numbers}, is_release.
std::tuple<bool, std::vector<long>, bool, std::string> version_key(const std::string& v) {
  std::vector<long> parts;
  size_t i = 0;
  while (i < v.size() && std::isdigit(static_cast<unsigned char>(v[i]))) {
    long n = 0;
    while (i < v.size() && std::isdigit(static_cast<unsigned char>(v[i])) && n < 100000000) n = n * 10 + (v[i++] - '0');
    parts.push_back(n);
    if (i + 1 < v.size() && v[i] == '.' && std::isdigit(static_cast<unsigned char>(v[i + 1]))) ++i;
    else break;
  }
  const bool release = i >= v.size() || v[i] == '+';
  return {!parts.empty(), parts, release, v};
}

}  // namespace

bool is_raw_file(const std::string& rel) {
  static const std::set<std::string> top = {"README.md", "machine.json", "scenario.json", "summary.json",
                                            "table.md",  "results.csv",  "tune.json"};
  if (top.count(rel)) return true;
  if (rel.rfind("runs/", 0) != 0) return false;
  const std::string name = rel.substr(5);
  if (name.empty() || name.size() > 100 || name.front() == '.') return false;
  for (char c : name)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-' || c == '+')) return false;
  return ends_with(name, ".json") || ends_with(name, ".trace.jsonl") || ends_with(name, ".stderr.log") ||
         ends_with(name, ".stdout.log");
}

Site collect_site(const std::vector<std::string>& args) {
  Site site;
  std::set<std::string> seen, slugs;
  auto once = [&](const std::string& p) {
    std::error_code ec;
    std::string canon = fs::weakly_canonical(fs::path(p), ec).string();
    if (ec) canon = fs::path(p).lexically_normal().string();
    return seen.insert(canon).second;
  };
  for (const auto& arg : args) {
    std::optional<Folder> f;
    try {
      f.emplace(arg);
    } catch (const FileError& e) {
      site.skipped.push_back({arg, e.what()});
      continue;
    }
    try {
      if (looks_like_result_folder(*f)) {
        if (once(arg)) take_folder(arg, site, slugs);
        continue;
      }
      bool any = false;
      for (const auto& e : f->list("")) {
        const std::string p = join(arg, e.name);
        if (S_ISLNK(e.mode)) {
          site.skipped.push_back({p, "a symbolic link; publish does not follow links inside a folder it walks"});
          continue;
        }
        if (!S_ISDIR(e.mode)) continue;  // README.md and other plain files of a parent
        any = true;
        if (once(p)) take_folder(p, site, slugs);
      }
      if (!any) site.skipped.push_back({arg, "neither a result folder nor a folder of result folders"});
    } catch (const FileError& e) {
      site.skipped.push_back({arg, e.what()});
    }
  }
  return site;
}

std::string tune_answer(const PublishedFolder& f) {
  if (!f.is_tune()) return "";
  const json& t = f.tune;
  const std::string outcome = t.value("outcome", json()).is_string() ? t["outcome"].get<std::string>() : "?";
  const json answer = t.value("answer", json());
  if (answer.is_object() && answer.value("high", json()).is_number()) {
    std::string s = fmt::format("HIGH {}", answer["high"].dump());
    if (answer.value("low", json()).is_number()) s += fmt::format(", LOW {}", answer["low"].dump());
    return s;
  }
  if (outcome == "nothing_to_set") return "nothing to set (the default is safe)";
  if (outcome == "no_safe_setting") return "no safe setting";
  if (outcome == "out_of_probes") return "out of probes (no answer)";
  return outcome;
}

std::string tune_export(const PublishedFolder& f) {
  if (!f.is_tune()) return "";
  const json e = f.tune.value("export", json());
  return e.is_string() ? e.get<std::string>() : "";
}

std::string MachineGroup::title() const {
  std::string t = machine.empty() ? "?" : machine;
  if (ram) t += ", " + (*ram % GiB == 0 ? fmt::format("{} GiB", *ram / GiB) : format_size_short(*ram)) + " RAM";
  if (!os.empty()) t += ", " + os;
  return t;
}

bool torch_less(const std::string& a, const std::string& b) { return version_key(a) < version_key(b); }

std::vector<MachineGroup> group_index(const Site& site) {
  std::vector<MachineGroup> groups;
  auto machine_less = [](const MachineGroup& x, const MachineGroup& y) {
    return std::make_tuple(x.machine, x.ram.value_or(0), x.os) < std::make_tuple(y.machine, y.ram.value_or(0), y.os);
  };
  for (size_t i = 0; i < site.folders.size(); ++i) {
    const auto& info = site.folders[i].info;
    auto g = std::find_if(groups.begin(), groups.end(), [&](const MachineGroup& m) {
      return m.machine == info.machine && m.ram == info.ram_bytes && m.os == info.os;
    });
    if (g == groups.end()) {
      groups.push_back(MachineGroup{info.machine, info.ram_bytes, info.os, {}});
      g = groups.end() - 1;
    }
    const std::string torch = info.side.torch_version.empty() ? "?" : info.side.torch_version;
    auto t = std::find_if(g->torches.begin(), g->torches.end(), [&](const TorchGroup& x) { return x.torch == torch; });
    if (t == g->torches.end()) {
      g->torches.push_back(TorchGroup{torch, {}});
      t = g->torches.end() - 1;
    }
    t->folders.push_back(i);
  }
  std::sort(groups.begin(), groups.end(), machine_less);
  for (auto& g : groups) {
    std::sort(g.torches.begin(), g.torches.end(),
              [](const TorchGroup& x, const TorchGroup& y) { return torch_less(x.torch, y.torch); });
    for (auto& t : g.torches)
      std::stable_sort(t.folders.begin(), t.folders.end(), [&](size_t x, size_t y) {
        const auto &a = site.folders[x], &b = site.folders[y];
        return std::tie(a.info.side.date, a.name) < std::tie(b.info.side.date, b.name);
      });
  }
  return groups;
}

std::vector<std::pair<std::string, std::map<std::string, int>>> stops_at_a_glance(const PublishedFolder& f) {
  std::vector<std::pair<std::string, std::map<std::string, int>>> out;
  for (auto& [label, st] : compare::label_stats(f.input.folder.summary)) out.emplace_back(label, st.stopped_by);
  return out;
}

}  // namespace wmb::publish
