// libFuzzer target: the size and duration parsers of harness/common/units.h. The input is the
// text as written in a scenario file or on the command line ("512MiB", "min(2GiB, 5%RAM)", "30s").
//
// Checked: only wmb::UnitError is thrown; no crash or UB; parse_size with and without allow_zero
// agree; a plain "<digits>[.<digits>] <unit>" parses to digits x unit (a reference model);
// parse_size(std::to_string(n)) == n and parse_size(format_size(n)) ~ n; a SizeExpr that parsed
// keeps resolving (never throws), is constant in RAM when absolute, grows with RAM, and a
// "<pct>%RAM" resolves to at most pct% of RAM; parse_duration gives a finite value > 0 that
// survives printing and re-parsing.
#include <cctype>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "common/units.h"
#include "fuzz_common.h"

namespace {

static constexpr const char* kFuzzTarget = "fuzz_sizes";

// RAM sizes to resolve against: 0, tiny, usual Macs/Linux boxes, and up to 1 PiB.
// (Not beyond: see the report for resolve() with RAM near 2^64.)
constexpr uint64_t kRams[] = {0, 1, 7 * wmb::GiB, 16 * wmb::GiB, 128 * wmb::GiB, 1ull << 50};

template <class F>
auto no_throw_but_unit_error(F&& f, const char* what, std::string_view in) -> std::optional<decltype(f())> {
  try {
    return f();
  } catch (const wmb::UnitError&) {
    return std::nullopt;
  } catch (...) {
    wmb_fuzz::unexpected_exception(kFuzzTarget, what, in);
  }
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
  return true;
}

// The reference model for the plain form "<digits>[.<digits>][spaces]<unit>": the value in bytes
// as a long double, or nullopt when the text is not of that form.
std::optional<long double> plain_size(std::string_view t) {
  t = trim(t);
  size_t i = 0;
  while (i < t.size() && std::isdigit(static_cast<unsigned char>(t[i]))) ++i;
  if (i == 0 || i > 40) return std::nullopt;
  if (i < t.size() && t[i] == '.') {
    const size_t f = ++i;
    while (i < t.size() && std::isdigit(static_cast<unsigned char>(t[i]))) ++i;
    if (i == f || i > 60) return std::nullopt;
  }
  const std::string num(t.substr(0, i));
  std::string_view unit = trim(t.substr(i));
  struct U {
    const char* name;
    uint64_t mult;
  };
  static constexpr U kUnits[] = {{"", 1},          {"b", 1},          {"byte", 1},       {"bytes", 1},
                                 {"k", wmb::KiB},  {"kb", wmb::KiB},  {"kib", wmb::KiB}, {"m", wmb::MiB},
                                 {"mb", wmb::MiB}, {"mib", wmb::MiB}, {"g", wmb::GiB},   {"gb", wmb::GiB},
                                 {"gib", wmb::GiB}, {"t", wmb::TiB},  {"tb", wmb::TiB},  {"tib", wmb::TiB}};
  for (const U& u : kUnits)
    if (iequals(unit, u.name)) return std::strtold(num.c_str(), nullptr) * static_cast<long double>(u.mult);
  return std::nullopt;
}

void check_size(std::string_view in) {
  const auto strict = no_throw_but_unit_error([&] { return wmb::parse_size(in, false); }, "parse_size(text, false)", in);
  const auto lenient = no_throw_but_unit_error([&] { return wmb::parse_size(in, true); }, "parse_size(text, true)", in);
  if (strict) {
    FUZZ_CHECK(*strict > 0, in, "parse_size without allow_zero returned 0");
    FUZZ_CHECK(lenient && *lenient == *strict, in, "parse_size: allow_zero=true disagrees with allow_zero=false");
  } else if (lenient) {
    FUZZ_CHECK(*lenient == 0, in, fmt::format("parse_size refused without allow_zero but gave {} with it", *lenient));
  }

  if (const auto ref = plain_size(in)) {
    // 2^64 - 2^12 .. 2^64 + 2^12: either answer is fine (double rounding at the edge).
    const long double two64 = 18446744073709551616.0L;
    if (*ref < two64 - 4096.0L) {
      if (*ref >= 1.0L) FUZZ_CHECK(strict, in, fmt::format("parse_size refused a plain size of {} bytes", static_cast<double>(*ref)));
      if (lenient) {
        const long double got = static_cast<long double>(*lenient);
        const long double tol = *ref * 1e-15L + 1.0L;
        FUZZ_CHECK(std::fabs(got - *ref) <= tol, in,
                   fmt::format("parse_size gave {} for a plain size of {:.0f} bytes", *lenient, static_cast<double>(*ref)));
      }
    } else if (*ref > two64 + 4096.0L) {
      FUZZ_CHECK(!lenient, in, fmt::format("parse_size accepted a size over 2^64 bytes and gave {}", *lenient));
    }
  }

  if (lenient && *lenient > 0) {
    const uint64_t n = *lenient;
    if (n <= (1ull << 53)) {  // exact in a double
      const auto again = no_throw_but_unit_error([&] { return wmb::parse_size(std::to_string(n)); }, "parse_size(to_string(n))", in);
      FUZZ_CHECK(again && *again == n, in, fmt::format("parse_size(\"{}\") != {}", n, n));
      const auto bytes = no_throw_but_unit_error([&] { return wmb::parse_size(std::to_string(n) + " bytes"); }, "parse_size(n bytes)", in);
      FUZZ_CHECK(bytes && *bytes == n, in, fmt::format("parse_size(\"{} bytes\") != {}", n, n));
    }
    if (n <= (1ull << 60)) {  // format_size has 2 decimals: within 0.5 %
      const std::string f = wmb::format_size(n);
      const auto back = no_throw_but_unit_error([&] { return wmb::parse_size(f); }, "parse_size(format_size(n))", in);
      FUZZ_CHECK(back, in, fmt::format("parse_size(format_size({})) = parse_size(\"{}\") refused", n, f));
      const double rel = std::fabs(static_cast<double>(*back) - static_cast<double>(n)) / static_cast<double>(n);
      FUZZ_CHECK(rel <= 0.006, in, fmt::format("parse_size(format_size({}) = \"{}\") = {}", n, f, *back));
    }
    (void)wmb::format_size_short(n);
  }
}

void check_expr(std::string_view in, bool allow_zero) {
  const auto e = no_throw_but_unit_error([&] { return wmb::parse_size_expr(in, allow_zero); }, "parse_size_expr", in);
  if (!e) return;
  try {
    FUZZ_CHECK(e->text == trim(in), in, "parse_size_expr: text is not the trimmed input: \"" + e->text + "\"");
    const auto again = wmb::parse_size_expr(e->text, allow_zero);  // must not throw: it parsed once
    FUZZ_CHECK(again.text == e->text, in, "parse_size_expr(e.text).text != e.text");
    const bool rel = e->relative();
    uint64_t prev = 0;
    std::optional<uint64_t> first;
    for (uint64_t ram : kRams) {
      const uint64_t v = e->resolve(ram);
      FUZZ_CHECK(v >= prev, in, fmt::format("resolve() shrinks as RAM grows: {} at RAM {}", v, ram));
      prev = v;
      if (!first) first = v;
      if (!rel) FUZZ_CHECK(v == *first, in, fmt::format("an absolute size resolves to {} and to {}", *first, v));
    }
    const std::string l = [&] {
      std::string s(trim(in));
      for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      return s;
    }();
    const bool is_min = l.rfind("min(", 0) == 0;
    if (!rel && !is_min) {
      const uint64_t direct = wmb::parse_size(in, allow_zero);
      FUZZ_CHECK(e->resolve(16 * wmb::GiB) == direct, in, "an absolute SizeExpr resolves differently from parse_size");
    }
    if (!rel && !allow_zero) FUZZ_CHECK(e->resolve(0) > 0, in, "an absolute size parsed without allow_zero resolves to 0");
    if (rel && !is_min && l.size() > 4 && l.compare(l.size() - 4, 4, "%ram") == 0) {
      const auto pct = wmb::parse_number(std::string_view(e->text).substr(0, e->text.size() - 4));
      FUZZ_CHECK(pct && *pct > 0 && *pct <= 1000, in, "a %RAM term outside (0, 1000] was accepted");
      for (uint64_t ram : kRams) {
        const long double want = static_cast<long double>(ram) * *pct / 100.0L;
        const uint64_t got = e->resolve(ram);
        FUZZ_CHECK(static_cast<long double>(got) <= want + 1.0L && static_cast<long double>(got) >= want - 2.0L - want * 1e-15L, in,
                   fmt::format("{} of RAM {} resolves to {}", e->text, ram, got));
      }
    }
  } catch (...) {
    wmb_fuzz::unexpected_exception(kFuzzTarget, "a SizeExpr that parsed (relative/resolve/reparse)", in);
  }
}

void check_duration(std::string_view in) {
  const auto d = no_throw_but_unit_error([&] { return wmb::parse_duration(in); }, "parse_duration", in);
  if (!d) return;
  FUZZ_CHECK(*d > 0, in, fmt::format("parse_duration gave {} (must be > 0)", *d));
  FUZZ_CHECK(std::isfinite(*d), in,
             fmt::format("parse_duration gave {} (not finite: a scenario's timeout then dumps as null in scenario.json)", *d));
  const std::string printed = fmt::format("{}", *d);  // shortest text that reads back exactly
  const auto again = no_throw_but_unit_error([&] { return wmb::parse_duration(printed); }, "parse_duration(printed)", in);
  FUZZ_CHECK(again && *again == *d, in, fmt::format("parse_duration(\"{}\") does not give {} back", printed, *d));
  (void)wmb::format_duration(*d);
}

void check_number(std::string_view in) {
  std::optional<double> v;
  try {
    v = wmb::parse_number(in);
  } catch (...) {
    wmb_fuzz::unexpected_exception(kFuzzTarget, "parse_number", in);
  }
  if (!v) return;
  FUZZ_CHECK(std::isfinite(*v), in, "parse_number gave a non-finite value");
  const std::string printed = fmt::format("{}", *v);
  const auto again = wmb::parse_number(printed);
  FUZZ_CHECK(again && *again == *v, in, "parse_number(fmt(v)) != v for " + printed);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 4096) return 0;  // sizes are short; longer inputs only slow the search down
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  check_number(in);
  check_size(in);
  check_expr(in, false);
  check_expr(in, true);
  check_duration(in);
  return 0;
}
