// Format: see format.h.
#include "tools/format.h"

#include <fmt/format.h>

#include <cctype>
#include <chrono>
#include <map>

#include "base/config_values.h"
#include "base/uuid.h"
#include "io/atomic_file.h"
#include "io/env.h"
#include "manager/meta_properties.h"
#include "metadata/bootstrap.h"
#include "protocol/generated/user_scram_credential_record.h"
#include "security/scram.h"
#include "tools/node.h"

namespace seglog {

namespace {

// The features seglog serves, and the highest level of each (what --feature may ask for).
const std::map<std::string, int16_t>& ServedFeatures() {
  static const std::map<std::string, int16_t> kServed = {
      {"eligible.leader.replicas.version", 1},
      {"group.version", 1},
      {"kraft.version", 1},
      {"share.version", 0},
      {"streams.version", 0},
      {"transaction.version", 2},
  };
  return kServed;
}

// host:port of the controller listener (the first of controller.listener.names) in `listeners`.
Result<StandaloneVoter> ControllerVoter(const std::map<std::string, std::string>& props,
                                        int32_t node_id) {
  auto names = props.find("controller.listener.names");
  auto listeners = props.find("listeners");
  if (names == props.end() || listeners == props.end()) {
    return Status::InvalidArgument(
        "--standalone needs controller.listener.names and a controller listener in listeners");
  }
  const std::string name = names->second.substr(0, names->second.find(','));
  for (const std::string& l : SplitConfigList(listeners->second)) {
    const std::string prefix = name + "://";
    if (l.rfind(prefix, 0) != 0) continue;
    const std::string hp = l.substr(prefix.size());
    const size_t colon = hp.rfind(':');
    if (colon == std::string::npos) break;
    StandaloneVoter v;
    v.node_id = node_id;
    v.listener = name;
    v.host = hp.substr(0, colon);
    v.port = static_cast<uint16_t>(std::stoi(hp.substr(colon + 1)));
    return v;
  }
  return Status::InvalidArgument(
      fmt::format("--standalone: the controller listener {} is not in listeners", name));
}

}  // namespace

// One --add-scram argument, as kafka-storage's ScramParser reads it:
// MECHANISM=[name=N,password=P] or [name=N,salt=B64,saltedpassword=B64], with iterations=I
// (4096 unless given) and salt (a random one unless given) optional; a value may be quoted.
Result<MetadataRecordValue> ParseScramArgument(std::string input) {
  auto fail = [](std::string why) { return Status::InvalidArgument(why); };
  while (!input.empty() && std::isspace(static_cast<unsigned char>(input.front()))) {
    input.erase(input.begin());
  }
  while (!input.empty() && std::isspace(static_cast<unsigned char>(input.back()))) input.pop_back();
  const size_t eq = input.find('=');
  if (eq == std::string::npos) {
    return fail(fmt::format("Failed to find equals sign in SCRAM argument '{}'", input));
  }
  const std::string mech_name = input.substr(0, eq);
  const ScramMechanism mechanism = ScramMechanismFromName(mech_name);
  if (mechanism == ScramMechanism::kUnknown) {
    return fail(fmt::format("The add-scram mechanism {} is not supported.", mech_name));
  }
  std::string config = input.substr(eq + 1);
  if (config.empty() || config.front() != '[') {
    return fail("Expected configuration string to start with [");
  }
  if (config.back() != ']') return fail("Expected configuration string to end with ]");
  config = config.substr(1, config.size() - 2);
  std::map<std::string, std::string> parts;
  for (const std::string& part : SplitConfigList(config)) {
    const size_t e = part.find('=');
    if (e == std::string::npos) {
      return fail(fmt::format("No equals sign found in SCRAM component: {}", part));
    }
    std::string value = part.substr(e + 1);
    if (value.size() >= 2 && value.front() == '"' && value.back() == '"') {
      value = value.substr(1, value.size() - 2);
    }
    parts[part.substr(0, e)] = value;
  }
  auto take = [&](const char* key) -> std::optional<std::string> {
    auto it = parts.find(key);
    if (it == parts.end()) return std::nullopt;
    std::string v = it->second;
    parts.erase(it);
    return v;
  };
  auto decode = [](const std::string& b64) {
    std::string padded = b64;
    while (padded.size() % 4 != 0) padded.push_back('=');
    return Base64Decode(padded);
  };
  const std::optional<std::string> name = take("name");
  if (!name.has_value()) return fail("You must supply 'name' to add-scram");
  std::vector<uint8_t> salt;
  const std::optional<std::string> salt_text = take("salt");
  if (salt_text.has_value()) {
    Result<std::vector<uint8_t>> s = decode(*salt_text);
    if (!s.ok()) return fail(fmt::format("Failed to decode given salt: {}", *salt_text));
    salt = std::move(s).value();
  } else {
    salt = ScramRandomSalt();
  }
  int32_t iterations = 4096;
  if (const std::optional<std::string> it = take("iterations")) {
    try {
      iterations = std::stoi(*it);
    } catch (...) {
      return fail(fmt::format("Failed to parse iterations count: {}", *it));
    }
  }
  const std::optional<std::string> password = take("password");
  const std::optional<std::string> salted_text = take("saltedpassword");
  if (!password.has_value() && !salted_text.has_value()) {
    return fail("You must supply one of 'password' or 'saltedpassword' to add-scram");
  }
  if (!password.has_value() && !salt_text.has_value()) {
    return fail("You must supply 'salt' with 'saltedpassword' to add-scram");
  }
  if (!parts.empty()) {
    std::string names;
    for (const auto& [k, v] : parts) names += (names.empty() ? "" : ", ") + k;
    return fail("Unknown SCRAM configurations: " + names);
  }
  if (iterations < kScramMinIterations || iterations > kScramMaxIterations) {
    return fail(
        fmt::format("The 'iterations' value must be {} {} for add-scram using {}",
                    iterations < kScramMinIterations ? ">=" : "<=",
                    iterations < kScramMinIterations ? kScramMinIterations : kScramMaxIterations,
                    ScramMechanismName(mechanism)));
  }
  std::vector<uint8_t> salted;
  if (password.has_value()) {
    salted = ScramSaltedPassword(mechanism, *password, salt, iterations);
  } else {
    Result<std::vector<uint8_t>> given = decode(*salted_text);
    if (!given.ok()) {
      return fail(fmt::format("Failed to decode given saltedPassword: {}", *salted_text));
    }
    salted = std::move(given).value();
  }
  SEGLOG_ASSIGN_OR_RETURN(const ScramCredential credential,
                          ScramCredentialFromSaltedPassword(mechanism, salted, salt, iterations));
  protocol::UserScramCredentialRecord r;
  r.name = *name;
  r.mechanism = static_cast<int8_t>(mechanism);
  r.salt = credential.salt;
  r.stored_key = credential.stored_key;
  r.server_key = credential.server_key;
  r.iterations = credential.iterations;
  return EncodeMetadataRecord(r);
}

Status FormatStorage(const FormatOptions& options, std::ostream& out) {
  std::vector<MetadataRecordValue> scram;
  for (const std::string& a : options.add_scram) {
    SEGLOG_ASSIGN_OR_RETURN(MetadataRecordValue r, ParseScramArgument(a));
    scram.push_back(std::move(r));
  }
  if (options.config.empty()) return Status::InvalidArgument("--config is required");
  Result<Uuid> cluster = Uuid::Parse(options.cluster_id);
  if (!cluster.ok()) {
    return Status::InvalidArgument(
        fmt::format("Cluster ID string {} does not appear to be a valid UUID: {}",
                    options.cluster_id, cluster.status().message()));
  }
  NodeOptions no;
  no.server_config = options.config;
  SEGLOG_ASSIGN_OR_RETURN(BrokerConfig config, LoadNodeConfig(no));
  if (config.node_id < 0) return Status::InvalidArgument("node.id is not set in the config");

  std::map<std::string, int16_t> features = DefaultBootstrapFeatures();
  if (!options.release_version.empty()) {
    SEGLOG_ASSIGN_OR_RETURN(const int16_t mv, MetadataVersionForRelease(options.release_version));
    // An older release: only its metadata.version; the other features start at 0 unless given.
    if (mv != kLatestMetadataVersion) features = {};
    features[kMetadataVersionFeature] = mv;
  }
  for (const std::string& f : options.features) {
    const size_t eq = f.find('=');
    if (eq == std::string::npos) {
      return Status::InvalidArgument(fmt::format("Can't parse feature={}: no '='", f));
    }
    const std::string name = f.substr(0, eq);
    int level = 0;
    try {
      level = std::stoi(f.substr(eq + 1));
    } catch (...) {
      return Status::InvalidArgument(fmt::format("Can't parse feature={}: not a level", f));
    }
    if (name == kMetadataVersionFeature) {
      if (level < kMinimumMetadataVersion || level > kLatestMetadataVersion) {
        return Status::InvalidArgument(
            fmt::format("Unsupported metadata.version {}: seglog runs {} to {}", level,
                        kMinimumMetadataVersion, kLatestMetadataVersion));
      }
    } else {
      auto served = ServedFeatures().find(name);
      if (served == ServedFeatures().end()) {
        return Status::InvalidArgument(fmt::format("Unsupported feature: {}", name));
      }
      if (level < 0 || level > served->second) {
        return Status::InvalidArgument(fmt::format(
            "Unsupported value {} for {}: seglog serves levels 0 to {}{}", level, name,
            served->second,
            served->second == 0 ? " (share and streams groups are not served yet)" : ""));
      }
    }
    features[name] = static_cast<int16_t>(level);
  }
  std::optional<StandaloneVoter> voter;
  if (options.standalone) {
    if (config.properties.count("controller.quorum.voters")) {
      return Status::InvalidArgument(
          "You cannot use --standalone when controller.quorum.voters is set.");
    }
    SEGLOG_ASSIGN_OR_RETURN(StandaloneVoter v, ControllerVoter(config.properties, config.node_id));
    voter = v;
  }

  Env* env = Env::Default();
  std::vector<std::string> to_format;
  for (const std::string& dir : config.log_dirs) {
    if (env->FileExists(dir + "/" + kMetaPropertiesFile)) {
      if (!options.ignore_formatted) {
        return Status::AlreadyExists(fmt::format(
            "Log directory {} is already formatted. Use --ignore-formatted to ignore this "
            "directory and format the others.",
            dir));
      }
      continue;
    }
    to_format.push_back(dir);
  }
  if (to_format.empty()) {
    out << "All of the log directories are already formatted.\n";
    return Status::OK();
  }
  const std::string metadata_dir = config.log_dirs.front();
  const int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count();
  const std::string mv_name = MetadataVersionName(features[kMetadataVersionFeature]);
  for (const std::string& dir : to_format) {
    SEGLOG_RETURN_IF_ERROR(env->CreateDirectories(dir));
    MetaProperties meta;
    meta.version = 1;
    meta.node_id = config.node_id;
    meta.cluster_id = options.cluster_id;
    meta.directory_id = Uuid::Random().ToString();
    if (voter.has_value() && dir == metadata_dir) {
      voter->directory_id = Uuid::Parse(meta.directory_id).value();
    }
    if (dir == metadata_dir) {
      SEGLOG_RETURN_IF_ERROR(WriteBootstrapSnapshot(env, dir, features, now, voter, scram));
      out << fmt::format("Formatting metadata directory {} with metadata.version {}.\n", dir,
                         mv_name);
    } else {
      out << fmt::format("Formatting data directory {} with metadata.version {}.\n", dir, mv_name);
    }
    // meta.properties last: a directory is formatted once it has one.
    SEGLOG_RETURN_IF_ERROR(WriteFileAtomically(env, dir + "/" + kMetaPropertiesFile,
                                               FormatMetaProperties(meta, JavaDateNow())));
  }
  return Status::OK();
}

}  // namespace seglog
