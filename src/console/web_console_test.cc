// The console's handlers over a log manager written here: the partition view is the files on
// disk, the lookup API answers as the log does, bad input is 400 or 404, and data text is
// escaped in HTML and JSON.
#include "console/web_console.h"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "base/scheduler.h"
#include "console/console_assets.h"
#include "console/console_json.h"
#include "console/html.h"
#include "manager/log_manager.h"
#include "seglog/record_batch.h"
#include "tests/support/files.h"

namespace seglog {
namespace {

using nlohmann::json;
using testing::TempDir;

constexpr int64_t kT0 = 1794024676000;

class WebConsoleTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto config = LogManagerConfig::FromProperties({{"log.dirs", dir_.path()}});
    ASSERT_TRUE(config.ok());
    scheduler_ = std::make_unique<MockScheduler>(kT0);
    auto m = LogManager::Open(*config, scheduler_.get(), Logger());
    ASSERT_TRUE(m.ok()) << m.status().ToString();
    logs_ = std::move(m).value();
    ASSERT_TRUE(
        logs_
            ->CreateTopic("orders", 2,
                          {{"internal.segment.bytes", "2000"}, {"index.interval.bytes", "200"}})
            .ok());
    log_ = *logs_->GetLog({"orders", 0});
    const std::string value(50, 'v');
    for (int b = 0; b < 40; ++b) {
      RecordBatchBuilder builder{BatchOptions{}};
      for (int i = 0; i < 2; ++i) {
        const std::string key = fmt::format("k{}", b * 2 + i);
        ASSERT_TRUE(builder
                        .Append(kT0 + b * 100 + i,
                                Bytes(reinterpret_cast<const uint8_t*>(key.data()), key.size()),
                                Bytes(reinterpret_cast<const uint8_t*>(value.data()), value.size()))
                        .ok());
      }
      ASSERT_TRUE(log_->AppendAsLeader(*builder.Build()).ok());
    }
    WebConsoleSources sources;
    sources.logs = logs_.get();
    sources.node_id = 1;
    sources.cluster_id = "<b>cluster</b>";
    sources.listeners = {"PLAINTEXT://127.0.0.1:9092"};
    sources.clock = [] { return kT0 + 60000; };
    console_ = std::make_shared<WebConsole>(sources);
    routes_ = WebConsole::Routes(console_);
  }

  HttpResponse Get(const std::string& path, std::map<std::string, std::string> params = {}) {
    auto it = routes_.find(path);
    EXPECT_NE(it, routes_.end()) << path;
    if (it == routes_.end()) return HttpResponse{404, "", ""};
    return it->second(HttpRequest{path, std::move(params)});
  }

  json GetJson(const std::string& path, std::map<std::string, std::string> params, int status) {
    HttpResponse r = Get(path, std::move(params));
    EXPECT_EQ(r.status, status) << r.body;
    EXPECT_EQ(r.content_type, "application/json");
    json j = json::parse(r.body, nullptr, /*allow_exceptions=*/false);
    EXPECT_FALSE(j.is_discarded()) << r.body;
    return j;
  }

  TempDir dir_;
  std::unique_ptr<MockScheduler> scheduler_;
  std::unique_ptr<LogManager> logs_;
  std::shared_ptr<Log> log_;
  std::shared_ptr<WebConsole> console_;
  std::map<std::string, HttpHandler> routes_;
};

TEST_F(WebConsoleTest, ThePartitionViewIsTheFilesOnDisk) {
  json v = GetJson("/api/partition", {{"topic", "orders"}, {"partition", "0"}}, 200);
  // One drawn segment per .log file in the partition directory, same base offsets and sizes.
  std::map<int64_t, int64_t> on_disk;
  for (const auto& e : std::filesystem::directory_iterator(log_->dir())) {
    if (e.path().extension() == ".log") {
      on_disk[std::stoll(e.path().stem().string())] = static_cast<int64_t>(e.file_size());
    }
  }
  ASSERT_GE(on_disk.size(), 3u);
  std::map<int64_t, int64_t> drawn;
  for (const json& s : v["segments"]) drawn[s["base_offset"]] = s["size"];
  // The active segment's .log may be preallocated on disk; the closed ones are exact.
  EXPECT_EQ(drawn.size(), on_disk.size());
  for (auto [base, size] : drawn) {
    ASSERT_TRUE(on_disk.count(base)) << base;
    if (base != log_->segment_base_offsets().back()) {
      EXPECT_EQ(size, on_disk[base]) << base;
    }
  }
  EXPECT_EQ(v["log_end_offset"], 80);
  EXPECT_EQ(v["log_start_offset"], 0);
  EXPECT_EQ(v["config"]["segment.bytes"], 2000);
  EXPECT_EQ(v["config"]["index.interval.bytes"], 200);
  EXPECT_EQ(v["now_ms"], kT0 + 60000);
  const json& segs = v["segments"];
  EXPECT_TRUE(segs.back()["active"]);
  EXPECT_EQ(segs.back()["next_offset"], 80);
  for (size_t i = 0; i + 1 < segs.size(); ++i) {
    EXPECT_FALSE(segs[i]["active"]);
    EXPECT_EQ(segs[i]["next_offset"], segs[i + 1]["base_offset"]);
    // Sparse: a closed segment of ~2000 bytes with an entry every 200 bytes or so.
    EXPECT_GE(segs[i]["offset_index_entries"].get<int>(), 3);
    EXPECT_EQ(segs[i]["offset_entries"].size(), segs[i]["offset_index_entries"].get<size_t>());
    for (const json& e : segs[i]["offset_entries"]) {
      ASSERT_EQ(e.size(), 3u);  // slot, offset, position
      EXPECT_GE(e[1].get<int64_t>(), segs[i]["base_offset"].get<int64_t>());
      EXPECT_LT(e[2].get<int64_t>(), segs[i]["size"].get<int64_t>());
    }
  }
}

TEST_F(WebConsoleTest, TheLookupApiAnswersAsTheLogDoes) {
  for (int64_t n : {0, 1, 37, 79}) {
    json t = GetJson("/api/lookup",
                     {{"topic", "orders"}, {"partition", "0"}, {"offset", std::to_string(n)}}, 200);
    auto want = log_->LookupOffset(n);
    ASSERT_TRUE(want.ok() && want->has_value());
    EXPECT_EQ(t["kind"], "offset");
    EXPECT_EQ(t["found"]["position"], (*want)->position);
    EXPECT_EQ(t["found"]["segment_base_offset"], (*want)->segment_base_offset);
    EXPECT_FALSE(t["visits"][0]["scan"].empty());
  }
  json t = GetJson("/api/lookup", {{"topic", "orders"}, {"partition", "0"}, {"offset", "80"}}, 200);
  EXPECT_TRUE(t["found"].is_null());
  EXPECT_FALSE(t["note"].get<std::string>().empty());
  const int64_t ts = kT0 + 1750;
  t = GetJson("/api/lookup",
              {{"topic", "orders"}, {"partition", "0"}, {"timestamp", std::to_string(ts)}}, 200);
  auto want = log_->FetchOffsetByTimestamp(ts);
  ASSERT_TRUE(want.ok() && want->has_value());
  EXPECT_EQ(t["kind"], "timestamp");
  EXPECT_EQ(t["found"]["offset"], (*want)->offset);
  EXPECT_EQ(t["found"]["offset"], 36);  // batch 18's first record, at kT0 + 1800
}

TEST_F(WebConsoleTest, BadParametersAre400AndUnknownPartitions404) {
  const std::vector<std::pair<std::map<std::string, std::string>, int>> cases = {
      {{}, 400},
      {{{"topic", "orders"}}, 400},
      {{{"topic", "orders"}, {"partition", ""}}, 400},
      {{{"topic", "orders"}, {"partition", "x"}}, 400},
      {{{"topic", "orders"}, {"partition", "0x1"}}, 400},
      {{{"topic", "orders"}, {"partition", "1 "}}, 400},
      {{{"topic", "orders"}, {"partition", "-1"}}, 400},
      {{{"topic", "orders"}, {"partition", "99999999999999999999"}}, 400},
      {{{"topic", "orders"}, {"partition", "2147483648"}}, 400},
      {{{"topic", "orders"}, {"partition", "2"}}, 404},
      {{{"topic", "nope"}, {"partition", "0"}}, 404},
      {{{"topic", "<script>alert(1)</script>"}, {"partition", "0"}}, 404},
      {{{"topic", ".."}, {"partition", "0"}}, 404},
      {{{"topic", "../orders"}, {"partition", "0"}}, 404},
  };
  for (const auto& [params, status] : cases) {
    SCOPED_TRACE(json(params).dump());
    HttpResponse page = Get("/partition", params);
    EXPECT_EQ(page.status, status);
    EXPECT_EQ(page.content_type, "text/html; charset=utf-8");
    EXPECT_EQ(page.body.find("<script>alert"), std::string::npos);
    json j = GetJson("/api/partition", params, status);
    EXPECT_TRUE(j.contains("error"));
    auto lookup = params;
    lookup["offset"] = "1";
    GetJson("/api/lookup", lookup, status);
  }
  // The lookup's own parameters.
  for (const auto& extra :
       std::vector<std::map<std::string, std::string>>{{},
                                                       {{"offset", "1"}, {"timestamp", "1"}},
                                                       {{"offset", "one"}},
                                                       {{"timestamp", "1.5"}},
                                                       {{"timestamp", "-1"}},
                                                       {{"offset", ""}}}) {
    auto params = extra;
    params["topic"] = "orders";
    params["partition"] = "0";
    SCOPED_TRACE(json(params).dump());
    GetJson("/api/lookup", params, 400);
  }
}

TEST_F(WebConsoleTest, DataIsEscapedInPagesAndJson) {
  // A name no topic may have is echoed by the 404 page as text.
  HttpResponse r = Get("/partition", {{"topic", "<script>alert(1)</script>"}, {"partition", "0"}});
  EXPECT_EQ(r.status, 404);
  EXPECT_NE(r.body.find("Unknown topic &lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos)
      << r.body;
  // The cluster id is data too.
  r = Get("/");
  EXPECT_EQ(r.status, 200);
  EXPECT_NE(r.body.find("&lt;b&gt;cluster&lt;/b&gt;"), std::string::npos);
  EXPECT_EQ(r.body.find("<b>cluster"), std::string::npos);
  // Attribute values too.
  EXPECT_EQ(HtmlEscape("a\"b'c<d>e&f"), "a&quot;b&#39;c&lt;d&gt;e&amp;f");
  EXPECT_EQ(UrlEncode("a b&c=d/é"), "a%20b%26c%3Dd%2F%C3%A9");
  // JSON: structure intact, strings escaped, no raw '<' at all, ASCII only, bad UTF-8 survives.
  const std::string text = SafeJsonText(
      json{{"topic", "</script><script>alert(1)</script>"}, {"q", "\"&\\\n"}, {"u", "é\xff"}});
  EXPECT_EQ(text.find('<'), std::string::npos);
  EXPECT_EQ(text.find('>'), std::string::npos);
  EXPECT_EQ(text.find('&'), std::string::npos);
  for (char c : text) EXPECT_LT(static_cast<unsigned char>(c), 0x80);
  json back = json::parse(text, nullptr, false);
  ASSERT_FALSE(back.is_discarded()) << text;
  EXPECT_EQ(back["topic"], "</script><script>alert(1)</script>");
  EXPECT_EQ(back["q"], "\"&\\\n");
  EXPECT_EQ(back["u"], "é\xEF\xBF\xBD");
}

TEST_F(WebConsoleTest, PagesListTheTopicsAndLinkTheirPartitions) {
  HttpResponse r = Get("/topics");
  EXPECT_EQ(r.status, 200);
  EXPECT_NE(r.body.find("data-topic=\"orders\""), std::string::npos);
  EXPECT_NE(r.body.find("href=\"/partition?topic=orders&amp;partition=0\""), std::string::npos);
  EXPECT_NE(r.body.find("href=\"/partition?topic=orders&amp;partition=1\""), std::string::npos);
  r = Get("/partition", {{"topic", "orders"}, {"partition", "1"}});
  EXPECT_EQ(r.status, 200);
  EXPECT_NE(r.body.find("data-topic=\"orders\" data-partition=\"1\""), std::string::npos);
  // Without coordinators the other pages still answer.
  EXPECT_EQ(Get("/groups").status, 200);
  EXPECT_EQ(Get("/transactions").status, 200);
  json topics = GetJson("/api/topics", {}, 200);
  ASSERT_EQ(topics["topics"].size(), 1u);
  EXPECT_EQ(topics["topics"][0]["partitions"][0]["log_end_offset"], 80);
  EXPECT_EQ(topics["topics"][0]["partitions"][1]["log_end_offset"], 0);
}

TEST_F(WebConsoleTest, TheScriptAndStyleAreEmbeddedAndTheScriptDrawsNoHtml) {
  for (const char* name : {"console.js", "console.css"}) {
    const ConsoleAsset* a = FindConsoleAsset(name);
    ASSERT_NE(a, nullptr) << name;
    EXPECT_GT(a->bytes.size(), 1000u);
    HttpResponse r = Get(fmt::format("/{}", name));
    EXPECT_EQ(r.body, std::string(a->bytes));
    EXPECT_EQ(r.content_type, std::string(a->content_type));
  }
  EXPECT_EQ(FindConsoleAsset("nope.js"), nullptr);
  // Data reaches the page as text only: the script never parses HTML.
  const std::string js(FindConsoleAsset("console.js")->bytes);
  for (const char* sink :
       {"innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval("}) {
    EXPECT_EQ(js.find(sink), std::string::npos) << sink;
  }
}

}  // namespace
}  // namespace seglog
