// ListenerSecurity: how one listener secures its connections, read from server.properties
// with Kafka's names - its security protocol (listener.security.protocol.map), TLS settings
// (tls_context.h) for SSL and SASL_SSL, and SASL settings for SASL_PLAINTEXT and SASL_SSL:
//
//   sasl.enabled.mechanisms                          PLAIN, SCRAM-SHA-256, SCRAM-SHA-512,
//                                                    OAUTHBEARER (Kafka's default, GSSAPI, is
//                                                    Kerberos, which seglog does not offer)
//   listener.name.<l>.plain.sasl.jaas.config         PlainLoginModule with user_<name>="<pw>"
//   listener.name.<l>.oauthbearer.sasl.jaas.config   OAuthBearerLoginModule (unsecured
//                                                    validator options)
//   listener.name.<l>.oauthbearer.sasl.server.callback.handler.class
//                                                    Kafka's OAuthBearerValidatorCallbackHandler:
//                                                    signed tokens against
//                                                    sasl.oauthbearer.jwks.endpoint.url (file:)
//   sasl.server.max.receive.size, connections.max.reauth.ms
//                                                    ([listener.name.<l>.[<mech>.]] forms)
//
// Every key may be given as listener.name.<listener, lower case>.<key>, which wins over the
// plain key, as in Kafka.
//
// Thread safety: value types and pure functions.
#ifndef SEGLOG_SERVER_LISTENER_SECURITY_H_
#define SEGLOG_SERVER_LISTENER_SECURITY_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "server/listener_config.h"
#include "server/sasl_authenticator.h"
#include "server/tls_context.h"

namespace seglog {

struct ListenerSecurity {
  std::string protocol = "PLAINTEXT";      // PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL
  std::optional<TlsConfig> tls;            // SSL, SASL_SSL
  std::optional<SaslListenerConfig> sasl;  // SASL_PLAINTEXT, SASL_SSL
};

// Each listener's security, by listener name; problems are appended to `errors`.
std::map<std::string, ListenerSecurity> ParseListenerSecurity(
    const std::map<std::string, std::string>& props, const std::vector<ListenerEndpoint>& listeners,
    std::vector<std::string>* errors);

// Whether ParseListenerSecurity reads `key`: ssl.*, sasl.*, their listener.name.<l>. and
// listener.name.<l>.<mechanism>. forms, connections.max.reauth.ms, principal.builder.class.
bool IsListenerSecurityKey(const std::string& key);

}  // namespace seglog

#endif  // SEGLOG_SERVER_LISTENER_SECURITY_H_
