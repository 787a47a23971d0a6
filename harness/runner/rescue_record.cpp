#include "runner/rescue_record.h"

namespace wmb {

std::string rescue_record(const Folder& folder, const std::string& stem, const nlohmann::json& record, std::string& why) {
  const std::string name = stem + ".json.rescued";
  for (const std::string& rel : {"runs/" + name, name}) {
    try {
      folder.write_json(rel, record);
      return folder.display(rel);
    } catch (const FileError& e) {
      why += std::string(why.empty() ? "" : "; ") + e.what();
    }
  }
  const std::string beside = folder.path() + "." + name;
  try {
    write_json_atomic(beside, record);
    return beside;
  } catch (const FileError& e) {
    why += std::string(why.empty() ? "" : "; ") + e.what();
  }
  return "";
}

}  // namespace wmb
