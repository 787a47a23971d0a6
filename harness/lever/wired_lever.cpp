#include "lever/wired_lever.h"

#include <unistd.h>

#include <fmt/format.h>

#include "common/run_error.h"
#include "common/units.h"

namespace wmb::lever {
namespace {

constexpr const char* kLeverFile = "lever.json";

std::string cell_key(const Cell& c) { return fmt::format("cell \"{}\": key \"sysctl\".\"{}\"", c.label, kWiredLimitKey); }

bool device_writes(const std::string& device) { return device == "mps" || (device == "mps-model" && standin_named()); }

}  // namespace

std::unique_ptr<WiredLever> check_wired_lever(const std::vector<const Cell*>& cells, const std::string& device,
                                              uint64_t ram, bool root) {
  bool any = false;
  for (const Cell* c : cells) {
    if (!c->wired_limit) continue;
    any = true;
    if (device != "mps" && device != "mps-model")
      throw RunRefused(fmt::format("{}: device {} has no such limit; allowed only on device mps (a Mac, as root: the "
                                   "sysctl is set before the cell and put back after it) and mps-model (the modelled "
                                   "recommended max)",
                                   cell_key(*c), device));
    try {
      resolve_wired_limit_mib(*c->wired_limit, ram);
    } catch (const UnitError& e) {
      throw RunRefused(fmt::format("{}: {}", cell_key(*c), e.what()));
    }
  }
  if (!any || !device_writes(device)) return nullptr;
  if (!root)
    throw RunRefused(fmt::format("the scenario's cells set {} (\"sysctl\"), which needs root: run wmbench with sudo, or "
                                 "leave the key out",
                                 kWiredLimitKey));
  auto lever = std::make_unique<WiredLever>();
  lever->ram = ram;
  try {
    lever->sysctl = chosen_sysctl();
    lever->sysctl->read(kWiredLimitKey);  // it exists and reads as a number, before any folder
    lever->lock = std::make_unique<StateLock>();
  } catch (const LeverError& e) {
    throw RunRefused(fmt::format("the scenario's cells set {}, but: {}", kWiredLimitKey, e.what()));
  }
  return lever;
}

std::optional<mpsmodel::ModelledMac> model_for_cell(const std::optional<mpsmodel::ModelledMac>& model, const Cell& cell) {
  if (!model || !cell.wired_limit || cell.wired_limit->system_default()) return model;
  auto m = model;
  m->recommended_max = resolve_wired_limit_mib(*cell.wired_limit, m->model_ram) * MiB;
  return m;
}

RunHold::RunHold(WiredLever* lever, const Cell& cell, const Folder& folder, const std::string& run_stem)
    : folder_(&folder), stem_(run_stem) {
  if (!lever || !cell.wired_limit) return;
  lever_ = lever;
  Sysctl& s = *lever->sysctl;
  try {
    set_ = resolve_wired_limit_mib(*cell.wired_limit, lever->ram);
    found_ = s.read(kWiredLimitKey);
    // The value to put back is kept before anything changes: in the folder and in the journal.
    record({{"found_mib", found_}, {"set_mib", set_}, {"where", s.where()}, {"set_utc", utc_now_iso()}});
    write_pending(Pending{kWiredLimitKey, found_, set_, folder.path(), "runs/" + stem_, boot_id(),
                          static_cast<long long>(::getpid()), utc_now_iso()});
    changed_ = true;
    s.write(kWiredLimitKey, set_);
    const uint64_t back = s.read(kWiredLimitKey);
    record({{"read_back_mib", back}});
    if (back != set_) refused_ = fmt::format("{} read back {} after setting {}", kWiredLimitKey, back, set_);
  } catch (const std::exception& e) {
    refused_ = fmt::format("{}: {}", kWiredLimitKey, e.what());
  }
  if (!refused_.empty() && changed_) {
    if (std::string r = restore(); !r.empty()) refused_ += "; " + r;
  }
}

RunHold::~RunHold() {
  if (changed_) restore();
}

std::string RunHold::restore() {
  if (!changed_) return "";
  Sysctl& s = *lever_->sysctl;
  std::string why;
  uint64_t back = 0;
  try {
    s.write(kWiredLimitKey, found_);
    back = s.read(kWiredLimitKey);
    if (back != found_) why = fmt::format("read back {} after putting back {}", back, found_);
  } catch (const std::exception& e) {
    why = e.what();
  }
  changed_ = false;
  try {
    record({{"restored_mib", found_},
            {"restore_read_back_mib", why.empty() ? nlohmann::json(back) : nlohmann::json(nullptr)},
            {"restore_error", why.empty() ? nlohmann::json(nullptr) : nlohmann::json(why)},
            {"restored_utc", utc_now_iso()}});
  } catch (const std::exception&) {
    // The value is what matters; the folder's note of it is best effort here.
  }
  if (!why.empty())
    return fmt::format("{} was NOT put back ({}); put it back with `{}` (wmbench's next start tries again)",
                       kWiredLimitKey, why, wired_limit_restore_line(found_));
  return clear_pending();
}

std::string RunHold::said() const {
  if (!lever_) return "";
  return fmt::format("{} {} (found {})", kWiredLimitKey, set_, found_);
}

void RunHold::record(const nlohmann::json& fields) {
  nlohmann::json j;
  try {
    if (folder_->exists(kLeverFile)) j = folder_->read_json(kLeverFile, 4u << 20);
  } catch (const std::exception&) {
    j = nullptr;  // a file wmbench cannot read is replaced by what this run knows
  }
  if (!j.is_object()) j = nlohmann::json::object();
  j["sysctl"] = kWiredLimitKey;
  if (!j.contains("runs") || !j["runs"].is_object()) j["runs"] = nlohmann::json::object();
  for (auto it = fields.begin(); it != fields.end(); ++it) j["runs"][stem_][it.key()] = it.value();
  folder_->write_json(kLeverFile, j);
}

}  // namespace wmb::lever
