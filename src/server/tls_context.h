// TLS for SSL and SASL_SSL listeners: one listener's ssl.* settings (Kafka's names and
// defaults, listener.name.<l>.ssl.* over ssl.*) and the OpenSSL context its connections use.
//
// - Key stores: PEM (ssl.keystore.type=PEM: one file at ssl.keystore.location holding the
//   private key, PKCS#8, encrypted with ssl.key.password or not, and the certificate chain; or
//   the inline ssl.keystore.key and ssl.keystore.certificate.chain) and PKCS12 (with
//   ssl.keystore.password). Java's JKS is not readable without a JVM: a JKS store is refused
//   with the keytool command that converts it (a PKCS12 file named as JKS is read, as Java's
//   keystore.type.compat reads it).
// - Trust stores likewise: PEM certificates (a file, or the inline ssl.truststore.certificates)
//   or PKCS12.
// - ssl.client.auth none | requested | required; ssl.enabled.protocols (TLSv1.2, TLSv1.3);
//   ssl.cipher.suites by their IANA names, as Java names them.
// - Reload: TlsContextSource checks the key and trust store files' modification times at most
//   once a second and builds a new context when they changed (Kafka's dynamic ssl.keystore.*
//   update); connections already open keep the context they started with, and a store that no
//   longer loads keeps the last good context (logged).
//
// Thread safety: TlsConfig is a value type; TlsContextSource is thread-safe.
#ifndef SEGLOG_SERVER_TLS_CONTEXT_H_
#define SEGLOG_SERVER_TLS_CONTEXT_H_

#include <chrono>
#include <ctime>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/mutex.h"
#include "seglog/logger.h"
#include "seglog/result.h"
#include "server/asio_ssl.h"

namespace seglog {

struct TlsConfig {
  std::string keystore_type = "JKS";
  std::string keystore_location;
  std::optional<std::string> keystore_password;
  std::optional<std::string> key_password;
  std::string keystore_key;                // inline PEM private key
  std::string keystore_certificate_chain;  // inline PEM certificates
  std::string truststore_type = "JKS";
  std::string truststore_location;
  std::optional<std::string> truststore_password;
  std::string truststore_certificates;  // inline PEM certificates
  std::string client_auth = "none";     // none | requested | required
  std::vector<std::string> enabled_protocols = {"TLSv1.2", "TLSv1.3"};
  std::vector<std::string> cipher_suites;  // empty: OpenSSL's defaults
  std::string principal_mapping_rules = "DEFAULT";

  // The listener's TLS settings: `get(key)` gives a key's value for the listener (its
  // listener.name.<l>. form first). `sasl_ssl`: on SASL_SSL listeners Kafka reads
  // ssl.client.auth only in its listener-prefixed form.
  static Result<TlsConfig> Read(
      const std::function<std::optional<std::string>(const std::string& key)>& get,
      const std::function<std::optional<std::string>(const std::string& key)>& get_prefixed_only,
      bool sasl_ssl);
};

// An OpenSSL server context for `config`. InvalidArgument naming the setting for a store that
// cannot be read, a wrong password, a key that does not match its certificate.
Result<std::shared_ptr<asio::ssl::context>> BuildTlsContext(const TlsConfig& config);

class TlsContextSource {
 public:
  // `check_every`: how often Current() looks at the files' times (tests pass 0).
  static Result<std::unique_ptr<TlsContextSource>> Create(
      TlsConfig config, Logger logger,
      std::chrono::milliseconds check_every = std::chrono::seconds(1));

  // The context for a new connection.
  std::shared_ptr<asio::ssl::context> Current() EXCLUDES(mu_);
  const TlsConfig& config() const { return config_; }

 private:
  TlsContextSource(TlsConfig config, Logger logger, std::chrono::milliseconds check_every)
      : config_(std::move(config)), logger_(logger), check_every_(check_every) {}
  std::map<std::string, std::timespec> FileTimes() const;

  const TlsConfig config_;
  const Logger logger_;
  const std::chrono::milliseconds check_every_;
  Mutex mu_;
  std::shared_ptr<asio::ssl::context> current_ GUARDED_BY(mu_);
  std::map<std::string, std::timespec> times_ GUARDED_BY(mu_);
  std::chrono::steady_clock::time_point checked_ GUARDED_BY(mu_);
};

// The peer certificate's subject as Java's X500Principal.getName() prints it (RFC 2253);
// empty when the peer sent no certificate.
std::string PeerSubjectName(SSL* ssl);

}  // namespace seglog

#endif  // SEGLOG_SERVER_TLS_CONTEXT_H_
