// Who stopped a run: guard | pytorch | config | cap | finished | crash | timeout | interrupted
// (and not_started, decided before the child starts).
#pragma once

#include <optional>
#include <string>

#include "errparse/error_parser.h"
#include "guard/supervisor.h"
#include "runner/child_report.h"

namespace wmb {

struct Classification {
  std::string stopped_by;
  std::string detail;
  std::optional<ParsedError> error;
};

Classification classify(const SuperviseResult& sup, const ChildReport& child);

}  // namespace wmb
