// The OTLP MetricsData subset decoder; see otlp_metrics_decoder.h. Field numbers are
// OpenTelemetry's metrics/v1 and common/v1 schemas:
//   MetricsData      resource_metrics=1
//   ResourceMetrics  scope_metrics=2
//   ScopeMetrics     metrics=2
//   Metric           name=1, gauge=5, sum=7
//   Gauge            data_points=1
//   Sum              data_points=1, aggregation_temporality=2, is_monotonic=3
//   NumberDataPoint  time_unix_nano=3 (fixed64), as_double=4 (double), as_int=6 (sfixed64),
//                    attributes=7
//   KeyValue         key=1, value=2
//   AnyValue         string_value=1, bool_value=2, int_value=3, double_value=4
#include "telemetry/otlp_metrics_decoder.h"

#include <fmt/format.h>

#include <bit>
#include <cstring>

namespace seglog {

namespace {

enum WireType : uint32_t { kVarint = 0, kFixed64 = 1, kLengthDelimited = 2, kFixed32 = 5 };

// One field as read: its number and wire type, with the value (varint and fixed) or the bytes
// (length-delimited).
struct Field {
  uint32_t number = 0;
  uint32_t wire_type = 0;
  uint64_t scalar = 0;
  std::span<const uint8_t> bytes;
};

// Reads the fields of one message. Errors stay in the reader (first one wins).
class WireReader {
 public:
  WireReader(std::span<const uint8_t> bytes, const char* what) : in_(bytes), what_(what) {}

  // False at the end of the message or on an error (see status()).
  bool Next(Field* f) {
    if (!status_.ok() || pos_ >= in_.size()) return false;
    uint64_t key = 0;
    if (!Varint(&key)) return false;
    f->number = static_cast<uint32_t>(key >> 3);
    f->wire_type = static_cast<uint32_t>(key & 7);
    if (key >> 3 == 0 || key >> 3 > 536870911) return Fail("a field number out of range");
    switch (f->wire_type) {
      case kVarint:
        return Varint(&f->scalar);
      case kFixed64:
        return Fixed(8, &f->scalar);
      case kFixed32:
        return Fixed(4, &f->scalar);
      case kLengthDelimited: {
        uint64_t len = 0;
        if (!Varint(&len)) return false;
        if (len > in_.size() - pos_) {
          return Fail(fmt::format("a length of {} with {} bytes left", len, in_.size() - pos_));
        }
        f->bytes = in_.subspan(pos_, static_cast<size_t>(len));
        pos_ += static_cast<size_t>(len);
        return true;
      }
      default:
        return Fail(fmt::format("wire type {}", f->wire_type));
    }
  }

  bool Fail(const std::string& why) {
    if (status_.ok()) {
      status_ =
          Status::Corruption(fmt::format("OTLP metrics: {}: {} at byte {}", what_, why, pos_));
    }
    return false;
  }
  const Status& status() const { return status_; }

 private:
  bool Varint(uint64_t* out) {
    uint64_t v = 0;
    for (int shift = 0; shift < 70; shift += 7) {
      if (pos_ >= in_.size()) return Fail("a truncated varint");
      const uint8_t b = in_[pos_++];
      if (shift == 63 && b > 1) return Fail("a varint over 64 bits");
      v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if ((b & 0x80) == 0) {
        *out = v;
        return true;
      }
    }
    return Fail("a varint over 10 bytes");
  }
  bool Fixed(size_t n, uint64_t* out) {
    if (in_.size() - pos_ < n) return Fail("a truncated fixed-width value");
    uint64_t v = 0;
    for (size_t i = 0; i < n; ++i) v |= static_cast<uint64_t>(in_[pos_ + i]) << (8 * i);
    pos_ += n;
    *out = v;
    return true;
  }

  std::span<const uint8_t> in_;
  const char* what_;
  size_t pos_ = 0;
  Status status_;
};

class Decoder {
 public:
  explicit Decoder(const OtlpLimits& limits) : limits_(limits) {}

  Status MetricsData(std::span<const uint8_t> bytes, std::vector<OtlpMetric>* out) {
    out_ = out;
    WireReader r(bytes, "MetricsData");
    Field f;
    while (r.Next(&f)) {
      if (f.number == 1 && !Expect(&r, f, kLengthDelimited)) break;
      if (f.number == 1) SEGLOG_RETURN_IF_ERROR(ResourceMetrics(f.bytes));
    }
    return r.status();
  }

 private:
  bool Expect(WireReader* r, const Field& f, uint32_t wire_type) {
    if (f.wire_type == wire_type) return true;
    return r->Fail(fmt::format("field {} has wire type {}", f.number, f.wire_type));
  }

  Status Text(WireReader* r, const Field& f, std::string* out) {
    if (!Expect(r, f, kLengthDelimited)) return r->status();
    if (f.bytes.size() > limits_.max_string_bytes) {
      r->Fail(fmt::format("a string of {} bytes (at most {})", f.bytes.size(),
                          limits_.max_string_bytes));
      return r->status();
    }
    out->assign(reinterpret_cast<const char*>(f.bytes.data()), f.bytes.size());
    return Status::OK();
  }

  Status ResourceMetrics(std::span<const uint8_t> bytes) {
    WireReader r(bytes, "ResourceMetrics");
    Field f;
    while (r.Next(&f)) {
      if (f.number != 2) continue;
      if (!Expect(&r, f, kLengthDelimited)) break;
      SEGLOG_RETURN_IF_ERROR(ScopeMetrics(f.bytes));
    }
    return r.status();
  }

  Status ScopeMetrics(std::span<const uint8_t> bytes) {
    WireReader r(bytes, "ScopeMetrics");
    Field f;
    while (r.Next(&f)) {
      if (f.number != 2) continue;
      if (!Expect(&r, f, kLengthDelimited)) break;
      SEGLOG_RETURN_IF_ERROR(Metric(f.bytes));
    }
    return r.status();
  }

  Status Metric(std::span<const uint8_t> bytes) {
    WireReader r(bytes, "Metric");
    OtlpMetric m;
    bool has_data = false;
    Field f;
    while (r.Next(&f)) {
      if (f.number == 1) {
        SEGLOG_RETURN_IF_ERROR(Text(&r, f, &m.name));
      } else if (f.number == 5 || f.number == 7) {
        if (!Expect(&r, f, kLengthDelimited)) break;
        m.kind = f.number == 5 ? OtlpMetric::Kind::kGauge : OtlpMetric::Kind::kSum;
        m.points.clear();
        SEGLOG_RETURN_IF_ERROR(Data(f.bytes, &m));
        has_data = true;
      }
    }
    SEGLOG_RETURN_IF_ERROR(r.status());
    if (!has_data) return Status::OK();  // a histogram or summary: not exposed
    if (out_->size() >= limits_.max_metrics) {
      return Status::Corruption(
          fmt::format("OTLP metrics: more than {} metrics", limits_.max_metrics));
    }
    out_->push_back(std::move(m));
    return Status::OK();
  }

  // A Gauge or a Sum (the gauge's fields are the sum's first).
  Status Data(std::span<const uint8_t> bytes, OtlpMetric* m) {
    WireReader r(bytes, m->kind == OtlpMetric::Kind::kGauge ? "Gauge" : "Sum");
    Field f;
    while (r.Next(&f)) {
      if (f.number == 1) {
        if (!Expect(&r, f, kLengthDelimited)) break;
        if (++points_ > limits_.max_points) {
          return Status::Corruption(
              fmt::format("OTLP metrics: more than {} data points", limits_.max_points));
        }
        SEGLOG_RETURN_IF_ERROR(Point(f.bytes, &m->points.emplace_back()));
      } else if (m->kind == OtlpMetric::Kind::kSum && f.number == 2) {
        if (!Expect(&r, f, kVarint)) break;
        if (f.scalar > 2) {
          r.Fail(fmt::format("aggregation temporality {}", f.scalar));
          break;
        }
        m->temporality = static_cast<OtlpTemporality>(f.scalar);
      } else if (m->kind == OtlpMetric::Kind::kSum && f.number == 3) {
        if (!Expect(&r, f, kVarint)) break;
        m->monotonic = f.scalar != 0;
      }
    }
    return r.status();
  }

  Status Point(std::span<const uint8_t> bytes, OtlpDataPoint* p) {
    WireReader r(bytes, "NumberDataPoint");
    Field f;
    while (r.Next(&f)) {
      switch (f.number) {
        case 3:
          if (!Expect(&r, f, kFixed64)) break;
          p->time_unix_nano = f.scalar;
          break;
        case 4:
          if (!Expect(&r, f, kFixed64)) break;
          p->value = std::bit_cast<double>(f.scalar);
          break;
        case 6:
          if (!Expect(&r, f, kFixed64)) break;
          p->value = static_cast<double>(static_cast<int64_t>(f.scalar));
          break;
        case 7: {
          if (!Expect(&r, f, kLengthDelimited)) break;
          if (p->attributes.size() >= limits_.max_attributes_per_point) {
            r.Fail(fmt::format("more than {} attributes", limits_.max_attributes_per_point));
            break;
          }
          std::pair<std::string, std::string> kv;
          bool keep = false;
          SEGLOG_RETURN_IF_ERROR(KeyValue(f.bytes, &kv, &keep));
          if (keep) p->attributes.push_back(std::move(kv));
          break;
        }
        default:
          break;
      }
    }
    return r.status();
  }

  Status KeyValue(std::span<const uint8_t> bytes, std::pair<std::string, std::string>* kv,
                  bool* keep) {
    WireReader r(bytes, "KeyValue");
    Field f;
    while (r.Next(&f)) {
      if (f.number == 1) {
        SEGLOG_RETURN_IF_ERROR(Text(&r, f, &kv->first));
      } else if (f.number == 2) {
        if (!Expect(&r, f, kLengthDelimited)) break;
        SEGLOG_RETURN_IF_ERROR(AnyValue(f.bytes, &kv->second, keep));
      }
    }
    return r.status();
  }

  Status AnyValue(std::span<const uint8_t> bytes, std::string* out, bool* keep) {
    WireReader r(bytes, "AnyValue");
    Field f;
    *keep = false;
    while (r.Next(&f)) {
      switch (f.number) {
        case 1:
          SEGLOG_RETURN_IF_ERROR(Text(&r, f, out));
          *keep = true;
          break;
        case 2:
          if (!Expect(&r, f, kVarint)) break;
          *out = f.scalar != 0 ? "true" : "false";
          *keep = true;
          break;
        case 3:
          if (!Expect(&r, f, kVarint)) break;
          *out = std::to_string(static_cast<int64_t>(f.scalar));
          *keep = true;
          break;
        case 4:
          if (!Expect(&r, f, kFixed64)) break;
          *out = fmt::format("{}", std::bit_cast<double>(f.scalar));
          *keep = true;
          break;
        default:  // arrays, key-value lists, bytes: not labels
          *keep = false;
          break;
      }
    }
    return r.status();
  }

  const OtlpLimits& limits_;
  std::vector<OtlpMetric>* out_ = nullptr;
  size_t points_ = 0;
};

}  // namespace

Result<std::vector<OtlpMetric>> DecodeOtlpMetrics(std::span<const uint8_t> bytes,
                                                  const OtlpLimits& limits) {
  std::vector<OtlpMetric> out;
  Decoder d(limits);
  SEGLOG_RETURN_IF_ERROR(d.MetricsData(bytes, &out));
  return out;
}

}  // namespace seglog
