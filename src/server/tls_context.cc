// TlsConfig, BuildTlsContext, TlsContextSource; see tls_context.h.
#include "server/tls_context.h"

#include <fmt/format.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/pkcs12.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <sys/stat.h>

#include <cstring>
#include <fstream>
#include <sstream>

#include "base/config_values.h"

namespace seglog {

namespace {

struct BioFree {
  void operator()(BIO* b) const { BIO_free(b); }
};
struct X509Free {
  void operator()(X509* x) const { X509_free(x); }
};
struct PkeyFree {
  void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }
};
using BioPtr = std::unique_ptr<BIO, BioFree>;
using X509Ptr = std::unique_ptr<X509, X509Free>;
using PkeyPtr = std::unique_ptr<EVP_PKEY, PkeyFree>;

std::string OpenSslError() {
  std::string out;
  while (unsigned long e = ERR_get_error()) {
    char buf[256];
    ERR_error_string_n(e, buf, sizeof(buf));
    out += out.empty() ? buf : std::string("; ") + buf;
  }
  return out.empty() ? "unknown error" : out;
}

Result<std::string> ReadFile(const std::string& config, const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return Status::InvalidArgument(
        fmt::format("Failed to load SSL keystore {} ({}): {}", path, config, std::strerror(errno)));
  }
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<X509Ptr> PemCertificates(const std::string& text) {
  std::vector<X509Ptr> out;
  BioPtr bio(BIO_new_mem_buf(text.data(), static_cast<int>(text.size())));
  while (X509* x = PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr)) out.emplace_back(x);
  ERR_clear_error();  // the end of the text
  return out;
}

int PasswordCallback(char* buf, int size, int, void* user) {
  const auto* password = static_cast<const std::string*>(user);
  if (password == nullptr) return 0;
  const int n = std::min<int>(size, static_cast<int>(password->size()));
  std::memcpy(buf, password->data(), static_cast<size_t>(n));
  return n;
}

bool LooksLikePem(const std::string& bytes) {
  return bytes.find("-----BEGIN") != std::string::npos;
}

// The key and chain of a key store.
struct KeyAndChain {
  PkeyPtr key;
  std::vector<X509Ptr> chain;    // the leaf first
  std::vector<X509Ptr> trusted;  // a trust store's certificates
};

Result<KeyAndChain> ReadPkcs12(const std::string& config, const std::string& bytes,
                               const std::optional<std::string>& password, bool need_key) {
  BioPtr bio(BIO_new_mem_buf(bytes.data(), static_cast<int>(bytes.size())));
  PKCS12* p12 = d2i_PKCS12_bio(bio.get(), nullptr);
  if (p12 == nullptr) {
    return Status::InvalidArgument(fmt::format(
        "{}: not a PKCS12 store ({}). A JKS store is converted with: keytool -importkeystore "
        "-srckeystore <file> -destkeystore <file>.p12 -deststoretype PKCS12",
        config, OpenSslError()));
  }
  EVP_PKEY* key = nullptr;
  X509* cert = nullptr;
  STACK_OF(X509)* ca = nullptr;
  const int ok = PKCS12_parse(p12, password ? password->c_str() : nullptr, &key, &cert, &ca);
  PKCS12_free(p12);
  if (ok != 1) {
    return Status::InvalidArgument(fmt::format(
        "{}: the PKCS12 store cannot be read (wrong password?): {}", config, OpenSslError()));
  }
  KeyAndChain out;
  out.key.reset(key);
  if (cert != nullptr) out.chain.emplace_back(cert);
  for (int i = 0; ca != nullptr && i < sk_X509_num(ca); ++i) {
    X509* c = sk_X509_value(ca, i);
    X509_up_ref(c);
    (need_key ? out.chain : out.trusted).emplace_back(c);
  }
  if (ca != nullptr) sk_X509_pop_free(ca, X509_free);
  if (need_key && (out.key == nullptr || out.chain.empty())) {
    return Status::InvalidArgument(
        fmt::format("{}: the PKCS12 store has no private key with its certificate", config));
  }
  return out;
}

Result<KeyAndChain> ReadKeyStore(const TlsConfig& c) {
  const bool inline_pem = !c.keystore_key.empty() || !c.keystore_certificate_chain.empty();
  if (c.keystore_type == "PEM") {
    if (c.keystore_password.has_value()) {
      return Status::InvalidArgument(
          "SSL key store password cannot be specified with PEM format, only key password may be "
          "specified");
    }
    std::string key_text, chain_text;
    if (inline_pem) {
      if (c.keystore_key.empty() || c.keystore_certificate_chain.empty()) {
        return Status::InvalidArgument(
            "ssl.keystore.key and ssl.keystore.certificate.chain must be given together");
      }
      key_text = c.keystore_key;
      chain_text = c.keystore_certificate_chain;
    } else {
      SEGLOG_ASSIGN_OR_RETURN(key_text, ReadFile("ssl.keystore.location", c.keystore_location));
      chain_text = key_text;
    }
    KeyAndChain out;
    BioPtr bio(BIO_new_mem_buf(key_text.data(), static_cast<int>(key_text.size())));
    std::string key_password = c.key_password.value_or("");
    out.key.reset(PEM_read_bio_PrivateKey(bio.get(), nullptr, PasswordCallback,
                                          c.key_password ? &key_password : nullptr));
    if (out.key == nullptr) {
      return Status::InvalidArgument(
          fmt::format("Invalid PEM keystore configs: the private key cannot be read{}: {}",
                      c.key_password ? " with ssl.key.password" : "", OpenSslError()));
    }
    out.chain = PemCertificates(chain_text);
    if (out.chain.empty()) {
      return Status::InvalidArgument("Invalid PEM keystore configs: no certificate chain");
    }
    return out;
  }
  if (inline_pem) {
    return Status::InvalidArgument(fmt::format(
        "ssl.keystore.key and ssl.keystore.certificate.chain need ssl.keystore.type=PEM, not {}",
        c.keystore_type));
  }
  if (c.keystore_type != "PKCS12" && c.keystore_type != "JKS") {
    return Status::InvalidArgument(fmt::format(
        "ssl.keystore.type {}: seglog reads PEM and PKCS12 key stores", c.keystore_type));
  }
  SEGLOG_ASSIGN_OR_RETURN(const std::string bytes,
                          ReadFile("ssl.keystore.location", c.keystore_location));
  return ReadPkcs12("ssl.keystore.location", bytes, c.keystore_password, true);
}

Result<std::vector<X509Ptr>> ReadTrustStore(const TlsConfig& c) {
  if (!c.truststore_certificates.empty()) {
    if (c.truststore_type != "PEM") {
      return Status::InvalidArgument("ssl.truststore.certificates needs ssl.truststore.type=PEM");
    }
    std::vector<X509Ptr> certs = PemCertificates(c.truststore_certificates);
    if (certs.empty()) {
      return Status::InvalidArgument("ssl.truststore.certificates holds no certificate");
    }
    return certs;
  }
  if (c.truststore_location.empty()) return std::vector<X509Ptr>{};
  SEGLOG_ASSIGN_OR_RETURN(const std::string bytes,
                          ReadFile("ssl.truststore.location", c.truststore_location));
  if (c.truststore_type == "PEM" || LooksLikePem(bytes)) {
    if (c.truststore_type == "PEM" && c.truststore_password.has_value()) {
      return Status::InvalidArgument(
          "SSL trust store password cannot be specified for PEM format.");
    }
    std::vector<X509Ptr> certs = PemCertificates(bytes);
    if (certs.empty()) {
      return Status::InvalidArgument(
          fmt::format("ssl.truststore.location {}: no certificate in it", c.truststore_location));
    }
    return certs;
  }
  SEGLOG_ASSIGN_OR_RETURN(KeyAndChain store, ReadPkcs12("ssl.truststore.location", bytes,
                                                        c.truststore_password, false));
  std::vector<X509Ptr> certs = std::move(store.trusted);
  for (auto& x : store.chain) certs.push_back(std::move(x));
  return certs;
}

int ProtocolVersion(const std::string& name) {
  if (name == "TLSv1.3") return TLS1_3_VERSION;
  if (name == "TLSv1.2") return TLS1_2_VERSION;
  if (name == "TLSv1.1") return TLS1_1_VERSION;
  if (name == "TLSv1") return TLS1_VERSION;
  return 0;
}

// Java names cipher suites by their IANA names; OpenSSL has its own for TLS 1.2 suites.
Status SetCipherSuites(SSL_CTX* ctx, const std::vector<std::string>& names) {
  if (names.empty()) return Status::OK();
  SSL* probe = SSL_new(ctx);
  std::map<std::string, std::string> iana_to_openssl;
  STACK_OF(SSL_CIPHER)* all = SSL_get_ciphers(probe);
  for (int i = 0; all != nullptr && i < sk_SSL_CIPHER_num(all); ++i) {
    const SSL_CIPHER* c = sk_SSL_CIPHER_value(all, i);
    iana_to_openssl[SSL_CIPHER_standard_name(c)] = SSL_CIPHER_get_name(c);
  }
  SSL_free(probe);
  std::string tls12, tls13;
  for (const std::string& n : names) {
    if (n.rfind("TLS_AES_", 0) == 0 || n.rfind("TLS_CHACHA20_", 0) == 0) {
      tls13 += (tls13.empty() ? "" : ":") + n;
      continue;
    }
    auto it = iana_to_openssl.find(n);
    if (it == iana_to_openssl.end()) {
      return Status::InvalidArgument(
          fmt::format("ssl.cipher.suites: {} is not a cipher suite this OpenSSL offers", n));
    }
    tls12 += (tls12.empty() ? "" : ":") + it->second;
  }
  // A list that names no suite of one version leaves that version without any.
  if (SSL_CTX_set_cipher_list(ctx, tls12.empty() ? "eNULL:!eNULL" : tls12.c_str()) != 1 &&
      !tls12.empty()) {
    return Status::InvalidArgument("ssl.cipher.suites: " + OpenSslError());
  }
  ERR_clear_error();
  if (SSL_CTX_set_ciphersuites(ctx, tls13.c_str()) != 1) {
    return Status::InvalidArgument("ssl.cipher.suites: " + OpenSslError());
  }
  return Status::OK();
}

}  // namespace

Result<TlsConfig> TlsConfig::Read(
    const std::function<std::optional<std::string>(const std::string& key)>& get,
    const std::function<std::optional<std::string>(const std::string& key)>& get_prefixed_only,
    bool sasl_ssl) {
  TlsConfig c;
  auto str = [&](const char* key, std::string* out) {
    if (auto v = get(key)) *out = *v;
  };
  auto opt = [&](const char* key, std::optional<std::string>* out) {
    if (auto v = get(key); v.has_value() && !v->empty()) *out = *v;
  };
  str("ssl.keystore.type", &c.keystore_type);
  str("ssl.keystore.location", &c.keystore_location);
  opt("ssl.keystore.password", &c.keystore_password);
  opt("ssl.key.password", &c.key_password);
  str("ssl.keystore.key", &c.keystore_key);
  str("ssl.keystore.certificate.chain", &c.keystore_certificate_chain);
  str("ssl.truststore.type", &c.truststore_type);
  str("ssl.truststore.location", &c.truststore_location);
  opt("ssl.truststore.password", &c.truststore_password);
  str("ssl.truststore.certificates", &c.truststore_certificates);
  str("ssl.principal.mapping.rules", &c.principal_mapping_rules);
  if (auto v = sasl_ssl ? get_prefixed_only("ssl.client.auth") : get("ssl.client.auth")) {
    c.client_auth = *v;
  }
  // Store types are case-insensitive (Java's KeyStore.getInstance); ssl.client.auth is not.
  for (std::string* s : {&c.keystore_type, &c.truststore_type}) {
    for (char& ch : *s) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  }
  if (c.client_auth != "none" && c.client_auth != "requested" && c.client_auth != "required") {
    return Status::InvalidArgument(fmt::format(
        "Invalid value {} for configuration ssl.client.auth: String must be one of: required, "
        "requested, none",
        c.client_auth));
  }
  if (auto v = get("ssl.enabled.protocols")) c.enabled_protocols = SplitConfigList(*v);
  for (const std::string& p : c.enabled_protocols) {
    if (ProtocolVersion(p) == 0) {
      return Status::InvalidArgument(
          fmt::format("ssl.enabled.protocols: {} is not a TLS protocol seglog offers", p));
    }
  }
  if (auto v = get("ssl.cipher.suites")) c.cipher_suites = SplitConfigList(*v);
  if (c.keystore_location.empty() && c.keystore_key.empty()) {
    return Status::InvalidArgument(
        "ssl.keystore.location (or ssl.keystore.key with ssl.keystore.certificate.chain) is "
        "required on an SSL listener");
  }
  return c;
}

Result<std::shared_ptr<asio::ssl::context>> BuildTlsContext(const TlsConfig& c) {
  auto ctx = std::make_shared<asio::ssl::context>(asio::ssl::context::tls_server);
  SSL_CTX* native = ctx->native_handle();
  int min = 0, max = 0;
  for (const std::string& p : c.enabled_protocols) {
    const int v = ProtocolVersion(p);
    min = min == 0 ? v : std::min(min, v);
    max = std::max(max, v);
  }
  if (min == 0) return Status::InvalidArgument("ssl.enabled.protocols is empty");
  SSL_CTX_set_min_proto_version(native, min);
  SSL_CTX_set_max_proto_version(native, max);
  SSL_CTX_set_options(native, SSL_OP_NO_RENEGOTIATION | SSL_OP_CIPHER_SERVER_PREFERENCE);
  SSL_CTX_set_mode(native, SSL_MODE_RELEASE_BUFFERS);
  SEGLOG_RETURN_IF_ERROR(SetCipherSuites(native, c.cipher_suites));

  SEGLOG_ASSIGN_OR_RETURN(KeyAndChain store, ReadKeyStore(c));
  if (SSL_CTX_use_certificate(native, store.chain[0].get()) != 1) {
    return Status::InvalidArgument("the key store's certificate: " + OpenSslError());
  }
  for (size_t i = 1; i < store.chain.size(); ++i) {
    if (SSL_CTX_add1_chain_cert(native, store.chain[i].get()) != 1) {
      return Status::InvalidArgument("the key store's certificate chain: " + OpenSslError());
    }
  }
  if (SSL_CTX_use_PrivateKey(native, store.key.get()) != 1 ||
      SSL_CTX_check_private_key(native) != 1) {
    return Status::InvalidArgument("the key store's private key does not match its certificate: " +
                                   OpenSslError());
  }
  SEGLOG_ASSIGN_OR_RETURN(std::vector<X509Ptr> trusted, ReadTrustStore(c));
  X509_STORE* x509_store = SSL_CTX_get_cert_store(native);
  for (const X509Ptr& x : trusted) X509_STORE_add_cert(x509_store, x.get());
  int mode = SSL_VERIFY_NONE;
  if (c.client_auth == "requested") mode = SSL_VERIFY_PEER;
  if (c.client_auth == "required") mode = SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT;
  if (mode != SSL_VERIFY_NONE && trusted.empty()) {
    return Status::InvalidArgument("ssl.client.auth is " + c.client_auth +
                                   " but no trust store is configured");
  }
  SSL_CTX_set_verify(native, mode, nullptr);
  // A client certificate is checked against the trust store; sessions are not resumed across
  // a key store reload.
  static const unsigned char kSessionContext[] = "seglog";
  SSL_CTX_set_session_id_context(native, kSessionContext, sizeof(kSessionContext) - 1);
  return ctx;
}

Result<std::unique_ptr<TlsContextSource>> TlsContextSource::Create(
    TlsConfig config, Logger logger, std::chrono::milliseconds check_every) {
  std::unique_ptr<TlsContextSource> s(new TlsContextSource(std::move(config), logger, check_every));
  SEGLOG_ASSIGN_OR_RETURN(auto ctx, BuildTlsContext(s->config_));
  MutexLock lock(&s->mu_);
  s->current_ = std::move(ctx);
  s->times_ = s->FileTimes();
  s->checked_ = std::chrono::steady_clock::now();
  return s;
}

std::map<std::string, std::timespec> TlsContextSource::FileTimes() const {
  std::map<std::string, std::timespec> out;
  for (const std::string* path : {&config_.keystore_location, &config_.truststore_location}) {
    if (path->empty()) continue;
    struct stat st {};
    if (::stat(path->c_str(), &st) == 0) out[*path] = st.st_mtim;
  }
  return out;
}

std::shared_ptr<asio::ssl::context> TlsContextSource::Current() {
  MutexLock lock(&mu_);
  const auto now = std::chrono::steady_clock::now();
  if (now - checked_ < check_every_) return current_;
  checked_ = now;
  // A stat(2) or two once a second, and a rebuild only when a store changed.
  std::map<std::string, std::timespec> times = FileTimes();
  auto same = [](const std::map<std::string, std::timespec>& a,
                 const std::map<std::string, std::timespec>& b) {
    if (a.size() != b.size()) return false;
    for (auto ia = a.begin(), ib = b.begin(); ia != a.end(); ++ia, ++ib) {
      if (ia->first != ib->first || ia->second.tv_sec != ib->second.tv_sec ||
          ia->second.tv_nsec != ib->second.tv_nsec) {
        return false;
      }
    }
    return true;
  };
  if (same(times, times_)) return current_;
  times_ = times;
  Result<std::shared_ptr<asio::ssl::context>> rebuilt = BuildTlsContext(config_);
  if (!rebuilt.ok()) {
    logger_.Warn(fmt::format(
        "The changed SSL key or trust store was not loaded; new connections keep the previous "
        "one: {}",
        rebuilt.status().message()));
    return current_;
  }
  logger_.Info("Reloaded the SSL key and trust stores, which changed on disk");
  current_ = std::move(rebuilt).value();
  return current_;
}

std::string PeerSubjectName(SSL* ssl) {
  X509* peer = SSL_get1_peer_certificate(ssl);
  if (peer == nullptr) return "";
  X509Ptr owned(peer);
  BioPtr bio(BIO_new(BIO_s_mem()));
  X509_NAME_print_ex(bio.get(), X509_get_subject_name(peer), 0,
                     XN_FLAG_RFC2253 & ~ASN1_STRFLGS_ESC_MSB);
  char* data = nullptr;
  const long n = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<size_t>(n));
}

}  // namespace seglog
