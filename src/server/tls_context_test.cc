// TLS settings and contexts: Kafka's ssl.* keys, PEM and PKCS12 stores, client certificates'
// principals, and key stores reloaded when their files change.
#include "server/tls_context.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <openssl/pkcs12.h>
#include <openssl/ssl.h>

#include <fcntl.h>
#include <sys/stat.h>

#include <fstream>

#include "server/test_certs.h"
#include "tests/support/files.h"

namespace seglog {
namespace {

using ::testing::HasSubstr;
using testing::PemKeyPair;
using testing::TestCa;

using Props = std::map<std::string, std::string>;

Result<TlsConfig> Read(const Props& props, bool sasl_ssl = false) {
  auto get = [&](const std::string& k) -> std::optional<std::string> {
    if (auto it = props.find("listener.name.ssl." + k); it != props.end()) return it->second;
    if (auto it = props.find(k); it != props.end()) return it->second;
    return std::nullopt;
  };
  auto prefixed = [&](const std::string& k) -> std::optional<std::string> {
    if (auto it = props.find("listener.name.ssl." + k); it != props.end()) return it->second;
    return std::nullopt;
  };
  return TlsConfig::Read(get, prefixed, sasl_ssl);
}

void WriteFile(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
}

// Runs a TLS handshake in memory between `server_ctx` and a client trusting `ca` (and showing
// `client` when given); returns the server side's view of the client's subject, or "FAILED".
std::string Handshake(asio::ssl::context& server_ctx, const std::string& ca_pem,
                      const PemKeyPair* client) {
  SSL_CTX* cctx = SSL_CTX_new(TLS_client_method());
  BIO* ca_bio = BIO_new_mem_buf(ca_pem.data(), static_cast<int>(ca_pem.size()));
  X509* ca = PEM_read_bio_X509(ca_bio, nullptr, nullptr, nullptr);
  X509_STORE_add_cert(SSL_CTX_get_cert_store(cctx), ca);
  X509_free(ca);
  BIO_free(ca_bio);
  SSL_CTX_set_verify(cctx, SSL_VERIFY_PEER, nullptr);
  if (client != nullptr) {
    BIO* kb = BIO_new_mem_buf(client->key.data(), static_cast<int>(client->key.size()));
    EVP_PKEY* k = PEM_read_bio_PrivateKey(kb, nullptr, nullptr, nullptr);
    BIO* cb =
        BIO_new_mem_buf(client->certificate.data(), static_cast<int>(client->certificate.size()));
    X509* c = PEM_read_bio_X509(cb, nullptr, nullptr, nullptr);
    SSL_CTX_use_certificate(cctx, c);
    SSL_CTX_use_PrivateKey(cctx, k);
    X509_free(c);
    EVP_PKEY_free(k);
    BIO_free(kb);
    BIO_free(cb);
  }
  SSL* c = SSL_new(cctx);
  SSL* s = SSL_new(server_ctx.native_handle());
  BIO *cbio = nullptr, *sbio = nullptr;
  BIO_new_bio_pair(&cbio, 1 << 16, &sbio, 1 << 16);
  SSL_set_bio(c, cbio, cbio);
  SSL_set_bio(s, sbio, sbio);
  SSL_set_connect_state(c);
  SSL_set_accept_state(s);
  bool done_c = false, done_s = false, failed = false;
  for (int i = 0; i < 100 && !(done_c && done_s) && !failed; ++i) {
    if (!done_c) {
      const int r = SSL_do_handshake(c);
      if (r == 1)
        done_c = true;
      else if (SSL_get_error(c, r) != SSL_ERROR_WANT_READ)
        failed = true;
    }
    if (!done_s) {
      const int r = SSL_do_handshake(s);
      if (r == 1)
        done_s = true;
      else if (SSL_get_error(s, r) != SSL_ERROR_WANT_READ)
        failed = true;
    }
  }
  std::string out = failed || !(done_c && done_s) ? "FAILED" : PeerSubjectName(s);
  SSL_free(c);
  SSL_free(s);
  SSL_CTX_free(cctx);
  return out;
}

TEST(TlsConfigTest, KafkasKeysAndDefaults) {
  auto c = Read({{"ssl.keystore.type", "pem"}, {"ssl.keystore.location", "/k.pem"}});
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->keystore_type, "PEM");
  EXPECT_EQ(c->client_auth, "none");
  EXPECT_EQ(c->enabled_protocols, (std::vector<std::string>{"TLSv1.2", "TLSv1.3"}));
  EXPECT_EQ(c->principal_mapping_rules, "DEFAULT");
  // The listener's form wins.
  c = Read({{"ssl.keystore.location", "/a"},
            {"listener.name.ssl.ssl.keystore.location", "/b"},
            {"ssl.client.auth", "required"}});
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->keystore_location, "/b");
  EXPECT_EQ(c->client_auth, "required");
  // On SASL_SSL only the listener's ssl.client.auth counts.
  c = Read({{"ssl.keystore.location", "/a"}, {"ssl.client.auth", "required"}}, true);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->client_auth, "none");
  EXPECT_THAT(
      Read({{"ssl.keystore.location", "/a"}, {"ssl.client.auth", "REQUIRED"}}).status().message(),
      HasSubstr("Invalid value REQUIRED for configuration ssl.client.auth"));
  EXPECT_THAT(Read({}).status().message(), HasSubstr("ssl.keystore.location"));
  EXPECT_THAT(Read({{"ssl.keystore.location", "/a"}, {"ssl.enabled.protocols", "SSLv3"}})
                  .status()
                  .message(),
              HasSubstr("SSLv3"));
}

TEST(TlsContextTest, PemStoresInlineAndInFiles) {
  TestCa ca;
  const PemKeyPair server = ca.Issue("CN=localhost");
  TlsConfig inline_pem;
  inline_pem.keystore_type = "PEM";
  inline_pem.keystore_key = server.key;
  inline_pem.keystore_certificate_chain = server.certificate + ca.certificate();
  auto ctx = BuildTlsContext(inline_pem);
  ASSERT_TRUE(ctx.ok()) << ctx.status().ToString();
  EXPECT_EQ(Handshake(**ctx, ca.certificate(), nullptr), "");  // no client certificate

  // Kafka's PEM key store file: the key and the chain in one file.
  testing::TempDir dir;
  const std::string path = dir.path() + "/server.pem";
  WriteFile(path, server.key + server.certificate);
  TlsConfig file;
  file.keystore_type = "PEM";
  file.keystore_location = path;
  EXPECT_TRUE(BuildTlsContext(file).ok());
  file.keystore_password = "x";
  EXPECT_EQ(BuildTlsContext(file).status().message(),
            "SSL key store password cannot be specified with PEM format, only key password may "
            "be specified");

  // An encrypted key needs ssl.key.password.
  const PemKeyPair locked = ca.Issue("CN=locked", "k3y-pass");
  TlsConfig enc;
  enc.keystore_type = "PEM";
  enc.keystore_key = locked.key;
  enc.keystore_certificate_chain = locked.certificate;
  EXPECT_FALSE(BuildTlsContext(enc).ok());
  enc.key_password = "wrong";
  EXPECT_FALSE(BuildTlsContext(enc).ok());
  enc.key_password = "k3y-pass";
  EXPECT_TRUE(BuildTlsContext(enc).ok());

  // A key that is not the certificate's.
  TlsConfig mismatch = inline_pem;
  mismatch.keystore_key = locked.key;
  mismatch.key_password = "k3y-pass";
  EXPECT_THAT(BuildTlsContext(mismatch).status().message(), HasSubstr("does not match"));
}

TEST(TlsContextTest, ClientCertificatesNameThePrincipal) {
  TestCa ca;
  const PemKeyPair server = ca.Issue("CN=localhost");
  const PemKeyPair alice = ca.Issue("CN=alice,OU=eng,O=example");
  TlsConfig c;
  c.keystore_type = "PEM";
  c.keystore_key = server.key;
  c.keystore_certificate_chain = server.certificate;
  c.truststore_type = "PEM";
  c.truststore_certificates = ca.certificate();
  c.client_auth = "required";
  auto ctx = BuildTlsContext(c);
  ASSERT_TRUE(ctx.ok()) << ctx.status().ToString();
  EXPECT_EQ(Handshake(**ctx, ca.certificate(), &alice), "CN=alice,OU=eng,O=example");
  EXPECT_EQ(Handshake(**ctx, ca.certificate(), nullptr), "FAILED");  // required
  // A certificate from another CA is refused.
  TestCa other;
  const PemKeyPair mallory = other.Issue("CN=mallory");
  EXPECT_EQ(Handshake(**ctx, ca.certificate(), &mallory), "FAILED");
  c.client_auth = "requested";
  ctx = BuildTlsContext(c);
  ASSERT_TRUE(ctx.ok());
  EXPECT_EQ(Handshake(**ctx, ca.certificate(), nullptr), "");
  EXPECT_EQ(Handshake(**ctx, ca.certificate(), &alice), "CN=alice,OU=eng,O=example");
  // Client authentication without a trust store cannot work.
  c.truststore_certificates.clear();
  EXPECT_THAT(BuildTlsContext(c).status().message(), HasSubstr("no trust store"));
}

TEST(TlsContextTest, Pkcs12StoresAndJks) {
  TestCa ca;
  const PemKeyPair server = ca.Issue("CN=localhost");
  BIO* kb = BIO_new_mem_buf(server.key.data(), static_cast<int>(server.key.size()));
  EVP_PKEY* key = PEM_read_bio_PrivateKey(kb, nullptr, nullptr, nullptr);
  BIO* cb = BIO_new_mem_buf(server.certificate.data(), static_cast<int>(server.certificate.size()));
  X509* cert = PEM_read_bio_X509(cb, nullptr, nullptr, nullptr);
  PKCS12* p12 = PKCS12_create("st0re", "server", key, cert, nullptr, 0, 0, 0, 0, 0);
  ASSERT_NE(p12, nullptr);
  BIO* out = BIO_new(BIO_s_mem());
  i2d_PKCS12_bio(out, p12);
  char* data = nullptr;
  const long n = BIO_get_mem_data(out, &data);
  testing::TempDir dir;
  const std::string path = dir.path() + "/server.p12";
  WriteFile(path, std::string(data, static_cast<size_t>(n)));
  BIO_free(out);
  PKCS12_free(p12);
  X509_free(cert);
  EVP_PKEY_free(key);
  BIO_free(kb);
  BIO_free(cb);

  TlsConfig c;
  c.keystore_type = "PKCS12";
  c.keystore_location = path;
  c.keystore_password = "st0re";
  EXPECT_TRUE(BuildTlsContext(c).ok());
  c.keystore_password = "nope";
  EXPECT_THAT(BuildTlsContext(c).status().message(), HasSubstr("wrong password"));
  // Kafka's default type, JKS, reads a PKCS12 file as Java does.
  c.keystore_type = "JKS";
  c.keystore_password = "st0re";
  EXPECT_TRUE(BuildTlsContext(c).ok());
  // A real JKS file (magic 0xFEEDFEED) is refused with the way out.
  WriteFile(path, std::string("\xfe\xed\xfe\xed\x00\x00\x00\x02", 8));
  EXPECT_THAT(BuildTlsContext(c).status().message(), HasSubstr("keytool -importkeystore"));
  c.keystore_location = dir.path() + "/missing.p12";
  EXPECT_THAT(BuildTlsContext(c).status().message(), HasSubstr("missing.p12"));
}

TEST(TlsContextTest, CipherSuitesByTheirIanaNames) {
  TestCa ca;
  const PemKeyPair server = ca.Issue("CN=localhost");
  TlsConfig c;
  c.keystore_type = "PEM";
  c.keystore_key = server.key;
  c.keystore_certificate_chain = server.certificate;
  c.cipher_suites = {"TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384"};
  auto ctx = BuildTlsContext(c);
  ASSERT_TRUE(ctx.ok()) << ctx.status().ToString();
  EXPECT_EQ(Handshake(**ctx, ca.certificate(), nullptr), "");
  c.cipher_suites = {"TLS_NOT_A_SUITE"};
  EXPECT_THAT(BuildTlsContext(c).status().message(), HasSubstr("TLS_NOT_A_SUITE"));
}

TEST(TlsContextSourceTest, ReloadsAChangedKeyStoreAndKeepsTheLastGoodOne) {
  TestCa ca;
  testing::TempDir dir;
  const std::string path = dir.path() + "/server.pem";
  const PemKeyPair first = ca.Issue("CN=localhost");
  WriteFile(path, first.key + first.certificate);
  TlsConfig c;
  c.keystore_type = "PEM";
  c.keystore_location = path;
  auto source = TlsContextSource::Create(c, Logger(), std::chrono::milliseconds(0));
  ASSERT_TRUE(source.ok()) << source.status().ToString();
  auto before = (*source)->Current();
  EXPECT_EQ((*source)->Current(), before);  // unchanged files: the same context
  // A new certificate: a new context (the time stamp is moved on explicitly, as file systems
  // may keep coarse times).
  const PemKeyPair second = ca.Issue("CN=localhost");
  WriteFile(path, second.key + second.certificate);
  struct timespec times[2] = {{0, UTIME_OMIT}, {time(nullptr) + 5, 0}};
  ASSERT_EQ(utimensat(AT_FDCWD, path.c_str(), times, 0), 0);
  auto after = (*source)->Current();
  EXPECT_NE(after, before);
  // A broken file: the last good context stays.
  WriteFile(path, "not a key store");
  times[1].tv_sec += 5;
  ASSERT_EQ(utimensat(AT_FDCWD, path.c_str(), times, 0), 0);
  EXPECT_EQ((*source)->Current(), after);
}

}  // namespace
}  // namespace seglog
