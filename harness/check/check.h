// `wmbench check DIR`: a result folder read the way a reviewer of a contributed folder reads it.
//
//  - schema: machine.json, scenario.json, runs/*.json and summary.json through the loader
//    (types, ranges, nesting, duplicate keys, UTF-8); no symbolic link, FIFO or folder where a
//    file belongs, no half-written (.tmp.) file;
//  - consistency: each run file's name is its index and label, no cell has two records, every
//    label is a cell of scenario.json, summary.json holds exactly the records of runs/ (field by
//    field) and the machine of machine.json, table.md and results.csv have a row for each;
//  - plausible numbers: held <= cap, held = steps x step for a fill, swap peak >= swap before and
//    after, dates that parse and do not run backwards, and on mps/mps-model a PyTorch stop's
//    max allowed = HIGH ratio x recommended max (to the 2 decimals of PyTorch's message).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace wmb {

struct CheckResult {
  bool unreadable = false;  // DIR is not a folder, or not a result folder at all
  std::vector<std::string> problems;
  std::vector<std::string> notes;  // unknown keys and files: kept, not problems
  size_t runs = 0;
};

CheckResult check_result_folder(const std::string& dir);

// "2026-11-29T19:16:55Z" -> seconds since 1970; nullopt when it does not parse.
std::optional<long long> parse_utc(const std::string& s);

}  // namespace wmb
