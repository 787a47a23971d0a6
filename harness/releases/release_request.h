// A release as the command line names it: VERSION[@[CHANNEL/]VARIANT] ("2.12", "2.12@cpu",
// "2.12@cu130", "2.13@test/cpu", "2.14@nightly/cu130"). The variant picks PyTorch's own index of
// that build, https://download.pytorch.org/whl/[CHANNEL/]VARIANT (the layout of PyTorch's "Start
// Locally" commands: /whl/cpu, /whl/cu130, /whl/test/cu130 for release candidates, /whl/nightly/cpu
// for nightlies), so that one command can compare a CPU and a CUDA build, or a release, its
// candidate and a nightly. The root is --variant-index-root (a mirror; the tests' local index).
// Pure: parsed and checked before anything runs; a request is only ever an argv element.
#pragma once

#include <string>

namespace wmb::releases {

// PyTorch's wheel indexes: ROOT/cpu, ROOT/cu130, ROOT/test/cpu, ROOT/nightly/cu130.
inline constexpr const char* kPyTorchWheelRoot = "https://download.pytorch.org/whl";

struct ReleaseRequest {
  std::string version;  // torch_version.h's form: "2.12", "2.12.1", "2.14.0.dev20261201"
  std::string channel;  // "" (stable), "test" (release candidates), "nightly"
  std::string variant;  // "" (the index the options give), "cpu", "cu130", "rocm6.4", "xpu"
  bool has_variant() const { return !variant.empty(); }
  // The index of its variant: ROOT/[CHANNEL/]VARIANT ("" without a variant).
  std::string index_url(const std::string& root) const;
  // Whether a nightly's dev versions must be allowed (pip's and uv's --pre).
  bool needs_pre() const { return channel == "nightly"; }
};

// Why `text` is not a release this command takes ("" when it is): a version (version_problem), then
// optionally '@', an optional channel "test/" or "nightly/", and a variant: cpu, xpu, cuNN[N]
// (cu118, cu130), rocmN[.N] (rocm6.4). The local part and a variant do not go together
// ("2.12.0+cpu@cpu": say one). At most 96 characters (never echoed longer).
std::string request_problem(const std::string& text);
// The parts of a request request_problem() took (call it first).
ReleaseRequest parse_request(const std::string& text);

// Whether an env's torch is the build its request's variant asked for: the variant is the local part
// of the version (2.12.0+cpu, 2.12.0+cu130); on macOS PyTorch's CPU index serves the plain wheel
// (2.12.0, no local part), which is its cpu build. `imported_variant`: TorchFacts::variant().
bool variant_matches(const ReleaseRequest& r, const std::string& imported_variant, const std::string& platform);

}  // namespace wmb::releases
