// `wmbench check` of a tune folder's tune.json (tune/tune.h): the policy a `tune --resume`
// would search with (tune_policy_from_json, ratios as the probes use them), the answer, outcome
// and other side the folder's own records give (the search's pure code, tune/tune_policy.h,
// re-run on them), the probes it lists, and the export line exactly what the answer's ratios give
// (issue 30: a changed answer, or an export line beginning `curl ... | sh;`, passed).
#pragma once

#include <string>
#include <vector>

namespace wmb {

class Folder;
struct Report;

// Problems (each naming tune.json and the key) and notes; nothing when the folder has no tune.json.
void check_tune_json(const Folder& f, const Report& rep, std::vector<std::string>& problems, std::vector<std::string>& notes);

}  // namespace wmb
