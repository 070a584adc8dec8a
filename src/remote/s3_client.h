// S3Client: the few S3 REST calls tiered storage needs, over libcurl - PutObject (from memory
// or streamed from a file, multipart above the part size), ranged GetObject, HeadObject,
// DeleteObject, ListObjectsV2 with continuation, CreateBucket (tests), and the multipart calls.
//
// Signing. Every request is signed with AWS Signature Version 4 by curl itself
// (CURLOPT_AWS_SIGV4 "aws:amz:<region>:s3"). curl 7.88 (Debian 12) signs what it is given and
// canonicalises nothing, so this client hands it URLs that are already in SigV4 canonical form:
// the path URI-encoded as S3 wants it ('/' kept, every byte outside A-Z a-z 0-9 - _ . ~ as
// %XX), the query parameters sorted by name and encoded the same way, each with its '=' even
// when the value is empty ("uploads=", which curl would otherwise sign as "uploads" and the
// server as "uploads="), and CURLOPT_PATH_AS_IS so that curl does not squash "/../" in a key.
// The payload hash is the `x-amz-content-sha256` header, the hex SHA-256 of the body (OpenSSL),
// which curl 7.88 signs as given; S3 checks it, so a body damaged on the way is refused. Checked
// against Versity S3 Gateway, which verifies signatures (s3_client_test.cc).
//
// Retries. A call is retried with exponential backoff and jitter - at most `max_attempts`
// attempts and, when `api_call_timeout_ms` is set, within that time - after a connection
// failure, a timeout, a reset, HTTP 5xx, 429, and S3's SlowDown / RequestTimeout /
// InternalError codes. Other 4xx answers fail at once: a wrong secret gives IOError with S3's
// code (SignatureDoesNotMatch) and the bucket/key, a missing object NotFound, a range past the
// end OutOfRange.
//
// Concurrency. A TransferSemaphore of `max_concurrent_transfers` permits, shared by all callers
// of one client, bounds the requests in flight; an upload's parts run in parallel within it.
//
// Thread safety: thread-safe; every call blocks for its transfer.
#ifndef SEGLOG_REMOTE_S3_CLIENT_H_
#define SEGLOG_REMOTE_S3_CLIENT_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "base/mutex.h"
#include "io/env.h"
#include "remote/s3_xml.h"
#include "remote/transfer_semaphore.h"
#include "seglog/result.h"
#include "seglog/status.h"

namespace seglog {

inline constexpr int64_t kS3MinPartSize = 5LL * 1024 * 1024;         // S3's minimum (but last)
inline constexpr int64_t kS3MaxPartSize = 5LL * 1024 * 1024 * 1024;  // S3's maximum
inline constexpr int kS3MaxParts = 10000;

struct S3ClientOptions {
  // "http://127.0.0.1:7070" or "https://s3.eu-west-1.amazonaws.com" (scheme and authority, no
  // path). Empty: https://s3.<region>.amazonaws.com.
  std::string endpoint_url;
  std::string region = "us-east-1";
  // Path style: <endpoint>/<bucket>/<key>; virtual-hosted: <bucket>.<endpoint host>/<key>.
  bool path_style_access = true;
  std::string access_key_id;
  std::string secret_access_key;
  // PutObjectFromFile uploads a file larger than this in parts of this size. Default 25 MiB
  // (Aiven's); S3 allows 5 MiB to 5 GiB.
  int64_t multipart_part_size = 25LL * 1024 * 1024;
  // Requests in flight at once, across all callers. Default 8.
  int max_concurrent_transfers = 8;
  // Attempts of one call, the first included. Default 5.
  int max_attempts = 5;
  // Backoff before the n-th retry: min(max, initial * 2^(n-1)), times a random factor in
  // [0.5, 1). Defaults 100 ms and 10 s.
  int64_t retry_backoff_ms = 100;
  int64_t retry_backoff_max_ms = 10000;
  // One call, all attempts and backoffs included; 0: unbounded (the attempts still are).
  int64_t api_call_timeout_ms = 0;
  // One attempt; 0: unbounded (an upload of a large part may take long; the socket timeout
  // still catches a stalled one).
  int64_t api_call_attempt_timeout_ms = 0;
  int64_t connect_timeout_ms = 10000;
  // An attempt that moves no byte for this long fails (and is retried). Default 30 s.
  int64_t socket_timeout_ms = 30000;
  // Reads the files PutObjectFromFile uploads; null: Env::Default().
  Env* env = nullptr;
};

class S3Client {
 public:
  // InvalidArgument naming the option when `options` cannot work (an endpoint that is not
  // http(s)://host[:port], a part size outside S3's limits, no credentials, ...).
  static Result<std::unique_ptr<S3Client>> Create(S3ClientOptions options);
  ~S3Client();
  S3Client(const S3Client&) = delete;
  S3Client& operator=(const S3Client&) = delete;

  const S3ClientOptions& options() const { return options_; }

  // OK when the bucket exists already and is ours (BucketAlreadyOwnedByYou).
  Status CreateBucket(const std::string& bucket);

  Status PutObject(const std::string& bucket, const std::string& key,
                   std::span<const uint8_t> data);
  // Streams the file at `path` (never whole in memory): one PUT up to the part size, a
  // multipart upload above it, whose parts go in parallel; a failed multipart upload is
  // aborted. Returns the bytes uploaded.
  Result<int64_t> PutObjectFromFile(const std::string& bucket, const std::string& key,
                                    const std::string& path);

  // The whole object. NotFound naming bucket/key when it does not exist.
  Result<std::vector<uint8_t>> GetObject(const std::string& bucket, const std::string& key);
  // Bytes [position, position + length) - fewer when the object ends first; OutOfRange when
  // `position` is at or past its end. REQUIRES: position >= 0, length > 0.
  Result<std::vector<uint8_t>> GetObjectRange(const std::string& bucket, const std::string& key,
                                              int64_t position, int64_t length);
  // The object's size. NotFound when it does not exist.
  Result<int64_t> HeadObject(const std::string& bucket, const std::string& key);
  // OK when it does not exist (S3 answers 204 either way).
  Status DeleteObject(const std::string& bucket, const std::string& key);
  // Every object whose key starts with `prefix`, in key order, following continuation tokens;
  // `max_keys` per page (S3's maximum, 1000, by default).
  Result<std::vector<S3ListedObject>> ListObjects(const std::string& bucket,
                                                  const std::string& prefix, int max_keys = 1000);

  // The multipart calls PutObjectFromFile makes, for tests and callers that need them alone.
  Result<std::string> CreateMultipartUpload(const std::string& bucket, const std::string& key);
  // Uploads [position, position + length) of `file` as part `part_number` (1..10000); returns
  // its ETag.
  Result<std::string> UploadPart(const std::string& bucket, const std::string& key,
                                 const std::string& upload_id, int part_number, const File& file,
                                 int64_t position, int64_t length);
  // `etags[i]` is part i + 1's.
  Status CompleteMultipartUpload(const std::string& bucket, const std::string& key,
                                 const std::string& upload_id,
                                 const std::vector<std::string>& etags);
  Status AbortMultipartUpload(const std::string& bucket, const std::string& key,
                              const std::string& upload_id);

  // Counters since creation, for tests and metrics.
  int64_t attempts() const { return attempts_.load(); }  // HTTP requests sent
  int64_t retries() const { return retries_.load(); }    // of those, retries

  // SigV4's URI encoding: every byte but A-Z a-z 0-9 - _ . ~ (and '/' when `keep_slash`) as
  // %XX, upper-case hex.
  static std::string UriEncode(std::string_view text, bool keep_slash);

  // One HTTP exchange; defined in s3_client.cc (public only for its curl callbacks).
  struct Request;
  struct Response;

 private:
  explicit S3Client(S3ClientOptions options);
  // The URL of `bucket`/`key` with the canonical (sorted, encoded) query.
  std::string Url(const Request& request) const;
  // One attempt, holding a transfer permit; `timeout_ms` 0 is unbounded.
  Response Attempt(const Request& request, int64_t timeout_ms);
  // Attempts until success, a failure not worth retrying, or the bounds; the status names the
  // call, bucket/key, HTTP status and S3's code.
  Result<Response> Execute(const Request& request);
  void* TakeHandle() EXCLUDES(mu_);
  void ReturnHandle(void* handle) EXCLUDES(mu_);

  const S3ClientOptions options_;
  std::string scheme_;     // "http" or "https"
  std::string authority_;  // "host[:port]"
  TransferSemaphore transfers_;
  std::atomic<int64_t> attempts_{0};
  std::atomic<int64_t> retries_{0};
  Mutex mu_;
  std::vector<void*> idle_handles_ GUARDED_BY(mu_);  // CURL*, kept for their connections
};

}  // namespace seglog

#endif  // SEGLOG_REMOTE_S3_CLIENT_H_
