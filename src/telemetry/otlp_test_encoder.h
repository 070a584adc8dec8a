// A minimal protobuf writer for tests: builds OTLP MetricsData payloads field by field.
// Thread safety: a value type.
#ifndef SEGLOG_TELEMETRY_OTLP_TEST_ENCODER_H_
#define SEGLOG_TELEMETRY_OTLP_TEST_ENCODER_H_

#include <bit>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace seglog::otlp_test {

class Pb {
 public:
  Pb& Varint(uint32_t field, uint64_t v) {
    Key(field, 0);
    Raw(v);
    return *this;
  }
  Pb& Fixed64(uint32_t field, uint64_t v) {
    Key(field, 1);
    for (int i = 0; i < 8; ++i) bytes_.push_back(static_cast<uint8_t>(v >> (8 * i)));
    return *this;
  }
  Pb& Double(uint32_t field, double v) { return Fixed64(field, std::bit_cast<uint64_t>(v)); }
  Pb& Bytes(uint32_t field, const std::vector<uint8_t>& b) {
    Key(field, 2);
    Raw(b.size());
    bytes_.insert(bytes_.end(), b.begin(), b.end());
    return *this;
  }
  Pb& Str(uint32_t field, const std::string& s) {
    return Bytes(field, std::vector<uint8_t>(s.begin(), s.end()));
  }
  Pb& Msg(uint32_t field, const Pb& m) { return Bytes(field, m.bytes_); }
  const std::vector<uint8_t>& bytes() const { return bytes_; }

 private:
  void Key(uint32_t field, uint32_t type) { Raw((static_cast<uint64_t>(field) << 3) | type); }
  void Raw(uint64_t v) {
    while (v >= 0x80) {
      bytes_.push_back(static_cast<uint8_t>(v | 0x80));
      v >>= 7;
    }
    bytes_.push_back(static_cast<uint8_t>(v));
  }
  std::vector<uint8_t> bytes_;
};

inline Pb Attr(const std::string& k, const std::string& v) {
  return Pb().Str(1, k).Msg(2, Pb().Str(1, v));
}

// A NumberDataPoint with a double value and attributes.
inline Pb Point(double v, const std::vector<std::pair<std::string, std::string>>& attrs = {}) {
  Pb p;
  p.Fixed64(3, 1700000000000000000ull).Double(4, v);
  for (const auto& [k, val] : attrs) p.Msg(7, Attr(k, val));
  return p;
}

// MetricsData with one resource, one scope and `metrics`.
inline std::vector<uint8_t> MetricsData(const std::vector<Pb>& metrics) {
  Pb scope;
  scope.Msg(1, Pb().Str(1, "org.apache.kafka"));
  for (const Pb& m : metrics) scope.Msg(2, m);
  Pb resource;
  resource.Msg(1, Pb().Msg(1, Attr("service", "x"))).Msg(2, scope);
  return Pb().Msg(1, resource).bytes();
}

inline Pb Gauge(const std::string& name, const Pb& point) {
  return Pb().Str(1, name).Msg(5, Pb().Msg(1, point));
}
inline Pb DeltaCounter(const std::string& name, const Pb& point) {
  return Pb().Str(1, name).Msg(7, Pb().Msg(1, point).Varint(2, 1).Varint(3, 1));
}

}  // namespace seglog::otlp_test

#endif  // SEGLOG_TELEMETRY_OTLP_TEST_ENCODER_H_
