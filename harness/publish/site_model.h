// What `wmbench publish` puts on the site: the result folders among the arguments (a folder, or a
// parent whose sub-folders are result folders), each kept only when `wmbench check` accepts it
// (check/check.h) and loaded the way compare and history read it; every other one is named
// with the reason and skipped. Then the index's grouping: machine (chip, RAM, OS), then torch
// release. Pure data; the pages are made in pages.h, written by site_writer.h.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "history/history.h"
#include "results/report.h"

namespace wmb::publish {

// The files of a folder that are copied into the site as they are (raw/): the files wmbench
// writes and `check` read. Anything else (an unknown file, a link, a PNG or SVG someone put
// there) is not copied: the charts are drawn again from the numbers.
bool is_raw_file(const std::string& rel);

struct PublishedFolder {
  std::string path;   // as found: an argument, or argument/name
  std::string name;   // the folder's own name (hostile text)
  std::string slug;   // its page: folders/<slug>/index.html (publish/html.h slug(), unique in the site)
  history::Input input;      // compare's folder (summary, machine, scenario)
  history::FolderInfo info;  // history's facts: machine, RAM, OS, torch, date, device, scenario
  Report report;             // the run records, through the schema
  nlohmann::json tune;       // tune.json, or null
  std::vector<std::string> raw_files;  // relative paths that is_raw_file accepts, sorted
  std::string notes_text;    // check's notes (unknown keys and files), one per line

  bool is_tune() const { return tune.is_object(); }
};

struct SkippedFolder {
  std::string path;
  std::string why;
};

struct Site {
  std::vector<PublishedFolder> folders;  // in the order found (arguments, then names sorted)
  std::vector<SkippedFolder> skipped;
};

// Walks the arguments: a result folder (it holds summary.json, machine.json or runs/) is taken as
// it is; any other folder is a parent whose sub-folders are each taken (a link among them is
// named and not followed; plain files such as README.md are passed over). A path given twice
// counts once. Never throws for a bad folder: it is skipped with its reason.
Site collect_site(const std::vector<std::string>& args);

// The tune answer of a tune folder in words ("HIGH 0.913, LOW 0.913" / "no safe setting" ...);
// "" for other folders. Read from tune.json's "outcome" and "answer", hostile as the rest.
std::string tune_answer(const PublishedFolder& f);
// tune.json's "export" line when it is a string, else "".
std::string tune_export(const PublishedFolder& f);

// The index's grouping.
struct TorchGroup {
  std::string torch;            // "2.11.0+cu130"; "?" when unknown
  std::vector<size_t> folders;  // indexes into Site::folders, by date then name
};
struct MachineGroup {
  std::string machine;             // history's FolderInfo::machine (chip, or the modelled Mac on a chip)
  std::optional<uint64_t> ram;     // the Mac's RAM (modelled, for mps-model)
  std::string os;                  // "macOS 15.1 (24B83), Mac16,7" / "Debian GNU/Linux 12 (bookworm)"
  std::vector<TorchGroup> torches; // by version
  std::string title() const;       // "Apple M4 Max, 64 GiB, macOS 15.1"
};

// Machines by name, RAM and OS; torch releases by version (2.9 < 2.10 < 2.11, a pre-release
// before its release), folders by date then name.
std::vector<MachineGroup> group_index(const Site& site);

// The setting labels of a folder with who stopped them ("guard", "pytorch x2, cap x1"), in the
// folder's order: compare's label_stats, the numbers compare and history show.
std::vector<std::pair<std::string, std::map<std::string, int>>> stops_at_a_glance(const PublishedFolder& f);

// "1.13.0" < "2.9.1" < "2.10.0.dev1" < "2.10.0" < "2.11.0+cu130"; unknown versions first.
bool torch_less(const std::string& a, const std::string& b);

}  // namespace wmb::publish
