// HTML for the console's server-rendered pages: escaping, and the page frame every page shares
// (its navigation, the stylesheet and script, a Content-Security-Policy that allows only the
// console's own script and style).
//
// Every text that comes from data - a topic, a group id, a member's client id, a
// transactional id, a request parameter echoed in an error page - goes through HtmlEscape
// before it is part of a page; nothing else is needed to draw them as text.
//
// Thread safety: pure functions, thread-safe.
#ifndef SEGLOG_CONSOLE_HTML_H_
#define SEGLOG_CONSOLE_HTML_H_

#include <string>
#include <string_view>

#include "http/http_server.h"

namespace seglog {

// `text` with &, <, >, " and ' replaced by character references: safe as element text and as
// a quoted attribute value.
std::string HtmlEscape(std::string_view text);

// `text` percent-encoded for a URL's query value (RFC 3986 unreserved characters kept).
std::string UrlEncode(std::string_view text);

// A whole page: `title` (plain text, escaped here), the navigation with `nav` ("overview",
// "topics", "groups", "transactions" or "") marked current, and `body` (HTML, already safe).
std::string HtmlPage(std::string_view title, std::string_view nav, std::string_view body);

// An error page: `status` 400 or 404, a plain-text message (escaped here).
HttpResponse HtmlError(int status, std::string_view message);

// 200 with an HTML page.
HttpResponse HtmlOk(std::string body);

}  // namespace seglog

#endif  // SEGLOG_CONSOLE_HTML_H_
