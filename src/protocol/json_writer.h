// JsonWriter: the JSON text of a message as Kafka's generated <Message>JsonConverter.write builds
// it (a Jackson ObjectNode) and JsonNode.toString() prints it - what DumpLogSegments shows for
// KRaft control records and for --cluster-metadata-decoder's records
// (tools/metadata_record_text.h).
//
// Jackson's compact form, with no spaces: {"name":"t","topicId":"AAAAAAAAAAAAAAAAAAAAAA"}.
//   - members in the order they are written (ObjectNode keeps insertion order);
//   - strings as the Java String that Kafka's readString decoded from the bytes (ill-formed
//     UTF-8 becomes U+FFFD: base/java_string.h), with '"' and '\' escaped, the controls below
//     U+0020 as \b \t \n \f \r or \u00XX (upper-case hex), anything else as UTF-8;
//   - bytes (BinaryNode) as standard Base64 with '=' padding; Uuids as Kafka's Uuid.toString
//     (URL-safe Base64, 22 characters);
//   - integers in decimal; float64 (DoubleNode) as Java's Double.toString, except NaN and the
//     infinities, which Jackson writes as the strings "NaN", "Infinity", "-Infinity".
//
// Thread safety: not thread-safe; one writer per text.
#ifndef SEGLOG_PROTOCOL_JSON_WRITER_H_
#define SEGLOG_PROTOCOL_JSON_WRITER_H_

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/uuid.h"

namespace seglog::protocol {

class JsonWriter {
 public:
  JsonWriter() = default;

  // Containers. REQUIRES: balanced; a member's Key before its value inside an object.
  void BeginObject();
  void EndObject();
  void BeginArray();
  void EndArray();
  // A member name (the schema's field names: ASCII letters and digits, written as they are).
  void Key(std::string_view name);

  void Null();
  void Bool(bool v);
  void Int(int64_t v);
  void Double(double v);
  // `bytes` as Java decodes them from UTF-8 (see above).
  void String(std::string_view bytes);
  void Uuid(const ::seglog::Uuid& v);
  void Bytes(std::span<const uint8_t> v);

  const std::string& text() const { return text_; }
  std::string Release() { return std::move(text_); }

 private:
  // The comma before a value or key that is not its container's first.
  void BeforeValue();

  std::string text_;
  // Per open container: whether it holds nothing yet.
  std::vector<bool> empty_;
  bool after_key_ = false;
};

// Java's Double.toString(v) for a finite v: "0.0", "100.0", "0.001", "1.0E7", "1.0E-4",
// "1.5E300" (plain from 10^-3 up to below 10^7, else one digit, '.', the rest and E<exponent>).
// The digits are the shortest that read back as v. JDK 17's Double.toString (the oracle's) prints
// more digits than that for a few values (1.0E23 as 9.999999999999999E22, Double.MIN_VALUE as
// 4.9E-324); JDK 19 and later print the shortest, as this does.
std::string JavaDoubleToString(double v);

}  // namespace seglog::protocol

#endif  // SEGLOG_PROTOCOL_JSON_WRITER_H_
