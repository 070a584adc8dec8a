// The S3 XML parser and decoders (s3_xml.h): well-formed documents, S3's real answers, and
// every rejection.
#include "remote/s3_xml.h"

#include <gtest/gtest.h>

#include <string>

namespace seglog {
namespace {

TEST(S3XmlTest, ParsesElementsTextEntitiesAndCdata) {
  Result<XmlElement> root = ParseXml(
      "\xEF\xBB\xBF<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!-- c -->"
      "<a x=\"1\" y='2'><b>one &amp; &lt;two&gt; &quot;&apos;</b><s3:c/>"
      "<d><![CDATA[<raw&>]]>&#65;&#x42;&#xe9;&#x1F600;</d></a>\n");
  ASSERT_TRUE(root.ok()) << root.status().ToString();
  EXPECT_EQ(root->name, "a");
  ASSERT_EQ(root->children.size(), 3u);
  EXPECT_EQ(root->ChildText("b"), "one & <two> \"'");
  ASSERT_NE(root->Child("c"), nullptr);  // namespace prefix dropped
  EXPECT_EQ(root->ChildText("d"), "<raw&>AB\xC3\xA9\xF0\x9F\x98\x80");
  EXPECT_EQ(root->Child("missing"), nullptr);
  EXPECT_EQ(root->ChildText("missing"), "");
}

TEST(S3XmlTest, RejectsMalformedDocumentsNamingThePosition) {
  const char* bad[] = {
      "",
      "text",
      "<a>",
      "<a></b>",
      "<a><b></a></b>",
      "<a x=1></a>",
      "<a x=\"1></a>",
      "<a>&bogus;</a>",
      "<a>&#0;</a>",
      "<a>&#xD800;</a>",
      "<a>&#x110000;</a>",
      "<a>&amp</a>",
      "<a><![CDATA[x</a>",
      "<a><!-- x</a>",
      "<!DOCTYPE a [<!ENTITY e \"x\">]><a>&e;</a>",
      "<a></a><b></b>",
      "<a></a>trailing",
      "<a><!ELEMENT x></a>",
      "< a></a>",
  };
  for (const char* doc : bad) {
    Result<XmlElement> r = ParseXml(doc);
    EXPECT_FALSE(r.ok()) << "accepted: " << doc;
    if (!r.ok()) {
      EXPECT_TRUE(r.status().IsCorruption()) << doc;
      EXPECT_NE(r.status().message().find("S3 XML"), std::string_view::npos) << doc;
    }
  }
  Result<XmlElement> r = ParseXml("<a><b></a>");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("at byte 6"), std::string_view::npos)
      << r.status().ToString();
}

TEST(S3XmlTest, BoundsDepthAndSize) {
  std::string deep;
  for (int i = 0; i < kMaxXmlDepth; ++i) deep += "<a>";
  for (int i = 0; i < kMaxXmlDepth; ++i) deep += "</a>";
  EXPECT_TRUE(ParseXml(deep).ok());
  Result<XmlElement> too_deep = ParseXml("<r>" + deep + "</r>");
  ASSERT_FALSE(too_deep.ok());
  EXPECT_NE(too_deep.status().message().find("nested deeper"), std::string_view::npos);

  std::string many = "<r>";
  for (int i = 0; i < kMaxXmlElements; ++i) many += "<e/>";
  many += "</r>";
  Result<XmlElement> too_many = ParseXml(many);
  ASSERT_FALSE(too_many.ok());
  EXPECT_NE(too_many.status().message().find("elements"), std::string_view::npos);

  EXPECT_FALSE(ParseXml(std::string(kMaxXmlBytes + 1, ' ')).ok());
}

TEST(S3XmlTest, DecodesS3Errors) {
  std::optional<S3ErrorBody> e = ParseS3Error(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>SignatureDoesNotMatch</Code>"
      "<Message>The request signature we calculated does not match</Message>"
      "<RequestId>R1</RequestId></Error>");
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->code, "SignatureDoesNotMatch");
  EXPECT_EQ(e->message, "The request signature we calculated does not match");
  EXPECT_EQ(e->request_id, "R1");
  EXPECT_FALSE(ParseS3Error("<ListBucketResult/>").has_value());
  EXPECT_FALSE(ParseS3Error("not xml").has_value());
  EXPECT_FALSE(ParseS3Error("").has_value());
}

TEST(S3XmlTest, DecodesListObjectsV2Pages) {
  // As versitygw answers (trimmed).
  Result<S3ListPage> page = ParseListObjectsV2(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<ListBucketResult "
      "xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><Name>bkt</Name><Prefix>a/</Prefix>"
      "<KeyCount>2</KeyCount><MaxKeys>2</MaxKeys><IsTruncated>true</IsTruncated>"
      "<Contents><ETag>&#34;b19&#34;</ETag><Key>a/b.txt</Key><Size>6</Size></Contents>"
      "<Contents><Key>a/odd name+x</Key><Size>0</Size></Contents>"
      "<NextContinuationToken>a/odd name+x</NextContinuationToken></ListBucketResult>");
  ASSERT_TRUE(page.ok()) << page.status().ToString();
  ASSERT_EQ(page->objects.size(), 2u);
  EXPECT_EQ(page->objects[0].key, "a/b.txt");
  EXPECT_EQ(page->objects[0].size, 6);
  EXPECT_EQ(page->objects[1].key, "a/odd name+x");
  EXPECT_TRUE(page->is_truncated);
  EXPECT_EQ(page->next_continuation_token, "a/odd name+x");

  Result<S3ListPage> last =
      ParseListObjectsV2("<ListBucketResult><IsTruncated>false</IsTruncated></ListBucketResult>");
  ASSERT_TRUE(last.ok());
  EXPECT_TRUE(last->objects.empty());
  EXPECT_FALSE(last->is_truncated);

  const char* bad[] = {
      "<Error><Code>X</Code></Error>",
      "<ListBucketResult><IsTruncated>maybe</IsTruncated></ListBucketResult>",
      "<ListBucketResult><IsTruncated>true</IsTruncated></ListBucketResult>",
      "<ListBucketResult><Contents><Size>1</Size></Contents></ListBucketResult>",
      "<ListBucketResult><Contents><Key>k</Key><Size>-1</Size></Contents></ListBucketResult>",
      "<ListBucketResult><Contents><Key>k</Key><Size>1x</Size></Contents></ListBucketResult>",
      "<ListBucketResult><Contents><Key>k</Key></Contents></ListBucketResult>",
      ("<ListBucketResult><Contents><Key>k</Key><Size>99999999999999999999</Size></Contents>"
       "</ListBucketResult>"),
  };
  for (const char* doc : bad) {
    Result<S3ListPage> r = ParseListObjectsV2(doc);
    EXPECT_FALSE(r.ok()) << doc;
    if (!r.ok()) {
      EXPECT_TRUE(r.status().IsCorruption()) << doc;
    }
  }
}

TEST(S3XmlTest, DecodesInitiateMultipartUpload) {
  Result<std::string> id = ParseInitiateMultipartUpload(
      "<InitiateMultipartUploadResult><Bucket>b</Bucket><Key>k</Key>"
      "<UploadId>8298bee4-501f</UploadId></InitiateMultipartUploadResult>");
  ASSERT_TRUE(id.ok());
  EXPECT_EQ(*id, "8298bee4-501f");
  EXPECT_FALSE(ParseInitiateMultipartUpload("<InitiateMultipartUploadResult/>").ok());
  EXPECT_FALSE(ParseInitiateMultipartUpload("<Other><UploadId>x</UploadId></Other>").ok());
}

TEST(S3XmlTest, EscapesText) {
  EXPECT_EQ(XmlEscape("a&b<c>\"d\""), "a&amp;b&lt;c&gt;\"d\"");
  Result<XmlElement> back = ParseXml("<e>" + XmlEscape("x<&>y") + "</e>");
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->text, "x<&>y");
}

}  // namespace
}  // namespace seglog
