// JsonWriter and JavaDoubleToString; see json_writer.h.
#include "protocol/json_writer.h"

#include <charconv>
#include <cmath>
#include <cstdlib>

#include "base/java_string.h"

namespace seglog::protocol {

namespace {

constexpr char kHexUpper[] = "0123456789ABCDEF";
constexpr char kBase64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

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

// A quoted string as Jackson writes a Java String (its UTF-16 units) and System.out prints it
// as UTF-8. Java's decoder never leaves a lone surrogate, so pairs are always whole.
void AppendQuoted(std::string_view bytes, std::string* out) {
  const std::u16string units = JavaStringFromUtf8(bytes);
  out->push_back('"');
  for (size_t i = 0; i < units.size(); ++i) {
    const char16_t c = units[i];
    switch (c) {
      case u'"':
        *out += "\\\"";
        continue;
      case u'\\':
        *out += "\\\\";
        continue;
      case u'\b':
        *out += "\\b";
        continue;
      case u'\t':
        *out += "\\t";
        continue;
      case u'\n':
        *out += "\\n";
        continue;
      case u'\f':
        *out += "\\f";
        continue;
      case u'\r':
        *out += "\\r";
        continue;
      default:
        break;
    }
    if (c < 0x20) {
      *out += "\\u00";
      out->push_back(kHexUpper[c >> 4]);
      out->push_back(kHexUpper[c & 0xF]);
    } else if (c >= 0xD800 && c <= 0xDBFF && i + 1 < units.size() && units[i + 1] >= 0xDC00 &&
               units[i + 1] <= 0xDFFF) {
      AppendUtf8(0x10000 + ((static_cast<uint32_t>(c) - 0xD800) << 10) + (units[i + 1] - 0xDC00),
                 out);
      ++i;
    } else {
      AppendUtf8(c, out);
    }
  }
  out->push_back('"');
}

}  // namespace

void JsonWriter::BeforeValue() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!empty_.empty()) {
    if (!empty_.back()) text_.push_back(',');
    empty_.back() = false;
  }
}

void JsonWriter::BeginObject() {
  BeforeValue();
  text_.push_back('{');
  empty_.push_back(true);
}

void JsonWriter::EndObject() {
  text_.push_back('}');
  empty_.pop_back();
}

void JsonWriter::BeginArray() {
  BeforeValue();
  text_.push_back('[');
  empty_.push_back(true);
}

void JsonWriter::EndArray() {
  text_.push_back(']');
  empty_.pop_back();
}

void JsonWriter::Key(std::string_view name) {
  BeforeValue();
  AppendQuoted(name, &text_);
  text_.push_back(':');
  after_key_ = true;
}

void JsonWriter::Null() {
  BeforeValue();
  text_ += "null";
}

void JsonWriter::Bool(bool v) {
  BeforeValue();
  text_ += v ? "true" : "false";
}

void JsonWriter::Int(int64_t v) {
  BeforeValue();
  text_ += std::to_string(v);
}

void JsonWriter::Double(double v) {
  BeforeValue();
  if (std::isnan(v)) {
    text_ += "\"NaN\"";
  } else if (std::isinf(v)) {
    text_ += v > 0 ? "\"Infinity\"" : "\"-Infinity\"";
  } else {
    text_ += JavaDoubleToString(v);
  }
}

void JsonWriter::String(std::string_view bytes) {
  BeforeValue();
  AppendQuoted(bytes, &text_);
}

void JsonWriter::Uuid(const ::seglog::Uuid& v) {
  BeforeValue();
  text_.push_back('"');
  text_ += v.ToString();
  text_.push_back('"');
}

void JsonWriter::Bytes(std::span<const uint8_t> v) {
  BeforeValue();
  text_.push_back('"');
  size_t i = 0;
  for (; i + 3 <= v.size(); i += 3) {
    const uint32_t n = (uint32_t{v[i]} << 16) | (uint32_t{v[i + 1]} << 8) | v[i + 2];
    text_.push_back(kBase64[n >> 18]);
    text_.push_back(kBase64[(n >> 12) & 0x3F]);
    text_.push_back(kBase64[(n >> 6) & 0x3F]);
    text_.push_back(kBase64[n & 0x3F]);
  }
  if (v.size() - i == 1) {
    const uint32_t n = uint32_t{v[i]} << 16;
    text_.push_back(kBase64[n >> 18]);
    text_.push_back(kBase64[(n >> 12) & 0x3F]);
    text_ += "==";
  } else if (v.size() - i == 2) {
    const uint32_t n = (uint32_t{v[i]} << 16) | (uint32_t{v[i + 1]} << 8);
    text_.push_back(kBase64[n >> 18]);
    text_.push_back(kBase64[(n >> 12) & 0x3F]);
    text_.push_back(kBase64[(n >> 6) & 0x3F]);
    text_.push_back('=');
  }
  text_.push_back('"');
}

std::string JavaDoubleToString(double v) {
  if (v == 0) return std::signbit(v) ? "-0.0" : "0.0";
  // The shortest digits that read back as v, in scientific form: "-1.2345e+10".
  char buf[64];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::scientific);
  (void)ec;  // 64 bytes hold any double
  const std::string_view sci(buf, static_cast<size_t>(end - buf));
  const size_t e_at = sci.find('e');
  std::string digits;
  for (char c : sci.substr(0, e_at)) {
    if (c >= '0' && c <= '9') digits.push_back(c);
  }
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  // v = 0.d1d2d3... * 10^point: the decimal point sits after `point` digits.
  const int exponent = std::atoi(std::string(sci.substr(e_at + 1)).c_str());
  const int point = exponent + 1;
  std::string out = v < 0 ? "-" : "";
  // Plain for 10^-3 <= |v| < 10^7, judged on the decimal digits as Java does.
  if (point > -3 && point < 8) {
    if (point <= 0) {
      out += "0.";
      out.append(static_cast<size_t>(-point), '0');
      out += digits;
    } else if (static_cast<size_t>(point) >= digits.size()) {
      out += digits;
      out.append(static_cast<size_t>(point) - digits.size(), '0');
      out += ".0";
    } else {
      out += digits.substr(0, static_cast<size_t>(point));
      out += '.';
      out += digits.substr(static_cast<size_t>(point));
    }
    return out;
  }
  out += digits[0];
  out += '.';
  out += digits.size() > 1 ? digits.substr(1) : "0";
  out += 'E';
  out += std::to_string(exponent);
  return out;
}

}  // namespace seglog::protocol
