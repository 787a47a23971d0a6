#include "check/check_releases.h"

#include <algorithm>
#include <map>
#include <vector>

#include <fmt/format.h>

#include "io/files.h"
#include "readback/package_freeze.h"
#include "io/utf8.h"

namespace wmb {
namespace {

bool hex64(const std::string& s) {
  return s.size() == 64 && std::all_of(s.begin(), s.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

bool plain_name(const std::string& s) {
  return !s.empty() && s.size() <= 200 && s != "." && s != ".." &&
         std::all_of(s.begin(), s.end(), [](char c) {
           return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '_';
         });
}

std::string str(const nlohmann::json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

void check_provenance(const Folder& f, const nlohmann::json& r, const std::string& where, CheckResult& out) {
  const auto it = r.find("provenance");
  if (it == r.end() || it->is_null()) {
    // No env, so no packages: a --fill release, or a version on mps-model whose index gave the version
    // ("resolved": {"by", "index"}); anything else is a folder of an older wmbench.
    const auto res = r.find("resolved");
    if (res != r.end() && !res->is_null()) {
      if (!res->is_object() || !res->contains("by") || !res->at("by").is_string() || !res->contains("index") ||
          !res->at("index").is_array())
        out.problems.push_back(where + ": \"resolved\" is not an object with \"by\" (a string) and \"index\" (an array)");
      return;
    }
    if (str(r["request"], "kind") != "fill") out.notes.push_back(where + ": no provenance recorded (a folder of an older wmbench)");
    return;
  }
  const nlohmann::json& p = *it;
  if (!p.is_object() || !p.contains("packages") || !p["packages"].is_object()) {
    out.problems.push_back(where + ": provenance: \"packages\" is not an object of name: version");
    return;
  }
  std::map<std::string, std::string> packages;
  for (const auto& [n, v] : p["packages"].items()) {
    if (!v.is_string()) {
      out.problems.push_back(fmt::format("{}: provenance: package \"{}\" has no version string", where, n));
      return;
    }
    packages[n] = v.get<std::string>();
  }
  const std::string folder = str(r, "folder");
  const std::string freeze = str(p, "freeze_file");
  if (freeze != "provenance/" + folder + ".txt") {
    out.problems.push_back(fmt::format("{}: provenance: freeze_file \"{}\" (expected provenance/{}.txt)", where, freeze, folder));
  } else {
    try {
      if (f.read(freeze, 16 << 20) != freeze_text(packages))
        out.problems.push_back(fmt::format("{}: {} does not hold the packages releases.json records for it", where, freeze));
    } catch (const FileError& e) {
      out.problems.push_back(fmt::format("{}: {}", where, e.what()));
    }
  }
  const std::string torch = str(r, "torch_version");
  if (str(r["request"], "kind") == "version" && packages.count("torch") && packages["torch"] != torch)
    out.problems.push_back(fmt::format("{}: provenance: the torch distribution is {}, the release says torch {}", where,
                                       packages["torch"], torch));
  if (p.contains("wheels") && !p["wheels"].is_null()) {
    if (!p["wheels"].is_array()) {
      out.problems.push_back(where + ": provenance: \"wheels\" is not an array");
      return;
    }
    for (const auto& w : p["wheels"]) {
      const std::string file = w.is_object() ? str(w, "file") : "";
      if (file.empty() || file.find('/') != std::string::npos)
        out.problems.push_back(fmt::format("{}: provenance: a wheel without a file name ({})", where, std::string(utf8_prefix(w.dump(), 200))));
      else if (w.contains("sha256") && !w["sha256"].is_null() && !(w["sha256"].is_string() && hex64(w["sha256"])))
        out.problems.push_back(fmt::format("{}: provenance: wheel {}: sha256 is not 64 hex digits", where, file));
      else if (str(w, "name") == "torch" && !torch.empty() && str(w, "version") != torch)
        out.problems.push_back(fmt::format("{}: provenance: wheel {} is torch {}, the release says {}", where, file,
                                           str(w, "version"), torch));
    }
  }
}

}  // namespace

bool is_releases_folder(const std::string& dir) {
  try {
    Folder f(dir);
    return f.exists("releases.json") && !f.exists("machine.json");
  } catch (const FileError&) {
    return false;
  }
}

CheckResult check_releases_folder(const std::string& dir) {
  CheckResult out;
  nlohmann::json d;
  std::optional<Folder> f;
  try {
    f.emplace(dir);
    d = f->read_json("releases.json", 4 << 20);
  } catch (const FileError& e) {
    out.unreadable = true;
    out.problems.push_back(e.what());
    return out;
  }
  if (!d.is_object() || str(d, "kind") != "wmbench-releases" || !d.contains("releases") || !d["releases"].is_array()) {
    out.unreadable = true;
    out.problems.push_back(dir + "/releases.json: not a releases file (kind \"wmbench-releases\", \"releases\")");
    return out;
  }
  for (size_t i = 0; i < d["releases"].size(); ++i) {
    const nlohmann::json& r = d["releases"][i];
    const std::string where = fmt::format("{}/releases.json: releases[{}]", dir, i);
    if (!r.is_object() || !r.contains("request") || !r["request"].is_object() || !plain_name(str(r, "folder"))) {
      out.problems.push_back(where + ": not a release with a \"request\" and a plain \"folder\" name");
      continue;
    }
    check_provenance(*f, r, where, out);
    if (str(r, "state") != "done") continue;
    const CheckResult sub = check_result_folder(dir + "/" + str(r, "folder"));
    for (const auto& p : sub.problems) out.problems.push_back(p);
    for (const auto& n : sub.notes) out.notes.push_back(n);
    out.runs += sub.runs;
  }
  return out;
}

}  // namespace wmb
