"""The S3-compatible store of the tiered-storage client tests: a Versity S3 Gateway
(versitygw, its posix backend) on a free 127.0.0.1 port over a directory of the test's own,
as src/remote/testing/versitygw.cc starts it for the C++ tests. Buckets are directories of
that root and objects are files in them, so a test sees what the broker uploaded (and what
it deleted) by listing the directory.

The binary: $SEGLOG_VERSITYGW, else ~/.cache/seglog/go/bin/versitygw, else `versitygw` on
PATH (scripts/install-clients.sh installs it). A missing binary fails the case.

Every wait is bounded; the process gets SIGKILL when the test process dies
(PR_SET_PDEATHSIG) and from kill(), which the cases call in a `finally`.
"""

import ctypes
import datetime
import hashlib
import hmac
import http.client
import os
import shutil
import signal
import subprocess
import time

from harness import Failure, check, free_port

ACCESS_KEY = "seglogtest"
SECRET_KEY = "seglogtestsecret"
REGION = "us-east-1"


def find_versitygw():
    env = os.environ.get("SEGLOG_VERSITYGW")
    if env:
        check(os.access(env, os.X_OK), f"SEGLOG_VERSITYGW={env} is not an executable file")
        return env
    cached = os.path.expanduser("~/.cache/seglog/go/bin/versitygw")
    if os.access(cached, os.X_OK):
        return cached
    found = shutil.which("versitygw")
    check(found, "Versity S3 Gateway (versitygw) not found: not in $SEGLOG_VERSITYGW, "
                 "~/.cache/seglog/go/bin/versitygw or PATH; run scripts/install-clients.sh")
    return found


def _die_with_parent():
    ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


class S3Store:
    """One versitygw over <work_dir>/root, with one bucket. start() also creates the bucket
    (CreateBucket, signed with SigV4 as any client); stop()/start() keep the port and the
    directory, so objects survive a restart."""

    def __init__(self, work_dir, bucket="tiered"):
        self.binary = find_versitygw()
        self.work_dir = work_dir
        self.root = os.path.join(work_dir, "root")
        self.bucket = bucket
        self.port = free_port()
        self.log_path = os.path.join(work_dir, "versitygw.log")
        self.proc = None
        os.makedirs(self.root, exist_ok=True)

    @property
    def endpoint(self):
        return f"http://127.0.0.1:{self.port}"

    @property
    def bucket_dir(self):
        return os.path.join(self.root, self.bucket)

    def broker_overrides(self, secret=SECRET_KEY, prefix="tiered/"):
        """The rsm.config.* settings of a broker that uses this store."""
        return [f"rsm.config.storage.s3.endpoint.url={self.endpoint}",
                f"rsm.config.storage.s3.bucket.name={self.bucket}",
                f"rsm.config.storage.s3.region={REGION}",
                "rsm.config.storage.s3.path.style.access.enabled=true",
                f"rsm.config.storage.aws.access.key.id={ACCESS_KEY}",
                f"rsm.config.storage.aws.secret.access.key={secret}",
                f"rsm.config.key.prefix={prefix}"]

    def start(self, timeout=15):
        check(self.proc is None, "versitygw is already running")
        log = open(self.log_path, "a")
        self.proc = subprocess.Popen(
            [self.binary, "--port", f"127.0.0.1:{self.port}", "--access", ACCESS_KEY,
             "--secret", SECRET_KEY, "--region", REGION, "--quiet", "posix", self.root],
            stdout=log, stderr=subprocess.STDOUT, preexec_fn=_die_with_parent)
        log.close()
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.proc.poll() is not None:
                rc = self.proc.returncode
                self.proc = None
                raise Failure(f"versitygw exited {rc} before answering:\n{self.log()[-2000:]}")
            if self._answers():
                break
            time.sleep(0.05)
        else:
            self.kill()
            raise Failure(f"versitygw did not answer on {self.endpoint} within {timeout}s:\n"
                          f"{self.log()[-2000:]}")
        if not os.path.isdir(self.bucket_dir):
            status, body = self._request("PUT", f"/{self.bucket}")
            check(status == 200, f"CreateBucket {self.bucket}: HTTP {status} {body[:500]!r}")
        return self

    def stop(self, timeout=5):
        """SIGTERM, SIGKILL after `timeout`."""
        if self.proc is None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)
        self.proc = None

    def kill(self):
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait(timeout=10)
            self.proc = None

    def log(self):
        try:
            with open(self.log_path) as f:
                return f.read()
        except OSError:
            return ""

    def objects(self):
        """{key: size} of every object in the bucket (versitygw's own dot-directories, such as
        its temporary files of uploads in flight, left out)."""
        found = {}
        for d, dirs, files in os.walk(self.bucket_dir):
            dirs[:] = [x for x in dirs if not x.startswith(".")]
            for f in files:
                if f.startswith("."):
                    continue
                path = os.path.join(d, f)
                try:
                    found[os.path.relpath(path, self.bucket_dir)] = os.path.getsize(path)
                except OSError:
                    pass  # deleted meanwhile
        return found

    def segments(self):
        """{(partition dir, start offset): {segment id: {suffix}}} of the objects, by the key
        scheme of docs/format/remote_storage.md:
        <prefix><topic>-<topic id>/<partition>/<start offset>-<segment id>.<suffix>."""
        segs = {}
        for key in self.objects():
            parts = key.split("/")
            name = parts[-1]
            base, rest = name.split("-", 1)
            seg_id, suffix = rest.split(".", 1)
            where = "/".join(parts[:-1])
            segs.setdefault((where, int(base)), {}).setdefault(seg_id, set()).add(suffix)
        return segs

    def _answers(self):
        try:
            c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=1)
            c.request("GET", "/")
            c.getresponse().read()
            c.close()
            return True
        except (OSError, http.client.HTTPException):
            return False

    def _request(self, method, path, body=b""):
        """One SigV4-signed request (no query string) with the root credentials."""
        now = datetime.datetime.now(datetime.timezone.utc)
        amz_date = now.strftime("%Y%m%dT%H%M%SZ")
        day = amz_date[:8]
        host = f"127.0.0.1:{self.port}"
        payload = hashlib.sha256(body).hexdigest()
        headers = {"host": host, "x-amz-content-sha256": payload, "x-amz-date": amz_date}
        signed = ";".join(sorted(headers))
        canonical = "\n".join([method, path, "",
                               "".join(f"{k}:{headers[k]}\n" for k in sorted(headers)),
                               signed, payload])
        scope = f"{day}/{REGION}/s3/aws4_request"
        to_sign = "\n".join(["AWS4-HMAC-SHA256", amz_date, scope,
                             hashlib.sha256(canonical.encode()).hexdigest()])
        key = ("AWS4" + SECRET_KEY).encode()
        for part in (day, REGION, "s3", "aws4_request"):
            key = hmac.new(key, part.encode(), hashlib.sha256).digest()
        sig = hmac.new(key, to_sign.encode(), hashlib.sha256).hexdigest()
        headers["Authorization"] = (f"AWS4-HMAC-SHA256 Credential={ACCESS_KEY}/{scope}, "
                                    f"SignedHeaders={signed}, Signature={sig}")
        c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        try:
            c.request(method, path, body=body, headers={k: v for k, v in headers.items()
                                                        if k != "host"})
            r = c.getresponse()
            return r.status, r.read()
        finally:
            c.close()
