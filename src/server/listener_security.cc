// ParseListenerSecurity; see listener_security.h.
#include "server/listener_security.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "base/config_values.h"
#include "security/jaas_config.h"
#include "security/sasl_server.h"

namespace seglog {

namespace {

constexpr const char* kPlainLoginModule = "org.apache.kafka.common.security.plain.PlainLoginModule";
constexpr const char* kOAuthBearerLoginModule =
    "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule";
constexpr const char* kOAuthBearerValidator =
    "org.apache.kafka.common.security.oauthbearer.OAuthBearerValidatorCallbackHandler";
constexpr const char* kOAuthBearerUnsecuredValidator =
    "org.apache.kafka.common.security.oauthbearer.internals.unsecured."
    "OAuthBearerUnsecuredValidatorCallbackHandler";

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

class Lookup {
 public:
  Lookup(const std::map<std::string, std::string>& props, const std::string& listener)
      : props_(props), prefix_("listener.name." + Lower(listener) + ".") {}

  std::optional<std::string> Exact(const std::string& key) const {
    auto it = props_.find(key);
    if (it == props_.end()) return std::nullopt;
    return it->second;
  }
  // The listener's form, else the plain key.
  std::optional<std::string> Get(const std::string& key) const {
    if (auto v = Exact(prefix_ + key)) return v;
    return Exact(key);
  }
  std::optional<std::string> PrefixedOnly(const std::string& key) const {
    return Exact(prefix_ + key);
  }
  // listener.name.<l>.<mech>.<key>, then the listener's, then the plain key.
  std::optional<std::string> ForMechanism(const std::string& mechanism,
                                          const std::string& key) const {
    if (auto v = Exact(prefix_ + Lower(mechanism) + "." + key)) return v;
    return Get(key);
  }
  const std::string& prefix() const { return prefix_; }

 private:
  const std::map<std::string, std::string>& props_;
  const std::string prefix_;
};

Result<std::string> ReadFileUrl(const std::string& config, const std::string& url) {
  if (url.rfind("file:", 0) != 0) {
    return Status::InvalidArgument(fmt::format(
        "{}={}: seglog reads a JWKS from a file: URL only (it fetches nothing over the network)",
        config, url));
  }
  std::string path = url.substr(5);
  if (path.rfind("//", 0) == 0) path = path.substr(2);  // file:///abs -> /abs
  std::ifstream in(path);
  if (!in) return Status::InvalidArgument(fmt::format("{}: cannot read {}", config, path));
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

Status ReadOAuthBearer(const Lookup& get, OAuthBearerValidatorConfig* out) {
  const std::string mech = "OAUTHBEARER";
  const std::optional<std::string> handler =
      get.ForMechanism(mech, "sasl.server.callback.handler.class");
  if (!handler.has_value() || handler->empty() || *handler == kOAuthBearerUnsecuredValidator) {
    out->kind = OAuthBearerValidatorConfig::Kind::kUnsecured;
    if (auto jaas = get.ForMechanism(mech, "sasl.jaas.config")) {
      Result<JaasConfigEntry> e = ParseJaasConfig(*jaas);
      if (!e.ok()) {
        return Status::InvalidArgument(
            fmt::format("{}oauthbearer.sasl.jaas.config: {}", get.prefix(), e.status().message()));
      }
      if (e->login_module != kOAuthBearerLoginModule) {
        return Status::InvalidArgument(
            fmt::format("{}oauthbearer.sasl.jaas.config: the login module for OAUTHBEARER is {}",
                        get.prefix(), kOAuthBearerLoginModule));
      }
      const auto& o = e->options;
      if (auto it = o.find("unsecuredValidatorPrincipalClaimName"); it != o.end()) {
        out->principal_claim = it->second;
      }
      if (auto it = o.find("unsecuredValidatorScopeClaimName"); it != o.end()) {
        out->scope_claim = it->second;
      }
      if (auto it = o.find("unsecuredValidatorRequiredScope"); it != o.end()) {
        std::string spaced = it->second;
        std::replace(spaced.begin(), spaced.end(), ',', ' ');
        std::istringstream words(spaced);
        for (std::string w; words >> w;) out->required_scope.push_back(w);
      }
      if (auto it = o.find("unsecuredValidatorAllowableClockSkewMs"); it != o.end()) {
        SEGLOG_RETURN_IF_ERROR(ParseConfigInt<int64_t>("unsecuredValidatorAllowableClockSkewMs",
                                                       it->second, 0,
                                                       &out->allowable_clock_skew_ms));
      }
    }
    return Status::OK();
  }
  if (*handler != kOAuthBearerValidator) {
    return Status::InvalidArgument(fmt::format(
        "{}oauthbearer.sasl.server.callback.handler.class={}: seglog validates tokens with "
        "Kafka's {} or (the default) its unsecured validator",
        get.prefix(), *handler, kOAuthBearerValidator));
  }
  out->kind = OAuthBearerValidatorConfig::Kind::kJwks;
  const std::optional<std::string> url =
      get.ForMechanism(mech, "sasl.oauthbearer.jwks.endpoint.url");
  if (!url.has_value() || url->empty()) {
    return Status::InvalidArgument(
        "sasl.oauthbearer.jwks.endpoint.url is required by OAuthBearerValidatorCallbackHandler");
  }
  SEGLOG_ASSIGN_OR_RETURN(out->jwks_json, ReadFileUrl("sasl.oauthbearer.jwks.endpoint.url", *url));
  if (auto v = get.ForMechanism(mech, "sasl.oauthbearer.expected.audience")) {
    out->expected_audience = SplitConfigList(*v);
  }
  if (auto v = get.ForMechanism(mech, "sasl.oauthbearer.expected.issuer")) {
    out->expected_issuer = *v;
  }
  if (auto v = get.ForMechanism(mech, "sasl.oauthbearer.clock.skew.seconds")) {
    SEGLOG_RETURN_IF_ERROR(ParseConfigInt<int64_t>("sasl.oauthbearer.clock.skew.seconds", *v, 0,
                                                   &out->clock_skew_seconds));
  }
  if (auto v = get.ForMechanism(mech, "sasl.oauthbearer.sub.claim.name")) out->sub_claim_name = *v;
  if (auto v = get.ForMechanism(mech, "sasl.oauthbearer.scope.claim.name")) {
    out->scope_claim_name = *v;
  }
  return Status::OK();
}

Result<SaslListenerConfig> ReadSasl(const Lookup& get, const std::string& listener) {
  SaslListenerConfig c;
  auto credentials = std::make_shared<SaslCredentials>();
  std::vector<std::string> mechanisms = {"GSSAPI"};  // Kafka's default
  if (auto v = get.Get("sasl.enabled.mechanisms")) mechanisms = SplitConfigList(*v);
  if (mechanisms.empty()) {
    return Status::InvalidArgument(fmt::format(
        "sasl.enabled.mechanisms is empty for listener {}: a SASL listener needs at least one",
        listener));
  }
  for (const std::string& m : mechanisms) {
    if (!IsSupportedSaslMechanism(m)) {
      return Status::InvalidArgument(fmt::format(
          "sasl.enabled.mechanisms for listener {} has {}: seglog offers PLAIN, SCRAM-SHA-256, "
          "SCRAM-SHA-512 and OAUTHBEARER{}",
          listener, m, m == "GSSAPI" ? " (GSSAPI, Kafka's default, is Kerberos)" : ""));
    }
  }
  c.enabled_mechanisms = JavaHashSetOrder(mechanisms);
  for (const std::string& m : c.enabled_mechanisms) {
    int64_t reauth = 0;
    if (auto v = get.ForMechanism(m, "connections.max.reauth.ms")) {
      SEGLOG_RETURN_IF_ERROR(ParseConfigInt<int64_t>("connections.max.reauth.ms", *v, 0, &reauth));
    }
    c.max_reauth_ms[m] = reauth;
  }
  if (auto v = get.Get("sasl.server.max.receive.size")) {
    SEGLOG_RETURN_IF_ERROR(
        ParseConfigInt<int32_t>("sasl.server.max.receive.size", *v, 1, &c.max_receive_size));
  }
  if (std::find(mechanisms.begin(), mechanisms.end(), "PLAIN") != mechanisms.end()) {
    const std::string key = get.prefix() + "plain.sasl.jaas.config";
    const std::optional<std::string> jaas = get.Exact(key);
    if (!jaas.has_value()) {
      return Status::InvalidArgument(fmt::format(
          "PLAIN on listener {} needs its users: {}=\"{} required user_<name>=\\\"<password>\\\" "
          "...;\" (seglog reads no JAAS file)",
          listener, key, kPlainLoginModule));
    }
    Result<JaasConfigEntry> e = ParseJaasConfig(*jaas);
    if (!e.ok()) return Status::InvalidArgument(fmt::format("{}: {}", key, e.status().message()));
    if (e->login_module != kPlainLoginModule) {
      return Status::InvalidArgument(
          fmt::format("{}: the login module for PLAIN is {}", key, kPlainLoginModule));
    }
    for (const auto& [name, value] : e->options) {
      if (name.rfind("user_", 0) == 0) credentials->plain_users[name.substr(5)] = value;
    }
  }
  if (std::find(mechanisms.begin(), mechanisms.end(), "OAUTHBEARER") != mechanisms.end()) {
    SEGLOG_RETURN_IF_ERROR(ReadOAuthBearer(get, &credentials->oauthbearer));
  }
  c.credentials = std::move(credentials);
  return c;
}

}  // namespace

std::map<std::string, ListenerSecurity> ParseListenerSecurity(
    const std::map<std::string, std::string>& props, const std::vector<ListenerEndpoint>& listeners,
    std::vector<std::string>* errors) {
  std::map<std::string, ListenerSecurity> out;
  if (auto it = props.find("principal.builder.class");
      it != props.end() && !it->second.empty() &&
      it->second != "org.apache.kafka.common.security.authenticator.DefaultKafkaPrincipalBuilder") {
    errors->push_back(
        fmt::format("principal.builder.class={}: seglog builds principals as Kafka's "
                    "DefaultKafkaPrincipalBuilder does",
                    it->second));
  }
  for (const ListenerEndpoint& l : listeners) {
    ListenerSecurity s;
    s.protocol = l.security_protocol;
    const Lookup get(props, l.name);
    if (s.protocol == "SSL" || s.protocol == "SASL_SSL") {
      Result<TlsConfig> tls = TlsConfig::Read(
          [&](const std::string& k) { return get.Get(k); },
          [&](const std::string& k) { return get.PrefixedOnly(k); }, s.protocol == "SASL_SSL");
      if (!tls.ok()) {
        errors->push_back(fmt::format("listener {}: {}", l.name, tls.status().message()));
      } else {
        s.tls = std::move(tls).value();
      }
    }
    if (s.protocol == "SASL_PLAINTEXT" || s.protocol == "SASL_SSL") {
      Result<SaslListenerConfig> sasl = ReadSasl(get, l.name);
      if (!sasl.ok()) {
        errors->push_back(fmt::format("listener {}: {}", l.name, sasl.status().message()));
      } else {
        s.sasl = std::move(sasl).value();
      }
    }
    out[l.name] = std::move(s);
  }
  return out;
}

bool IsListenerSecurityKey(const std::string& key) {
  if (key == "connections.max.reauth.ms" || key == "principal.builder.class") return true;
  if (key.rfind("ssl.", 0) == 0 || key.rfind("sasl.", 0) == 0) return true;
  // listener.name.<l>.<key>, and listener.name.<l>.<mechanism>.<key>.
  if (key.rfind("listener.name.", 0) != 0) return false;
  const size_t dot = key.find('.', 14);
  if (dot == std::string::npos) return false;
  const std::string rest = key.substr(dot + 1);
  for (const char* prefix : {"ssl.", "sasl.", "connections.max.reauth.ms", "plain.",
                             "scram-sha-256.", "scram-sha-512.", "oauthbearer.", "gssapi."}) {
    if (rest.rfind(prefix, 0) == 0) return true;
  }
  return false;
}

}  // namespace seglog
