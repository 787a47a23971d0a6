// Python environments with one torch release each, made once and cached for `wmbench releases`:
// $XDG_CACHE_HOME/wmbench/envs/torch-<version>-py<X.Y>-<arch>/ (else ~/.cache/wmbench/envs).
//
// Made with uv when it is on PATH (`uv venv`, `uv pip install`), else `PYTHON -m venv
// --without-pip` and PYTHON's own pip (`pip --python ENV/bin/python`, pip 22.3+), else `PYTHON -m
// venv` and the env's own pip; pip's index options are passed through as argv elements (never a shell). Each
// env is built in a temporary folder beside the cache's envs and renamed into place only after
// the install and an `import torch` of the asked release succeeded: a failed, interrupted or
// partial install is removed, never cached. A lock per env (flock on <key>.lock: exclusive while
// it is made, shared while a run uses it) keeps two runs sharing the cache apart: the second waits
// while the first makes the env (bounded: --lock-wait), then uses it or makes it.
#pragma once

#include <iosfwd>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

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
  // --no-index with --find-links that are all local folders (no "://"), and no index URL: pip can
  // only read files here, so there is nothing to download.
  bool local_only() const;
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
  std::string cuda;            // torch.version.cuda ("" for a build without CUDA)
  std::string platform;        // sys.platform: "linux", "darwin"
  std::string cuda_available, mps_available;  // "1", "0", "0: Error: why" (the call raised), "" (not asked)
  // What the Python child's mps device needs (child_python.h's PythonFacts, asked the same way):
  // torch.backends.mps, and torch.mps with current_allocated_memory. False when not said.
  bool has_backends_mps = false, has_torch_mps = false;
  // "" when this torch can run `device` (cuda, mps; any other: ""), else why not, naming the call.
  std::string unavailable(const std::string& device) const;
  // The build: the local part of the version ("cpu", "cu130"), else "cu<digits>" for a CUDA
  // build without one (PyPI's Linux wheels), else "default" (macOS's, PyPI's CPU builds elsewhere).
  std::string variant() const;
};
// Imports torch under `python` (isolated: -I, cwd "/", no PYTHON* variables), bounded in time.
// Throws EnvError naming the interpreter and what failed.
TorchFacts probe_torch(const std::string& python, double timeout_s = 120);

// The interpreter that makes the envs: its X.Y and its machine (platform.machine(): arm64 and
// x86_64 under Rosetta are different envs). Throws EnvError.
struct BasePython {
  std::string path, version_xy, machine;
  bool free_threaded = false;  // a free-threaded build (3.13t: Py_GIL_DISABLED), whose wheels are cp313t
  // "3.11", "3.13t": the Python part of an env's key
  std::string tag() const { return version_xy + (free_threaded ? "t" : ""); }
  // "Python 3.11 (cp311) on x86_64": the words for what a wheel must fit
  std::string words() const;
};
BasePython probe_base_python(const std::string& python);

// The marker inside a complete env: what was asked, how it was made, the torch it imports; written
// last, before the env is renamed into place (env_cache.cpp), read by the cache and by env_list.h.
inline constexpr const char* kEnvMarker = "wmbench-env.json";

// True when `path` is a folder itself (lstat: a link to one is not).
bool is_real_dir(const std::string& path);

// $XDG_CACHE_HOME/wmbench/envs, else $HOME/.cache/wmbench/envs; throws EnvError when neither is set.
std::string default_cache_root();

// install_failure.cpp: why an install failed, from the tail of pip's (or uv's) stderr: the index could not be reached,
// the version is not there (with the versions it has), the disk filled, no venv in that Python;
// `what` is the requirement, `where` the index options in words; `disk_nearly_full`: the cache's
// disk had (almost) nothing free after the step failed. Pure (unit-tested).
// `python`: "Python 3.11 (cp311) on x86_64", named where the index has no wheel for it. uv's
// messages are matched across its line wrapping.
std::string explain_install_failure(const std::string& log_tail, const std::string& what, const std::string& where,
                                    const std::string& step, bool disk_nearly_full = false, const std::string& python = "");

struct ReadyEnv {
  std::string key;     // torch-2.12-py3.11-x86_64
  std::string dir;     // the env
  std::string python;  // dir/bin/python
  TorchFacts torch;
  bool made_now = false;
  std::string installer;  // "uv" or "pip"
  nlohmann::json identity;  // EnvCache::identity() it was made and checked for
  nlohmann::json wheels;    // the wheels of its install (releases.h: wheels_from_report), null when unknown
};

class EnvCache {
 public:
  // `root`: the cache's envs folder (made when missing). `uv`: uv's path ("" = python -m venv + pip).
  EnvCache(std::string root, BasePython base, IndexOptions index, std::string uv, std::ostream& out);
  ~EnvCache();
  EnvCache(const EnvCache&) = delete;
  EnvCache& operator=(const EnvCache&) = delete;

  // What an env is keyed and checked by: the installer, the index options, the index variables
  // (PIP_*/UV_*) and pip's configured index, the Python (X.Y, free-threaded) and the machine.
  nlohmann::json identity() const;
  std::string installer() const;  // "uv" or "pip"
  std::string key_for(const std::string& version) const;
  // The env of torch `version` (torch_version.h's form, checked by the caller): the cached one
  // (verified by importing torch), or a new one (refresh: always new). Holds the env's lock
  // (shared) until this cache is destroyed. Throws EnvError.
  ReadyEnv get(const std::string& version, bool refresh);
  // The torch a request would install, without an environment, for a release whose torch is not
  // run (mps-model: the model is wmbench-fill's): the newest version the index lists for the base
  // Python that the request takes (pip's `index versions`, run by the base Python; no download).
  // Throws EnvError naming the index when it cannot be asked or lists no match.
  std::string version_on_index(const std::string& version) const;
  const std::string& root() const { return root_; }
  std::string index_words() const { return index_.describe(); }  // "--index-url URL", "pip's default index ..."
  // How long get() waits while another run makes the same env (default 30 minutes: a CUDA torch
  // is ~2.8 GB to download), then refuses naming the pid that holds it.
  void set_lock_wait(double seconds) { lock_wait_s_ = seconds; }
  // The cache of the same root, Python and installer for other index options (a release named
  // VERSION@VARIANT: release_request.h): owned by this one, so the locks of its envs are held as
  // long as this cache's. Itself when the options are its own. Throws EnvError.
  EnvCache& for_index(const IndexOptions& index);

 private:
  int lock_file(const std::string& key);
  // How the base's pip installs into an env without a pip of its own (pip 22.3+): its runner file
  // (pip/__pip-runner__.py) run by the env's python, or "--python" when it has none; "" for an
  // older pip (the env gets ensurepip's copy of pip).
  std::string base_pip_runner() const;
  // Makes the env in a temporary folder, checks its torch, moves it into place; returns what the
  // check found, its paths moved with the env (no second import of torch: seconds per env).
  TorchFacts make(const std::string& key, const std::string& version, const std::string& final_dir);
  void run_step(const std::vector<std::string>& argv, const std::string& log, const std::string& tmp,
                const std::string& what, const std::string& step);
  std::string root_;
  BasePython base_;
  IndexOptions index_;
  std::string uv_;
  std::ostream& out_;
  std::vector<std::string> pip_index_config() const;
  // What the base python's pip is, asked in one start (base_pip(), env_cache.cpp): its version,
  // the runner file its --python runs, and its configuration as `pip config list` prints it.
  struct BasePip {
    bool asked = false;
    int major = 0, minor = 0;      // 0.0: no pip, or no answer
    std::string runner;            // an absolute path, "" when it has none (zipped pip) or said another
    bool config_known = false;     // false: ask `pip config list` itself (pip_index_config)
    std::vector<std::string> config;  // "global.index-url='https://...'", every line
  };
  const BasePip& base_pip() const;
  bool lock_or_wait(int fd, const ReadyEnv& env);
  std::vector<std::string> uv_index_args() const;
  void use_cpu_wheels_without_gpu();
  void say_download_size(const std::vector<std::string>& pip_argv, const std::string& tmp, const std::string& what);
  std::vector<std::string> index_versions(const std::string& version, std::string& why) const;
  // index_versions' answers of this run, by whether --pre was asked: one page of the index serves
  // every release of the run (each ask is a pip start and a request, about a second of CPU).
  mutable std::map<bool, std::pair<std::vector<std::string>, std::string>> listed_;
  void say_newer(const std::string& version, const std::string& have, const std::string& dir);
  std::vector<int> lock_fds_;
  std::vector<std::unique_ptr<EnvCache>> siblings_;  // for_index()
  mutable std::vector<std::string> pip_config_;  // pip_index_config(), asked once
  double lock_wait_s_ = 1800;
  mutable BasePip base_pip_;
};

}  // namespace wmb::releases
