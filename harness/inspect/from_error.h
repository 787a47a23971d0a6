// `wmbench predict --from-error`: the Mac a pasted MPS out-of-memory message implies (read by the
// explain parser, errparse/error_parser.h), and how predict says what it read.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "inspect/predict_inputs.h"

namespace wmb::inspect {

// What `--from-error` reads off a pasted MPS out-of-memory message (the explain parser,
// errparse/error_parser.h): recommended max = max allowed / HIGH, "other allocations", and the
// step ("Tried to allocate": the aligned size, printed with 2 decimals, so a step that is not a
// round number comes back rounded).
struct FromError {
  uint64_t recommended_max = 0;
  uint64_t other = 0;
  std::optional<uint64_t> step;
  std::optional<uint64_t> likely_ram;
  double high = 0;  // the ratio the limit came from: --fraction, else --high, else the default HIGH
  bool high_given = false;
  bool from_fraction = false;
};

// Reads and parses the pasted text; prints why and returns nullopt when it is not an MPS
// out-of-memory message with a max allowed (the only message that implies a recommended max).
std::optional<FromError> read_from_error(const PredictArgs& a);

// The ratio the limit came from, as --json's "from_error" and the text's first line say it.
nlohmann::json from_error_json(const FromError& f);
std::string from_error_line(const FromError& f);
std::string from_error_source(const FromError& f);  // the recommended max's source

}  // namespace wmb::inspect
