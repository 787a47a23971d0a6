#include "errparse/error_parser.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <fmt/format.h>

#include "common/units.h"
#include "mpsmodel/macos_memory.h"

namespace wmb {
namespace {

constexpr size_t npos = std::string::npos;
constexpr double kTwoTo64 = 18446744073709551616.0;

bool is_space(unsigned char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}
bool is_digit(char c) { return c >= '0' && c <= '9'; }
char ascii_lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }
bool is_word_char(char c) { return is_digit(c) || (c >= 'a' && c <= 'z') || c == '_'; }

// The text as matched: ASCII-lowercased with all whitespace removed (so "max\n   allowed",
// "18.72\nGiB" and words broken by a hard wrap all match), and where each character came from.
struct View {
  std::string_view text;      // the original
  std::string s;              // lowercased, whitespace-free
  std::vector<size_t> orig;   // s[i] comes from text[orig[i]]
};

View make_view(std::string_view text) {
  View v;
  v.text = text;
  v.s.reserve(text.size());
  v.orig.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (is_space(c)) continue;
    // U+00A0 (no-break space), common in text copied from web pages.
    if (c == 0xC2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) == 0xA0) {
      ++i;
      continue;
    }
    v.s.push_back(ascii_lower(static_cast<char>(c)));
    v.orig.push_back(i);
  }
  return v;
}

bool starts_at(const std::string& s, size_t pos, std::string_view key) {
  return pos <= s.size() && s.size() - pos >= key.size() && s.compare(pos, key.size(), key.data(), key.size()) == 0;
}

struct SizeHit {
  std::optional<uint64_t> bytes;  // nullopt when the value does not fit 64 bits
  size_t begin = 0, end = 0;      // in View::s; end is one past the unit
};

struct Unit {
  std::string_view name;
  uint64_t mult;
};
// "bytes" from c10's format_size ("<= 1024" bytes); KB/MB/GB from older MPS builds (1024-based);
// KiB/MiB/GiB from newer ones. TB/TiB never appear in PyTorch's messages but cost nothing.
constexpr Unit kUnits[] = {{"bytes", 1},  {"kib", KiB}, {"mib", MiB}, {"gib", GiB}, {"tib", TiB},
                           {"kb", KiB},   {"mb", MiB},  {"gb", GiB},  {"tb", TiB}};

// A size starting exactly at `pos` of s: digits, optionally "." and digits, then a unit.
// nullopt when there is no number there or no unit after it (e.g. a message cut short).
std::optional<SizeHit> size_at(const std::string& s, size_t pos) {
  if (pos >= s.size() || !is_digit(s[pos])) return std::nullopt;
  size_t i = pos;
  while (i < s.size() && is_digit(s[i])) ++i;
  const size_t int_end = i;
  size_t frac_begin = i, frac_end = i;
  if (i + 1 < s.size() && s[i] == '.' && is_digit(s[i + 1])) {
    frac_begin = ++i;
    while (i < s.size() && is_digit(s[i])) ++i;
    frac_end = i;
  }
  const Unit* unit = nullptr;
  for (const Unit& u : kUnits) {
    if (starts_at(s, i, u.name)) {
      unit = &u;
      break;
    }
  }
  if (!unit) return std::nullopt;
  SizeHit hit;
  hit.begin = pos;
  hit.end = i + unit->name.size();

  size_t int_begin = pos;
  while (int_begin + 1 < int_end && s[int_begin] == '0') ++int_begin;  // leading zeros
  if (int_end - int_begin > 20) return hit;  // far beyond 2^64 whatever the unit: absent
  std::string digits(s, int_begin, int_end - int_begin);
  if (frac_end > frac_begin) {
    digits += '.';
    digits.append(s, frac_begin, std::min<size_t>(frac_end - frac_begin, 30));
  }
  // strtod, not std::from_chars: Apple's libc++ lacks the floating-point overloads. `digits`
  // holds only [0-9.], so locale and hex forms cannot come into it.
  char* end = nullptr;
  const double value = std::strtod(digits.c_str(), &end);
  if (end != digits.c_str() + digits.size() || !std::isfinite(value) || value < 0) return hit;
  const double bytes = std::round(value * static_cast<double>(unit->mult));
  if (!(bytes < kTwoTo64)) return hit;
  hit.bytes = static_cast<uint64_t>(bytes);
  return hit;
}

// The first size written right after `key` (at or after `from`), e.g. key "maxallowed:".
std::optional<SizeHit> size_after(const View& v, std::string_view key, size_t from) {
  for (size_t pos = v.s.find(key.data(), from, key.size()); pos != npos;
       pos = v.s.find(key.data(), pos + 1, key.size())) {
    if (auto hit = size_at(v.s, pos + key.size())) return hit;
  }
  return std::nullopt;
}

// The first size (at or after `from`) that is followed directly by `key`, e.g. "alreadyallocated".
std::optional<SizeHit> size_before(const View& v, std::string_view key, size_t from) {
  const std::string& s = v.s;
  size_t i = from;
  while (i < s.size()) {
    // A number starts here unless this digit continues one: "5" in "15" or in "1.5". A '.' after
    // a word is a full stop ("is free.13.98giballowed" once whitespace is gone).
    const bool continues = i > 0 && (is_digit(s[i - 1]) || (s[i - 1] == '.' && i > 1 && is_digit(s[i - 2])));
    if (is_digit(s[i]) && !continues) {
      if (auto hit = size_at(s, i)) {
        if (starts_at(s, hit->end, key)) return hit;
      }
      while (i < s.size() && (is_digit(s[i]) || s[i] == '.')) ++i;
    } else {
      ++i;
    }
  }
  return std::nullopt;
}

std::optional<uint64_t> bytes_of(const std::optional<SizeHit>& h) {
  return h ? h->bytes : std::nullopt;
}

std::optional<SizeHit> first_of(std::optional<SizeHit> a, std::optional<SizeHit> b) {
  if (a && b) return a->begin <= b->begin ? a : b;
  return a ? a : b;
}

// The CUDA device index: "(GPU 0;" (old form) or "GPU 3 has a total capacity" (new form).
std::optional<int> gpu_index(const View& v, size_t from) {
  for (size_t pos = v.s.find("gpu", from); pos != npos; pos = v.s.find("gpu", pos + 1)) {
    size_t i = pos + 3, n = 0;
    int value = 0;
    while (i < v.s.size() && is_digit(v.s[i]) && n < 6) {
      value = value * 10 + (v.s[i] - '0');
      ++i;
      ++n;
    }
    if (n == 0 || n >= 6) continue;
    if (i < v.s.size() && (v.s[i] == ';' || v.s[i] == ')' || starts_at(v.s, i, "has"))) return value;
  }
  return std::nullopt;
}

// The ratio after "invalid ... watermark ratio", read from the original text (a number is not
// joined across whitespace here: "ratio 1.4\n2024-01-01" is 1.4).
std::optional<double> ratio_after(const View& v, size_t key_end) {
  if (key_end == 0 || key_end > v.orig.size()) return std::nullopt;
  size_t i = v.orig[key_end - 1] + 1;
  const std::string_view t = v.text;
  while (i < t.size() && (is_space(static_cast<unsigned char>(t[i])) || t[i] == ':')) ++i;
  if (i >= t.size()) return std::nullopt;
  if (t[i] == '+') ++i;
  const size_t len = std::min<size_t>(t.size() - i, 64);
  // A plain decimal number ([0-9.eE+-]); strtod on a copy (Apple's libc++ has no floating-point
  // std::from_chars).
  size_t n = 0;
  while (n < len && (std::isdigit(static_cast<unsigned char>(t[i + n])) || t[i + n] == '.' || t[i + n] == 'e' ||
                     t[i + n] == 'E' || t[i + n] == '-' || t[i + n] == '+'))
    ++n;
  const std::string num(t.substr(i, n));
  char* end = nullptr;
  const double value = std::strtod(num.c_str(), &end);
  if (end == num.c_str() || !std::isfinite(value)) return std::nullopt;
  return value;
}

// Whole-word search in the lowercased original text (whitespace kept): "stod" must not match
// inside "allocations to disable" the way it would in the whitespace-free view.
bool has_word(const std::string& lowered, std::string_view word) {
  for (size_t pos = lowered.find(word.data(), 0, word.size()); pos != npos;
       pos = lowered.find(word.data(), pos + 1, word.size())) {
    const bool left_ok = pos == 0 || !is_word_char(lowered[pos - 1]);
    const size_t after = pos + word.size();
    const bool right_ok = after >= lowered.size() || !is_word_char(lowered[after]);
    if (left_ok && right_ok) return true;
  }
  return false;
}

bool contains(const std::string& s, std::string_view key) { return s.find(key.data(), 0, key.size()) != npos; }

// Conservative: a bare std::stod failure ("stod", "stod: no conversion"), or an allocator-config
// key mentioned together with words of a parse/validation error.
bool is_alloc_conf_error(const View& v) {
  std::string lowered(v.text.substr(0, std::min<size_t>(v.text.size(), 1 << 20)));
  for (char& c : lowered) c = ascii_lower(c);
  if (has_word(lowered, "stod")) return true;
  const bool mentions_conf = contains(v.s, "per_process_memory_fraction") || contains(v.s, "_alloc_conf") ||
                             contains(v.s, "allocatorconfig") || contains(v.s, "cachingallocatoroption");
  if (!mentions_conf) return false;
  static constexpr std::string_view kErrorWords[] = {"invalid", "expected", "expecting", "unrecognized",
                                                     "malformed", "parse", "notanumber", "mustbe",
                                                     "outofrange"};
  for (auto w : kErrorWords)
    if (contains(v.s, w)) return true;
  return false;
}

std::string size_or(const std::optional<uint64_t>& b, std::string_view fallback = "?") {
  return b ? format_size(*b) : std::string(fallback);
}

struct Signature {
  ErrorKind kind;
  std::string_view key;
};

constexpr Signature kSignatures[] = {
    {ErrorKind::MpsOom, "mpsbackendoutofmemory"},
    {ErrorKind::CudaOom, "cudaoutofmemory"},
    {ErrorKind::CudaOom, "cudaerror:outofmemory"},
    {ErrorKind::CudaOom, "cudaruntimeerror(2):outofmemory"},
    {ErrorKind::CpuOom, "defaultcpuallocator"},
    {ErrorKind::InvalidWatermark, "invalidlowwatermarkratio"},
    {ErrorKind::InvalidWatermark, "invalidhighwatermarkratio"},
    {ErrorKind::InvalidBufferSize, "invalidbuffersize"},
    {ErrorKind::InvalidMemoryFraction, "invalidfraction"},
};

void parse_mps(const View& v, size_t from, ParsedError& e) {
  auto allocated = first_of(size_after(v, "mpsallocated:", from), size_after(v, "currentlyallocated:", from));
  auto other = size_after(v, "otherallocations:", from);
  auto max_allowed = size_after(v, "maxallowed:", from);
  auto requested = size_after(v, "triedtoallocate", from);
  e.allocated_bytes = bytes_of(allocated);
  e.other_bytes = bytes_of(other);
  e.max_allowed_bytes = bytes_of(max_allowed);
  e.requested_bytes = bytes_of(requested);
  if (requested) {
    if (starts_at(v.s, requested->end, "onshared")) e.pool = "shared";
    else if (starts_at(v.s, requested->end, "onprivate")) e.pool = "private";
  }
  // With HIGH = 0.0 the message reads "(MPS allocated: A, other allocations: O). Tried to ...".
  const bool limit_off = !max_allowed && other && starts_at(v.s, other->end, ")");

  std::string sizes;
  if (e.allocated_bytes) sizes += fmt::format("MPS allocated {}", format_size(*e.allocated_bytes));
  if (e.other_bytes) sizes += fmt::format("{}other allocations {}", sizes.empty() ? "" : ", ", format_size(*e.other_bytes));
  if (e.requested_bytes)
    sizes += fmt::format("{}tried to allocate {}{}", sizes.empty() ? "" : ", ", format_size(*e.requested_bytes),
                         e.pool ? " on the " + *e.pool + " pool" : "");
  const std::string tail = sizes.empty() ? "." : "; " + sizes + ".";
  if (e.max_allowed_bytes) {
    e.summary = fmt::format(
        "PyTorch's MPS allocator hit its limit (the HIGH watermark): max allowed {}{}",
        format_size(*e.max_allowed_bytes), tail);
  } else if (max_allowed) {
    e.summary = "PyTorch's MPS allocator hit its limit (the \"max allowed\" value in the message is not a readable size)" + tail;
  } else if (limit_off) {
    e.summary = "PyTorch's MPS backend ran out of memory with no upper limit set (PYTORCH_MPS_HIGH_WATERMARK_RATIO=0.0): "
                "Metal itself could not allocate" + tail;
  } else {
    e.summary = "PyTorch's MPS backend ran out of memory; the message gives no \"max allowed\" (cut short, or the "
                "limit was off)" + tail;
  }
}

void parse_cuda(const View& v, size_t from, std::string_view signature, ParsedError& e) {
  auto requested = size_after(v, "triedtoallocate", from);
  auto allocated = first_of(size_before(v, "isallocatedbypytorch", from), size_before(v, "alreadyallocated", from));
  auto allowed = size_before(v, "allowed", from);
  auto total = first_of(first_of(size_after(v, "totalcapacityof", from), size_after(v, "totalcapactyof", from)),
                        first_of(size_before(v, "totalcapacity", from), size_before(v, "totalcapacty", from)));
  auto free = first_of(size_after(v, "ofwhich", from), size_before(v, "free", from));
  e.requested_bytes = bytes_of(requested);
  e.allocated_bytes = bytes_of(allocated);
  e.max_allowed_bytes = bytes_of(allowed);
  e.total_bytes = bytes_of(total);
  e.free_bytes = bytes_of(free);
  e.gpu = gpu_index(v, from);

  if (signature != "cudaoutofmemory") {
    e.summary = "The CUDA driver reported out of memory (a raw CUDA error outside PyTorch's caching allocator); "
                "the message gives no sizes.";
    return;
  }
  const std::string gpu = e.gpu ? fmt::format("GPU {}", *e.gpu) : std::string("the GPU");
  const std::string req = e.requested_bytes ? format_size(*e.requested_bytes) + " " : std::string();
  if (e.max_allowed_bytes) {
    e.summary = fmt::format(
        "PyTorch's CUDA caching allocator hit its per-process cap on {}: {} allowed (per_process_memory_fraction){}{}; "
        "it could not allocate {}more.",
        gpu, format_size(*e.max_allowed_bytes),
        e.total_bytes ? " of " + format_size(*e.total_bytes) + " total" : std::string(),
        e.allocated_bytes ? ", " + format_size(*e.allocated_bytes) + " allocated by PyTorch" : std::string(), req);
  } else {
    std::string detail;
    if (e.total_bytes) detail += "total capacity " + format_size(*e.total_bytes);
    if (e.free_bytes) detail += (detail.empty() ? "" : ", ") + format_size(*e.free_bytes) + " free";
    if (e.allocated_bytes) detail += (detail.empty() ? "" : ", ") + format_size(*e.allocated_bytes) + " allocated by PyTorch";
    e.summary = fmt::format("{} ran out of memory: PyTorch could not allocate {}more{}.", gpu, req,
                            detail.empty() ? "" : " (" + detail + ")");
  }
}

void parse_cpu(const View& v, size_t from, ParsedError& e) {
  e.requested_bytes = bytes_of(size_after(v, "triedtoallocate", from));
  e.summary = fmt::format(
      "The CPU allocator could not get {} from the operating system (RAM, an address-space ulimit or a cgroup limit).",
      e.requested_bytes ? format_size(*e.requested_bytes) : std::string("memory"));
}

}  // namespace

std::string kind_name(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::MpsOom: return "mps_oom";
    case ErrorKind::CudaOom: return "cuda_oom";
    case ErrorKind::CpuOom: return "cpu_oom";
    case ErrorKind::InvalidWatermark: return "invalid_watermark";
    case ErrorKind::InvalidBufferSize: return "invalid_buffer_size";
    case ErrorKind::InvalidAllocConf: return "invalid_alloc_conf";
    case ErrorKind::InvalidMemoryFraction: return "invalid_memory_fraction";
    case ErrorKind::Unknown: return "unknown";
  }
  return "unknown";
}

std::optional<ErrorKind> kind_from_name(std::string_view name) {
  for (ErrorKind k : {ErrorKind::MpsOom, ErrorKind::CudaOom, ErrorKind::CpuOom, ErrorKind::InvalidWatermark,
                      ErrorKind::InvalidBufferSize, ErrorKind::InvalidAllocConf, ErrorKind::InvalidMemoryFraction,
                      ErrorKind::Unknown})
    if (kind_name(k) == name) return k;
  return std::nullopt;
}

ParsedError parse_error(std::string_view text) {
  ParsedError e;
  try {
    const View v = make_view(text);

    // The earliest signature in the text decides the kind.
    const Signature* best = nullptr;
    size_t best_pos = npos;
    for (const Signature& sig : kSignatures) {
      const size_t pos = v.s.find(sig.key.data(), 0, sig.key.size());
      if (pos == npos || pos >= best_pos) continue;
      if (sig.kind == ErrorKind::CpuOom && !contains(v.s.substr(pos), "allocatememory") &&
          !contains(v.s.substr(pos), "notenoughmemory") && !contains(v.s.substr(pos), "triedtoallocate"))
        continue;
      best = &sig;
      best_pos = pos;
    }
    // An MPS message pasted without its first words: "(MPS allocated: A, other allocations: O, ...".
    if (!best) {
      const size_t a = v.s.find("mpsallocated:");
      const size_t c = v.s.find("currentlyallocated:");
      if (a != npos && contains(v.s, "otherallocations:")) {
        best = &kSignatures[0];
        best_pos = a;
      } else if (c != npos && contains(v.s, "maxallowed:")) {
        best = &kSignatures[0];
        best_pos = c;
      }
    }

    if (best) {
      e.kind = best->kind;
      switch (best->kind) {
        case ErrorKind::MpsOom: parse_mps(v, best_pos, e); break;
        case ErrorKind::CudaOom: parse_cuda(v, best_pos, best->key, e); break;
        case ErrorKind::CpuOom: parse_cpu(v, best_pos, e); break;
        case ErrorKind::InvalidWatermark: {
          const bool low = best->key == "invalidlowwatermarkratio";
          e.watermark = low ? "low" : "high";
          e.ratio = ratio_after(v, best_pos + best->key.size());
          const std::string r = e.ratio ? fmt::format(" {:g}", *e.ratio) : std::string();
          e.summary = low ? fmt::format("PyTorch rejected PYTORCH_MPS_LOW_WATERMARK_RATIO{}: LOW must not exceed HIGH "
                                        "(LOW defaults to 1.4, so setting only HIGH below 1.4 fails).", r)
                          : fmt::format("PyTorch rejected PYTORCH_MPS_HIGH_WATERMARK_RATIO{}: HIGH must lie in [0, 2.0].", r);
          break;
        }
        case ErrorKind::InvalidBufferSize: {
          e.requested_bytes = bytes_of(size_after(v, "invalidbuffersize:", best_pos));
          e.summary = fmt::format(
              "One MPS buffer of {} is larger than Metal allows for a single buffer (maxBufferLength); this is not "
              "the watermark limit.",
              size_or(e.requested_bytes, "this size"));
          break;
        }
        case ErrorKind::InvalidMemoryFraction:
          e.summary = "PyTorch refused the per-process memory fraction (set_per_process_memory_fraction): on MPS it "
                      "must lie in [0, 2] (a multiple of the recommended max), on CUDA in [0, 1] (of the device's "
                      "memory).";
          break;
        default: break;
      }
      return e;
    }

    if (is_alloc_conf_error(v)) {
      e.kind = ErrorKind::InvalidAllocConf;
      e.summary = "PyTorch could not parse its allocator configuration (PYTORCH_CUDA_ALLOC_CONF, e.g. a "
                  "per_process_memory_fraction that is not a number in [0.0, 1.0]).";
      return e;
    }
    e.summary = "Not a memory-limit message: no MPS/CUDA/CPU out-of-memory, watermark, buffer-size or allocator-config "
                "error was recognized.";
  } catch (...) {
    // Only std::bad_alloc can get here; classify as unknown rather than throw.
    e = ParsedError{};
    e.summary = "Not a memory-limit message (the text could not be examined).";
  }
  return e;
}

nlohmann::json to_json(const ParsedError& e) {
  auto opt = [](const auto& o) -> nlohmann::json { return o ? nlohmann::json(*o) : nlohmann::json(nullptr); };
  nlohmann::json j = nlohmann::json::object();
  j["kind"] = kind_name(e.kind);
  j["allocated_bytes"] = opt(e.allocated_bytes);
  j["other_bytes"] = opt(e.other_bytes);
  j["max_allowed_bytes"] = opt(e.max_allowed_bytes);
  j["requested_bytes"] = opt(e.requested_bytes);
  j["pool"] = opt(e.pool);
  j["watermark"] = opt(e.watermark);
  j["ratio"] = opt(e.ratio);
  j["total_bytes"] = opt(e.total_bytes);
  j["free_bytes"] = opt(e.free_bytes);
  j["gpu"] = opt(e.gpu);
  j["summary"] = e.summary;
  return j;
}

void to_json(nlohmann::json& j, const ParsedError& e) { j = to_json(e); }

// ---------------------------------------------------------------------------------------------
// explain

std::optional<uint64_t> implied_recommended_max(const ParsedError& e, double high) {
  if (e.kind != ErrorKind::MpsOom || !e.max_allowed_bytes || !(high > 0) || !std::isfinite(high)) return std::nullopt;
  const double r = std::round(static_cast<double>(*e.max_allowed_bytes) / high);
  if (!(r < kTwoTo64)) return std::nullopt;
  return static_cast<uint64_t>(r);
}

namespace {

std::string ram_class(uint64_t ram) {
  if (ram % GiB == 0) return fmt::format("{} GB", ram / GiB);
  return format_size(ram);
}

uint64_t sat_add(uint64_t a, uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }

const char* kBothRatios =
    "Set both ratios: LOW (PYTORCH_MPS_LOW_WATERMARK_RATIO) defaults to 1.4 on Apple silicon and must not exceed "
    "HIGH, so HIGH=0.8 alone fails at the first MPS allocation with \"invalid low watermark ratio 1.4\".\n";
const char* kZeroRemoves =
    "The message's own hint, PYTORCH_MPS_HIGH_WATERMARK_RATIO=0.0, removes the limit: the job then keeps allocating "
    "past what fits in RAM and slides into swap, slowing the whole Mac, instead of stopping with a clean error.\n";
const char* kSetBefore =
    "PyTorch reads both variables once, when MPS is first used: set them before the process starts.\n";

void explain_mps(const ParsedError& e, const ExplainOptions& opt, std::string& out) {
  auto line = [&](std::string_view label, const std::optional<uint64_t>& b, std::string_view note) {
    if (b) out += fmt::format("  {:<19}{:>12}  {}\n", label, format_size(*b), note);
  };
  line("max allowed:", e.max_allowed_bytes, "= HIGH ratio x the Mac's recommended max working set");
  line("MPS allocated:", e.allocated_bytes, "held by PyTorch's allocator (tensors and cached blocks)");
  line("other allocations:", e.other_bytes, "Metal memory outside PyTorch's heaps");
  line("tried to allocate:", e.requested_bytes, e.pool ? "on the " + *e.pool + " pool" : std::string());
  if (e.allocated_bytes && e.other_bytes && e.requested_bytes && e.max_allowed_bytes) {
    const uint64_t sum = sat_add(sat_add(*e.allocated_bytes, *e.other_bytes), *e.requested_bytes);
    out += fmt::format("  allocated + other + request = {} {} max allowed {}\n", format_size(sum),
                       sum > *e.max_allowed_bytes ? ">" : "<=", format_size(*e.max_allowed_bytes));
  }
  out += '\n';

  const double ratio = opt.ratio();
  const auto rec = implied_recommended_max(e, ratio);
  if (rec) {
    out += fmt::format("Which limit: PyTorch's own MPS limit (HIGH watermark), not the end of RAM.\n");
    // The same text comes from the HIGH variable and from set_per_process_memory_fraction(F): say
    // which ratio was used and that the limit may come from either (issue 30).
    if (opt.fraction)
      out += fmt::format("Limit ratio: {:g} (from --fraction: torch.mps.set_per_process_memory_fraction({:g}) replaces the "
                         "HIGH ratio{})\n",
                         ratio, ratio, opt.high_given ? fmt::format(", so --high {:g} was not in force", opt.high) : "");
    else if (opt.high_given)
      out += fmt::format("HIGH ratio: {:g} (from --high; if the code calls torch.mps.set_per_process_memory_fraction(F), "
                         "that F replaced it: pass --fraction F)\n",
                         ratio);
    else
      out += fmt::format("HIGH ratio: {:g} (assumed: PyTorch's default. The same message comes from "
                         "PYTORCH_MPS_HIGH_WATERMARK_RATIO and from torch.mps.set_per_process_memory_fraction(F), which "
                         "replaces HIGH: pass --high RATIO or --fraction F if either was set)\n",
                         ratio);
    out += fmt::format("Implied recommended max working set: {} / {:g} = {}\n", format_size(*e.max_allowed_bytes),
                       ratio, format_size(*rec));
    const auto ram = mpsmodel::likely_ram_for_recommended(*rec);
    if (ram)
      out += fmt::format("Likely Mac RAM: {} (estimated from Apple's recommended-working-set sizes)\n", ram_class(*ram));
    else
      out += "Likely Mac RAM: unknown (no usual Mac size matches; if HIGH was not " +
             fmt::format("{:g}", ratio) + ", pass --high RATIO)\n";
    out += '\n';
    const long double sug = std::roundl(static_cast<long double>(*rec) * kSuggestedWatermark);
    const uint64_t suggested = sug >= 18446744073709551615.0L ? UINT64_MAX : static_cast<uint64_t>(sug);
    if (ratio > 1.0) {
      out += fmt::format(
          "With HIGH {:g} the limit lies above what fits in RAM: by the time PyTorch raised this error the Mac was "
          "most likely already swapping.\n",
          ratio);
    } else if (ratio <= kSuggestedWatermark) {
      out += fmt::format(
          "HIGH {:g} did its job: the job stopped with a clean error. If that much memory really is free with your "
          "everyday apps open, you can raise both ratios up to about {:g} ({}); above that the job can slide into "
          "swap. Otherwise make the job smaller (batch size, resolution, one model stage at a time).\n",
          ratio, kSuggestedWatermark, format_size(suggested));
    }
    out += fmt::format(
        "For a clean error below RAM (instead of swapping), set a HIGH/LOW pair, e.g. {:g}/{:g} of the recommended "
        "max:\n"
        "  PYTORCH_MPS_HIGH_WATERMARK_RATIO={:g} PYTORCH_MPS_LOW_WATERMARK_RATIO={:g} python your_script.py\n"
        "  -> limit {:g} x {} = {}\n",
        kSuggestedWatermark, kSuggestedWatermark, kSuggestedWatermark, kSuggestedWatermark, kSuggestedWatermark,
        format_size(*rec), format_size(suggested));
  } else if (e.max_allowed_bytes) {
    // The message has a max allowed, but max allowed / HIGH is beyond 2^64 bytes: the HIGH given
    // cannot be the one in force (explain --high 1e-10 once said there was no max allowed).
    out += fmt::format(
        "The message says max allowed {}, but with HIGH {:g} that implies a recommended max working set of more than "
        "2^64 bytes, which no machine has: HIGH {:g} cannot have been in force. Pass the "
        "PYTORCH_MPS_HIGH_WATERMARK_RATIO you really set with --high (PyTorch's default is 1.7).\n",
        format_size(*e.max_allowed_bytes), ratio, ratio);
  } else {
    out += "No \"max allowed\" in the message: either the limit was off (PYTORCH_MPS_HIGH_WATERMARK_RATIO=0.0) and "
           "Metal itself could not allocate, meaning memory really ran out (expect swap), or the message was cut "
           "short before that part (paste the whole line).\n"
           "For a clean error below RAM instead, set a HIGH/LOW pair such as 0.8/0.8 (of the recommended max):\n"
           "  PYTORCH_MPS_HIGH_WATERMARK_RATIO=0.8 PYTORCH_MPS_LOW_WATERMARK_RATIO=0.8 python your_script.py\n";
  }
  out += kBothRatios;
  out += kSetBefore;
  out += kZeroRemoves;
  out += "Keep the limit below the memory that is really free with your everyday apps open; if the job needs more, "
         "lower batch size or resolution.\n";
}

void explain_cuda(const ParsedError& e, std::string& out) {
  auto line = [&](std::string_view label, const std::optional<uint64_t>& b) {
    if (b) out += fmt::format("  {:<22}{:>12}\n", label, format_size(*b));
  };
  if (e.gpu) out += fmt::format("  {:<22}{:>12}\n", "GPU:", *e.gpu);
  line("total capacity:", e.total_bytes);
  line("free:", e.free_bytes);
  line("allowed (cap):", e.max_allowed_bytes);
  line("allocated by PyTorch:", e.allocated_bytes);
  line("tried to allocate:", e.requested_bytes);
  out += '\n';
  if (e.max_allowed_bytes) {
    std::string frac;
    if (e.total_bytes && *e.total_bytes > 0)
      frac = fmt::format(" ({:.2f} of the total capacity)",
                         static_cast<double>(*e.max_allowed_bytes) / static_cast<double>(*e.total_bytes));
    out += fmt::format(
        "Which limit: a per-process cap of {}{}, not the card. It comes from "
        "PYTORCH_CUDA_ALLOC_CONF=per_process_memory_fraction:F (torch >= ~2.9) or "
        "torch.cuda.set_per_process_memory_fraction(F). Raise F to allow more, or lower it for an earlier clean "
        "error.\n",
        format_size(*e.max_allowed_bytes), frac);
  } else if (e.total_bytes || e.free_bytes || e.allocated_bytes || e.requested_bytes) {
    out += "Which limit: the GPU's own memory (no per-process cap in the message). To stop a job at a size you "
           "choose, cap the caching allocator with PYTORCH_CUDA_ALLOC_CONF=per_process_memory_fraction:0.9 (a fraction "
           "of total capacity, torch >= ~2.9) or torch.cuda.set_per_process_memory_fraction(0.9).\n";
  } else {
    out += "Which limit: the device's memory, as seen by a raw CUDA call (no sizes in the message). "
           "A per-process cap (PYTORCH_CUDA_ALLOC_CONF=per_process_memory_fraction:F) bounds only PyTorch's caching "
           "allocator.\n";
  }
}

}  // namespace

std::string explain_text(const ParsedError& e, const ExplainOptions& opt) {
  std::string out = fmt::format("{}: {}\n", kind_name(e.kind), e.summary);
  switch (e.kind) {
    case ErrorKind::MpsOom: explain_mps(e, opt, out); break;
    case ErrorKind::CudaOom: explain_cuda(e, out); break;
    case ErrorKind::CpuOom:
      out += "Which limit: the process's RAM as the operating system grants it (not an accelerator limit). Check the "
             "address-space limit (ulimit -v / RLIMIT_AS), a container or cgroup memory limit (memory.max; wmbench's "
             "--ram-limit sets one), and what else is using RAM.\n";
      break;
    case ErrorKind::InvalidWatermark: {
      const bool low = e.watermark && *e.watermark == "low";
      const std::string r = e.ratio ? fmt::format("{:g}", *e.ratio) : std::string("the value");
      if (low) {
        if (e.ratio && *e.ratio == kDefaultLowWatermark)
          out += "1.4 is LOW's default on Apple silicon: you most likely set only PYTORCH_MPS_HIGH_WATERMARK_RATIO, to "
                 "a value below 1.4.\n";
        out += fmt::format("LOW = {} is checked against HIGH: it must lie in [0, HIGH] (or [0, 2.0] when HIGH is 0.0). "
                           "The check runs at the first MPS allocation, not at import.\n", r);
      } else {
        out += fmt::format("HIGH = {} is outside [0, 2.0]. 0.0 removes the limit (the job can slide into swap); around "
                           "0.8 gives a clean error below RAM on most Macs.\n", r);
      }
      out += "Set both variables, LOW <= HIGH, before the process starts, e.g.:\n"
             "  PYTORCH_MPS_HIGH_WATERMARK_RATIO=0.8 PYTORCH_MPS_LOW_WATERMARK_RATIO=0.8 python your_script.py\n"
             "(A value that is not a number is read as 0.0 without any error.)\n";
      break;
    }
    case ErrorKind::InvalidBufferSize:
      out += "Which limit: Metal's maximum size of one buffer (MTLDevice.maxBufferLength), checked before the watermark "
             "limit. No environment variable changes it: make that one tensor smaller (batch size, resolution, or "
             "split/tile the operation).\n";
      break;
    case ErrorKind::InvalidAllocConf:
      out += "\"stod\" is the C++ number parser failing on a value. The form is comma-separated key:value pairs, e.g.\n"
             "  PYTORCH_CUDA_ALLOC_CONF=per_process_memory_fraction:0.9,expandable_segments:True\n"
             "per_process_memory_fraction must be a number in [0.0, 1.0] (a fraction of the GPU's total capacity). "
             "The value is read at the first CUDA allocation.\n";
      break;
    case ErrorKind::InvalidMemoryFraction:
      out += "torch.mps.set_per_process_memory_fraction(F) sets only HIGH (max allowed = F x recommended max) and "
             "skips the LOW check, so F = 0.8 works where PYTORCH_MPS_HIGH_WATERMARK_RATIO=0.8 alone fails; F must lie "
             "in [0, 2]. torch.cuda.set_per_process_memory_fraction(F) takes F in [0, 1] of the GPU's memory.\n";
      break;
    case ErrorKind::Unknown:
      out += "wmbench recognizes: \"MPS backend out of memory\", \"CUDA out of memory\" / \"CUDA error: out of memory\", "
             "DefaultCPUAllocator failures, \"invalid low/high watermark ratio\", \"Invalid buffer size\" and malformed "
             "PYTORCH_CUDA_ALLOC_CONF values. Paste the whole error line (the one after \"RuntimeError:\").\n";
      break;
  }
  return out;
}

nlohmann::json explain_json(const ParsedError& e, const ExplainOptions& opt) {
  nlohmann::json j = to_json(e);
  j["limit_ratio"] = opt.ratio();
  j["limit_ratio_from"] = opt.fraction ? "fraction" : opt.high_given ? "high" : "default";
  if (const auto rec = implied_recommended_max(e, opt.ratio())) {
    j["implied_recommended_max_bytes"] = *rec;
    const auto ram = mpsmodel::likely_ram_for_recommended(*rec);
    j["likely_ram_bytes"] = ram ? nlohmann::json(*ram) : nlohmann::json(nullptr);
  }
  return j;
}

}  // namespace wmb
