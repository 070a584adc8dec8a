// SocketServer with SSL, SASL_PLAINTEXT and SASL_SSL listeners: real TLS handshakes and SASL
// exchanges over loopback sockets, the principals handlers see, record files through TLS, and
// the failures (plaintext to a TLS port, no client certificate, wrong passwords, oversized and
// out-of-order frames).
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <openssl/err.h>
#include <openssl/ssl.h>

#include <condition_variable>
#include <mutex>
#include <random>

#include "io/file.h"
#include "protocol/generated/api_messages.h"
#include "protocol/generated/request_header.h"
#include "protocol/generated/response_header.h"
#include "protocol/generated/sasl_authenticate_request.h"
#include "protocol/generated/sasl_authenticate_response.h"
#include "protocol/generated/sasl_handshake_request.h"
#include "protocol/generated/sasl_handshake_response.h"
#include "protocol/protocol_reader.h"
#include "protocol/protocol_writer.h"
#include "server/socket_server.h"
#include "server/test_certs.h"
#include "server/test_client.h"
#include "tests/support/files.h"

namespace seglog {
namespace {

using ::testing::HasSubstr;
using testing::PemKeyPair;
using testing::TestCa;
using testing::TestClient;

class Lines {
 public:
  Logger::LineSink Sink() {
    return [this](const std::string& line) {
      std::lock_guard<std::mutex> lock(mu_);
      lines_.push_back(line);
      cv_.notify_all();
    };
  }
  bool WaitFor(const std::string& part) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, std::chrono::seconds(10), [&] {
      for (const auto& l : lines_) {
        if (l.find(part) != std::string::npos) return true;
      }
      return false;
    });
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::string> lines_;
};

// Answers every request with "<principal>|<protocol>|<payload>", or with a file's bytes when
// the payload is "file".
class PrincipalEcho : public RequestHandler {
 public:
  void Handle(const RequestContext& c, std::vector<uint8_t> frame, Responder r) override {
    const std::string payload(frame.begin(), frame.end());
    ResponseBuffer b;
    if (payload == "file" && file != nullptr) {
      b.AppendFileSlice({file, 3, file_size - 3});
    } else {
      const std::string s = c.principal + "|" + c.security_protocol + "|" + payload;
      b.Append(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(s.data()), s.size()));
    }
    r.Send(std::move(b));
  }
  std::shared_ptr<const File> file;
  int64_t file_size = 0;
};

// A blocking TLS client over a TestClient's socket.
class TlsClient {
 public:
  TlsClient(int port, const std::string& ca, const PemKeyPair* cert) {
    tcp_ = TestClient::Connect(port);
    ctx_ = SSL_CTX_new(TLS_client_method());
    BIO* b = BIO_new_mem_buf(ca.data(), static_cast<int>(ca.size()));
    X509* x = PEM_read_bio_X509(b, nullptr, nullptr, nullptr);
    X509_STORE_add_cert(SSL_CTX_get_cert_store(ctx_), x);
    X509_free(x);
    BIO_free(b);
    SSL_CTX_set_verify(ctx_, SSL_VERIFY_PEER, nullptr);
    if (cert != nullptr) {
      BIO* kb = BIO_new_mem_buf(cert->key.data(), static_cast<int>(cert->key.size()));
      EVP_PKEY* k = PEM_read_bio_PrivateKey(kb, nullptr, nullptr, nullptr);
      BIO* cb =
          BIO_new_mem_buf(cert->certificate.data(), static_cast<int>(cert->certificate.size()));
      X509* c = PEM_read_bio_X509(cb, nullptr, nullptr, nullptr);
      SSL_CTX_use_certificate(ctx_, c);
      SSL_CTX_use_PrivateKey(ctx_, k);
      X509_free(c);
      EVP_PKEY_free(k);
      BIO_free(kb);
      BIO_free(cb);
    }
    ssl_ = SSL_new(ctx_);
    timeval tv{10, 0};
    setsockopt(tcp_->fd(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    SSL_set_fd(ssl_, tcp_->fd());
    connected_ = SSL_connect(ssl_) == 1;
  }
  ~TlsClient() {
    SSL_free(ssl_);
    SSL_CTX_free(ctx_);
  }
  bool connected() const { return connected_; }
  bool Send(const std::vector<uint8_t>& payload) {
    std::vector<uint8_t> f = TestClient::Frame(payload);
    return SSL_write(ssl_, f.data(), static_cast<int>(f.size())) == static_cast<int>(f.size());
  }
  bool Send(const std::string& s) { return Send(std::vector<uint8_t>(s.begin(), s.end())); }
  std::optional<std::vector<uint8_t>> Read() {
    uint8_t size[4];
    if (!ReadExact(size, 4)) return std::nullopt;
    std::vector<uint8_t> out(static_cast<size_t>(size[0]) << 24 | size[1] << 16 | size[2] << 8 |
                             size[3]);
    if (!ReadExact(out.data(), out.size())) return std::nullopt;
    return out;
  }
  std::optional<std::string> ReadString() {
    auto f = Read();
    if (!f) return std::nullopt;
    return std::string(f->begin(), f->end());
  }

 private:
  bool ReadExact(uint8_t* out, size_t n) {
    size_t at = 0;
    while (at < n) {
      const int r = SSL_read(ssl_, out + at, static_cast<int>(n - at));
      if (r <= 0) return false;
      at += static_cast<size_t>(r);
    }
    return true;
  }
  std::unique_ptr<TestClient> tcp_;
  SSL_CTX* ctx_ = nullptr;
  SSL* ssl_ = nullptr;
  bool connected_ = false;
};

template <typename Body>
std::vector<uint8_t> Request(const Body& body, int16_t version) {
  protocol::RequestHeaderData h;
  h.request_api_key = Body::kApiKey;
  h.request_api_version = version;
  h.correlation_id = 5;
  h.client_id = "t";
  protocol::ProtocolWriter w;
  EXPECT_TRUE(h.Encode(&w, protocol::RequestHeaderVersion(Body::kApiKey, version)).ok());
  EXPECT_TRUE(body.Encode(&w, version).ok());
  return w.bytes();
}

template <typename Body>
Body Response(const std::vector<uint8_t>& frame, int16_t version) {
  protocol::ProtocolReader r(frame);
  protocol::ResponseHeaderData h;
  EXPECT_TRUE(h.Decode(&r, protocol::ResponseHeaderVersion(Body::kApiKey, version)).ok());
  Body b;
  EXPECT_TRUE(b.Decode(&r, version).ok());
  return b;
}

std::vector<uint8_t> Handshake(const std::string& mechanism) {
  protocol::SaslHandshakeRequestData h;
  h.mechanism = mechanism;
  return Request(h, 1);
}

std::vector<uint8_t> PlainAuth(const std::string& user, const std::string& password) {
  protocol::SaslAuthenticateRequestData a;
  const std::string m = std::string("\0", 1) + user + std::string("\0", 1) + password;
  a.auth_bytes.assign(m.begin(), m.end());
  return Request(a, 2);
}

class SecureSocketServerTest : public ::testing::Test {
 protected:
  SecureSocketServerTest() : server_pem_(ca_.Issue("CN=localhost")) {}

  SocketServerOptions Options(const std::string& protocol) {
    SocketServerOptions o;
    o.listeners = {{protocol, "127.0.0.1", 0, protocol}};
    o.num_network_threads = 2;
    o.num_io_threads = 2;
    o.shutdown_timeout_ms = 5000;
    o.logger = Logger(lines_.Sink());
    o.failed_authentication_delay_ms = 20;
    ListenerSecurity s;
    s.protocol = protocol;
    if (protocol == "SSL" || protocol == "SASL_SSL") {
      TlsConfig t;
      t.keystore_type = "PEM";
      t.keystore_key = server_pem_.key;
      t.keystore_certificate_chain = server_pem_.certificate;
      t.truststore_type = "PEM";
      t.truststore_certificates = ca_.certificate();
      t.client_auth = protocol == "SSL" ? "required" : "none";
      t.principal_mapping_rules = "RULE:^CN=(.*?),OU=eng.*$/$1/L,DEFAULT";
      s.tls = t;
    }
    if (protocol == "SASL_PLAINTEXT" || protocol == "SASL_SSL") {
      SaslListenerConfig sasl;
      sasl.enabled_mechanisms = {"PLAIN"};
      auto credentials = std::make_shared<SaslCredentials>();
      credentials->plain_users = {{"alice", "alice-secret"}};
      sasl.credentials = credentials;
      sasl.max_receive_size = 1024;
      s.sasl = sasl;
    }
    o.security[protocol] = s;
    return o;
  }
  void Start(SocketServerOptions o) {
    auto s = SocketServer::Start(std::move(o), &handler_);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    server_ = std::move(*s);
  }

  TestCa ca_;
  PemKeyPair server_pem_;
  Lines lines_;
  PrincipalEcho handler_;
  std::unique_ptr<SocketServer> server_;
};

TEST_F(SecureSocketServerTest, MutualTlsNamesThePrincipalAndCarriesFiles) {
  testing::TempDir dir;
  std::vector<uint8_t> contents(3 << 20);
  std::mt19937 rng(3);
  for (auto& b : contents) b = static_cast<uint8_t>(rng());
  auto f = File::Open(dir.path() + "/seg.log", File::Mode::kCreate);
  ASSERT_TRUE(f.ok());
  ASSERT_TRUE((*f)->WriteAt(0, contents).ok());
  handler_.file = std::shared_ptr<const File>(std::move(*f));
  handler_.file_size = static_cast<int64_t>(contents.size());
  Start(Options("SSL"));

  const PemKeyPair alice = ca_.Issue("CN=Alice,OU=eng,O=example");
  TlsClient c(server_->port(), ca_.certificate(), &alice);
  ASSERT_TRUE(c.connected());
  ASSERT_TRUE(c.Send("hello"));
  EXPECT_EQ(c.ReadString(), "User:alice|SSL|hello");
  ASSERT_TRUE(c.Send("file"));  // a record file's bytes, read and encrypted
  auto got = c.Read();
  ASSERT_TRUE(got.has_value());
  EXPECT_TRUE(std::equal(got->begin(), got->end(), contents.begin() + 3, contents.end()));
  ASSERT_TRUE(c.Send("again"));
  EXPECT_EQ(c.ReadString(), "User:alice|SSL|again");

  // Another subject falls through to DEFAULT.
  const PemKeyPair bob = ca_.Issue("CN=bob,OU=ops");
  TlsClient b(server_->port(), ca_.certificate(), &bob);
  ASSERT_TRUE(b.connected());
  ASSERT_TRUE(b.Send("x"));
  EXPECT_EQ(b.ReadString(), "User:CN=bob,OU=ops|SSL|x");

  // Without a client certificate the handshake fails, and is logged with the client.
  TlsClient none(server_->port(), ca_.certificate(), nullptr);
  if (none.connected()) {  // TLS 1.3: the client learns of it at its first read
    none.Send("x");
    EXPECT_FALSE(none.Read().has_value());
  }
  EXPECT_TRUE(lines_.WaitFor("Failed authentication with /127.0.0.1"));

  // Plaintext Kafka bytes to the TLS port: closed.
  auto plain = TestClient::Connect(server_->port());
  ASSERT_NE(plain, nullptr);
  ASSERT_TRUE(plain->SendFrame("not tls"));
  EXPECT_TRUE(plain->WaitClosed());
  EXPECT_TRUE(lines_.WaitFor("(SSL handshake failed)"));
}

TEST_F(SecureSocketServerTest, SaslPlaintextAuthenticatesThenServes) {
  Start(Options("SASL_PLAINTEXT"));
  auto c = TestClient::Connect(server_->port());
  ASSERT_NE(c, nullptr);
  ASSERT_TRUE(c->Send(TestClient::Frame(Handshake("PLAIN"))));
  auto hs = c->ReadFrame();
  ASSERT_TRUE(hs.has_value());
  EXPECT_EQ(Response<protocol::SaslHandshakeResponseData>(*hs, 1).error_code, 0);
  ASSERT_TRUE(c->Send(TestClient::Frame(PlainAuth("alice", "alice-secret"))));
  auto auth = c->ReadFrame();
  ASSERT_TRUE(auth.has_value());
  EXPECT_EQ(Response<protocol::SaslAuthenticateResponseData>(*auth, 2).error_code, 0);
  // Past authentication the frame limit is socket.request.max.bytes again.
  const std::string big(4000, 'b');
  ASSERT_TRUE(c->SendFrame(big));
  EXPECT_EQ(c->ReadFrameString(), "User:alice|SASL_PLAINTEXT|" + big);
}

TEST_F(SecureSocketServerTest, SaslFailuresAnswerThenClose) {
  Start(Options("SASL_PLAINTEXT"));
  {  // A wrong password: the error, then the close.
    auto c = TestClient::Connect(server_->port());
    ASSERT_TRUE(c->Send(TestClient::Frame(Handshake("PLAIN"))));
    ASSERT_TRUE(c->ReadFrame().has_value());
    ASSERT_TRUE(c->Send(TestClient::Frame(PlainAuth("alice", "bad"))));
    auto auth = c->ReadFrame();
    ASSERT_TRUE(auth.has_value());
    auto r = Response<protocol::SaslAuthenticateResponseData>(*auth, 2);
    EXPECT_EQ(r.error_code, 58);
    EXPECT_EQ(r.error_message, "Authentication failed: Invalid username or password");
    EXPECT_TRUE(c->WaitClosed());
  }
  {  // A request before the handshake: a client set up for PLAINTEXT.
    auto c = TestClient::Connect(server_->port());
    ASSERT_TRUE(c->SendFrame("plain kafka request"));
    EXPECT_TRUE(c->WaitClosed());
    EXPECT_TRUE(lines_.WaitFor("kafka client configured with the wrong security protocol"));
  }
  {  // A frame beyond sasl.server.max.receive.size before authentication.
    auto c = TestClient::Connect(server_->port());
    ASSERT_TRUE(c->SendSize(2000));
    EXPECT_TRUE(c->WaitClosed());
    EXPECT_TRUE(lines_.WaitFor("Failing SASL authentication due to invalid receive size"));
  }
  {  // A TLS ClientHello to the plaintext SASL port: its first bytes are a huge size.
    auto c = TestClient::Connect(server_->port());
    const std::vector<uint8_t> hello = {0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xfc};
    ASSERT_TRUE(c->Send(hello));
    EXPECT_TRUE(c->WaitClosed());
  }
  // The listener still serves.
  auto c = TestClient::Connect(server_->port());
  ASSERT_TRUE(c->Send(TestClient::Frame(Handshake("PLAIN"))));
  ASSERT_TRUE(c->ReadFrame().has_value());
  ASSERT_TRUE(c->Send(TestClient::Frame(PlainAuth("alice", "alice-secret"))));
  ASSERT_TRUE(c->ReadFrame().has_value());
  ASSERT_TRUE(c->SendFrame("ok"));
  EXPECT_EQ(c->ReadFrameString(), "User:alice|SASL_PLAINTEXT|ok");
}

TEST_F(SecureSocketServerTest, SaslOverTls) {
  Start(Options("SASL_SSL"));
  TlsClient c(server_->port(), ca_.certificate(), nullptr);
  ASSERT_TRUE(c.connected());
  ASSERT_TRUE(c.Send(Handshake("PLAIN")));
  ASSERT_TRUE(c.Read().has_value());
  ASSERT_TRUE(c.Send(PlainAuth("alice", "alice-secret")));
  auto auth = c.Read();
  ASSERT_TRUE(auth.has_value());
  EXPECT_EQ(Response<protocol::SaslAuthenticateResponseData>(*auth, 2).error_code, 0);
  ASSERT_TRUE(c.Send("hi"));
  EXPECT_EQ(c.ReadString(), "User:alice|SASL_SSL|hi");
}

}  // namespace
}  // namespace seglog
