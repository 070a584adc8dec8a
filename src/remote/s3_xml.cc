// The XML subset parser and S3 response decoders (s3_xml.h).
#include "remote/s3_xml.h"

#include <charconv>

#include <fmt/format.h>

namespace seglog {
namespace {

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

// A name ends at whitespace or at one of the markup characters.
bool IsNameChar(char c) {
  return !IsSpace(c) && c != '<' && c != '>' && c != '/' && c != '=' && c != '"' && c != '\'' &&
         c != '&' && c != '\0';
}

void AppendUtf8(uint32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

class Parser {
 public:
  explicit Parser(std::string_view doc) : doc_(doc) {}

  Result<XmlElement> Document() {
    if (doc_.size() > kMaxXmlBytes) {
      return Status::Corruption(
          fmt::format("S3 XML: {} bytes, more than the {} accepted", doc_.size(), kMaxXmlBytes));
    }
    if (doc_.substr(0, 3) == "\xEF\xBB\xBF") pos_ = 3;  // a UTF-8 byte order mark
    SEGLOG_RETURN_IF_ERROR(SkipMisc());
    if (pos_ >= doc_.size() || doc_[pos_] != '<') return Error("expected the root element");
    XmlElement root;
    SEGLOG_RETURN_IF_ERROR(Element(1, &root));
    SEGLOG_RETURN_IF_ERROR(SkipMisc());
    if (pos_ != doc_.size()) return Error("content after the root element");
    return root;
  }

 private:
  Status Error(std::string_view what) const {
    return Status::Corruption(fmt::format("S3 XML at byte {}: {}", pos_, what));
  }
  bool StartsWith(std::string_view s) const { return doc_.substr(pos_, s.size()) == s; }
  void SkipSpace() {
    while (pos_ < doc_.size() && IsSpace(doc_[pos_])) ++pos_;
  }
  // Moves past the next `end`; Corruption naming `what` when there is none.
  Status SkipPast(std::string_view end, std::string_view what) {
    const size_t at = doc_.find(end, pos_);
    if (at == std::string_view::npos) return Error(fmt::format("unterminated {}", what));
    pos_ = at + end.size();
    return Status::OK();
  }
  // Whitespace, comments and processing instructions (<?xml ...?>) around the root.
  Status SkipMisc() {
    for (;;) {
      SkipSpace();
      if (StartsWith("<?")) {
        SEGLOG_RETURN_IF_ERROR(SkipPast("?>", "processing instruction"));
      } else if (StartsWith("<!--")) {
        SEGLOG_RETURN_IF_ERROR(SkipPast("-->", "comment"));
      } else if (StartsWith("<!")) {
        return Error("DOCTYPE and other declarations are not accepted");
      } else {
        return Status::OK();
      }
    }
  }
  Result<std::string_view> Name() {
    const size_t start = pos_;
    while (pos_ < doc_.size() && IsNameChar(doc_[pos_])) ++pos_;
    if (pos_ == start) return Error("expected a name");
    return doc_.substr(start, pos_ - start);
  }
  static std::string LocalName(std::string_view name) {
    const size_t colon = name.rfind(':');
    return std::string(colon == std::string_view::npos ? name : name.substr(colon + 1));
  }
  // Appends the text up to the next '<', entities decoded.
  Status Text(std::string* out) {
    while (pos_ < doc_.size() && doc_[pos_] != '<') {
      const char c = doc_[pos_];
      if (c != '&') {
        if (c == '\0') return Error("NUL character");
        out->push_back(c);
        ++pos_;
        continue;
      }
      SEGLOG_RETURN_IF_ERROR(Entity(out));
    }
    return Status::OK();
  }
  Status Entity(std::string* out) {
    const size_t semi = doc_.find(';', pos_);
    if (semi == std::string_view::npos || semi - pos_ > 12) return Error("unterminated entity");
    const std::string_view ref = doc_.substr(pos_ + 1, semi - pos_ - 1);
    if (ref == "lt") {
      out->push_back('<');
    } else if (ref == "gt") {
      out->push_back('>');
    } else if (ref == "amp") {
      out->push_back('&');
    } else if (ref == "quot") {
      out->push_back('"');
    } else if (ref == "apos") {
      out->push_back('\'');
    } else if (ref.size() >= 2 && ref[0] == '#') {
      const bool hex = ref[1] == 'x';
      const std::string_view digits = ref.substr(hex ? 2 : 1);
      uint32_t cp = 0;
      const auto [end, ec] =
          std::from_chars(digits.data(), digits.data() + digits.size(), cp, hex ? 16 : 10);
      if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size() || cp == 0 ||
          cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
        return Error(fmt::format("bad character reference &{};", ref));
      }
      AppendUtf8(cp, out);
    } else {
      return Error(fmt::format("unknown entity &{};", ref));
    }
    pos_ = semi + 1;
    return Status::OK();
  }
  // REQUIRES: doc_[pos_] == '<' starting an element.
  Status Element(int depth, XmlElement* out) {
    if (depth > kMaxXmlDepth) return Error(fmt::format("nested deeper than {}", kMaxXmlDepth));
    if (++elements_ > kMaxXmlElements) {
      return Error(fmt::format("more than {} elements", kMaxXmlElements));
    }
    ++pos_;  // '<'
    SEGLOG_ASSIGN_OR_RETURN(const std::string_view name, Name());
    out->name = LocalName(name);
    // Attributes: name = "value" | 'value', checked and dropped.
    for (;;) {
      SkipSpace();
      if (pos_ >= doc_.size()) return Error("unterminated start tag");
      if (StartsWith("/>")) {
        pos_ += 2;
        return Status::OK();
      }
      if (doc_[pos_] == '>') {
        ++pos_;
        break;
      }
      SEGLOG_RETURN_IF_ERROR(Name().status());
      SkipSpace();
      if (pos_ >= doc_.size() || doc_[pos_] != '=') return Error("expected '=' in an attribute");
      ++pos_;
      SkipSpace();
      if (pos_ >= doc_.size() || (doc_[pos_] != '"' && doc_[pos_] != '\'')) {
        return Error("expected a quoted attribute value");
      }
      const char quote = doc_[pos_++];
      const size_t end = doc_.find(quote, pos_);
      if (end == std::string_view::npos) return Error("unterminated attribute value");
      if (doc_.substr(pos_, end - pos_).find('<') != std::string_view::npos) {
        return Error("'<' in an attribute value");
      }
      pos_ = end + 1;
    }
    // Content, up to the matching end tag.
    for (;;) {
      if (pos_ >= doc_.size()) return Error(fmt::format("element <{}> is not closed", name));
      if (StartsWith("</")) {
        const size_t end_tag = pos_;
        pos_ += 2;
        SEGLOG_ASSIGN_OR_RETURN(const std::string_view end_name, Name());
        if (end_name != name) {
          pos_ = end_tag;
          return Error(fmt::format("</{}> closes <{}>", end_name, name));
        }
        SkipSpace();
        if (pos_ >= doc_.size() || doc_[pos_] != '>') return Error("unterminated end tag");
        ++pos_;
        return Status::OK();
      }
      if (StartsWith("<!--")) {
        SEGLOG_RETURN_IF_ERROR(SkipPast("-->", "comment"));
      } else if (StartsWith("<![CDATA[")) {
        const size_t start = pos_ + 9;
        const size_t end = doc_.find("]]>", start);
        if (end == std::string_view::npos) return Error("unterminated CDATA section");
        out->text.append(doc_.substr(start, end - start));
        pos_ = end + 3;
      } else if (StartsWith("<?")) {
        SEGLOG_RETURN_IF_ERROR(SkipPast("?>", "processing instruction"));
      } else if (StartsWith("<!")) {
        return Error("declaration inside an element");
      } else if (doc_[pos_] == '<') {
        out->children.emplace_back();
        SEGLOG_RETURN_IF_ERROR(Element(depth + 1, &out->children.back()));
      } else {
        SEGLOG_RETURN_IF_ERROR(Text(&out->text));
      }
    }
  }

  std::string_view doc_;
  size_t pos_ = 0;
  int elements_ = 0;
};

std::string_view Trim(std::string_view s) {
  while (!s.empty() && IsSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsSpace(s.back())) s.remove_suffix(1);
  return s;
}

}  // namespace

const XmlElement* XmlElement::Child(std::string_view child) const {
  for (const XmlElement& c : children) {
    if (c.name == child) return &c;
  }
  return nullptr;
}

std::string XmlElement::ChildText(std::string_view child) const {
  const XmlElement* c = Child(child);
  return c == nullptr ? std::string() : c->text;
}

Result<XmlElement> ParseXml(std::string_view document) { return Parser(document).Document(); }

std::optional<S3ErrorBody> ParseS3Error(std::string_view body) {
  Result<XmlElement> root = ParseXml(body);
  if (!root.ok() || root->name != "Error") return std::nullopt;
  return S3ErrorBody{std::string(Trim(root->ChildText("Code"))), root->ChildText("Message"),
                     std::string(Trim(root->ChildText("RequestId")))};
}

Result<S3ListPage> ParseListObjectsV2(std::string_view body) {
  SEGLOG_ASSIGN_OR_RETURN(XmlElement root, ParseXml(body));
  if (root.name != "ListBucketResult") {
    return Status::Corruption(
        fmt::format("S3 ListObjectsV2: the response is <{}>, not <ListBucketResult>", root.name));
  }
  S3ListPage page;
  const std::string truncated_text = root.ChildText("IsTruncated");
  const std::string_view truncated = Trim(truncated_text);
  if (truncated == "true") {
    page.is_truncated = true;
  } else if (truncated != "false" && !truncated.empty()) {
    return Status::Corruption(fmt::format("S3 ListObjectsV2: IsTruncated is '{}'", truncated));
  }
  for (XmlElement& c : root.children) {
    if (c.name != "Contents") continue;
    const XmlElement* key = c.Child("Key");
    if (key == nullptr) return Status::Corruption("S3 ListObjectsV2: <Contents> without <Key>");
    const std::string size_raw = c.ChildText("Size");
    const std::string_view size_text = Trim(size_raw);
    int64_t size = 0;
    const auto [end, ec] =
        std::from_chars(size_text.data(), size_text.data() + size_text.size(), size);
    if (size_text.empty() || ec != std::errc() || end != size_text.data() + size_text.size() ||
        size < 0) {
      return Status::Corruption(
          fmt::format("S3 ListObjectsV2: object '{}' has size '{}'", key->text, size_text));
    }
    page.objects.push_back(S3ListedObject{key->text, size});
  }
  if (page.is_truncated) {
    page.next_continuation_token = root.ChildText("NextContinuationToken");
    if (page.next_continuation_token.empty()) {
      return Status::Corruption(
          "S3 ListObjectsV2: a truncated page without a NextContinuationToken");
    }
  }
  return page;
}

Result<std::string> ParseInitiateMultipartUpload(std::string_view body) {
  SEGLOG_ASSIGN_OR_RETURN(XmlElement root, ParseXml(body));
  if (root.name != "InitiateMultipartUploadResult") {
    return Status::Corruption(fmt::format(
        "S3 CreateMultipartUpload: the response is <{}>, not <InitiateMultipartUploadResult>",
        root.name));
  }
  std::string id(Trim(root.ChildText("UploadId")));
  if (id.empty()) return Status::Corruption("S3 CreateMultipartUpload: no UploadId");
  return id;
}

std::string XmlEscape(std::string_view text) {
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
      default:
        out.push_back(c);
    }
  }
  return out;
}

}  // namespace seglog
