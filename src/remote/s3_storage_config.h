// S3StorageConfig: the settings of S3RemoteStorageManager, read from properties with Kafka's
// plugin prefix `rsm.config.` and the key names of Aiven's tiered-storage-for-apache-kafka S3
// backend (`storage.` + its `s3.*` / `aws.*` names), so a Kafka user's settings carry over.
// seglog's own additions follow the same style. Every key, its default and meaning:
//
//   rsm.config.storage.s3.bucket.name             required; the bucket of every object
//   rsm.config.storage.s3.region                  required (as Aiven); e.g. us-east-1
//   rsm.config.storage.s3.endpoint.url            default https://s3.<region>.amazonaws.com;
//                                                 http(s)://host[:port] of another S3 store
//   rsm.config.storage.s3.path.style.access.enabled
//                                                 true: <endpoint>/<bucket>/<key>; false:
//                                                 <bucket>.<host>/<key>. Unset: path style when
//                                                 endpoint.url's host is an IP address or
//                                                 localhost, virtual-hosted otherwise
//   rsm.config.storage.aws.access.key.id          default: $AWS_ACCESS_KEY_ID
//   rsm.config.storage.aws.secret.access.key      default: $AWS_SECRET_ACCESS_KEY
//   rsm.config.key.prefix                         default ""; put before every object key
//   rsm.config.storage.s3.multipart.upload.part.size
//                                                 bytes, default 26214400 (25 MiB, Aiven's);
//                                                 5 MiB .. 2^31-1 (Aiven's range)
//   rsm.config.storage.s3.api.call.timeout        ms, one call with all its retries; unset:
//                                                 unbounded (attempts still are)
//   rsm.config.storage.s3.api.call.attempt.timeout
//                                                 ms, one attempt; unset: unbounded
//   -- seglog's own --
//   rsm.config.storage.s3.max.concurrent.transfers
//                                                 default 8; S3 requests in flight at once
//   rsm.config.storage.s3.max.attempts            default 5; attempts of one call, first included
//   rsm.config.storage.s3.retry.backoff.ms        default 100; first backoff, then doubling
//   rsm.config.storage.s3.retry.backoff.max.ms    default 10000; backoff ceiling
//   rsm.config.storage.s3.connect.timeout.ms      default 10000
//   rsm.config.storage.s3.socket.timeout.ms       default 30000; an attempt that moves no byte
//                                                 this long fails (and is retried)
//
// Thread safety: a plain value.
#ifndef SEGLOG_REMOTE_S3_STORAGE_CONFIG_H_
#define SEGLOG_REMOTE_S3_STORAGE_CONFIG_H_

#include <functional>
#include <map>
#include <optional>
#include <string>

#include "remote/s3_client.h"
#include "seglog/result.h"

namespace seglog {

inline constexpr char kRsmConfigPrefix[] = "rsm.config.";

struct S3StorageConfig {
  std::string bucket;
  std::string key_prefix;
  S3ClientOptions client;  // endpoint, region, credentials, part size, retries, timeouts

  // Reads the keys above from `properties` (full names, with the `rsm.config.` prefix; other
  // keys are ignored). `getenv` looks up AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY (null:
  // the process environment). InvalidArgument naming the key (and its value) that is missing
  // or bad; every problem is reported at once.
  static Result<S3StorageConfig> FromProperties(
      const std::map<std::string, std::string>& properties,
      const std::function<std::optional<std::string>(const std::string&)>& getenv = nullptr);
};

}  // namespace seglog

#endif  // SEGLOG_REMOTE_S3_STORAGE_CONFIG_H_
