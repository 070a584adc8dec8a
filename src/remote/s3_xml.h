// S3's XML responses: a tiny, strict parser for the few documents seglog reads (errors, object
// listings, multipart upload ids), and the decoders of those documents.
//
// The bytes come from the network, so the parser trusts nothing: it bounds the document size,
// the nesting depth and the number of elements, refuses DOCTYPE (no entity expansion), decodes
// only XML's five named entities and numeric character references, and names the byte position
// of whatever it rejects. It keeps element names (without a namespace prefix), their direct
// text and their children; attributes are checked for form and dropped (S3 puts nothing seglog
// needs in them).
//
// Thread safety: pure functions over values.
#ifndef SEGLOG_REMOTE_S3_XML_H_
#define SEGLOG_REMOTE_S3_XML_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "seglog/result.h"

namespace seglog {

inline constexpr size_t kMaxXmlBytes = 16 * 1024 * 1024;  // a 1000-key listing is ~400 KiB
inline constexpr int kMaxXmlDepth = 32;
inline constexpr int kMaxXmlElements = 200000;

struct XmlElement {
  std::string name;  // local name: "Key" for both <Key> and <s3:Key>
  std::string text;  // the character data directly inside, entities decoded, untrimmed
  std::vector<XmlElement> children;

  // The first child named `child`, or null.
  const XmlElement* Child(std::string_view child) const;
  // That child's text; empty when there is no such child.
  std::string ChildText(std::string_view child) const;
};

// The root element of `document`. Corruption "S3 XML at byte N: ..." when it is not
// well-formed within the limits above.
Result<XmlElement> ParseXml(std::string_view document);

// <Error><Code>SignatureDoesNotMatch</Code><Message>...</Message>...</Error>.
struct S3ErrorBody {
  std::string code;
  std::string message;
  std::string request_id;
};
// The error in `body`, or nullopt when `body` is not an S3 <Error> document.
std::optional<S3ErrorBody> ParseS3Error(std::string_view body);

// One page of ListObjectsV2 (<ListBucketResult>).
struct S3ListedObject {
  std::string key;
  int64_t size = 0;
};
struct S3ListPage {
  std::vector<S3ListedObject> objects;
  bool is_truncated = false;
  std::string next_continuation_token;  // set when is_truncated
};
// Corruption when the document is not a listing, a <Size> is not a non-negative integer, or a
// truncated page has no NextContinuationToken.
Result<S3ListPage> ParseListObjectsV2(std::string_view body);

// The UploadId of <InitiateMultipartUploadResult>; Corruption when absent or empty.
Result<std::string> ParseInitiateMultipartUpload(std::string_view body);

// Escapes text for an XML element (&, <, >).
std::string XmlEscape(std::string_view text);

}  // namespace seglog

#endif  // SEGLOG_REMOTE_S3_XML_H_
