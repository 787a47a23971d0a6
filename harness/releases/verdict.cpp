// The verdict stage of `wmbench releases`: each release compared with the one before it (by
// version), through compare's own comparison, and the matrix across releases as one table.
#include <map>

#include <fmt/format.h>

#include "io/files.h"
#include "io/text_table.h"
#include "common/units.h"
#include "compare/compare.h"
#include "releases/releases.h"

namespace wmb::releases {
namespace {

using compare::ResultFolder;

ResultFolder load(const std::string& dir, const std::string& folder) {
  try {
    return compare::load_result_folder(dir + "/" + folder);
  } catch (const compare::CompareError& e) {
    throw EnvError(fmt::format("the release folder {}/{}: {}", dir, folder, e.what()));
  }
}

std::string revision_of(const ResultFolder& f) {
  for (const nlohmann::json* m : {&f.machine, f.summary.is_object() && f.summary.contains("machine") ? &f.summary["machine"] : nullptr}) {
    if (!m || !m->is_object()) continue;
    const auto it = m->find("model");
    if (it != m->end() && it->is_object() && it->contains("revision") && (*it)["revision"].is_string())
      return (*it)["revision"].get<std::string>();
  }
  return "";
}

void set_revision(ResultFolder& f, const std::string& rev) {
  if (f.machine.is_object() && f.machine.contains("model") && f.machine["model"].is_object()) f.machine["model"]["revision"] = rev;
  if (f.summary.is_object() && f.summary.contains("machine") && f.summary["machine"].is_object() &&
      f.summary["machine"].contains("model") && f.summary["machine"]["model"].is_object())
    f.summary["machine"]["model"]["revision"] = rev;
}

std::string size_or_dash(const std::optional<uint64_t>& v) { return v ? format_size(*v) : "-"; }

std::string row_detail(const compare::Row& r) {
  std::vector<std::string> parts;
  if (r.stop_reason_changed) parts.push_back(fmt::format("stopped by {} -> {}", compare::stopped_by_text(r.base), compare::stopped_by_text(r.now)));
  if (r.max_allowed.differs) parts.push_back(fmt::format("max allowed {} -> {}", size_or_dash(r.max_allowed.base), size_or_dash(r.max_allowed.now)));
  if (r.held.differs) parts.push_back(fmt::format("held {} -> {}", size_or_dash(r.held.base), size_or_dash(r.held.now)));
  if (r.kind == compare::RowKind::only_in_base) parts.push_back("not run under the newer release");
  std::string s;
  for (const auto& p : parts) s += (s.empty() ? "" : ", ") + p;
  return s.empty() ? r.verdict : s;
}

}  // namespace

std::vector<Neighbour> compare_neighbours(const std::string& dir, const std::vector<Release>& rs, double tolerance_pct) {
  std::vector<Neighbour> out;
  const Release* prev = nullptr;
  for (const auto& r : rs) {
    if (r.state != "done") continue;
    if (prev) {
      Neighbour n;
      n.base = prev->folder;
      n.now = r.folder;
      n.base_torch = prev->torch_version;
      n.now_torch = r.torch_version;
      ResultFolder b = load(dir, prev->folder), a = load(dir, r.folder);
      // On mps-model the revision follows the torch release (release_revision.h): that change is
      // what is compared here, not a reason to call the folders incomparable.
      const std::string rb = revision_of(b), ra = revision_of(a);
      if (!rb.empty() && !ra.empty() && rb != ra && prev->model_revision_from == "table" && r.model_revision_from == "table") {
        set_revision(a, rb);
        n.notes.push_back(fmt::format("model revision {} -> {}: it follows the torch release (wmbench releases --revisions)", rb, ra));
      }
      compare::Comparison c;
      try {
        c = compare::compare_folders(b, a, tolerance_pct);
      } catch (const std::exception& e) {
        throw EnvError(fmt::format("comparing {} with {}: {}", prev->folder, r.folder, e.what()));
      }
      n.exit_code = c.exit_code();
      for (const auto& row : c.rows)
        if (row.regression)
          n.regressions.push_back(fmt::format("setting {}: {} (torch {} -> {}; {})", row.label, row_detail(row), n.base_torch,
                                              n.now_torch, row.verdict));
      n.notes.insert(n.notes.end(), c.notes.begin(), c.notes.end());
      // What else changed between the two environments (asv-tachyon's "what else changed").
      if (prev->packages_known && r.packages_known) n.packages = package_changes(prev->packages, r.packages);
      n.compare_file = fmt::format("compare-{}-to-{}.md", prev->folder, r.folder);
      std::string md = compare::format_markdown(c);
      for (const auto& note : n.notes) md += "\n- " + md_escape(note);
      for (const auto& p : n.packages) md += "\n- packages " + md_escape(p);
      try {
        Folder(dir).write_atomic(n.compare_file, md + "\n");
      } catch (const FileError& e) {
        throw EnvError(e.what(), 1);
      }
      out.push_back(std::move(n));
    }
    prev = &r;
  }
  return out;
}

int worst_exit(const std::vector<Neighbour>& ns) {
  int worst = 0;
  for (const auto& n : ns) {
    if (n.exit_code == 1) return 1;
    if (n.exit_code != 0) worst = 3;
  }
  return worst;
}

nlohmann::json to_json(const Neighbour& n) {
  return {{"base", n.base},
          {"new", n.now},
          {"base_torch", n.base_torch},
          {"new_torch", n.now_torch},
          {"exit_code", n.exit_code},
          {"verdict", n.exit_code == 0 ? "no regression" : n.exit_code == 1 ? "regression" : "not comparable"},
          {"regressions", n.regressions},
          {"notes", n.notes},
          {"packages", n.packages},
          {"compare", n.compare_file}};
}

std::string releases_table_md(const std::string& dir, const std::vector<Release>& rs) {
  std::vector<std::string> labels;
  std::vector<std::pair<const Release*, std::map<std::string, compare::SideStats>>> cols;
  for (const auto& r : rs) {
    if (r.state != "done") continue;
    const ResultFolder f = load(dir, r.folder);
    std::map<std::string, compare::SideStats> by;
    for (auto& [label, st] : compare::label_stats(f.summary)) {
      if (std::find(labels.begin(), labels.end(), label) == labels.end()) labels.push_back(label);
      by[label] = st;
    }
    cols.emplace_back(&r, std::move(by));
  }
  std::string md = "| setting |";
  std::string rule = "|---|";
  for (const auto& [r, _] : cols) {
    md += fmt::format(" torch {}{} |", md_escape(r->torch_version),
                      r->model_revision.empty() ? "" : " (" + md_escape(r->model_revision) + ")");
    rule += "---|";
  }
  md += "\n" + rule + "\n";
  for (const auto& l : labels) {
    md += "| `" + md_escape(l) + "` |";
    for (const auto& [r, by] : cols) {
      const auto it = by.find(l);
      if (it == by.end()) {
        md += " not run |";
        continue;
      }
      const auto& s = it->second;
      md += fmt::format(" {}, held {}{} |", md_escape(compare::stopped_by_text(s)), size_or_dash(s.held_median),
                        s.max_allowed ? ", max allowed " + format_size(*s.max_allowed) : "");
    }
    md += "\n";
  }
  return md;
}

}  // namespace wmb::releases
