#include "telemetry/otlp_metrics_decoder.h"

#include <gtest/gtest.h>

#include <random>

#include "telemetry/otlp_test_encoder.h"

namespace seglog {
namespace {

using otlp_test::Pb;

std::vector<uint8_t> Sample() {
  return otlp_test::MetricsData(
      {otlp_test::DeltaCounter("org.apache.kafka.producer.record.send.total",
                               otlp_test::Point(42, {{"client_id", "p1"}, {"topic", "t"}})),
       otlp_test::Gauge("org.apache.kafka.producer.buffer.available.bytes",
                        otlp_test::Point(1024.5)),
       // A histogram (field 9): skipped.
       Pb().Str(1, "h").Msg(9, Pb().Varint(2, 1))});
}

TEST(OtlpMetricsDecoderTest, DecodesGaugesAndSums) {
  auto m = DecodeOtlpMetrics(Sample());
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  ASSERT_EQ(m->size(), 2u);
  EXPECT_EQ((*m)[0].name, "org.apache.kafka.producer.record.send.total");
  EXPECT_EQ((*m)[0].kind, OtlpMetric::Kind::kSum);
  EXPECT_EQ((*m)[0].temporality, OtlpTemporality::kDelta);
  EXPECT_TRUE((*m)[0].monotonic);
  ASSERT_EQ((*m)[0].points.size(), 1u);
  EXPECT_EQ((*m)[0].points[0].value, 42);
  ASSERT_EQ((*m)[0].points[0].attributes.size(), 2u);
  EXPECT_EQ((*m)[0].points[0].attributes[1].first, "topic");
  EXPECT_EQ((*m)[0].points[0].attributes[1].second, "t");
  EXPECT_EQ((*m)[1].kind, OtlpMetric::Kind::kGauge);
  EXPECT_EQ((*m)[1].points[0].value, 1024.5);
}

TEST(OtlpMetricsDecoderTest, IntValuesAndNonStringAttributes) {
  Pb point;
  point.Fixed64(6, static_cast<uint64_t>(int64_t{-7}))
      .Msg(7, Pb().Str(1, "b").Msg(2, Pb().Varint(2, 1)))
      .Msg(7, Pb().Str(1, "i").Msg(2, Pb().Varint(3, 12)))
      .Msg(7, Pb().Str(1, "arr").Msg(2, Pb().Msg(5, Pb())));
  auto m = DecodeOtlpMetrics(otlp_test::MetricsData({otlp_test::Gauge("g", point)}));
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ((*m)[0].points[0].value, -7);
  ASSERT_EQ((*m)[0].points[0].attributes.size(), 2u);  // the array is left out
  EXPECT_EQ((*m)[0].points[0].attributes[0].second, "true");
  EXPECT_EQ((*m)[0].points[0].attributes[1].second, "12");
}

TEST(OtlpMetricsDecoderTest, EmptyIsNoMetrics) {
  auto m = DecodeOtlpMetrics({});
  ASSERT_TRUE(m.ok());
  EXPECT_TRUE(m->empty());
}

TEST(OtlpMetricsDecoderTest, EveryTruncationIsRefusedOrShorter) {
  const std::vector<uint8_t> full = Sample();
  for (size_t n = 1; n < full.size(); ++n) {
    std::vector<uint8_t> cut(full.begin(), full.begin() + static_cast<ptrdiff_t>(n));
    auto m = DecodeOtlpMetrics(cut);
    // The outer message's length runs past the end for every cut inside it.
    EXPECT_FALSE(m.ok()) << "cut at " << n;
  }
}

TEST(OtlpMetricsDecoderTest, LyingLengthIsRefused) {
  // resource_metrics says 100 bytes, 2 follow.
  std::vector<uint8_t> lie = {0x0a, 100, 0x12, 0x00};
  auto m = DecodeOtlpMetrics(lie);
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("length of 100"), std::string::npos) << m.status().ToString();
  // A length near 2^64.
  std::vector<uint8_t> huge = {0x0a, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
  EXPECT_FALSE(DecodeOtlpMetrics(huge).ok());
  // An 11-byte varint.
  std::vector<uint8_t> long_varint(12, 0xff);
  long_varint[0] = 0x08;
  EXPECT_FALSE(DecodeOtlpMetrics(long_varint).ok());
}

TEST(OtlpMetricsDecoderTest, WrongWireTypesAndBadFieldsAreRefused) {
  // resource_metrics as a varint.
  EXPECT_FALSE(DecodeOtlpMetrics(Pb().Varint(1, 5).bytes()).ok());
  // A metric name as a fixed64.
  Pb metric;
  metric.Fixed64(1, 3);
  EXPECT_FALSE(DecodeOtlpMetrics(otlp_test::MetricsData({metric})).ok());
  // Wire types 3, 4 (groups), 6 and 7 do not exist here.
  for (uint8_t key : {0x0b, 0x0c, 0x0e, 0x0f}) {
    EXPECT_FALSE(DecodeOtlpMetrics(std::vector<uint8_t>{key, 0}).ok()) << int{key};
  }
  // Field number 0.
  EXPECT_FALSE(DecodeOtlpMetrics(std::vector<uint8_t>{0x02, 0}).ok());
  // A temporality that does not exist.
  EXPECT_FALSE(
      DecodeOtlpMetrics(otlp_test::MetricsData({Pb().Str(1, "s").Msg(7, Pb().Varint(2, 9))})).ok());
}

TEST(OtlpMetricsDecoderTest, LimitsAreEnforced) {
  OtlpLimits limits;
  limits.max_points = 3;
  std::vector<Pb> many;
  for (int i = 0; i < 4; ++i) many.push_back(otlp_test::Gauge("g", otlp_test::Point(i)));
  auto m = DecodeOtlpMetrics(otlp_test::MetricsData(many), limits);
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("more than 3 data points"), std::string::npos);

  limits = {};
  limits.max_metrics = 2;
  EXPECT_FALSE(DecodeOtlpMetrics(otlp_test::MetricsData(many), limits).ok());

  limits = {};
  limits.max_string_bytes = 10;
  EXPECT_FALSE(DecodeOtlpMetrics(otlp_test::MetricsData(
                                     {otlp_test::Gauge(std::string(11, 'x'), otlp_test::Point(1))}),
                                 limits)
                   .ok());

  limits = {};
  limits.max_attributes_per_point = 1;
  EXPECT_FALSE(DecodeOtlpMetrics(otlp_test::MetricsData({otlp_test::Gauge(
                                     "g", otlp_test::Point(1, {{"a", "1"}, {"b", "2"}}))}),
                                 limits)
                   .ok());
}

TEST(OtlpMetricsDecoderTest, DeepNestingInUnreadFieldsIsNotDescended) {
  // 10000 nested messages inside an attribute's array value: skipped as bytes.
  Pb inner;
  for (int i = 0; i < 10000; ++i) inner = Pb().Msg(1, inner);
  Pb point = otlp_test::Point(1);
  point.Msg(7, Pb().Str(1, "deep").Msg(2, Pb().Msg(5, inner)));
  auto m = DecodeOtlpMetrics(otlp_test::MetricsData({otlp_test::Gauge("g", point)}));
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_TRUE((*m)[0].points[0].attributes.empty());
}

TEST(OtlpMetricsDecoderTest, BitFlipsNeverCrash) {
  const std::vector<uint8_t> full = Sample();
  std::mt19937 rng(7);
  size_t refused = 0;
  for (int i = 0; i < 20000; ++i) {
    std::vector<uint8_t> b = full;
    const int flips = 1 + static_cast<int>(rng() % 3);
    for (int f = 0; f < flips; ++f) b[rng() % b.size()] ^= static_cast<uint8_t>(1u << (rng() % 8));
    auto m = DecodeOtlpMetrics(b);
    if (!m.ok()) ++refused;
  }
  // Flips in lengths and keys are caught; flips in values decode to other values.
  EXPECT_GT(refused, 1000u);
}

}  // namespace
}  // namespace seglog
