// Python environments with one torch release each, made once and cached for `wmbench releases`:
// $XDG_CACHE_HOME/wmbench/envs/torch-<version>-py<X.Y>-<arch>/ (else ~/.cache/wmbench/envs).
//
// Made with uv when it is on PATH (`uv venv`, `uv pip install`), else `PYTHON -m venv
// --without-pip` and PYTHON's own pip (`pip --python ENV/bin/python`, pip 22.3+), else `PYTHON -m
// venv` and the env's own pip; pip's index options are passed through as argv elements (never a shell). Each
// env is built in a temporary folder beside the cache's envs and renamed into place only after
// the install and an `import torch` of the asked release succeeded: a failed, interrupted or
// partial install is removed, never cached. A lock per env (flock on <key>.lock: exclusive while
// it is made, shared while a run uses it) keeps two runs sharing the cache apart: the second is
// refused with exit 2, naming the env and the pid that holds it.
#pragma once

#include <iosfwd>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace wmb::releases {

// What the command refuses (exit 2 by default; 128+N when interrupted by signal N).
struct EnvError : std::runtime_error {
  explicit EnvError(const std::string& what, int code = 2) : std::runtime_error(what), exit_code(code) {}
  int exit_code;
};

// pip's index options, in the order given: ("--index-url", URL), ("--find-links", DIR|URL),
// ("--no-index", "") ...
struct IndexOptions {
  std::vector<std::pair<std::string, std::string>> args;
  std::vector<std::string> argv() const;  // flattened
  std::string describe() const;           // "PyPI (pip's default)" or the options as typed
};
// Checks one value (not empty, not starting with '-', no control characters, < 4 KiB); a
// --find-links path that is not a URL is made absolute (pip runs in "/"). Throws EnvError.
std::string checked_index_value(const std::string& flag, const std::string& value);

// What an interpreter imported as torch (torch_probe.cpp).
struct TorchFacts {
  std::string python;          // the interpreter as run
  std::string python_version;  // "3.11.2"
  std::string torch_version;   // torch.__version__
  std::string git_version;     // torch.version.git_version ("" when absent)
  std::string torch_file;      // torch.__file__
  std::string dist_version;    // importlib.metadata's version of the "torch" distribution ("" when none)
  std::string dist_location;   // where that distribution is installed
};
// Imports torch under `python` (isolated: -I, cwd "/", no PYTHON* variables), bounded in time.
// Throws EnvError naming the interpreter and what failed.
TorchFacts probe_torch(const std::string& python, double timeout_s = 120);

// The interpreter that makes the envs: its X.Y and its machine (platform.machine(): arm64 and
// x86_64 under Rosetta are different envs). Throws EnvError.
struct BasePython {
  std::string path, version_xy, machine;
};
BasePython probe_base_python(const std::string& python);

// $XDG_CACHE_HOME/wmbench/envs, else $HOME/.cache/wmbench/envs; throws EnvError when neither is set.
std::string default_cache_root();

// install_failure.cpp: why an install failed, from the tail of pip's (or uv's) stderr: the index could not be reached,
// the version is not there (with the versions it has), the disk filled, no venv in that Python;
// `what` is the requirement, `where` the index options in words; `disk_nearly_full`: the cache's
// disk had (almost) nothing free after the step failed. Pure (unit-tested).
std::string explain_install_failure(const std::string& log_tail, const std::string& what, const std::string& where,
                                    const std::string& step, bool disk_nearly_full = false);

struct ReadyEnv {
  std::string key;     // torch-2.12-py3.11-x86_64
  std::string dir;     // the env
  std::string python;  // dir/bin/python
  TorchFacts torch;
  bool made_now = false;
  std::string installer;  // "uv" or "pip"
};

class EnvCache {
 public:
  // `root`: the cache's envs folder (made when missing). `uv`: uv's path ("" = python -m venv + pip).
  EnvCache(std::string root, BasePython base, IndexOptions index, std::string uv, std::ostream& out);
  ~EnvCache();
  EnvCache(const EnvCache&) = delete;
  EnvCache& operator=(const EnvCache&) = delete;

  std::string key_for(const std::string& version) const;
  // The env of torch `version` (torch_version.h's form, checked by the caller): the cached one
  // (verified by importing torch), or a new one (refresh: always new). Holds the env's lock
  // (shared) until this cache is destroyed. Throws EnvError.
  ReadyEnv get(const std::string& version, bool refresh);
  const std::string& root() const { return root_; }

 private:
  int lock_file(const std::string& key);
  bool base_pip_takes_python();  // the base's pip is 22.3+ (pip --python ENV_PYTHON install ...)
  void make(const std::string& key, const std::string& version, const std::string& final_dir);
  void run_step(const std::vector<std::string>& argv, const std::string& log, const std::string& tmp,
                const std::string& what, const std::string& step);
  std::string root_;
  BasePython base_;
  IndexOptions index_;
  std::string uv_;
  std::ostream& out_;
  std::vector<int> lock_fds_;
  bool base_pip_checked_ = false, base_pip_python_ = false;
};

}  // namespace wmb::releases
