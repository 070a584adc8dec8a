// The console's JSON; see console_json.h.
#include "console/console_json.h"

namespace seglog {

namespace {

using nlohmann::json;

json SearchJson(const IndexSearch& s) {
  json probes = json::array();
  for (const IndexProbe& p : s.probes) {
    probes.push_back({{"slot", p.slot},
                      {"key", p.key},
                      {"value", p.value},
                      {"lo", p.lo},
                      {"hi", p.hi},
                      {"phase", p.phase},
                      {"comparison", p.comparison}});
  }
  return {{"file", s.file},
          {"entries", s.entries},
          {"warm_first_slot", s.warm_first_slot},
          {"probes", probes},
          {"probes_omitted", s.probes_omitted},
          {"slot", s.slot},
          {"key", s.key},
          {"value", s.value}};
}

json VisitJson(const SegmentVisit& v) {
  json scan = json::array();
  for (const ScanStep& s : v.scan) {
    scan.push_back({{"position", s.position},
                    {"size", s.size},
                    {"base_offset", s.base_offset},
                    {"last_offset", s.last_offset},
                    {"max_timestamp", s.max_timestamp},
                    {"match", s.match}});
  }
  json j = {{"base_offset", v.base_offset},  {"size", v.size},
            {"log_file", v.log_file},        {"offset_index", SearchJson(v.offset_index)},
            {"scan_from", v.scan_from},      {"scan", scan},
            {"scan_omitted", v.scan_omitted}};
  if (v.time_index) j["time_index"] = SearchJson(*v.time_index);
  return j;
}

}  // namespace

json PartitionViewJson(const PartitionView& v) {
  json segments = json::array();
  for (const SegmentView& s : v.segments) {
    json oe = json::array();
    for (const auto& [slot, e] : s.offset_entries) oe.push_back({slot, e.offset, e.position});
    json te = json::array();
    for (const auto& [slot, e] : s.time_entries) te.push_back({slot, e.timestamp, e.offset});
    segments.push_back({{"base_offset", s.base_offset},
                        {"size", s.size},
                        {"next_offset", s.next_offset},
                        {"active", s.active},
                        {"largest_timestamp", s.largest_timestamp},
                        {"entries_included", s.entries_included},
                        {"offset_index_entries", s.offset_index_entries},
                        {"time_index_entries", s.time_index_entries},
                        {"offset_entries", oe},
                        {"time_entries", te}});
  }
  return {{"topic", v.topic},
          {"partition", v.partition},
          {"dir", v.dir},
          {"now_ms", v.now_ms},
          {"log_start_offset", v.log_start_offset},
          {"log_end_offset", v.log_end_offset},
          {"high_watermark", v.high_watermark},
          {"last_stable_offset", v.last_stable_offset},
          {"recovery_point", v.recovery_point},
          {"size_bytes", v.size_bytes},
          {"config",
           {{"segment.bytes", v.segment_bytes},
            {"segment.ms", v.segment_ms},
            {"index.interval.bytes", v.index_interval_bytes},
            {"retention.ms", v.retention_ms},
            {"retention.bytes", v.retention_bytes},
            {"cleanup.policy", v.cleanup_policy}}},
          {"segments", segments},
          {"segments_omitted", v.segments_omitted},
          {"leaving_files", v.leaving_files}};
}

json OffsetLookupJson(const OffsetLookupTrace& t) {
  json visits = json::array();
  for (const SegmentVisit& v : t.visits) visits.push_back(VisitJson(v));
  json j = {{"kind", "offset"},
            {"target", t.target},
            {"log_start_offset", t.log_start_offset},
            {"log_end_offset", t.log_end_offset},
            {"segment_bases", t.segment_bases},
            {"segment_bases_omitted", t.segment_bases_omitted},
            {"floor_base_offset", t.floor_base_offset},
            {"visits", visits},
            {"note", t.note}};
  if (t.found) {
    j["found"] = {{"segment_base_offset", t.found->segment_base_offset},
                  {"position", t.found->position},
                  {"size", t.found->size},
                  {"base_offset", t.found->base_offset},
                  {"last_offset", t.found->last_offset}};
  } else {
    j["found"] = nullptr;
  }
  return j;
}

json TimestampLookupJson(const TimestampLookupTrace& t) {
  json checks = json::array();
  for (const auto& c : t.checks) {
    checks.push_back({{"base_offset", c.base_offset},
                      {"largest_timestamp", c.largest_timestamp},
                      {"chosen", c.chosen}});
  }
  json records = json::array();
  for (const RecordStep& r : t.records) {
    records.push_back({{"offset", r.offset}, {"timestamp", r.timestamp}, {"match", r.match}});
  }
  json j = {{"kind", "timestamp"},
            {"target", t.target},
            {"log_start_offset", t.log_start_offset},
            {"checks", checks},
            {"checks_omitted", t.checks_omitted},
            {"visit", t.visit ? VisitJson(*t.visit) : json(nullptr)},
            {"offset_searched", t.offset_searched},
            {"records", records},
            {"records_omitted", t.records_omitted},
            {"note", t.note}};
  if (t.found) {
    j["found"] = {{"offset", t.found->offset}, {"timestamp", t.found->timestamp}};
  } else {
    j["found"] = nullptr;
  }
  return j;
}

std::string SafeJsonText(const nlohmann::json& j) {
  const std::string text =
      j.dump(-1, ' ', /*ensure_ascii=*/true, nlohmann::json::error_handler_t::replace);
  std::string out;
  out.reserve(text.size());
  // '<', '>' and '&' occur in JSON text only inside strings, where \u escapes mean the same.
  for (char c : text) {
    switch (c) {
      case '<':
        out += "\\u003c";
        break;
      case '>':
        out += "\\u003e";
        break;
      case '&':
        out += "\\u0026";
        break;
      default:
        out += c;
    }
  }
  return out;
}

}  // namespace seglog
