// The console's JSON: the partition view and the lookup traces as the partition page's script
// reads them, and SafeJsonText, the one way the console turns JSON into response bytes.
//
// Every string is escaped as JSON requires; besides, the text is pure ASCII (other characters
// as \uXXXX, invalid UTF-8 replaced by U+FFFD) and '<', '>' and '&' are escaped too, so that
// no topic, group or record text can close a <script> element or be read as HTML if a browser
// ever sniffed the response.
//
// Thread safety: pure functions, thread-safe.
#ifndef SEGLOG_CONSOLE_CONSOLE_JSON_H_
#define SEGLOG_CONSOLE_CONSOLE_JSON_H_

#include <nlohmann/json.hpp>
#include <string>

#include "console/lookup_trace.h"
#include "console/partition_view.h"

namespace seglog {

nlohmann::json PartitionViewJson(const PartitionView& view);
nlohmann::json OffsetLookupJson(const OffsetLookupTrace& trace);
nlohmann::json TimestampLookupJson(const TimestampLookupTrace& trace);

// `j` as response text (see above). Never throws.
std::string SafeJsonText(const nlohmann::json& j);

}  // namespace seglog

#endif  // SEGLOG_CONSOLE_CONSOLE_JSON_H_
