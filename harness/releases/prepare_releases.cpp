// The prepare stage of `wmbench releases`: each entry as a release, checked, before any folder.
#include <algorithm>
#include <map>
#include <ostream>

#include <fmt/format.h>

#include "mpsmodel/release_revision.h"
#include "releases/release_request.h"
#include "releases/releases.h"
#include "releases/torch_version.h"
#include "child/child_info.h"
#include "child/child_python.h"
#include "child/child_spec.h"
#include "tools/locate.h"
#include "common/run_error.h"
#include "io/utf8.h"

namespace wmb::releases {
namespace {

bool refresh_asked(const ReleasesOptions& o, const std::string& version) {
  return std::find(o.refresh.begin(), o.refresh.end(), "all") != o.refresh.end() ||
         std::find(o.refresh.begin(), o.refresh.end(), version) != o.refresh.end();
}

// The Python child is checked for the scenario's device as `run` would check it (torch too old
// for mps, no wmbench_fill.py), so that a release that cannot run is refused now, not half-way:
// from what the release's probe found (probe_torch asks what the child's probe asks), not by
// importing torch again (1.5-3 s a release). The release's run makes its child from the same facts.
void check_python_child(const Release& r, const std::string& device) {
  const auto f = child_facts(r);
  if (!f) throw EnvError(fmt::format("internal: release {} has no probe of {}", r.entry.given, r.python));
  try {
    (void)python_fill_child(*f, device);
  } catch (const RunRefused& e) {
    throw EnvError(e.what(), e.exit_code);
  }
}

// A VERSION@VARIANT release's index options: PyTorch's index of that build (release_request.h)
// instead of --index-url, with the --extra-index-url and --find-links given, and --pre for a
// nightly (pip's and uv's: a dev version is taken only when asked for).
IndexOptions variant_index(const ReleasesOptions& o, const ReleaseRequest& q) {
  IndexOptions idx;
  idx.args.emplace_back("--index-url", q.index_url(o.variant_index_root));
  for (const auto& a : o.index.args)
    if (a.first == "--extra-index-url" || a.first == "--find-links") idx.args.push_back(a);
  if (q.needs_pre()) idx.args.emplace_back("--pre", "");
  return idx;
}

ReleaseRequest checked_request(const std::string& v) {
  if (const std::string why = request_problem(v); !why.empty()) throw EnvError(fmt::format("release \"{}\": {}", v, why));
  return parse_request(v);
}

Release from_version(const ReleasesOptions& o, EnvCache& base_cache, const std::string& v, std::ostream& out) {
  const ReleaseRequest q = checked_request(v);
  EnvCache& cache = q.has_variant() ? base_cache.for_index(variant_index(o, q)) : base_cache;
  Release r;
  r.entry = {"version", v};
  const ReadyEnv env = cache.get(q.version, refresh_asked(o, v));
  // The torch it really imports, every time (a cached env can be changed by hand).
  if (!version_matches(q.version, env.torch.torch_version))
    throw EnvError(fmt::format("release {}: the environment {} imports torch {} ({}), not {}; remake it with --refresh {}", v,
                               env.dir, env.torch.torch_version, env.torch.torch_file, q.version, v));
  // The build its variant asked for: an index that serves another build under that name is said,
  // never compared as if it were the one asked for.
  if (!variant_matches(q, env.torch.variant(), env.torch.platform))
    throw EnvError(fmt::format("release {}: the environment {} imports torch {}, the {} build, not the {} build {} was asked "
                               "for (from {}); nothing was run",
                               v, env.dir, env.torch.torch_version, env.torch.variant(), q.variant, v,
                               q.index_url(o.variant_index_root)));
  r.torch_version = env.torch.torch_version;
  r.torch_git_version = env.torch.git_version;
  r.torch_file = env.torch.torch_file;
  r.python_version = env.torch.python_version;
  r.python = env.python;
  r.env_key = env.key;
  r.env_dir = env.dir;
  r.installer = env.installer;
  r.variant = env.torch.variant();
  r.facts = env.torch;
  r.packages = installed_packages(env.python);
  r.packages_known = true;
  r.wheels = env.wheels;
  r.index = env.identity.contains("index") ? env.identity["index"] : nlohmann::json(nullptr);
  r.env_identity = env.identity;
  r.env_made_now = env.made_now;
  out << fmt::format("  release {}: torch {} ({}, git {}) from {}{}\n", v, r.torch_version, r.variant,
                     r.torch_git_version.empty() ? "?" : r.torch_git_version, r.torch_file,
                     env.made_now ? " (made now)" : " (cached)");
  return r;
}

// A version release on mps-model (issue 45, item 2): its torch is never run (the model is
// wmbench-fill's, chosen by the torch version), so no env is made and nothing downloaded: the
// version is the newest the index lists for the base Python that the request takes. --with-envs
// makes the env instead (its packages and wheels then recorded).
Release from_index(const ReleasesOptions& o, EnvCache& base_cache, const std::string& v, std::ostream& out) {
  const ReleaseRequest q = checked_request(v);
  EnvCache& cache = q.has_variant() ? base_cache.for_index(variant_index(o, q)) : base_cache;
  Release r;
  r.entry = {"version", v};
  r.torch_version = cache.version_on_index(q.version);
  const size_t plus = r.torch_version.find('+');
  r.variant = plus == std::string::npos ? "default" : r.torch_version.substr(plus + 1);
#ifdef __APPLE__
  const char* platform = "darwin";
#else
  const char* platform = "linux";
#endif
  if (!variant_matches(q, r.variant, platform))
    throw EnvError(fmt::format("release {}: {} lists torch {}, the {} build, not the {} build {} was asked for; nothing was run", v,
                               q.index_url(o.variant_index_root), r.torch_version, r.variant, q.variant, v));
  const nlohmann::json identity = cache.identity();
  r.index = identity.contains("index") ? identity["index"] : nlohmann::json(nullptr);
  r.resolved_by = "pip index versions";
  out << fmt::format("  release {}: torch {} ({}), the newest {} lists; no environment (mps-model runs no torch; "
                     "--with-envs makes one)\n",
                     v, r.torch_version, r.variant, cache.index_words());
  return r;
}

Release from_python(const std::string& given, std::ostream& out) {
  Release r;
  r.entry = {"python", given};
  const std::string path = find_on_path(given);
  if (path.empty() || !is_executable(path)) throw EnvError(fmt::format("--python {}: no such program", given));
  const TorchFacts t = probe_torch(path);
  r.python = path;
  r.torch_version = t.torch_version;
  r.torch_git_version = t.git_version;
  r.torch_file = t.torch_file;
  r.python_version = t.python_version;
  r.variant = t.variant();
  r.facts = t;
  r.packages = installed_packages(path);
  r.packages_known = true;
  out << fmt::format("  --python {}: torch {} from {}\n", given, r.torch_version, r.torch_file);
  return r;
}

Release from_fill(const std::string& given, const std::string& device, std::ostream& out) {
  Release r;
  r.entry = {"fill", given};
  ChildHello h;
  try {
    h = ask_child_hello(ChildChoice{given, "", device, {}, nullptr});
  } catch (const RunRefused& e) {
    throw EnvError(fmt::format("--fill {}: {}", given, e.what()), e.exit_code);
  }
  if (!h.hello || !h.hello->is_object() || !(*h.hello)["torch_version"].is_string())
    throw EnvError(fmt::format("--fill {}: it did not say its torch version ({})", given, h.error));
  r.fill = given;
  r.torch_version = std::string(utf8_prefix((*h.hello)["torch_version"].get<std::string>(), 64));
  if (h.hello->contains("torch_library") && (*h.hello)["torch_library"].is_string())
    r.torch_file = std::string(utf8_prefix((*h.hello)["torch_library"].get<std::string>(), 4096));
  out << fmt::format("  --fill {}: torch {} ({})\n", given, r.torch_version, r.torch_file);
  return r;
}

}  // namespace

std::shared_ptr<const PythonFacts> child_facts(const Release& r) {
  if (r.python.empty() || r.facts.python != r.python || r.facts.torch_version.empty()) return nullptr;
  auto f = std::make_shared<PythonFacts>();
  f->path = r.python;
  f->version = r.facts.python_version;
  f->torch_version = r.facts.torch_version;
  f->torch_file = r.facts.torch_file;
  f->has_backends_mps = r.facts.has_backends_mps;
  f->has_torch_mps = r.facts.has_torch_mps;
  return f;
}

std::vector<Release> prepare_releases(const ReleasesOptions& o, EnvCache* cache, std::ostream& out) {
  const std::string& device = o.run.scenario.device;
  const bool model = device == "mps-model";
  std::vector<Release> rs;
  for (const auto& e : o.entries) {
    // The same release asked twice (2.12 2.12, or 2.12.0 after a 2.12 that is 2.12.0, or one
    // --python twice): one env, one run.
    const auto same = std::find_if(rs.begin(), rs.end(), [&](const Release& r) {
      if (r.entry.kind != e.kind) return false;
      if (e.kind == "version") {
        // 2.12@cpu and 2.12@cu130 are two releases; 2.12@cpu and 2.12.0@cpu one when 2.12 is 2.12.0.
        const ReleaseRequest a = parse_request(e.given), b = parse_request(r.entry.given);
        return e.given == r.entry.given ||
               (a.channel == b.channel && a.variant == b.variant && version_matches(a.version, r.torch_version));
      }
      return e.given == r.entry.given;
    });
    if (same != rs.end()) {
      out << fmt::format("  release {}: the same as {} (torch {}): made and run once\n", e.given, same->entry.given,
                         same->torch_version);
      continue;
    }
    if (e.kind == "version") {
      if (!cache) throw EnvError("internal: no environment cache for a version");
      rs.push_back(model && !o.with_envs ? from_index(o, *cache, e.given, out) : from_version(o, *cache, e.given, out));
    } else if (e.kind == "python") {
      rs.push_back(from_python(e.given, out));
    } else {
      rs.push_back(from_fill(e.given, device, out));
    }
    Release& r = rs.back();
    if (!model && r.entry.kind != "fill") {
      check_python_child(r, device);
      // Asked of every release before the first fill: a release that cannot run the device is
      // refused now, not found after the ones before it ran.
      if (const std::string why = r.facts.unavailable(device); !why.empty())
        throw EnvError(fmt::format("release {} (torch {} under {}): {}: it cannot run device {} here; nothing was run",
                                   e.given, r.torch_version, r.python, why, device));
    }
    if (model) {
      if (o.model_revision_given) {
        r.model_revision = o.run.model_revision;
        r.model_revision_from = "--model-revision";
      } else {
        r.model_revision = mpsmodel::revision_for_torch(r.torch_version);
        if (r.model_revision.empty())
          throw EnvError(fmt::format("release {}: {}; give --model-revision to model it with a revision you choose", e.given,
                                     mpsmodel::revision_gap(r.torch_version)));
        r.model_revision_from = "table";
        r.model_revision_note = mpsmodel::revision_note(r.torch_version);
        if (!r.model_revision_note.empty()) out << "  note: release " << e.given << ": " << r.model_revision_note << "\n";
      }
    }
  }
  if (rs.empty()) throw EnvError("no release given: name torch versions (2.11 2.12), or --python PY / --fill PATH entries");
  std::stable_sort(rs.begin(), rs.end(),
                   [](const Release& a, const Release& b) { return compare_versions(a.torch_version, b.torch_version) < 0; });
  std::map<std::string, int> seen;
  for (auto& r : rs) {
    const std::string base = "torch-" + file_safe(r.torch_version);
    const int n = ++seen[base];
    r.folder = n == 1 ? base : fmt::format("{}-{}", base, n);
  }
  return rs;
}

std::string identity_change(const Release& recorded, const Release& now) {
  auto differs = [](const std::string& a, const std::string& b) { return !a.empty() && a != b; };
  if (recorded.torch_version != now.torch_version) return fmt::format("torch {}, the folder ran {}", now.torch_version, recorded.torch_version);
  if (differs(recorded.torch_git_version, now.torch_git_version))
    return fmt::format("torch {} of git {}, the folder ran git {} (another wheel of that version)", now.torch_version,
                       now.torch_git_version.empty() ? "?" : now.torch_git_version, recorded.torch_git_version);
  if (differs(recorded.variant, now.variant))
    return fmt::format("the {} build of torch {}, the folder ran the {} build", now.variant, now.torch_version, recorded.variant);
  if (differs(recorded.python_version, now.python_version))
    return fmt::format("torch {} under Python {}, the folder ran it under Python {}", now.torch_version, now.python_version,
                       recorded.python_version);
  return "";
}

nlohmann::json to_json(const Release& r) {
  auto opt = [](const std::string& s) { return s.empty() ? nlohmann::json(nullptr) : nlohmann::json(s); };
  return {{"request", {{"kind", r.entry.kind}, {"given", r.entry.given}}},
          {"torch_version", r.torch_version},
          {"torch_git_version", opt(r.torch_git_version)},
          {"torch_file", opt(r.torch_file)},
          {"python", opt(r.python)},
          {"python_version", opt(r.python_version)},
          {"fill", opt(r.fill)},
          {"env", r.env_key.empty() ? nlohmann::json(nullptr)
                                    : nlohmann::json{{"key", r.env_key}, {"dir", r.env_dir}, {"installer", r.installer},
                                                     {"identity", r.env_identity},
                                                     {"made_by_this_session", r.env_made_now}}},
          {"variant", opt(r.variant)},
          {"provenance", provenance_json(r)},
          // A release whose version the index gave, with no env (mps-model without --with-envs).
          {"resolved", r.resolved_by.empty() ? nlohmann::json(nullptr)
                                             : nlohmann::json{{"by", r.resolved_by}, {"index", r.index}}},
          {"folder", r.folder},
          {"model_revision", opt(r.model_revision)},
          {"model_revision_from", opt(r.model_revision_from)},
          {"model_revision_note", opt(r.model_revision_note)},
          {"state", r.state},
          {"exit_code", r.exit_code < 0 ? nlohmann::json(nullptr) : nlohmann::json(r.exit_code)}};
}

Release release_from_json(const nlohmann::json& j, const std::string& where) {
  auto text = [&](const nlohmann::json& obj, const char* key, bool required) -> std::string {
    const auto it = obj.find(key);
    if (it == obj.end() || it->is_null()) {
      if (required) throw EnvError(fmt::format("{}: \"{}\" is missing", where, key));
      return "";
    }
    if (!it->is_string() || it->get<std::string>().size() > 4096)
      throw EnvError(fmt::format("{}: \"{}\" is not a string of at most 4096 bytes", where, key));
    return it->get<std::string>();
  };
  if (!j.is_object() || !j.contains("request") || !j["request"].is_object())
    throw EnvError(fmt::format("{}: not a release object with a \"request\"", where));
  Release r;
  r.entry.kind = text(j["request"], "kind", true);
  r.entry.given = text(j["request"], "given", true);
  if (r.entry.kind != "version" && r.entry.kind != "python" && r.entry.kind != "fill")
    throw EnvError(fmt::format("{}: request kind \"{}\" (allowed: version, python, fill)", where, r.entry.kind));
  if (r.entry.kind == "version" && !request_problem(r.entry.given).empty())
    throw EnvError(fmt::format("{}: request \"{}\": {}", where, r.entry.given, request_problem(r.entry.given)));
  r.torch_version = text(j, "torch_version", true);
  r.folder = text(j, "folder", true);
  if (r.folder.empty() || file_safe(r.folder) != r.folder || r.folder == "." || r.folder == "..")
    throw EnvError(fmt::format("{}: folder \"{}\" is not a plain folder name", where, r.folder));
  r.state = text(j, "state", true);
  r.model_revision = text(j, "model_revision", false);
  // What the release ran under, compared on --resume (an older file without them compares nothing).
  r.torch_git_version = text(j, "torch_git_version", false);
  r.python_version = text(j, "python_version", false);
  r.variant = text(j, "variant", false);
  r.model_revision_from = text(j, "model_revision_from", false);
  return r;
}

}  // namespace wmb::releases
