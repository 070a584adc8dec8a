// HTML for the console's pages; see html.h.
#include "console/html.h"

#include <fmt/format.h>

namespace seglog {

std::string HtmlEscape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string UrlEncode(std::string_view text) {
  std::string out;
  for (unsigned char c : text) {
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
        c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += fmt::format("%{:02X}", c);
    }
  }
  return out;
}

std::string HtmlPage(std::string_view title, std::string_view nav, std::string_view body) {
  std::string links;
  for (const auto& [id, href, label] :
       {std::tuple<const char*, const char*, const char*>{"overview", "/", "Overview"},
        {"topics", "/topics", "Topics"},
        {"groups", "/groups", "Consumer groups"},
        {"transactions", "/transactions", "Transactions"}}) {
    links += fmt::format("<a href=\"{}\"{}>{}</a>", href,
                         nav == id ? " class=\"current\" aria-current=\"page\"" : "", label);
  }
  return fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'self'; "
      "script-src 'self'; style-src 'self'; img-src 'self' data:; object-src 'none'; "
      "base-uri 'none'; form-action 'self'\">"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
      "<title>{} - seglog</title><link rel=\"stylesheet\" href=\"/console.css\"></head>\n"
      "<body><header><span class=\"brand\">seglog</span><nav>{}</nav>"
      "<span class=\"readonly\">read-only</span></header>\n<main>\n<h1>{}</h1>\n{}\n</main>\n"
      "<script src=\"/console.js\"></script></body></html>\n",
      HtmlEscape(title), links, HtmlEscape(title), body);
}

HttpResponse HtmlError(int status, std::string_view message) {
  HttpResponse r;
  r.status = status;
  r.content_type = "text/html; charset=utf-8";
  r.body = HtmlPage(status == 404 ? "Not found" : "Bad request", "",
                    fmt::format("<p class=\"error\" id=\"error\">{}</p>", HtmlEscape(message)));
  return r;
}

HttpResponse HtmlOk(std::string body) {
  HttpResponse r;
  r.content_type = "text/html; charset=utf-8";
  r.body = std::move(body);
  return r;
}

}  // namespace seglog
