// Hostile input, one class per test: the loader's bounds (size, nesting, duplicate keys, UTF-8),
// the schema's type and range errors, files inside a folder without links, the folder lock, run
// records and reports of wrong types, child lines of wrong types or cut mid-character, and crashes
// the child caused itself.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "io/files.h"
#include "io/json_input.h"
#include "common/units.h"
#include "io/utf8.h"
#include "results/folder_lock.h"
#include "results/report.h"
#include "protocol/child_report.h"
#include "verdict/classify.h"
#include "scenario/scenario.h"

#include "unit_util.h"

namespace test_hostile_input {  // one namespace per test file: the unity build compiles 8 files as one

using namespace wmb;

namespace {

std::string tmpdir() { return wmbt_unit::tmpdir("hostile"); }
using wmbt_unit::error_of;
using wmbt_unit::has;
using wmbt_unit::put;
using wmbt_unit::sample_run;

std::string deep(size_t n) { return std::string(n, '[') + std::string(n, ']'); }

// A small, consistent result folder written by the library itself (as `wmbench run` does).
std::string make_folder() {
  const std::string d = tmpdir();
  make_dirs(d + "/runs");
  std::vector<std::string> w;
  Scenario sc = parse_scenario(R"({"name": "t", "device": "cpu", "matrix": [{"label": "a"}, {"label": "b"}]})", "t.json", w);
  write_json_atomic(d + "/scenario.json", to_json(sc));
  write_json_atomic(d + "/machine.json", {{"device", "cpu"}, {"ram_bytes", 8 * GiB}, {"started_utc", "2026-12-01T10:00:00Z"},
                                          {"ended_utc", "2026-12-01T10:01:00Z"}});
  for (auto r : {sample_run(1, "a"), sample_run(2, "b")}) write_json_atomic(d + "/runs/" + r.file_stem() + ".json", to_json(r));
  write_report(load_report(d));
  return d;
}

}  // namespace

// ---- the loader ----

TEST(JsonInput, NestingIsBoundedAtItsPositionNotByTheStack) {
  const std::string e = error_of([] { parse_json_text(deep(100000), "deep.json", kMaxScenarioBytes); });
  EXPECT_TRUE(has(e, "deep.json:1:65:")) << e;
  EXPECT_TRUE(has(e, "nested deeper than 64 levels")) << e;
  EXPECT_NO_THROW(parse_json_text(deep(64), "ok.json", 1000));
  // Brackets inside strings are text, not nesting.
  EXPECT_NO_THROW(parse_json_text("{\"k\": \"" + std::string(1000, '[') + "\"}", "s.json", 10000));
}

TEST(JsonInput, DuplicateKeysAreRefusedWithLineAndColumn) {
  const std::string e = error_of([] { parse_json_text("{\n  \"a\": 1,\n  \"b\": {\"x\": 1},\n  \"a\": 2\n}", "d.json", 1000); });
  EXPECT_TRUE(has(e, "d.json:4:3: duplicate key \"a\"")) << e;
  // The same key in two different objects is fine.
  EXPECT_NO_THROW(parse_json_text(R"({"a": {"k": 1}, "b": {"k": 2}})", "ok.json", 1000));
  const std::string inner = error_of([] { parse_json_text(R"({"a": {"k": 1, "k": 2}})", "i.json", 1000); });
  EXPECT_TRUE(has(inner, "i.json:1:16: duplicate key \"k\"")) << inner;
}

TEST(JsonInput, SizeUtf8NulAndHugeNumbersAreClearErrors) {
  EXPECT_TRUE(has(error_of([] { parse_json_text(std::string(2000, ' '), "big.json", 1000); }), "big.json: 2000 bytes"));
  const std::string u = error_of([] { parse_json_text("{\"k\": \"\xE2\x82\"}", "u.json", 1000); });
  EXPECT_TRUE(has(u, "u.json:1:") && has(u, "malformed JSON")) << u;
  EXPECT_TRUE(has(error_of([] { parse_json_text(std::string("{\"k\": \"a\0b\"}", 12), "n.json", 1000); }), "malformed JSON"));
  EXPECT_TRUE(has(error_of([] { parse_json_text("{\"k\": 1e999}", "h.json", 1000); }), "h.json"));
  EXPECT_TRUE(has(error_of([] { parse_json_text("{\"k\": NaN}", "nan.json", 1000); }), "malformed JSON"));
}

TEST(JsonInput, SchemaErrorsNameFileKeyValueAndWhatIsAllowed) {
  const auto j = parse_json_text(R"({"held_bytes": "abc", "neg": -5, "huge": 18446744073709551615, "f": 1.5,
                                     "o": {"name": {"x": 1}}})", "r.json", 1000);
  JsonObject o(j, "r.json", "runs[3]");
  EXPECT_EQ(error_of([&] { o.bytes("held_bytes"); }),
            "r.json: key \"runs[3].held_bytes\": value \"abc\" is a string; expected a size in bytes (a whole number from 0 to 2^62)");
  EXPECT_TRUE(has(error_of([&] { o.bytes("neg"); }), "value -5 is negative"));
  EXPECT_TRUE(has(error_of([&] { o.bytes("huge"); }), "larger than any machine"));
  EXPECT_TRUE(has(error_of([&] { o.bytes("f"); }), "value 1.5 is a number"));
  EXPECT_TRUE(has(error_of([&] { o.object("o")->str("name"); }), "key \"runs[3].o.name\": value {\"x\": 1} is an object; expected a string"));
  EXPECT_TRUE(has(error_of([&] { o.str("missing", true); }), "missing; it is required"));
}

TEST(JsonInput, PreviewOfAnyValueIsShortAndSafe) {
  nlohmann::json v = nlohmann::json::array();
  nlohmann::json* cur = &v;
  for (int i = 0; i < 10000; ++i) {  // deeper than any parse allows: built by hand
    cur->push_back(nlohmann::json::array());
    cur = &(*cur)[0];
  }
  EXPECT_LE(json_preview(v, 80).size(), 80u);
  EXPECT_TRUE(utf8_valid(json_preview(std::string(200, 'x') + "\xC3\xA9", 50)));
}

TEST(Utf8, CutsOnlyBetweenCharactersAndSanitizes) {
  const std::string s = "ab\xC3\xA9\xE2\x82\xAC";  // a b é €
  EXPECT_EQ(utf8_prefix(s, 3), "ab");
  EXPECT_EQ(utf8_prefix(s, 4), "ab\xC3\xA9");
  EXPECT_EQ(utf8_prefix(s, 6), "ab\xC3\xA9");
  EXPECT_TRUE(utf8_valid(s));
  EXPECT_FALSE(utf8_valid("ab\xC3"));
  EXPECT_FALSE(utf8_valid("\xED\xA0\x80"));  // a surrogate
  EXPECT_FALSE(utf8_valid("\xC0\xAF"));      // overlong '/'
  EXPECT_EQ(utf8_sanitize("a\xC3"), "a\xEF\xBF\xBD");
  EXPECT_EQ(utf8_sanitize(std::string("a\0b", 3)), "a\\0b");
  EXPECT_TRUE(utf8_valid(utf8_sanitize(std::string(300, '\xFF'), 100)));
}

// ---- scenarios ----

TEST(ScenarioHostile, HundredThousandLevelsIsAClearError) {
  std::vector<std::string> w;
  const std::string text = R"({"name": "x", "device": "cpu", "matrix": )" + deep(100000) + "}";
  const std::string e = error_of([&] { parse_scenario(text, "deep.json", w); });
  EXPECT_TRUE(has(e, "deep.json:1:") && has(e, "nested deeper than 64 levels")) << e.substr(0, 300);
  // A deep value that the schema then rejects: its message is formatted without deep recursion.
  const std::string e2 = error_of([&] { parse_scenario(R"({"name": "x", "device": "cpu", "matrix": [)" + deep(60) + "]}", "d.json", w); });
  EXPECT_TRUE(has(e2, "d.json: key \"matrix[0]\"")) << e2;
  EXPECT_LT(e2.size(), 400u);
}

TEST(ScenarioHostile, DuplicateKeysAndNulBytesAreRefused) {
  std::vector<std::string> w;
  const std::string dup = error_of([&] { parse_scenario(R"({"name": "x", "device": "cpu", "device": "mps", "matrix": [{"label": "a"}]})", "s.json", w); });
  EXPECT_TRUE(has(dup, "s.json:1:32: duplicate key \"device\"")) << dup;
  const std::string nul = error_of([&] {
    parse_scenario(R"({"name": "x", "device": "cpu", "matrix": [{"label": "a", "env": {"PYTORCH_MPS_HIGH_WATERMARK_RATIO": "0.5\u0000"}}]})", "s.json", w);
  });
  EXPECT_TRUE(has(nul, "NUL byte")) << nul;
}

// ---- files ----

TEST(FilesHostile, AFifoOrAFolderIsRefusedWithoutBlocking) {
  const std::string d = tmpdir();
  ASSERT_EQ(::mkfifo((d + "/f.json").c_str(), 0644), 0);
  EXPECT_TRUE(has(error_of([&] { read_file(d + "/f.json"); }), "it is a FIFO, not a regular file"));
  Folder f(d);
  EXPECT_TRUE(has(error_of([&] { f.read("f.json"); }), "a FIFO"));
  ::mkdir((d + "/x.json").c_str(), 0755);
  EXPECT_TRUE(has(error_of([&] { f.read("x.json"); }), "a folder"));
  EXPECT_TRUE(has(error_of([&] { read_file(d + "/big", 10); }), "cannot read"));
  put(d + "/big", std::string(100, 'x'));
  EXPECT_TRUE(has(error_of([&] { read_file(d + "/big", 10); }), "100 bytes; wmbench reads at most 10"));
}

TEST(FilesHostile, FolderNeverFollowsALinkNorLeavesTheFolder) {
  const std::string d = tmpdir(), outside = tmpdir();
  put(outside + "/secret", "do not touch");
  ::mkdir((d + "/runs").c_str(), 0755);
  ASSERT_EQ(::symlink((outside + "/secret").c_str(), (d + "/runs/01-a.json").c_str()), 0);
  ASSERT_EQ(::symlink(outside.c_str(), (d + "/linked").c_str()), 0);
  Folder f(d);
  EXPECT_TRUE(has(error_of([&] { f.read("runs/01-a.json"); }), "symbolic link"));
  EXPECT_TRUE(has(error_of([&] { f.write_atomic("runs/01-a.json", "new"); }), "refusing to write"));
  EXPECT_TRUE(has(error_of([&] { f.write_atomic("linked/secret", "new"); }), "symbolic link or not a folder"));
  EXPECT_TRUE(has(error_of([&] { f.open_for_write("runs/01-a.json", O_TRUNC); }), "symbolic link"));
  EXPECT_TRUE(has(error_of([&] { f.read("../x"); }), "not a path inside the folder"));
  EXPECT_TRUE(has(error_of([&] { f.read("/etc/passwd"); }), "not a path inside the folder"));
  EXPECT_TRUE(has(error_of([&] { write_file_atomic(d + "/runs/01-a.json", "new"); }), "symbolic link"));
  EXPECT_EQ(read_file(outside + "/secret"), "do not touch");
  EXPECT_TRUE(has(error_of([] { Folder(""); }), "empty name"));
  EXPECT_TRUE(has(error_of([] { make_dirs(""); }), "empty name"));
  f.write_atomic("runs/02-b.json", "fine");
  EXPECT_EQ(f.read("runs/02-b.json"), "fine");
}

TEST(FolderLockTest, ASecondWriterIsRefusedSayingWhoHoldsIt) {
  const std::string d = tmpdir();
  Folder f(d);
  {
    FolderLock first(f, "wmbench run --resume " + d);
    const std::string e = error_of([&] { FolderLock second(f, "wmbench report " + d); });
    EXPECT_TRUE(has(e, "is in use by another wmbench")) << e;
    EXPECT_TRUE(has(e, "pid " + std::to_string(::getpid()))) << e;
    EXPECT_TRUE(has(e, "wmbench run --resume")) << e;
  }
  EXPECT_NO_THROW(FolderLock again(f, "wmbench report"));
  ::unlink((d + "/.wmbench.lock").c_str());
  ASSERT_EQ(::symlink("/etc/passwd", (d + "/.wmbench.lock").c_str()), 0);
  EXPECT_TRUE(has(error_of([&] { FolderLock l(f, "x"); }), "symbolic link"));
}

// ---- run records and reports ----

TEST(RunRecordHostile, WrongTypesNameTheKeyAndValue) {
  nlohmann::json j = to_json(sample_run(1, "a"));
  EXPECT_NO_THROW(run_from_json(j, "r.json"));
  auto with = [&](const char* k, nlohmann::json v) {
    nlohmann::json c = j;
    c[k] = v;
    return error_of([&] { run_from_json(c, "r.json"); });
  };
  EXPECT_TRUE(has(with("held_bytes", "lots"), "r.json: key \"held_bytes\": value \"lots\" is a string"));
  EXPECT_TRUE(has(with("held_bytes", -1), "negative"));
  EXPECT_TRUE(has(with("label", "../../etc/x"), "contains a path separator"));
  EXPECT_TRUE(has(with("label", "a/b"), "contains a path separator"));
  EXPECT_TRUE(has(with("stopped_by", "aliens"), "not one of"));
  EXPECT_TRUE(has(with("trace", "../../../etc/shadow"), "not a path inside the result folder"));
  EXPECT_TRUE(has(with("trace", "/etc/shadow"), "not a path inside the result folder"));
  EXPECT_TRUE(has(with("stages", nlohmann::json::array({{{"name", {{"x", 1}}}}})), "stages[0].name"));
  EXPECT_TRUE(has(with("env", {{"A", 1}}), "env.A"));
  EXPECT_TRUE(has(with("duration_s", 1e300), "outside"));
  EXPECT_TRUE(has(with("warnings", {1}), "warnings[0]"));
  EXPECT_TRUE(has(with("error", "text"), "key \"error\""));
  EXPECT_TRUE(has(error_of([] { run_from_json(nlohmann::json::array(), "r.json"); }), "expected a JSON object"));
}

TEST(ReportHostile, BadRunFilesAreNamedAndLeftOutTheRestIsKept) {
  const std::string d = make_folder();
  put(d + "/runs/03-c.json", R"({"index": 3, "label": "c", "stopped_by": "cap", "stages": [{"name": {"evil": 1}}]})");
  put(d + "/runs/04-d.json", R"({"index": 4, "label": "d", "stopped_by": "cap", "held_bytes": "x"})");
  put(d + "/runs/05-e.json", "{\"index\": 5, \"label\": \"e\", \"detail\": \"\xE2\x82\"}");
  ::mkdir((d + "/runs/06-dir.json").c_str(), 0755);
  ::mkfifo((d + "/runs/07-fifo.json").c_str(), 0644);
  ::symlink("/etc/shadow", (d + "/runs/08-link.json").c_str());
  Report r;
  ASSERT_NO_THROW(r = load_report(d));
  EXPECT_EQ(r.runs.size(), 2u);
  ASSERT_EQ(r.problems.size(), 6u);
  std::string all;
  for (const auto& p : r.problems) all += p + "\n";
  EXPECT_TRUE(has(all, "03-c.json: key \"stages[0].name\"")) << all;
  EXPECT_TRUE(has(all, "04-d.json: key \"held_bytes\"")) << all;
  EXPECT_TRUE(has(all, "05-e.json:1:")) << all;
  EXPECT_TRUE(has(all, "06-dir.json: it is a folder")) << all;
  EXPECT_TRUE(has(all, "07-fifo.json: it is a FIFO")) << all;
  EXPECT_TRUE(has(all, "08-link.json: it is a symbolic link")) << all;
  EXPECT_NO_THROW(write_report(r));
}

TEST(ReportHostile, WrongTypesInMachineOrScenarioAreFileErrorsNotAborts) {
  for (const std::string bad : {R"({"device": {"x": 1}})", R"({"ram_bytes": "8GiB"})", R"({"os": null})",
                                R"({"sandbox": {"ram_limit_bytes": "x"}})", R"({"model": {"note": 5}})", "[1,2]"}) {
    const std::string d = make_folder();
    put(d + "/machine.json", bad);
    const std::string e = error_of([&] {
      try {
        load_report(d);
      } catch (const FileError&) {
        throw;
      } catch (...) {
        FAIL() << "not a FileError for " << bad;
      }
    });
    EXPECT_TRUE(has(e, "machine.json")) << bad << " -> " << e;
  }
  const std::string d = make_folder();
  put(d + "/scenario.json", R"({"name": "t", "device": "cpu", "repeats": "2", "matrix": [{"label": "a"}]})");
  EXPECT_TRUE(has(error_of([&] { load_report(d); }), "scenario.json: key \"repeats\""));
  put(d + "/scenario.json", R"({"name": "t", "device": "cpu", "matrix": [{"label": {"a": 1}}]})");
  EXPECT_TRUE(has(error_of([&] { load_report(d); }), "matrix[0].label"));
  put(d + "/scenario.json", R"({"name": "t", "device": "cpu", "matrix": [{"label": "a"}], "resolved": {"step_bytes": -4}})");
  EXPECT_TRUE(has(error_of([&] { load_report(d); }), "resolved.step_bytes"));
}

TEST(ReportHostile, ASummaryThatIsALinkIsNeverWrittenThrough) {
  const std::string d = make_folder(), outside = tmpdir();
  put(outside + "/shadow", "root:x");
  ::unlink((d + "/summary.json").c_str());
  ASSERT_EQ(::symlink((outside + "/shadow").c_str(), (d + "/summary.json").c_str()), 0);
  EXPECT_TRUE(has(error_of([&] { write_report(load_report(d)); }), "refusing to write"));
  EXPECT_EQ(read_file(outside + "/shadow"), "root:x");
}

// ---- the child's lines ----

TEST(ChildReportHostile, ValidJsonOfTheWrongTypesIsAWarningNotAnAbort) {
  ChildReport c;
  EXPECT_FALSE(c.absorb(nlohmann::json{{"type", "stage"}, {"name", {{"x", 1}}}}));
  EXPECT_TRUE(c.stages.empty());
  EXPECT_FALSE(c.absorb(nlohmann::json{{"type", "step"}, {"index", "one"}, {"held_bytes", 5}}));
  EXPECT_EQ(c.held_bytes, 0u);
  EXPECT_FALSE(c.absorb(nlohmann::json{{"type", "hello"}, {"torch_version", 2}}));
  EXPECT_FALSE(c.hello);
  EXPECT_FALSE(c.absorb(nlohmann::json{{"type", "error"}, {"text", {1, 2}}}));
  EXPECT_FALSE(c.error_text);
  EXPECT_FALSE(c.absorb(nlohmann::json{{"type", {{"a", 1}}}}));
  EXPECT_FALSE(c.absorb(nlohmann::json::array()));
  EXPECT_FALSE(c.absorb(nlohmann::json{{"type", "done"}, {"reason", "cap"}, {"held_bytes", -3}}));
  ASSERT_EQ(c.warnings.size(), 7u);
  EXPECT_TRUE(has(c.warnings[0], "key \"stage.name\": value {\"x\": 1} is an object; expected a string")) << c.warnings[0];
  // Good lines still count.
  EXPECT_TRUE(c.absorb(nlohmann::json{{"type", "step"}, {"index", 1}, {"held_bytes", 64}}));
  EXPECT_EQ(c.held_bytes, 64u);
  // And the record with these warnings is written and read back.
  RunRecord r = sample_run(1, "a");
  r.warnings = c.warnings;
  EXPECT_NO_THROW(run_from_json(parse_json_text(to_json(r).dump(), "r", 1 << 20), "r"));
}

TEST(ChildReportHostile, TheAllocatorPeakKeptIsTheHighestWellFormedOne) {
  ChildReport c;
  EXPECT_FALSE(c.allocator_peak_bytes);  // no line said one: null in the record, never 0
  EXPECT_TRUE(c.absorb(nlohmann::json{{"type", "step"}, {"index", 1}, {"held_bytes", 64}, {"allocator_peak_bytes", 64}}));
  EXPECT_TRUE(c.absorb(nlohmann::json{{"type", "stage"}, {"name", "moved"}, {"allocator_peak_bytes", 32}}));
  EXPECT_EQ(c.allocator_peak_bytes, 64u);  // a lower one later does not lower the peak
  EXPECT_TRUE(c.absorb(nlohmann::json{{"type", "step"}, {"index", 2}, {"held_bytes", 128}, {"allocator_peak_bytes", nullptr}}));
  EXPECT_EQ(c.allocator_peak_bytes, 64u);
  EXPECT_FALSE(c.absorb(nlohmann::json{{"type", "step"}, {"index", 3}, {"held_bytes", 192}, {"allocator_peak_bytes", -1}}));
  EXPECT_FALSE(c.absorb(nlohmann::json{{"type", "step"}, {"index", 3}, {"held_bytes", 192}, {"allocator_peak_bytes", "1e99"}}));
  EXPECT_EQ(c.allocator_peak_bytes, 64u);
  EXPECT_EQ(c.warnings.size(), 2u);
  EXPECT_TRUE(has(c.warnings[0], "allocator_peak_bytes")) << c.warnings[0];
  // The record keeps it and reads it back.
  RunRecord r = sample_run(1, "a");
  r.allocator_peak_bytes = c.allocator_peak_bytes;
  const RunRecord back = run_from_json(parse_json_text(to_json(r).dump(), "r", 1 << 20), "r");
  EXPECT_EQ(back.allocator_peak_bytes, 64u);
  nlohmann::json bad = to_json(r);
  bad["allocator_peak_bytes"] = -5;
  EXPECT_TRUE(has(error_of([&] { run_from_json(bad, "r.json"); }), "allocator_peak_bytes"));
}

TEST(ChildReportHostile, ALineCutInsideACharacterIsKeptAsSafeText) {
  ChildReport c;
  const std::string cut = "{\"type\": \"error\", \"text\": \"MPS backend out of memory \xE2\x82";  // cut mid-€
  EXPECT_FALSE(c.absorb_line(cut));
  EXPECT_FALSE(c.absorb_line("\xFF\xFE not json at all"));
  EXPECT_FALSE(c.absorb_line(std::string("{\"type\": \"warning\", \"text\": \"a\0b\"}", 35)));
  ASSERT_EQ(c.warnings.size(), 3u);
  for (const auto& w : c.warnings) EXPECT_TRUE(utf8_valid(w)) << w;
  RunRecord r = sample_run(1, "a");
  r.warnings = c.warnings;
  const std::string d = tmpdir();
  EXPECT_NO_THROW(write_json_atomic(d + "/r.json", to_json(r)));
  // Even a string that is not UTF-8 at all is written (as U+FFFD), never an exception.
  r.detail = "\xC3";
  EXPECT_NO_THROW(write_json_atomic(d + "/r2.json", to_json(r)));
  EXPECT_NO_THROW(run_from_json(read_json_file(d + "/r2.json"), "r2"));
  // The child's 100,000-deep line is refused by the bounded parser.
  EXPECT_FALSE(c.absorb_line(deep(100000)));
}

TEST(ChildReportHostile, LinesAreBoundedAndTheWarningsToo) {
  ChildLineSplitter split(1024);
  std::vector<std::pair<std::string, bool>> got;
  auto sink = [&](std::string_view l, bool cut) { got.push_back({std::string(l), cut}); };
  const std::string huge(10 << 20, 'x');  // a 10 MB line
  split.feed("{\"a\":1}\n", 8, sink);
  for (size_t i = 0; i < huge.size(); i += 65536) split.feed(huge.data() + i, std::min<size_t>(65536, huge.size() - i), sink);
  split.feed("\n{\"b\":2}\npartial", 16, sink);
  split.finish(sink);
  ASSERT_EQ(got.size(), 4u);
  EXPECT_EQ(got[0].first, "{\"a\":1}");
  EXPECT_TRUE(got[1].second);
  EXPECT_EQ(got[1].first.size(), 1024u);
  EXPECT_EQ(got[2].first, "{\"b\":2}");
  EXPECT_EQ(got[3].first, "partial");
  ChildReport c;
  for (int i = 0; i < 5000; ++i) c.absorb_line("garbage");
  EXPECT_EQ(c.warnings.size(), kMaxChildWarnings);
  EXPECT_EQ(c.dropped_warnings, 5000 - kMaxChildWarnings);
}

// ---- crashes the child caused itself ----

TEST(ClassifyHostile, AnAbortOrSegfaultIsTheChildsOwnCrashNotAKillFromOutside) {
  ChildReport none;
  SuperviseResult s;
  for (int sig : {SIGABRT, SIGSEGV, SIGBUS, SIGILL, SIGFPE}) {
    s.status.signal = sig;
    const auto c = classify(s, none);
    EXPECT_EQ(c.stopped_by, "crash");
    EXPECT_FALSE(has(c.detail, "from outside")) << c.detail;
    EXPECT_TRUE(has(c.detail, "itself")) << c.detail;
  }
  s.status.signal = SIGABRT;
  EXPECT_TRUE(has(classify(s, none, "terminate called after throwing an instance of 'std::bad_alloc'").detail, "std::bad_alloc"));
  s.status.signal = SIGKILL;
  EXPECT_TRUE(has(classify(s, none).detail, "from outside wmbench"));
  // A bad_alloc the child caught and reported (exit 3 with an error line).
  ChildReport ba;
  ba.error_text = "std::bad_alloc";
  ba.error_exception = "std::bad_alloc";
  SuperviseResult e;
  e.status.code = 3;
  const auto c = classify(e, ba);
  EXPECT_EQ(c.stopped_by, "crash");
  EXPECT_TRUE(has(c.detail, "ran out of memory it could map")) << c.detail;
}

// Found by fuzz_folder (CI, 2026-12-05): a started_utc whose 10th byte is inside a character made
// README.md's title ill-formed UTF-8 (a byte cut). Every cut of others' text for show is made
// between characters (utf8_prefix): the title's date, a config error in the table's "who" cell.
TEST(HostileInput, TextCutForShowIsCutBetweenCharacters) {
  Report rep;
  rep.machine = {{"started_utc", "2026-11\xd3\xbe\xc6\xa3" "19:25:03Z"}, {"device", "cpu"}};
  RunRecord r;
  r.index = 1;
  r.label = "a";
  r.stopped_by = "config";
  r.error_text = std::string(76, 'x') + "\xe2\x82\xac" + std::string(10, 'y');  // the euro sign across byte 77
  rep.runs = {r};
  for (const auto& e : all_exporters()) {
    const std::string out = e->render(rep);
    EXPECT_TRUE(utf8_valid(out)) << e->file_name() << ":\n" << out;
  }
  EXPECT_NE(make_table_exporter()->render(rep).find("config: " + std::string(76, 'x') + "..."), std::string::npos);
}

}  // namespace test_hostile_input
