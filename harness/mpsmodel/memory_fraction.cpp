#include "mpsmodel/memory_fraction.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace wmb::mpsmodel {

std::string python_float_repr(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  if (v == 0) return std::signbit(v) ? "-0.0" : "0.0";
  // The shortest "%.Ne" that reads back as v: Python's repr (David Gay's shortest digits).
  char buf[64];
  for (int prec = 1; prec <= 17; ++prec) {
    std::snprintf(buf, sizeof buf, "%.*e", prec - 1, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  std::string s(buf);
  const bool neg = s[0] == '-';
  if (neg) s.erase(0, 1);
  const size_t epos = s.find('e');
  const int exp = std::atoi(s.c_str() + epos + 1);
  std::string digits;
  for (size_t i = 0; i < epos; ++i)
    if (s[i] != '.') digits += s[i];
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  std::string out;
  if (exp < -4 || exp >= 16) {  // float_repr_style 'short': repr switches to exponent notation here
    out = digits.substr(0, 1);
    if (digits.size() > 1) out += "." + digits.substr(1);
    char e[16];
    std::snprintf(e, sizeof e, "e%c%02d", exp < 0 ? '-' : '+', std::abs(exp));
    out += e;
  } else if (exp < 0) {
    out = "0." + std::string(static_cast<size_t>(-exp - 1), '0') + digits;
  } else if (digits.size() <= static_cast<size_t>(exp) + 1) {
    out = digits + std::string(static_cast<size_t>(exp) + 1 - digits.size(), '0') + ".0";
  } else {
    out = digits.substr(0, static_cast<size_t>(exp) + 1) + "." + digits.substr(static_cast<size_t>(exp) + 1);
  }
  return (neg ? "-" : "") + out;
}

std::optional<std::string> python_fraction_error(double f) {
  if (f < 0 || f > kFractionUpperBound)  // NaN passes, as in Python
    return "Invalid fraction value: " + python_float_repr(f) + ". Allowed range: 0~2";
  return std::nullopt;
}

std::optional<std::string> python_cuda_fraction_error(double f) {
  if (f < 0 || f > 1) return "Invalid fraction value: " + python_float_repr(f) + ". Allowed range: 0~1";
  return std::nullopt;
}

}  // namespace wmb::mpsmodel
