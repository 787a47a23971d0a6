// `wmbench releases`: prepare every release (nothing written), make the releases folder, run the
// scenario once per release through run_matrix, then the verdict between neighbours and the chart.
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <algorithm>
#include <memory>
#include <optional>
#include <set>
#include <ostream>

#include <fmt/format.h>

#include "io/files.h"
#include "io/text_table.h"
#include "common/interrupt.h"
#include "common/units.h"
#include "mpsmodel/release_revision.h"
#include "releases/releases.h"
#include "releases/torch_version.h"
#include "results/folder_lock.h"
#include "runner/stages.h"
#include "common/run_error.h"
#include "tools/locate.h"
#include "tools/python_isolated.h"
#include "job/resume_gate.h"
#include "job/run_input.h"
#include "scenario/scenario.h"

namespace wmb::releases {
namespace {

constexpr const char* kReleasesJson = "releases.json";
constexpr int kSchema = 1;

nlohmann::json run_options_json(const ReleasesOptions& o) {
  const RunnerOptions& r = o.run;
  return {{"recommended_max_bytes", json_or_null(r.recommended_max)},
          {"model_mac_ram_bytes", json_or_null(r.model_mac_ram)},
          {"model_other_bytes", json_or_null(r.model_other)},
          {"ram_limit_bytes", json_or_null(r.ram_limit)},
          {"only", r.only},
          {"force", r.force},
          {"allow_env", r.allow_env},
          {"draw_plots", r.draw_plots},
          {"model_revision", o.model_revision_given ? nlohmann::json(r.model_revision) : nlohmann::json(nullptr)},
          {"tolerance_pct", o.tolerance_pct},
          {"with_envs", o.with_envs}};
}

struct State {
  std::string dir;
  std::unique_ptr<Folder> folder;
  std::unique_ptr<FolderLock> lock;
  nlohmann::json doc;  // releases.json
};

void save(State& s, const std::vector<Release>& rs, const std::vector<Neighbour>* ns = nullptr, int exit_code = -1) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& r : rs) list.push_back(to_json(r));
  s.doc["releases"] = list;
  s.doc["updated_utc"] = utc_now_iso();
  if (ns) {
    nlohmann::json n = nlohmann::json::array();
    for (const auto& x : *ns) n.push_back(to_json(x));
    s.doc["neighbours"] = n;
    s.doc["exit_code"] = exit_code;
  }
  try {
    s.folder->write_json(kReleasesJson, s.doc);
  } catch (const FileError& e) {
    throw EnvError(fmt::format("{} (the release folders already written stay as they are)", e.what()), 1);
  }
}

std::string new_releases_dir(const std::string& out, const std::string& scenario) {
  try {
    make_dirs(out);
  } catch (const FileError& e) {
    throw EnvError(e.what());
  }
  const std::string base = fmt::format("{}/{}-releases-{}", out, utc_today(), scenario);
  for (int n = 1; n < 1000; ++n) {
    const std::string dir = n == 1 ? base : fmt::format("{}-{}", base, n);
    if (::mkdir(dir.c_str(), 0755) == 0) return dir;
    if (errno != EEXIST) throw EnvError(fmt::format("cannot create the releases folder {}: {}", dir, std::strerror(errno)));
  }
  throw EnvError(fmt::format("cannot create the releases folder {}: 999 folders of that name exist", base));
}

void hold(State& s, const std::string& command) {
  try {
    s.folder = std::make_unique<Folder>(s.dir);
    s.lock = std::make_unique<FolderLock>(*s.folder, command);
  } catch (const FileError& e) {
    throw EnvError(e.what());
  }
}

// releases runs the fill under each torch, never a command: one named by releases.json's scenario
// or a release folder's scenario.json is refused (job/resume_gate.h).
void refuse_command(const Scenario& sc, const std::string& source) {
  if (const std::string why = folder_command_problem(sc, source, false, "wmbench releases never runs a command (it runs "
                                                                         "the fill under each torch)");
      !why.empty())
    throw EnvError(why);
}

// Whether a release's folder is there: a real folder (never a link, which would be followed and
// written through), or nothing. Throws EnvError naming what is there instead.
bool release_folder_exists(const State& s, const Release& r) {
  std::optional<Folder::Entry> e;
  try {
    e = s.folder->stat(r.folder);
  } catch (const FileError& x) {
    throw EnvError(x.what());
  }
  if (e && !S_ISDIR(e->mode))
    throw EnvError(fmt::format("{}: the folder of release {} is {}, not a folder; it is never followed nor written "
                               "through (remove it, or start a new releases folder)",
                               s.folder->display(r.folder), r.torch_version, S_ISLNK(e->mode) ? "a symbolic link" : "not a folder"));
  return e.has_value();
}

// What only the command line decides (job/resume_gate.h): the index and wheelhouse the envs are
// installed from, the variables the cells may set, --force, compare's tolerance. releases.json's
// are shown and refused until named again.
void gate_releases_file(const ReleasesOptions& o, const nlohmann::json& d) {
  const nlohmann::json ro = d.value("run_options", nlohmann::json::object());
  auto folder_or = [&](const char* key, const nlohmann::json& given) {
    return ro.is_object() && ro.contains(key) ? ro[key] : given;  // absent: the folder claims nothing
  };
  const nlohmann::json index = d.contains("index") ? d["index"] : nlohmann::json::array();
  std::string index_flags;
  if (index.is_array())
    for (const auto& pair : index)
      if (pair.is_array() && pair.size() == 2 && pair[0].is_string() && pair[1].is_string())
        index_flags += (index_flags.empty() ? "" : " ") + pair[0].get<std::string>() +
                       (pair[1].get<std::string>().empty() ? "" : " " + pair[1].get<std::string>());
  nlohmann::json env = folder_or("allow_env", nlohmann::json(o.run.allow_env));
  std::string env_flags;
  if (env.is_array() && std::all_of(env.begin(), env.end(), [](const nlohmann::json& v) { return v.is_string(); })) {
    const auto names = env.get<std::set<std::string>>();  // as a set: order and repeats do not matter
    env = nlohmann::json(names);
    for (const auto& v : names) env_flags += (env_flags.empty() ? "--allow-env " : ",") + v;
  }
  const nlohmann::json tol = folder_or("tolerance_pct", o.tolerance_pct);
  // absent (a folder from before VERSION@VARIANT): it claims nothing
  const nlohmann::json vroot = d.contains("variant_index_root") ? d["variant_index_root"] : nlohmann::json(o.variant_index_root);
  try {
    gate_resumed_values(o.resume_dir, {{"the index (--index-url, --extra-index-url, --find-links, --no-index)", index,
                                      nlohmann::json(o.index.args), index_flags},
                                     {"--variant-index-root (the index of a VERSION@VARIANT release)", vroot,
                                      nlohmann::json(o.variant_index_root),
                                      "--variant-index-root " + (vroot.is_string() ? vroot.get<std::string>() : vroot.dump())},
                                     {"--allow-env", env, nlohmann::json(o.run.allow_env), env_flags},
                                     {"--force", folder_or("force", o.run.force), o.run.force, "--force"},
                                     {"--tolerance", tol, o.tolerance_pct, "--tolerance " + tol.dump()}});
  } catch (const RunInputError& e) {
    throw EnvError(e.what());
  }
}

// --resume DIR: the entries, index, scenario and run options of the first session.
void load_resume_state(ReleasesOptions& o, State& s, std::vector<Release>& recorded) {
  s.dir = o.resume_dir;
  hold(s, "wmbench releases --resume " + o.resume_dir);
  const std::string where = s.folder->display(kReleasesJson);
  if (!s.folder->exists(kReleasesJson))
    throw EnvError(fmt::format("--resume {}: no {} there; is it a folder `wmbench releases` made?", o.resume_dir, kReleasesJson));
  try {
    s.doc = s.folder->read_json(kReleasesJson, 4 << 20);
  } catch (const FileError& e) {
    throw EnvError(e.what());
  }
  const nlohmann::json& d = s.doc;
  if (!d.is_object() || d.value("kind", "") != "wmbench-releases" || !d["releases"].is_array() || !d["scenario"].is_object())
    throw EnvError(fmt::format("{}: not a releases file (kind \"wmbench-releases\", \"releases\", \"scenario\")", where));
  for (size_t i = 0; i < d["releases"].size(); ++i)
    recorded.push_back(release_from_json(d["releases"][i], fmt::format("{}: releases[{}]", where, i)));
  std::vector<std::string> warnings;
  try {
    o.run.scenario = parse_scenario(d["scenario"].dump(), d.value("scenario_source", where), warnings);
  } catch (const std::exception& e) {
    throw EnvError(fmt::format("{}: scenario: {}", where, e.what()));
  }
  refuse_command(o.run.scenario, where);
  for (const auto& r : recorded) release_folder_exists(s, r);
  // A program named in a file is never run: a --python or --fill release is resumed only when the
  // command line names that program again.
  const std::vector<Entry> given = o.entries;
  for (const auto& r : recorded) {
    if (r.entry.kind == "version") continue;
    const bool named = std::any_of(given.begin(), given.end(), [&](const Entry& e) { return e.kind == r.entry.kind && e.given == r.entry.given; });
    if (!named)
      throw EnvError(fmt::format("--resume {}: its release {} came from --{} {}; a program named in a file is not run: "
                                 "resume with --{} {} on the command line",
                                 o.resume_dir, r.torch_version, r.entry.kind, r.entry.given, r.entry.kind, r.entry.given));
  }
  for (const auto& e : given)
    if (std::none_of(recorded.begin(), recorded.end(), [&](const Release& r) { return r.entry.kind == e.kind && r.entry.given == e.given; }))
      throw EnvError(fmt::format("--resume {}: --{} {} is not one of its releases; a releases folder keeps the releases it "
                                 "started with",
                                 o.resume_dir, e.kind, e.given));
  o.entries.clear();
  for (const auto& r : recorded) o.entries.push_back(r.entry);
  gate_releases_file(o, d);
  // base_python is not taken from the file (a program named in a file is not run): --base-python, or python3.
  const nlohmann::json& ro = d.value("run_options", nlohmann::json::object());
  auto size_at = [&](const char* k) -> std::optional<uint64_t> {
    const auto it = ro.find(k);
    if (it == ro.end() || !it->is_number_unsigned()) return std::nullopt;
    return it->get<uint64_t>();
  };
  if (!o.run.recommended_max) o.run.recommended_max = size_at("recommended_max_bytes");
  if (!o.run.model_mac_ram) o.run.model_mac_ram = size_at("model_mac_ram_bytes");
  if (!o.run.model_other) o.run.model_other = size_at("model_other_bytes");
  if (!o.run.ram_limit) o.run.ram_limit = size_at("ram_limit_bytes");
  if (ro.contains("model_revision") && ro["model_revision"].is_string()) {
    o.model_revision_given = true;
    o.run.model_revision = ro["model_revision"];
  }
  if (ro.contains("only") && ro["only"].is_array())
    for (const auto& l : ro["only"])
      if (l.is_string()) o.run.only.push_back(l);
  if (ro.contains("draw_plots") && ro["draw_plots"].is_boolean()) o.run.draw_plots = o.run.draw_plots && ro["draw_plots"].get<bool>();
  // A release is resumed as it was prepared: with its env, or (mps-model) with the version its index
  // lists. A folder of a wmbench before --with-envs made every env.
  const auto we = ro.find("with_envs");
  o.with_envs = o.with_envs || we == ro.end() || (we->is_boolean() && we->get<bool>());
}

// The run options of one release: its child, its folder, its model revision.
RunnerOptions options_for(const ReleasesOptions& o, const State& s, const Release& r, bool folder_exists,
                          std::vector<std::string>& warnings) {
  RunnerOptions ro = o.run;
  const std::string dir = s.dir + "/" + r.folder;
  if (folder_exists) {
    try {
      load_resume(dir, ro, warnings);  // the folder's own scenario, sandbox and model
    } catch (const std::exception& e) {
      throw EnvError(fmt::format("--resume {}: {}", dir, e.what()));
    }
    refuse_command(ro.scenario, dir + "/scenario.json");
  } else {
    ro.result_dir = dir;
    if (!r.model_revision.empty()) ro.model_revision = r.model_revision;
  }
  if (ro.scenario.device == "mps-model") {
    ro.python.clear();
    ro.fill_path = r.fill.empty() ? o.run.fill_path : r.fill;
    ro.notes.push_back(fmt::format("release torch {} ({}): mps-model runs wmbench-fill's model of PyTorch revision {} ({})",
                                   r.torch_version,
                                   r.entry.kind != "version" ? r.entry.given
                                   : r.env_dir.empty()       ? "no env: the version its index lists"
                                                             : "env " + r.env_dir,
                                   ro.model_revision, r.model_revision_from == "table" ? "the table of releases" : "--model-revision"));
  } else if (r.entry.kind == "fill") {
    ro.python.clear();
    ro.fill_path = r.fill;
  } else {
    ro.fill_path.clear();
    ro.python = r.python;
    ro.python_facts = child_facts(r);  // this run's probe of it: no second import of torch
    ro.notes.push_back(fmt::format("release torch {} under {}", r.torch_version, r.python));
  }
  return ro;
}

void say_table(const std::string& dir, const std::vector<Release>& rs, const std::vector<Neighbour>& ns, std::ostream& out) {
  out << "\nReleases (" << dir << "):\n";
  for (const auto& r : rs)
    out << fmt::format("  torch {:<16} {:<12} {}{}\n", r.torch_version, r.state, r.folder,
                       r.model_revision.empty() ? "" : " (model revision " + r.model_revision + ")");
  for (const auto& n : ns) {
    const char* v = n.exit_code == 0 ? "no regression" : n.exit_code == 1 ? "REGRESSION" : "not comparable";
    out << fmt::format("  {} -> {}: {} ({})\n", n.base_torch, n.now_torch, v, n.compare_file);
    for (const auto& x : n.regressions) out << "    " << x << "\n";
    for (const auto& x : n.notes) out << "    note: " << x << "\n";
    for (const auto& x : n.packages) out << "    packages " << x << "\n";
  }
}

int run_all_releases(ReleasesOptions& o, State& s, std::vector<Release>& rs, std::ostream& out, std::ostream& err) {
  for (auto& r : rs) {
    if (r.state == "done") {
      out << fmt::format("release torch {}: done before ({})\n", r.torch_version, r.folder);
      continue;
    }
    if (const int sig = interrupt_signal()) return 128 + sig;
    const bool exists = release_folder_exists(s, r);
    std::vector<std::string> warnings;
    RunnerOptions ro = options_for(o, s, r, exists, warnings);
    for (const auto& w : warnings) err << "warning: " << w << "\n";
    out << fmt::format("\nrelease torch {} -> {}/{}{}\n", r.torch_version, s.dir, r.folder, exists ? " (resumed)" : "");
    out.flush();
    r.state = "running";
    save(s, rs);
    const int code = run_matrix(ro, out, err);
    r.exit_code = code;
    r.state = code == 0 ? "done" : code >= 128 ? "interrupted" : code == 2 ? "refused" : "failed";
    save(s, rs);
    if (code != 0) {
      err << fmt::format("wmbench releases: release torch {} ended with exit {}; the releases before it are kept; finish "
                         "with: wmbench releases --resume {}\n",
                         r.torch_version, code, s.dir);
      return code;
    }
  }
  return 0;
}

// The cache of version environments, on the base Python (--base-python) and uv where there is one.
std::unique_ptr<EnvCache> make_env_cache(const ReleasesOptions& o, std::ostream& out) {
  const std::string base = find_on_path(o.base_python);
  if (base.empty()) throw EnvError(fmt::format("--base-python {}: no such program on PATH", o.base_python));
  const BasePython bp = probe_base_python(base);
  const std::string uv = o.installer == "pip" ? "" : find_on_path("uv");
  if (o.installer == "uv" && uv.empty()) throw EnvError("--installer uv: no uv in PATH's folders");
  auto cache = std::make_unique<EnvCache>(o.cache_root.empty() ? default_cache_root() : o.cache_root, bp, o.index,
                                          uv == "uv" ? "" : uv, out);
  cache->set_lock_wait(o.lock_wait_s);
  out << fmt::format("environments: {} (Python {} on {}, {})\n", cache->root(), bp.version_xy, bp.machine,
                     uv == "uv" || uv.empty() ? "python -m venv + pip" : "uv " + uv);
  return cache;
}

// --resume: the releases of the folder, as they were (the same torch in each, or refused); takes their states.
void match_recorded(const State& s, const std::vector<Release>& recorded, std::vector<Release>& rs) {
  if (recorded.size() != rs.size()) throw EnvError("--resume: the folder's releases changed");
  for (size_t i = 0; i < rs.size(); ++i) {
    const Release* match = nullptr;
    for (const auto& r : recorded)
      if (r.folder == rs[i].folder) match = &r;
    const std::string change = match ? identity_change(*match, rs[i]) : "no release of that folder";
    if (!change.empty())
      throw EnvError(fmt::format("--resume {}: release {} now runs {}; resume with the same environments or start a new "
                                 "releases folder",
                                 s.dir, rs[i].entry.given, change));
    rs[i].state = match->state;
  }
}

// A new session: makes and holds a new releases folder and starts its releases.json document.
void start_new_folder(const ReleasesOptions& o, State& s, bool versions, const EnvCache* cache) {
  s.dir = new_releases_dir(o.run.out_dir, o.run.scenario.name);
  hold(s, "wmbench releases");
  nlohmann::json sc = to_json(o.run.scenario);
  s.doc = {{"schema_version", kSchema},
           {"kind", "wmbench-releases"},
           {"scenario", sc},
           {"scenario_source", o.run.scenario.source},
           {"device", o.run.scenario.device},
           {"created_utc", utc_now_iso()},
           {"index", o.index.args},
           {"variant_index_root", o.variant_index_root},
           {"base_python", versions ? o.base_python : ""},
           {"cache", cache ? cache->root() : ""},
           {"run_options", run_options_json(o)}};
}

// releases.md: the table of releases and the verdict between each pair of neighbours.
std::string releases_md(const ReleasesOptions& o, const State& s, const std::vector<Release>& rs,
                        const std::vector<Neighbour>& ns) {
  // Every text from a folder or a child (a torch version, a scenario name, a note) through
  // md_escape (io/text_table.h): no raw HTML, no line that breaks the list.
  std::string md = fmt::format("# torch releases: scenario {} on {}\n\n", md_escape(o.run.scenario.name),
                               md_escape(o.run.scenario.device));
  md += releases_table_md(s.dir, rs);
  md += "\n## Between neighbours (ordered by version)\n\n";
  for (const auto& n : ns) {
    md += fmt::format("- torch {} -> {}: {} ([comparison]({}))\n", md_escape(n.base_torch), md_escape(n.now_torch),
                      n.exit_code == 0 ? "no regression" : n.exit_code == 1 ? "**regression**" : "not comparable",
                      md_escape(n.compare_file));
    for (const auto& x : n.regressions) md += "  - " + md_escape(x) + "\n";
    for (const auto& x : n.notes) md += "  - note: " + md_escape(x) + "\n";
    for (const auto& x : n.packages) md += "  - packages " + md_escape(x) + "\n";
  }
  if (ns.empty()) md += "- one release: nothing to compare\n";
  return md;
}

}  // namespace

int run_releases(ReleasesOptions o, std::ostream& out, std::ostream& err) {
  install_interrupt_handlers();
  State s;
  std::vector<Release> rs;
  try {
    std::vector<Release> recorded;
    if (!o.resume_dir.empty()) load_resume_state(o, s, recorded);
    // prepare: every release checked before any folder (a resumed one: before anything runs).
    std::unique_ptr<EnvCache> cache;
    const bool versions = std::any_of(o.entries.begin(), o.entries.end(), [](const Entry& e) { return e.kind == "version"; });
    if (versions) cache = make_env_cache(o, out);
    rs = prepare_releases(o, cache.get(), out);
    if (o.prepare_only) {
      out << fmt::format("wmbench releases --prepare-only: {} release(s) ready, nothing run, no folder made:\n", rs.size());
      for (const Release& r : rs)
        out << fmt::format("  torch {:<22} {}\n", r.torch_version,
                           !r.resolved_by.empty() ? "(no environment: mps-model runs no torch; --with-envs makes one)"
                           : r.env_dir.empty()    ? "(" + r.entry.kind + " " + r.entry.given + ")"
                                             : r.env_dir + (r.env_made_now ? " (made now)" : " (cached)"));
      return 0;
    }
    if (!recorded.empty()) {
      // The releases of the folder, as they were: the same torch in each, or refused.
      match_recorded(s, recorded, rs);
    } else {
      // A bad --only or a cell variable not allowed: refused before the releases folder exists.
      try {
        (void)make_plan(o.run, nullptr, nullptr);
      } catch (const RunRefused& e) {
        throw EnvError(e.what(), e.exit_code);
      }
      start_new_folder(o, s, versions, cache.get());
    }
    out << fmt::format("wmbench releases: {} release(s) of scenario {} on {} -> {}\n", rs.size(), o.run.scenario.name,
                       o.run.scenario.device, s.dir);
    save(s, rs);
    write_provenance(*s.folder, rs);
    // On a Mac (mps), the seconds to stop it come now, after the downloads, before the first fill.
    if (o.mac_warning) warn_before_mac_fill(o.run.scenario, *o.mac_warning);
    const int run_code = run_all_releases(o, s, rs, out, err);
    if (run_code != 0) {
      say_table(s.dir, rs, {}, out);
      return run_code;
    }
    const std::vector<Neighbour> ns = compare_neighbours(s.dir, rs, o.tolerance_pct);
    const int code = worst_exit(ns);
    const std::string md = releases_md(o, s, rs, ns);
    try {
      s.folder->write_atomic("releases.md", md);
    } catch (const FileError& e) {
      throw EnvError(e.what(), 1);
    }
    save(s, rs, &ns, code);
    say_table(s.dir, rs, ns, out);
    out << "\n" << releases_table_md(s.dir, rs);
    if (o.run.draw_plots) draw_releases_chart(s.dir, out, err);
    if (const int sig = interrupt_signal()) return 128 + sig;
    return code;
  } catch (const EnvError& e) {
    err << "wmbench releases: " << e.what() << "\n";
    return e.exit_code;
  }
}

}  // namespace wmb::releases
