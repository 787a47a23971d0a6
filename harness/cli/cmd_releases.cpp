// wmbench releases VERSION... [--python PY]... [--fill PATH]... [--scenario S] [run options]
//                 [--index-url URL] [--extra-index-url URL] [--find-links DIR|URL] [--refresh V|all]
//                 [--base-python PY] [--resume DIR] [--revisions] [--prepare-only]
//                 [--variant-index-root URL]   (VERSION@VARIANT: 2.12@cpu, 2.13@test/cu130, 2.14@nightly/cpu)
// wmbench releases --list-envs | --prune [VERSION...]   (the cache of environments as a whole)
// The same scenario under each torch release, a verdict between neighbours (releases/releases.h).
#include <iostream>

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/command.h"
#include "job/run_setup.h"
#include "common/units.h"
#include "compare/compare.h"
#include "mpsmodel/release_revision.h"
#include "mpsmodel/revision.h"
#include "releases/env_list.h"
#include "releases/releases.h"
#include "releases/torch_version.h"
#include "job/main_job.h"
#include "job/run_input.h"
#include "common/limits.h"
#include "io/utf8.h"

namespace wmb::cli {
namespace {

struct ReleasesArgs {
  std::vector<std::string> versions, pythons, fills, only, allow_env, refresh, index_urls, extra_index_urls, find_links;
  ScenarioFlags flags;  // --device, --step, --cap, --timeout, --swap-budget, --repeat
  std::string scenario, out = "results", ram_limit, recommended_max,
      model_mac_ram, model_revision, other_allocations, base_python, resume, tolerance = "5", lock_wait = "30m", installer = "auto",
      variant_index_root;
  bool force = false, no_plots = false, revisions = false, no_index = false, list_envs = false, prune = false,
       prepare_only = false, with_envs = false;
};

int releases_command(const ReleasesArgs& a) {
  if (a.revisions) {
    std::cout << mpsmodel::release_revision_table() << "\nThe revisions:\n" << mpsmodel::revision_table();
    return kExitOk;
  }
  if (a.list_envs || a.prune) {
    // The cache as a whole: nothing else is asked or run.
    if (auto code = input_error_exit("releases", [&] {
          if (a.list_envs && a.prune) throw RunInputError("--list-envs and --prune: give one of them");
          if (!a.pythons.empty() || !a.fills.empty() || !a.resume.empty() || a.prepare_only || !a.scenario.empty())
            throw RunInputError(fmt::format("{} takes nothing but {}", a.list_envs ? "--list-envs" : "--prune",
                                            a.list_envs ? "itself" : "the versions to keep"));
          if (a.list_envs && !a.versions.empty()) throw RunInputError("--list-envs takes no versions");
          for (const auto& v : a.versions) {
            if (releases::request_problem(v).empty() && releases::parse_request(v).has_variant())
              throw RunInputError(fmt::format("--prune {}: it keeps by version, every build of it: give {}", v,
                                              releases::parse_request(v).version));
            if (const std::string why = releases::version_problem(v); !why.empty())
              throw RunInputError(fmt::format("release \"{}\": {}", v, why));
          }
        }))
      return *code;
    try {
      const std::string root = releases::default_cache_root();
      if (a.list_envs) {
        std::cout << releases::env_list_text(root, releases::list_cached_envs(root));
        return kExitOk;
      }
      return releases::prune_envs(root, a.versions, std::cout) == 0 ? kExitOk : kExitFail;
    } catch (const releases::EnvError& e) {
      std::cerr << "wmbench releases: " << e.what() << "\n";
      return e.exit_code;
    }
  }
  releases::ReleasesOptions o;
  RunnerOptions& r = o.run;
  std::vector<std::string> warnings;
  r.out_dir = a.out;
  r.only = a.only;
  r.force = a.force;
  r.draw_plots = !a.no_plots;
  r.allow_env.insert(a.allow_env.begin(), a.allow_env.end());
  o.refresh = a.refresh;
  o.base_python = a.base_python;
  if (o.base_python.empty()) {
    std::string which;
    o.base_python = default_base_python(&which);
    if (a.resume.empty()) std::cerr << "wmbench releases: the environments are made with " << which << "\n";
  }
  o.resume_dir = a.resume;
  o.prepare_only = a.prepare_only;
  o.with_envs = a.with_envs;
  if (auto code = input_error_exit("releases", [&] {
        const auto tol = compare::parse_tolerance(a.tolerance);
        if (!tol) throw RunInputError(fmt::format("--tolerance \"{}\": expected a percentage >= 0, e.g. 5 or 2.5", a.tolerance));
        o.tolerance_pct = *tol;
        o.lock_wait_s = parse_duration(a.lock_wait);
        o.installer = a.installer;
        if (!a.ram_limit.empty()) r.ram_limit = parse_size(a.ram_limit);
        if (!a.recommended_max.empty()) r.recommended_max = check_model_bytes(parse_size(a.recommended_max), "--recommended-max");
        if (!a.model_mac_ram.empty()) r.model_mac_ram = check_model_bytes(parse_size(a.model_mac_ram), "--model-mac-ram");
        if (!a.other_allocations.empty()) r.model_other = check_other_bytes(parse_size(a.other_allocations, true), "--other-allocations");
        bool variants = false;
        for (const auto& v : a.versions) {
          if (const std::string why = releases::request_problem(v); !why.empty())
            throw RunInputError(fmt::format("release \"{}{}\": {}", utf8_prefix(v, 96), v.size() > 96 ? "..." : "", why));
          variants = variants || releases::parse_request(v).has_variant();
          o.entries.push_back({"version", v});
        }
        if (variants && a.no_index)
          throw RunInputError("--no-index with a VERSION@VARIANT release: a variant is installed from PyTorch's index of "
                              "that build (--variant-index-root); give the releases without @VARIANT, or no --no-index");
        for (const auto& p : a.pythons) o.entries.push_back({"python", p});
        for (const auto& f : a.fills) o.entries.push_back({"fill", f});
        for (const auto& v : a.refresh)
          if (v != "all" && std::find(a.versions.begin(), a.versions.end(), v) == a.versions.end() && a.resume.empty())
            throw RunInputError(fmt::format("--refresh {}: not one of the versions given ({}); or --refresh all", v,
                                            a.versions.empty() ? "none" : fmt::format("{}", fmt::join(a.versions, ", "))));
        try {
          for (const auto& u : a.index_urls) o.index.args.emplace_back("--index-url", releases::checked_index_value("--index-url", u));
          for (const auto& u : a.extra_index_urls)
            o.index.args.emplace_back("--extra-index-url", releases::checked_index_value("--extra-index-url", u));
          for (const auto& u : a.find_links) o.index.args.emplace_back("--find-links", releases::checked_index_value("--find-links", u));
          if (a.no_index) o.index.args.emplace_back("--no-index", "");
          if (!a.variant_index_root.empty())
            o.variant_index_root = releases::checked_index_value("--variant-index-root", a.variant_index_root);
        } catch (const releases::EnvError& e) {
          throw RunInputError(e.what());
        }
        if (!a.resume.empty()) {
          if (!a.versions.empty() || !a.scenario.empty())
            throw RunInputError(fmt::format("--resume {}: its releases and scenario are in its releases.json; give no "
                                            "versions or --scenario with it (its --python and --fill programs, index, "
                                            "--allow-env, --force and --tolerance are named again: a file never decides "
                                            "what runs or is installed)",
                                            a.resume));
          return;
        }
        if (o.entries.empty())
          throw RunInputError("name the releases: torch versions (wmbench releases 2.11 2.12), and/or --python PY, --fill PATH");
        const bool main_job = load_scenario_or_resume(a.scenario, "", r, warnings);
        apply_scenario_flags(a.flags, r.scenario);
        if (r.scenario.program == "command")
          throw RunInputError("wmbench releases runs the fill under each torch; a command scenario has no torch of its own");
        if (main_job && a.flags.device.empty()) {
          const size_t cells = r.scenario.matrix.size() * static_cast<size_t>(std::max(1, r.scenario.repeats));
          const MacRuns runs{cells * o.entries.size(), fmt::format("the matrix once for each of {} release(s)", o.entries.size())};
          choose_main_job(r, !a.flags.cap.empty(), runs, /*warn_now=*/false);
          o.mac_warning = runs;  // said by run_releases once the environments are made
        }
        if (!a.model_revision.empty()) {
          apply_model_revision(a.model_revision, r);
          o.model_revision_given = true;
        }
        if (r.model_other && r.scenario.device != "mps-model")
          throw RunInputError("--other-allocations applies only to device mps-model (the model's \"other allocations\")");
      }))
    return *code;
  for (const auto& w : warnings) std::cerr << "warning: " << w << "\n";
  return releases::run_releases(std::move(o), std::cout, std::cerr);
}

Registrar reg_releases{Command{12, [](CLI::App& app, int& exit_code) {
  auto a = std::make_shared<ReleasesArgs>();
  auto* c = app.add_subcommand("releases",
                               "Run one scenario under several torch releases (an environment made and cached per "
                               "version), and compare each release with the one before it");
  c->add_option("versions", a->versions,
                "torch versions: 2.12 (newest 2.12.x), 2.12.1, 2.13.0.dev20260601; VERSION@VARIANT from PyTorch's index of "
                "that build: 2.12@cpu, 2.12@cu130, 2.13@test/cu130 (release candidates), 2.14@nightly/cpu");
  c->add_option("--python", a->pythons, "A release from an interpreter you already have (its torch); repeatable")
      ->allow_extra_args(false);
  c->add_option("--fill", a->fills, "A release from a wmbench-fill built against another libtorch; repeatable")
      ->allow_extra_args(false);
  c->add_option("--scenario", a->scenario, "Scenario file or name (default: mps-watermark; off a Mac the MPS model)");
  c->add_option("--out", a->out, "Parent folder of the dated releases folder")->capture_default_str();
  c->add_option("--index-url", a->index_urls, "pip --index-url (a mirror, a nightly index)")->allow_extra_args(false);
  c->add_option("--extra-index-url", a->extra_index_urls, "pip --extra-index-url")->allow_extra_args(false);
  c->add_option("--find-links", a->find_links, "pip --find-links: a local wheelhouse (offline) or a URL")->allow_extra_args(false);
  c->add_flag("--no-index", a->no_index, "pip --no-index: only --find-links (an offline wheelhouse)");
  c->add_option("--variant-index-root", a->variant_index_root,
                std::string("Where VERSION@VARIANT releases come from: ROOT/[test/|nightly/]VARIANT (default ") +
                    releases::kPyTorchWheelRoot + ")");
  c->add_option("--refresh", a->refresh, "Remake the cached environment of this version (or all)")->allow_extra_args(false);
  c->add_option("--base-python", a->base_python,
                "The Python that makes the environments (default: on a Mac the set-up's .venv python, else python3)");
  c->add_option("--resume", a->resume, "Finish a releases folder whose later releases did not run");
  c->add_option("--tolerance", a->tolerance, "compare's tolerance, percent")->capture_default_str();
  c->add_option("--installer", a->installer, "What makes the environments: pip, uv, or auto (uv when it is on PATH)")
      ->check(CLI::IsMember({"auto", "pip", "uv"}))
      ->capture_default_str();
  c->add_option("--lock-wait", a->lock_wait, "How long to wait while another run makes the same environment")
      ->capture_default_str();
  c->add_flag("--prepare-only", a->prepare_only,
              "Make (or check) every release's environment, then stop: no folder, no run (before going offline)");
  c->add_flag("--with-envs", a->with_envs,
              "mps-model: make each version's environment anyway (its packages and wheels recorded); by default "
              "none is made, the model running no torch: the index says the version");
  c->add_flag("--list-envs", a->list_envs, "List the cached environments (release, torch, size, in use) and exit");
  c->add_flag("--prune", a->prune, "Remove every cached environment but those of the versions named, and any leftovers");
  c->add_flag("--revisions", a->revisions, "Print the table of torch releases to model revisions (mps-model) and exit");
  c->add_option("--device", a->flags.device, "Override the device: mps, cuda, cpu, mps-model");
  c->add_option("--only", a->only, "Run only these cell labels")->delimiter(',');
  c->add_option("--repeat", a->flags.repeat, "Runs per cell")->check(CLI::PositiveNumber);
  c->add_option("--step", a->flags.step, "Fill step size (e.g. 512MiB)");
  c->add_option("--cap", a->flags.cap, "Stop filling at this size");
  c->add_option("--timeout", a->flags.timeout, "Per-run timeout (e.g. 10m)");
  c->add_option("--swap-budget", a->flags.swap_budget, "Guard: stop a run when swap grew more than this");
  add_guard_signal_flags(c, a->flags.guard);
  c->add_option("--ram-limit", a->ram_limit, "Linux: run each child in a memory cgroup of this size (needs root and swap)");
  c->add_option("--recommended-max", a->recommended_max, "mps-model: the modelled recommended max working set");
  c->add_option("--model-mac-ram", a->model_mac_ram, "mps-model: RAM of the Mac that is modelled");
  c->add_option("--model-revision", a->model_revision,
                "mps-model: one revision for every release (" + mpsmodel::revision_names() +
                    "); default: each release's own (--revisions)");
  c->add_option("--other-allocations", a->other_allocations, "mps-model: Metal's and MPSGraph's own memory");
  c->add_option("--allow-env", a->allow_env, "Let the cells set this variable (beyond PYTORCH_*)")->delimiter(',');
  c->add_flag("--force", a->force, "Allow a cpu fill whose cap exceeds the memory free now");
  c->add_flag("--no-plots", a->no_plots, "Do not draw charts");
  c->callback([a, &exit_code] { exit_code = releases_command(*a); });
}}};

}  // namespace
}  // namespace wmb::cli
