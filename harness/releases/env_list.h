// The cache of `wmbench releases` seen as a whole (issue 45): `--list-envs` (each env: its release,
// the torch it imports, variant, installer, when it was made, its size on disk, whether a run holds it
// now, and what is wrong with it) and `--prune [VERSION...]` (removes every env but those of the
// versions named, and the leftovers of builds that died; an env another run holds is kept and said).
// Reads only wmbench's own files (env_cache.h: <root>/<key>/wmbench-env.json, <root>/<key>.lock),
// bounded, never through a link; removes only folders named as wmbench names them.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

namespace wmb::releases {

struct CachedEnv {
  std::string name;           // the folder's name (the env's key), or a leftover's (.tmp-KEY-PID, .old-KEY-PID), as on disk
  std::string shown;          // the name as printed (control characters escaped)
  std::string request;        // the version asked ("2.12"), from wmbench-env.json; "" when unreadable
  std::string torch_version;  // what it imports, as checked when it was made
  std::string variant, installer, python_version, made_utc;
  uint64_t bytes = 0;         // on disk: every file's size, links not followed
  bool in_use = false;        // a run holds its lock now
  bool leftover = false;      // a build's .tmp-/.old- folder
  std::string problem;        // "" or why it would not be used as it is (no marker, interpreter gone, ...)
};

// Every env and leftover under `root` (default_cache_root()), by name. Throws EnvError when `root`
// is not a folder wmbench can trust (a link, another user's). A root that does not exist: none.
std::vector<CachedEnv> list_cached_envs(const std::string& root);

// The table `--list-envs` prints, and the total.
std::string env_list_text(const std::string& root, const std::vector<CachedEnv>& envs);

// Removes every env whose request or torch version is not in `keep`, and every leftover; an env a
// run holds is kept and said. Says each removal and the bytes freed on `out`. Returns how many
// were kept because in use. Throws EnvError as list_cached_envs does.
size_t prune_envs(const std::string& root, const std::vector<std::string>& keep, std::ostream& out);

}  // namespace wmb::releases
