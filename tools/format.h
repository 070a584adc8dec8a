// Format: `seglog format`, Kafka's `kafka-storage.sh format` for a seglog (or Kafka) node: each
// log directory of the config gets meta.properties (version 1: node.id, cluster.id, a new
// directory.id), and the first one (the metadata log's) the bootstrap snapshot
// __cluster_metadata-0/00000000000000000000-0000000000.checkpoint with the cluster's first
// feature levels (metadata/bootstrap.h). Options and messages are kafka-storage's:
//
//   --config/-c FILE        server.properties (node.id, log.dirs, listeners)   required
//   --cluster-id/-t ID      the cluster id (22 characters of Kafka's Uuid)       required
//   --release-version/-r V  metadata.version by release, e.g. 4.4 or 3.9-IV0 (default 4.4-IV2)
//   --feature/-f F=L        a feature's level, e.g. group.version=1 (repeatable)
//   --ignore-formatted/-g   skip directories that have meta.properties instead of failing
//   --standalone/-s         a dynamic quorum with this node as its only voter (kraft.version 1)
//   --add-scram/-S A        a SCRAM credential in the bootstrap snapshot (repeatable):
//                           SCRAM-SHA-512=[name=admin,password=admin-secret], or with
//                           salt=<b64>,saltedpassword=<b64>; iterations=<n> (default 4096)
//
// A directory that already has meta.properties is "already formatted": an error unless
// --ignore-formatted. Features seglog does not serve (share.version, streams.version above 0)
// are refused with the reason.
//
// Thread safety: a function.
#ifndef SEGLOG_TOOLS_FORMAT_H_
#define SEGLOG_TOOLS_FORMAT_H_

#include <ostream>
#include <string>
#include <vector>

#include "seglog/status.h"

namespace seglog {

struct FormatOptions {
  std::string config;
  std::string cluster_id;
  std::string release_version;
  std::vector<std::string> features;  // name=level
  bool ignore_formatted = false;
  bool standalone = false;
  std::vector<std::string> add_scram;
};

Status FormatStorage(const FormatOptions& options, std::ostream& out);

}  // namespace seglog

#endif  // SEGLOG_TOOLS_FORMAT_H_
