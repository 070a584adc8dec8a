// seglog_null_broker: `seglog serve` whose Produce stores nothing - the floor of the broker
// benchmark. It decodes every Produce request and answers it at once with success (base offsets
// counted per partition, as if appended), and hands every other request to the real broker
// (ApiVersions, Metadata, InitProducerId, CreateTopics ...), so a Kafka client sees a normal
// broker that takes no time to append. What a client measures against it is the client's own
// cost plus the protocol's round trip: no broker can do better on this machine. A bench tool,
// never a server: the records are thrown away.
//
//   seglog_null_broker serve --log-dir DIR [--override key=value]...
//
// Thread safety: NullProduceFront is called from many threads at once; its offsets are guarded
// by a mutex.
#include <fmt/format.h>

#include <atomic>
#include <csignal>
#include <cstring>
#include <iostream>
#include <map>
#include <mutex>
#include <string>
#include <utility>

#include "base/coding.h"
#include "protocol/generated/api_messages.h"
#include "protocol/generated/produce_request.h"
#include "protocol/generated/produce_response.h"
#include "protocol/generated/request_header.h"
#include "protocol/generated/response_header.h"
#include "server/broker.h"
#include "tools/serve.h"

namespace seglog {
namespace {

std::atomic<bool> stop_serving{false};

// The number of records in a Produce partition's batches (each batch's lastOffsetDelta + 1).
int64_t RecordCount(std::span<const uint8_t> bytes) {
  int64_t n = 0;
  size_t pos = 0;
  while (bytes.size() - pos >= 61) {
    const int64_t batch_length = LoadBEInt32(bytes.data() + pos + 8);
    n += static_cast<int64_t>(LoadBEInt32(bytes.data() + pos + 23)) + 1;
    if (batch_length <= 0 || static_cast<size_t>(batch_length) + 12 > bytes.size() - pos) break;
    pos += static_cast<size_t>(batch_length) + 12;
  }
  return n;
}

class NullProduceFront : public RequestHandler {
 public:
  explicit NullProduceFront(RequestHandler* broker) : broker_(broker) {}

  void Handle(const RequestContext& context, std::vector<uint8_t> frame,
              Responder respond) override {
    if (!IsProduce(frame)) {
      broker_->Handle(context, std::move(frame), std::move(respond));
      return;
    }
    const int16_t version = static_cast<int16_t>(LoadBE16(frame.data() + 2));
    protocol::ProtocolReader reader(frame);
    protocol::RequestHeaderData header;
    if (!header.Decode(&reader, protocol::RequestHeaderVersion(0, version)).ok()) {
      respond.CloseConnection();
      return;
    }
    auto req = protocol::ProduceRequestData::Parse(
        std::span<const uint8_t>(frame).subspan(reader.position()), version);
    if (!req.ok()) {
      respond.CloseConnection();
      return;
    }
    protocol::ProduceResponseData resp;
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (const auto& topic : req.value().topic_data) {
        auto& tr = resp.responses.emplace_back();
        tr.name = topic.name;
        tr.topic_id = topic.topic_id;
        for (const auto& part : topic.partition_data) {
          auto& pr = tr.partition_responses.emplace_back();
          pr.index = part.index;
          int64_t& next = next_offset_[fmt::format("{}/{}", topic.name, part.index)];
          pr.base_offset = next;
          pr.log_start_offset = 0;
          if (part.records) next += RecordCount(part.records->contiguous());
        }
      }
    }
    if (req.value().acks == 0) {
      respond.NoResponse();
      return;
    }
    protocol::ProtocolWriter w;
    protocol::ResponseHeaderData rh;
    rh.correlation_id = header.correlation_id;
    if (!rh.Encode(&w, protocol::ResponseHeaderVersion(0, version)).ok() ||
        !resp.Encode(&w, version).ok()) {
      respond.CloseConnection();
      return;
    }
    respond.Send(Broker::ToResponseBuffer(w));
  }

  void OnConnectionClosed(uint64_t connection_id) override {
    broker_->OnConnectionClosed(connection_id);
  }

  bool HandlesInline(const std::vector<uint8_t>& frame) const override {
    return IsProduce(frame) || broker_->HandlesInline(frame);
  }

 private:
  static bool IsProduce(const std::vector<uint8_t>& frame) {
    return frame.size() >= 4 && LoadBE16(frame.data()) == 0 &&
           static_cast<int16_t>(LoadBE16(frame.data() + 2)) >= 3;
  }

  RequestHandler* const broker_;
  std::mutex mu_;
  std::map<std::string, int64_t> next_offset_;  // GUARDED_BY(mu_)
};

int Main(int argc, char** argv) {
  ServeOptions options;
  if (argc < 2 || std::strcmp(argv[1], "serve") != 0) {
    std::cerr << "usage: seglog_null_broker serve --log-dir DIR [--override key=value]...\n";
    return 2;
  }
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    if (i + 1 >= argc) {
      std::cerr << "missing the value of " << arg << "\n";
      return 2;
    }
    const std::string value = argv[++i];
    if (arg == "--log-dir") {
      options.node.log_dir = value;
    } else if (arg == "--override" && value.find('=') != std::string::npos) {
      options.node.overrides[value.substr(0, value.find('='))] = value.substr(value.find('=') + 1);
    } else {
      std::cerr << "unknown option " << arg << " " << value << "\n";
      return 2;
    }
  }
  options.front = [](RequestHandler* broker) { return std::make_unique<NullProduceFront>(broker); };
  std::signal(SIGTERM, [](int) { stop_serving = true; });
  std::signal(SIGINT, [](int) { stop_serving = true; });
  Status s = Serve(options, stop_serving, std::cout);
  if (!s.ok()) {
    std::cerr << s.ToString() << "\n";
    return 1;
  }
  return 0;
}

}  // namespace
}  // namespace seglog

int main(int argc, char** argv) { return seglog::Main(argc, argv); }
