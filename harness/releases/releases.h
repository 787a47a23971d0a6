// `wmbench releases 2.11 2.12 [--python PY] [--fill PATH] [run options]`: the same scenario run
// under each torch release, into one releases folder, and a verdict between neighbours.
//
// A driver over the runner's own stages, not a second runner:
//   prepare   (prepare_releases.cpp)  every entry turned into a release before any folder exists:
//                                     a version's env from the cache (env_cache.h), made or reused
//                                     and its torch imported and checked; a --python's torch
//                                     probed; a --fill's hello; ordered by version (torch_version.h)
//   run       (driver.cpp)            run_matrix once per release into
//                                     <releases folder>/torch-<version>/, releases.json updated
//                                     after each; --resume runs what did not finish
//   verdict   (verdict.cpp)           compare_folders between each release and the one before it,
//                                     a table across releases (releases.md), the worst neighbour's exit
//   chart     (chart.cpp)             plots/releases.py through the no-shell spawner
//
// The child of a release: the Python child under the release's interpreter (mps, cuda, cpu); on
// mps-model, whose model is wmbench-fill's, the native child (or the entry's --fill) with the
// model revision the table gives for that torch (mpsmodel/release_revision.h) unless
// --model-revision names one.
#pragma once

#include <iosfwd>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "io/files.h"
#include "job/mac_warning.h"
#include "releases/env_cache.h"
#include "releases/release_request.h"
#include "runner/runner.h"

namespace wmb::releases {

struct Entry {
  std::string kind;   // "version", "python", "fill"
  std::string given;  // as typed
};

struct ReleasesOptions {
  RunnerOptions run;                   // the scenario after overrides, and the run options
  std::vector<Entry> entries;          // in the order given
  std::vector<std::string> refresh;    // versions to remake; "all"
  IndexOptions index;
  // Where a VERSION@VARIANT release's index is (release_request.h): ROOT/[CHANNEL/]VARIANT.
  std::string variant_index_root = kPyTorchWheelRoot;
  std::string base_python = "python3";  // makes the envs
  std::string cache_root;              // "" = default_cache_root()
  bool model_revision_given = false;   // --model-revision: it wins over the table
  std::string resume_dir;              // a releases folder to finish
  double tolerance_pct = 5.0;
  double lock_wait_s = 1800;           // --lock-wait: while another run makes the same env
  std::string installer = "auto";      // --installer: pip, uv, or auto (uv when it is on PATH)
  // The main job on a Mac: its warning (job/mac_warning.h), said once every environment is made,
  // just before the first fill (not before minutes of downloads); none elsewhere.
  std::optional<MacRuns> mac_warning;
  // mps-model runs no torch: its version releases get no env (the index says the version) unless
  // --with-envs (their packages and wheels then recorded).
  bool with_envs = false;
  bool prepare_only = false;  // --prepare-only: every env made or checked, then stop (no folder, no run)
};

struct Release {
  Entry entry;
  std::string torch_version, torch_git_version, torch_file, python_version;
  std::string python;  // the interpreter whose torch this is ("" for a --fill)
  std::string fill;    // a --fill entry's program
  std::string env_key, env_dir, installer;
  std::string variant;           // TorchFacts::variant(): cpu, cu130, default
  nlohmann::json env_identity;   // EnvCache::identity() of its env (null for --python/--fill)
  TorchFacts facts;              // what its interpreter imported (--python and versions)
  // Provenance (provenance.cpp): every distribution its interpreter sees, the wheels its env was
  // made from (pip's --report: file names, sha256; null when unknown: uv, an older env), the index.
  bool packages_known = false;
  std::map<std::string, std::string> packages;
  nlohmann::json wheels;  // array or null
  nlohmann::json index;   // the index options (array), null for --python/--fill
  bool env_made_now = false;
  std::string resolved_by;  // "pip index versions": the version the index lists, no env (mps-model)
  std::string folder;  // its result folder's name in the releases folder
  std::string model_revision, model_revision_from;  // mps-model only
  std::string model_revision_note;  // mpsmodel::revision_note: what the table does not say about it
  std::string state = "planned";  // planned, running, done, failed, refused, interrupted
  int exit_code = -1;
};

// prepare_releases.cpp: every entry as a release, ordered by version, folders named. Throws
// EnvError (exit 2, or 128+N) before anything is written.
std::vector<Release> prepare_releases(const ReleasesOptions& o, EnvCache* cache, std::ostream& out);
// What the release's probe of its interpreter found, as the Python child takes it (child_python.h):
// its run's child is made from it without another `import torch` (1.5-3 s of CPU a release). Null
// when the release has no probe of this process (a --fill, a release read from a file).
std::shared_ptr<const PythonFacts> child_facts(const Release& r);
nlohmann::json to_json(const Release& r);
Release release_from_json(const nlohmann::json& j, const std::string& where);  // throws EnvError
// "" when `now` is the release `recorded` ran (torch version, git, variant, Python); else what differs.
std::string identity_change(const Release& recorded, const Release& now);

// provenance.cpp
std::map<std::string, std::string> installed_packages(const std::string& python);  // throws EnvError
nlohmann::json wheels_from_report(const nlohmann::json& pip_report);  // [{name, version, file, url, sha256}]
// "bumped: torch 2.11.0 -> 2.12.0", "added: x 1.0", "removed: y 2.0" (empty when the same)
std::vector<std::string> package_changes(const std::map<std::string, std::string>& base,
                                         const std::map<std::string, std::string>& now);
nlohmann::json provenance_json(const Release& r);  // null when its packages are not known (a --fill)
// provenance/<folder>.txt of each release (its freeze), in the releases folder. Throws EnvError (exit 1).
void write_provenance(const Folder& dir, const std::vector<Release>& rs);

// verdict.cpp
struct Neighbour {
  std::string base, now;              // folder names
  std::string base_torch, now_torch;
  int exit_code = 0;                  // compare's: 0, 1, 3
  std::vector<std::string> regressions;  // "setting high-0.8: max allowed 1.00 GiB -> 768.00 MiB (...)"
  std::vector<std::string> notes;
  std::vector<std::string> packages;  // package_changes() between the two releases' environments
  std::string compare_file;           // compare-<base>-to-<new>.md
};
// Compares each done release with the done release before it; writes each comparison's Markdown
// into the folder. Throws EnvError when a folder cannot be read.
std::vector<Neighbour> compare_neighbours(const std::string& dir, const std::vector<Release>& rs, double tolerance_pct);
// The matrix across releases: one row per setting, one column per release (who stopped, held, max allowed).
std::string releases_table_md(const std::string& dir, const std::vector<Release>& rs);
// 1 when a neighbour regressed, else 3 when one could not be compared, else 0.
int worst_exit(const std::vector<Neighbour>& ns);
nlohmann::json to_json(const Neighbour& n);

// chart.cpp: plots/releases.py on the releases folder; says where it is or how to draw it.
void draw_releases_chart(const std::string& dir, std::ostream& out, std::ostream& err);

// driver.cpp: the command. Returns 0 (no regression), 1 (a regression, or a run that could not be
// recorded), 2 (bad input), 3 (nothing regressed, not all comparable), 128+N (interrupted).
int run_releases(ReleasesOptions o, std::ostream& out, std::ostream& err);

}  // namespace wmb::releases
