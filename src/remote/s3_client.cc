// S3Client over libcurl's easy interface (s3_client.h).
#include "remote/s3_client.h"

#include <curl/curl.h>
#include <openssl/evp.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstring>
#include <mutex>
#include <random>
#include <thread>

#include <fmt/format.h>

namespace seglog {
namespace {

using Clock = std::chrono::steady_clock;

constexpr size_t kHashChunk = 1 << 20;
constexpr int64_t kMaxErrorBody = 1 << 20;
constexpr int kMaxListPages = 1000000;

std::once_flag curl_init_once;

std::string Hex(const uint8_t* data, size_t n) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out(n * 2, '0');
  for (size_t i = 0; i < n; ++i) {
    out[2 * i] = kDigits[data[i] >> 4];
    out[2 * i + 1] = kDigits[data[i] & 15];
  }
  return out;
}

// SHA-256 in one pass or streamed; hex, as x-amz-content-sha256 wants it.
class Sha256 {
 public:
  Sha256() : ctx_(EVP_MD_CTX_new()) { EVP_DigestInit_ex(ctx_, EVP_sha256(), nullptr); }
  ~Sha256() { EVP_MD_CTX_free(ctx_); }
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;
  void Update(std::span<const uint8_t> data) { EVP_DigestUpdate(ctx_, data.data(), data.size()); }
  std::string HexDigest() {
    uint8_t md[EVP_MAX_MD_SIZE];
    unsigned int n = 0;
    EVP_DigestFinal_ex(ctx_, md, &n);
    return Hex(md, n);
  }

 private:
  EVP_MD_CTX* ctx_;
};

std::string Sha256Hex(std::span<const uint8_t> data) {
  Sha256 h;
  h.Update(data);
  return h.HexDigest();
}

Result<std::string> Sha256HexOfFile(const File& file, int64_t position, int64_t length) {
  Sha256 h;
  std::vector<uint8_t> buf(std::min<int64_t>(length, kHashChunk));
  int64_t done = 0;
  while (done < length) {
    const size_t want = static_cast<size_t>(std::min<int64_t>(length - done, buf.size()));
    SEGLOG_RETURN_IF_ERROR(file.ReadAt(position + done, std::span(buf.data(), want)));
    h.Update(std::span<const uint8_t>(buf.data(), want));
    done += static_cast<int64_t>(want);
  }
  return h.HexDigest();
}

bool IsRetryableCurl(CURLcode code) {
  switch (code) {
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_CONNECT:
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
      return true;
    default:
      return false;
  }
}

// S3 codes worth another attempt whatever the HTTP status says.
bool IsRetryableCode(std::string_view code) {
  return code == "SlowDown" || code == "RequestTimeout" || code == "InternalError" ||
         code == "ServiceUnavailable" || code == "RequestTimeTooSkewed";
}

bool IEquals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

std::string_view TrimHeader(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == '\r' || s.back() == '\n' || s.back() == ' ')) {
    s.remove_suffix(1);
  }
  return s;
}

}  // namespace

struct S3Client::Request {
  std::string_view op;  // S3's name of the call, for messages
  const char* method = "GET";
  std::string bucket;
  std::string key;  // empty: the bucket itself
  std::vector<std::pair<std::string, std::string>> query;
  std::vector<std::string> headers;
  // The body: `body`, or [file_position, file_position + file_length) of `file`.
  std::span<const uint8_t> body;
  const File* file = nullptr;
  int64_t file_position = 0;
  int64_t file_length = 0;
  std::string payload_sha256;
  int64_t max_response_bytes = kMaxErrorBody;
  // CompleteMultipartUpload may answer 200 with an <Error> body.
  bool error_in_ok_body = false;

  std::string What() const {
    return key.empty() ? fmt::format("S3 {} {}", op, bucket)
                       : fmt::format("S3 {} {}/{}", op, bucket, key);
  }
  int64_t BodySize() const {
    return file != nullptr ? file_length : static_cast<int64_t>(body.size());
  }
};

struct S3Client::Response {
  CURLcode curl = CURLE_OK;
  std::string curl_error;
  long http_status = 0;
  std::vector<uint8_t> body;
  bool body_overflow = false;
  std::string etag;
  std::string content_range;
  int64_t content_length = -1;
  Status read_error;  // the local file failed while being sent
};

namespace {

struct Transfer {
  const S3Client::Request* request = nullptr;
  S3Client::Response* response = nullptr;
  int64_t sent = 0;
  int64_t limit = 0;
};

}  // namespace

// --- curl callbacks (C linkage not needed: curl takes plain function pointers) ---

static size_t ReadBody(char* out, size_t size, size_t nitems, void* userdata) {
  auto* t = static_cast<Transfer*>(userdata);
  const S3Client::Request& req = *t->request;
  const int64_t total = req.file != nullptr ? req.file_length : int64_t(req.body.size());
  const size_t want = static_cast<size_t>(std::min<int64_t>(total - t->sent, size * nitems));
  if (want == 0) return 0;
  if (req.file == nullptr) {
    std::memcpy(out, req.body.data() + t->sent, want);
    t->sent += static_cast<int64_t>(want);
    return want;
  }
  Result<size_t> n = req.file->ReadAtMost(req.file_position + t->sent,
                                          std::span(reinterpret_cast<uint8_t*>(out), want));
  if (!n.ok() || *n == 0) {
    S3Client::Response* resp = t->response;
    resp->read_error = n.ok() ? Status::Corruption(fmt::format(
                                    "{} ended at byte {}, before the {} bytes to send",
                                    req.file->path(), req.file_position + t->sent, req.file_length))
                              : n.status();
    return CURL_READFUNC_ABORT;
  }
  t->sent += static_cast<int64_t>(*n);
  return *n;
}

static int SeekBody(void* userdata, curl_off_t offset, int origin) {
  auto* t = static_cast<Transfer*>(userdata);
  if (origin != SEEK_SET || offset < 0) return CURL_SEEKFUNC_CANTSEEK;
  t->sent = offset;
  return CURL_SEEKFUNC_OK;
}

static size_t WriteBody(char* data, size_t size, size_t nmemb, void* userdata) {
  auto* t = static_cast<Transfer*>(userdata);
  S3Client::Response* resp = t->response;
  const size_t n = size * nmemb;
  if (static_cast<int64_t>(resp->body.size() + n) > t->limit) {
    resp->body_overflow = true;
    return 0;  // CURLE_WRITE_ERROR
  }
  resp->body.insert(resp->body.end(), data, data + n);
  return n;
}

static size_t HeaderLine(char* data, size_t size, size_t nitems, void* userdata) {
  auto* t = static_cast<Transfer*>(userdata);
  S3Client::Response* resp = t->response;
  const size_t n = size * nitems;
  std::string_view line(data, n);
  if (line.substr(0, 5) == "HTTP/") {  // a new response (after a 100 Continue): start over
    resp->etag.clear();
    resp->content_range.clear();
    resp->content_length = -1;
    return n;
  }
  const size_t colon = line.find(':');
  if (colon == std::string_view::npos) return n;
  const std::string_view name = line.substr(0, colon);
  const std::string_view value = TrimHeader(line.substr(colon + 1));
  if (IEquals(name, "ETag")) {
    resp->etag = std::string(value);
  } else if (IEquals(name, "Content-Range")) {
    resp->content_range = std::string(value);
  } else if (IEquals(name, "Content-Length")) {
    int64_t v = 0;
    const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
    if (ec == std::errc() && end == value.data() + value.size() && v >= 0) {
      resp->content_length = v;
    }
  }
  return n;
}

// --- S3Client ---

Result<std::unique_ptr<S3Client>> S3Client::Create(S3ClientOptions options) {
  if (options.region.empty()) return Status::InvalidArgument("S3 client: region is empty");
  if (options.endpoint_url.empty()) {
    options.endpoint_url = fmt::format("https://s3.{}.amazonaws.com", options.region);
  }
  std::string_view url = options.endpoint_url;
  std::string scheme;
  if (url.substr(0, 7) == "http://") {
    scheme = "http";
    url.remove_prefix(7);
  } else if (url.substr(0, 8) == "https://") {
    scheme = "https";
    url.remove_prefix(8);
  } else {
    return Status::InvalidArgument(fmt::format(
        "S3 client: endpoint URL '{}' is not http:// or https://", options.endpoint_url));
  }
  if (!url.empty() && url.back() == '/') url.remove_suffix(1);
  if (url.empty() || url.find_first_of("/?#@ ") != std::string_view::npos) {
    return Status::InvalidArgument(fmt::format(
        "S3 client: endpoint URL '{}' must be scheme://host[:port] with no path, query or user",
        options.endpoint_url));
  }
  if (options.access_key_id.empty() || options.secret_access_key.empty()) {
    return Status::InvalidArgument(
        "S3 client: the access key id and secret access key are "
        "both needed");
  }
  if (options.multipart_part_size < kS3MinPartSize ||
      options.multipart_part_size > kS3MaxPartSize) {
    return Status::InvalidArgument(
        fmt::format("S3 client: multipart part size {} is outside S3's [{}, {}]",
                    options.multipart_part_size, kS3MinPartSize, kS3MaxPartSize));
  }
  if (options.max_concurrent_transfers < 1 || options.max_attempts < 1 ||
      options.retry_backoff_ms < 0 || options.retry_backoff_max_ms < options.retry_backoff_ms ||
      options.api_call_timeout_ms < 0 || options.api_call_attempt_timeout_ms < 0 ||
      options.connect_timeout_ms < 1 || options.socket_timeout_ms < 1) {
    return Status::InvalidArgument(
        "S3 client: max_concurrent_transfers, max_attempts, connect and socket timeouts must be "
        ">= 1, the other timeouts and backoffs >= 0, and the backoff maximum >= its start");
  }
  std::call_once(curl_init_once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
  auto client = std::unique_ptr<S3Client>(new S3Client(std::move(options)));
  client->scheme_ = scheme;
  client->authority_ = std::string(url);
  return client;
}

S3Client::S3Client(S3ClientOptions options)
    : options_(std::move(options)), transfers_(options_.max_concurrent_transfers) {}

S3Client::~S3Client() {
  MutexLock lock(&mu_);
  for (void* h : idle_handles_) curl_easy_cleanup(static_cast<CURL*>(h));
}

void* S3Client::TakeHandle() {
  {
    MutexLock lock(&mu_);
    if (!idle_handles_.empty()) {
      void* h = idle_handles_.back();
      idle_handles_.pop_back();
      return h;
    }
  }
  return curl_easy_init();
}

void S3Client::ReturnHandle(void* handle) {
  curl_easy_reset(static_cast<CURL*>(handle));  // keeps the connection cache
  MutexLock lock(&mu_);
  idle_handles_.push_back(handle);
}

std::string S3Client::UriEncode(std::string_view text, bool keep_slash) {
  static constexpr char kDigits[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(text.size());
  for (char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
        c == '_' || c == '.' || c == '~' || (keep_slash && c == '/')) {
      out.push_back(ch);
    } else {
      out.push_back('%');
      out.push_back(kDigits[c >> 4]);
      out.push_back(kDigits[c & 15]);
    }
  }
  return out;
}

std::string S3Client::Url(const Request& request) const {
  std::string url = options_.path_style_access
                        ? fmt::format("{}://{}/{}", scheme_, authority_, request.bucket)
                        : fmt::format("{}://{}.{}", scheme_, request.bucket, authority_);
  url += '/';
  url += UriEncode(request.key, /*keep_slash=*/true);
  if (!request.query.empty()) {
    std::vector<std::pair<std::string, std::string>> q;
    q.reserve(request.query.size());
    for (const auto& [k, v] : request.query) {
      q.emplace_back(UriEncode(k, false), UriEncode(v, false));
    }
    std::sort(q.begin(), q.end());
    char sep = '?';
    for (const auto& [k, v] : q) {
      url += sep;
      url += k;
      url += '=';
      url += v;
      sep = '&';
    }
  }
  return url;
}

S3Client::Response S3Client::Attempt(const Request& request, int64_t timeout_ms) {
  Response resp;
  Transfer t;
  t.request = &request;
  t.response = &resp;
  t.limit = request.max_response_bytes;

  TransferSlot slot(&transfers_);
  attempts_.fetch_add(1);
  CURL* curl = static_cast<CURL*>(TakeHandle());
  if (curl == nullptr) {
    resp.curl = CURLE_FAILED_INIT;
    resp.curl_error = "curl_easy_init failed";
    return resp;
  }
  char error_buffer[CURL_ERROR_SIZE] = {0};
  const std::string url = Url(request);
  const std::string sigv4 = fmt::format("aws:amz:{}:s3", options_.region);
  curl_slist* headers = nullptr;
  const std::string hash_header = "x-amz-content-sha256: " + request.payload_sha256;
  headers = curl_slist_append(headers, hash_header.c_str());
  headers = curl_slist_append(headers, "Expect:");  // no 100-continue round trip
  for (const std::string& h : request.headers) headers = curl_slist_append(headers, h.c_str());

  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_PATH_AS_IS, 1L);
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, error_buffer);
  curl_easy_setopt(curl, CURLOPT_AWS_SIGV4, sigv4.c_str());
  curl_easy_setopt(curl, CURLOPT_USERNAME, options_.access_key_id.c_str());
  curl_easy_setopt(curl, CURLOPT_PASSWORD, options_.secret_access_key.c_str());
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(options_.connect_timeout_ms));
  if (timeout_ms > 0) curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, static_cast<long>(timeout_ms));
  curl_easy_setopt(curl, CURLOPT_LOW_SPEED_LIMIT, 1L);
  curl_easy_setopt(
      curl, CURLOPT_LOW_SPEED_TIME,
      static_cast<long>(std::max<int64_t>(1, (options_.socket_timeout_ms + 999) / 1000)));
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, WriteBody);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &t);
  curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, HeaderLine);
  curl_easy_setopt(curl, CURLOPT_HEADERDATA, &t);
  const std::string_view method = request.method;
  if (method == "HEAD") {
    curl_easy_setopt(curl, CURLOPT_NOBODY, 1L);
  } else if (method == "PUT") {
    curl_easy_setopt(curl, CURLOPT_UPLOAD, 1L);
    curl_easy_setopt(curl, CURLOPT_INFILESIZE_LARGE, static_cast<curl_off_t>(request.BodySize()));
    curl_easy_setopt(curl, CURLOPT_READFUNCTION, ReadBody);
    curl_easy_setopt(curl, CURLOPT_READDATA, &t);
    curl_easy_setopt(curl, CURLOPT_SEEKFUNCTION, SeekBody);
    curl_easy_setopt(curl, CURLOPT_SEEKDATA, &t);
  } else if (method == "POST") {
    curl_easy_setopt(curl, CURLOPT_POST, 1L);
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE,
                     static_cast<curl_off_t>(request.BodySize()));
    curl_easy_setopt(curl, CURLOPT_READFUNCTION, ReadBody);
    curl_easy_setopt(curl, CURLOPT_READDATA, &t);
    curl_easy_setopt(curl, CURLOPT_SEEKFUNCTION, SeekBody);
    curl_easy_setopt(curl, CURLOPT_SEEKDATA, &t);
  } else if (method == "DELETE") {
    curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, "DELETE");
  }
  resp.curl = curl_easy_perform(curl);
  resp.curl_error = error_buffer;
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &resp.http_status);
  curl_slist_free_all(headers);
  ReturnHandle(curl);
  return resp;
}

namespace {

Status HttpError(const std::string& what, long http_status, const std::vector<uint8_t>& body) {
  const std::optional<S3ErrorBody> err =
      ParseS3Error(std::string_view(reinterpret_cast<const char*>(body.data()), body.size()));
  std::string msg = fmt::format("{}: HTTP {}", what, http_status);
  if (err.has_value()) {
    msg += fmt::format(" {}: {}", err->code, err->message);
    if (!err->request_id.empty()) msg += fmt::format(" (request id {})", err->request_id);
  } else if (body.empty()) {
    msg += " (no error body)";
  }
  if (http_status == 404) return Status::NotFound(msg);
  if (http_status == 416) return Status::OutOfRange(msg);
  return Status::IOError(msg);
}

std::string ErrorCode(const std::vector<uint8_t>& body) {
  const std::optional<S3ErrorBody> err =
      ParseS3Error(std::string_view(reinterpret_cast<const char*>(body.data()), body.size()));
  return err.has_value() ? err->code : std::string();
}

}  // namespace

Result<S3Client::Response> S3Client::Execute(const Request& request) {
  const Clock::time_point start = Clock::now();
  const std::string what = request.What();
  thread_local std::minstd_rand jitter(
      static_cast<unsigned>(std::hash<std::thread::id>()(std::this_thread::get_id()) ^
                            static_cast<size_t>(Clock::now().time_since_epoch().count())));
  for (int attempt = 1;; ++attempt) {
    int64_t timeout_ms = options_.api_call_attempt_timeout_ms;
    if (options_.api_call_timeout_ms > 0) {
      const int64_t left =
          options_.api_call_timeout_ms -
          std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
      timeout_ms = timeout_ms > 0 ? std::min(timeout_ms, left) : left;
      timeout_ms = std::max<int64_t>(timeout_ms, 1);
    }
    Response resp = Attempt(request, timeout_ms);
    if (!resp.read_error.ok()) return resp.read_error.WithContext(what);
    if (resp.body_overflow) {
      return Status::Corruption(fmt::format("{}: the response is larger than the {} bytes asked",
                                            what, request.max_response_bytes));
    }
    bool retry = false;
    Status failure;
    if (resp.curl != CURLE_OK) {
      retry = IsRetryableCurl(resp.curl);
      failure = Status::IOError(fmt::format("{}: {}{}{}", what, curl_easy_strerror(resp.curl),
                                            resp.curl_error.empty() ? "" : ": ", resp.curl_error));
    } else if (resp.http_status >= 200 && resp.http_status < 300) {
      if (!request.error_in_ok_body) return resp;
      const std::string code = ErrorCode(resp.body);
      if (code.empty()) return resp;
      retry = IsRetryableCode(code);
      failure = HttpError(what, resp.http_status, resp.body);
    } else {
      retry = resp.http_status >= 500 || resp.http_status == 429 ||
              IsRetryableCode(ErrorCode(resp.body));
      failure = HttpError(what, resp.http_status, resp.body);
    }
    if (!retry) return failure;
    if (attempt >= options_.max_attempts) {
      return Status::IOError(
          fmt::format("{} (gave up after {} attempts)", failure.message(), attempt));
    }
    const int shift = std::min(attempt - 1, 30);
    const int64_t base =
        std::min(options_.retry_backoff_max_ms, options_.retry_backoff_ms << shift);
    const int64_t sleep_ms =
        base / 2 +
        (base > 1 ? static_cast<int64_t>(jitter() % static_cast<uint64_t>(base / 2 + 1)) : 0);
    if (options_.api_call_timeout_ms > 0) {
      const int64_t spent =
          std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
      if (spent + sleep_ms >= options_.api_call_timeout_ms) {
        return Status::IOError(fmt::format(
            "{} (gave up after {} attempts in {} ms: {} = {} ms)", failure.message(), attempt,
            spent, "rsm.config.storage.s3.api.call.timeout", options_.api_call_timeout_ms));
      }
    }
    retries_.fetch_add(1);
    std::this_thread::sleep_for(std::chrono::milliseconds(sleep_ms));
  }
}

Status S3Client::CreateBucket(const std::string& bucket) {
  Request req;
  req.op = "CreateBucket";
  req.method = "PUT";
  req.bucket = bucket;
  std::string body;
  if (options_.region != "us-east-1") {
    body = fmt::format(
        "<CreateBucketConfiguration xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
        "<LocationConstraint>{}</LocationConstraint></CreateBucketConfiguration>",
        XmlEscape(options_.region));
  }
  req.body = std::span(reinterpret_cast<const uint8_t*>(body.data()), body.size());
  req.payload_sha256 = Sha256Hex(req.body);
  Result<Response> r = Execute(req);
  if (!r.ok() && r.status().message().find("BucketAlreadyOwnedByYou") != std::string_view::npos) {
    return Status::OK();
  }
  return r.status();
}

Status S3Client::PutObject(const std::string& bucket, const std::string& key,
                           std::span<const uint8_t> data) {
  Request req;
  req.op = "PutObject";
  req.method = "PUT";
  req.bucket = bucket;
  req.key = key;
  req.body = data;
  req.payload_sha256 = Sha256Hex(data);
  return Execute(req).status();
}

Result<int64_t> S3Client::PutObjectFromFile(const std::string& bucket, const std::string& key,
                                            const std::string& path) {
  Env* env = options_.env != nullptr ? options_.env : Env::Default();
  SEGLOG_ASSIGN_OR_RETURN(std::unique_ptr<File> file, env->OpenFile(path, File::Mode::kReadOnly));
  SEGLOG_ASSIGN_OR_RETURN(const int64_t size, file->Size());
  const int64_t part_size = options_.multipart_part_size;
  if (size <= part_size) {
    Request req;
    req.op = "PutObject";
    req.method = "PUT";
    req.bucket = bucket;
    req.key = key;
    req.file = file.get();
    req.file_length = size;
    SEGLOG_ASSIGN_OR_RETURN(req.payload_sha256, Sha256HexOfFile(*file, 0, size));
    SEGLOG_RETURN_IF_ERROR(Execute(req).status());
    return size;
  }
  const int64_t parts = (size + part_size - 1) / part_size;
  if (parts > kS3MaxParts) {
    return Status::InvalidArgument(
        fmt::format("S3 PutObject {}/{}: {} bytes need {} parts of {} bytes, more than S3's {}",
                    bucket, key, size, parts, part_size, kS3MaxParts));
  }
  SEGLOG_ASSIGN_OR_RETURN(const std::string upload_id, CreateMultipartUpload(bucket, key));
  std::vector<std::string> etags(static_cast<size_t>(parts));
  std::atomic<int64_t> next{0};
  std::atomic<bool> failed{false};
  Mutex error_mu;
  Status first_error;
  auto work = [&] {
    for (;;) {
      const int64_t i = next.fetch_add(1);
      if (i >= parts || failed.load()) return;
      const int64_t position = i * part_size;
      Result<std::string> etag = UploadPart(bucket, key, upload_id, static_cast<int>(i + 1), *file,
                                            position, std::min(part_size, size - position));
      if (!etag.ok()) {
        MutexLock lock(&error_mu);
        if (first_error.ok()) first_error = etag.status();
        failed.store(true);
        return;
      }
      etags[static_cast<size_t>(i)] = std::move(*etag);
    }
  };
  const int workers = static_cast<int>(std::min<int64_t>(parts, options_.max_concurrent_transfers));
  std::vector<std::thread> threads;
  threads.reserve(static_cast<size_t>(workers - 1));
  for (int w = 1; w < workers; ++w) threads.emplace_back(work);
  work();
  for (std::thread& th : threads) th.join();
  Status result;
  {
    MutexLock lock(&error_mu);
    result = first_error;
  }
  if (result.ok()) result = CompleteMultipartUpload(bucket, key, upload_id, etags);
  if (!result.ok()) {
    // Best effort: an upload left open holds its parts (and costs) until a lifecycle rule ends
    // it; the caller's retry uses a new upload either way.
    (void)AbortMultipartUpload(bucket, key, upload_id);
    return result.WithContext(fmt::format("multipart upload {} of {} ({} bytes, {} parts)",
                                          upload_id, path, size, parts));
  }
  return size;
}

Result<std::vector<uint8_t>> S3Client::GetObject(const std::string& bucket,
                                                 const std::string& key) {
  Request req;
  req.op = "GetObject";
  req.bucket = bucket;
  req.key = key;
  req.payload_sha256 = Sha256Hex({});
  req.max_response_bytes = std::numeric_limits<int64_t>::max();
  SEGLOG_ASSIGN_OR_RETURN(Response r, Execute(req));
  return std::move(r.body);
}

Result<std::vector<uint8_t>> S3Client::GetObjectRange(const std::string& bucket,
                                                      const std::string& key, int64_t position,
                                                      int64_t length) {
  Request req;
  req.op = "GetObject";
  req.bucket = bucket;
  req.key = key;
  req.payload_sha256 = Sha256Hex({});
  req.headers.push_back(fmt::format("Range: bytes={}-{}", position, position + length - 1));
  req.max_response_bytes = std::max<int64_t>(length, kMaxErrorBody);
  Result<Response> r = Execute(req);
  if (!r.ok()) {
    if (r.status().IsOutOfRange()) {
      return r.status().WithContext(fmt::format("position {}", position));
    }
    return r.status();
  }
  if (r->http_status == 200 && position != 0) {
    return Status::IOError(fmt::format(
        "S3 GetObject {}/{}: the server ignored the Range header (HTTP 200 for bytes {}-{})",
        bucket, key, position, position + length - 1));
  }
  if (r->http_status == 206) {
    // "bytes <first>-<last>/<size>": the first byte must be the one asked for.
    const std::string_view range = r->content_range;
    int64_t first = -1;
    if (range.substr(0, 6) == "bytes ") {
      std::from_chars(range.data() + 6, range.data() + range.size(), first);
    }
    if (first != position) {
      return Status::Corruption(fmt::format(
          "S3 GetObject {}/{}: asked for bytes from {}, the server sent Content-Range '{}'", bucket,
          key, position, range));
    }
  }
  if (static_cast<int64_t>(r->body.size()) > length) {
    return Status::Corruption(fmt::format("S3 GetObject {}/{}: {} bytes sent for {} asked at {}",
                                          bucket, key, r->body.size(), length, position));
  }
  return std::move(r->body);
}

Result<int64_t> S3Client::HeadObject(const std::string& bucket, const std::string& key) {
  Request req;
  req.op = "HeadObject";
  req.method = "HEAD";
  req.bucket = bucket;
  req.key = key;
  req.payload_sha256 = Sha256Hex({});
  SEGLOG_ASSIGN_OR_RETURN(Response r, Execute(req));
  if (r.content_length < 0) {
    return Status::Corruption(
        fmt::format("S3 HeadObject {}/{}: no Content-Length in the answer", bucket, key));
  }
  return r.content_length;
}

Status S3Client::DeleteObject(const std::string& bucket, const std::string& key) {
  Request req;
  req.op = "DeleteObject";
  req.method = "DELETE";
  req.bucket = bucket;
  req.key = key;
  req.payload_sha256 = Sha256Hex({});
  Result<Response> r = Execute(req);
  if (r.ok() || r.status().IsNotFound()) {
    // S3 answers 204 for a missing key; some stores 404 NoSuchKey. A missing bucket is an
    // error.
    if (!r.ok() && r.status().message().find("NoSuchBucket") != std::string_view::npos) {
      return r.status();
    }
    return Status::OK();
  }
  return r.status();
}

Result<std::vector<S3ListedObject>> S3Client::ListObjects(const std::string& bucket,
                                                          const std::string& prefix, int max_keys) {
  std::vector<S3ListedObject> all;
  std::string token;
  for (int page = 0; page < kMaxListPages; ++page) {
    Request req;
    req.op = "ListObjectsV2";
    req.bucket = bucket;
    req.payload_sha256 = Sha256Hex({});
    req.query = {{"list-type", "2"}, {"prefix", prefix}, {"max-keys", std::to_string(max_keys)}};
    if (!token.empty()) req.query.emplace_back("continuation-token", token);
    req.max_response_bytes = kMaxXmlBytes;
    SEGLOG_ASSIGN_OR_RETURN(Response r, Execute(req));
    Result<S3ListPage> parsed = ParseListObjectsV2(
        std::string_view(reinterpret_cast<const char*>(r.body.data()), r.body.size()));
    if (!parsed.ok()) {
      return parsed.status().WithContext(
          fmt::format("S3 ListObjectsV2 {} prefix '{}' page {}", bucket, prefix, page + 1));
    }
    for (S3ListedObject& o : parsed->objects) all.push_back(std::move(o));
    if (!parsed->is_truncated) return all;
    if (parsed->next_continuation_token == token) {
      return Status::Corruption(fmt::format(
          "S3 ListObjectsV2 {} prefix '{}': page {} gave back the same continuation token", bucket,
          prefix, page + 1));
    }
    token = parsed->next_continuation_token;
  }
  return Status::Corruption(fmt::format("S3 ListObjectsV2 {} prefix '{}': more than {} pages",
                                        bucket, prefix, kMaxListPages));
}

Result<std::string> S3Client::CreateMultipartUpload(const std::string& bucket,
                                                    const std::string& key) {
  Request req;
  req.op = "CreateMultipartUpload";
  req.method = "POST";
  req.bucket = bucket;
  req.key = key;
  req.query = {{"uploads", ""}};
  req.payload_sha256 = Sha256Hex({});
  SEGLOG_ASSIGN_OR_RETURN(Response r, Execute(req));
  Result<std::string> id = ParseInitiateMultipartUpload(
      std::string_view(reinterpret_cast<const char*>(r.body.data()), r.body.size()));
  if (!id.ok()) return id.status().WithContext(req.What());
  return id;
}

Result<std::string> S3Client::UploadPart(const std::string& bucket, const std::string& key,
                                         const std::string& upload_id, int part_number,
                                         const File& file, int64_t position, int64_t length) {
  Request req;
  req.op = "UploadPart";
  req.method = "PUT";
  req.bucket = bucket;
  req.key = key;
  req.query = {{"partNumber", std::to_string(part_number)}, {"uploadId", upload_id}};
  req.file = &file;
  req.file_position = position;
  req.file_length = length;
  SEGLOG_ASSIGN_OR_RETURN(req.payload_sha256, Sha256HexOfFile(file, position, length));
  SEGLOG_ASSIGN_OR_RETURN(Response r, Execute(req));
  if (r.etag.empty()) {
    return Status::Corruption(
        fmt::format("{} part {}: the answer has no ETag", req.What(), part_number));
  }
  return r.etag;
}

Status S3Client::CompleteMultipartUpload(const std::string& bucket, const std::string& key,
                                         const std::string& upload_id,
                                         const std::vector<std::string>& etags) {
  std::string body = "<CompleteMultipartUpload>";
  for (size_t i = 0; i < etags.size(); ++i) {
    body += fmt::format("<Part><PartNumber>{}</PartNumber><ETag>{}</ETag></Part>", i + 1,
                        XmlEscape(etags[i]));
  }
  body += "</CompleteMultipartUpload>";
  Request req;
  req.op = "CompleteMultipartUpload";
  req.method = "POST";
  req.bucket = bucket;
  req.key = key;
  req.query = {{"uploadId", upload_id}};
  req.headers.push_back("Content-Type: application/xml");
  req.body = std::span(reinterpret_cast<const uint8_t*>(body.data()), body.size());
  req.payload_sha256 = Sha256Hex(req.body);
  req.error_in_ok_body = true;
  return Execute(req).status();
}

Status S3Client::AbortMultipartUpload(const std::string& bucket, const std::string& key,
                                      const std::string& upload_id) {
  Request req;
  req.op = "AbortMultipartUpload";
  req.method = "DELETE";
  req.bucket = bucket;
  req.key = key;
  req.query = {{"uploadId", upload_id}};
  req.payload_sha256 = Sha256Hex({});
  return Execute(req).status();
}

}  // namespace seglog
