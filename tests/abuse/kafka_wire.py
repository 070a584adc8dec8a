"""A small Kafka wire-protocol encoder and decoder for the abuse harness: the requests a hostile
client sends that real clients would not (a Fetch naming a million topics, a Produce to
__consumer_offsets, CreateTopics with two million partitions), record batches (v2) of any size
and codec, and the few responses the harness reads back. Written from the Kafka protocol
description (the message JSON schemas' field order); connections go to 127.0.0.1 only.
"""

import ctypes
import ctypes.util
import gzip
import io
import socket
import struct
import time

# API keys
PRODUCE, FETCH, METADATA, API_VERSIONS = 0, 1, 3, 18
CREATE_TOPICS, DELETE_TOPICS, CREATE_PARTITIONS = 19, 20, 37

# Error codes (org.apache.kafka.common.protocol.Errors)
NONE = 0
UNKNOWN_SERVER_ERROR = -1
UNKNOWN_TOPIC_OR_PARTITION = 3
INVALID_TOPIC_EXCEPTION = 17
INVALID_TIMESTAMP = 32
INVALID_PARTITIONS = 37
INVALID_REQUEST = 42
POLICY_VIOLATION = 44
TOPIC_DELETION_DISABLED = 73

CODEC_IDS = {"none": 0, "gzip": 1, "snappy": 2, "lz4": 3, "zstd": 4}


# ---------------------------------------------------------------------------------------------
# primitive encoders

def i8(v):
    return struct.pack(">b", v)


def i16(v):
    return struct.pack(">h", v)


def i32(v):
    return struct.pack(">i", v)


def i64(v):
    return struct.pack(">q", v)


def uvarint(v):
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def varint(v):  # zigzag, 64-bit
    return uvarint((v << 1) ^ (v >> 63))


def string(s):
    if s is None:
        return i16(-1)
    b = s.encode()
    return i16(len(b)) + b


def compact_string(s):
    if s is None:
        return b"\x00"
    b = s.encode() if isinstance(s, str) else s
    return uvarint(len(b) + 1) + b


def compact_bytes(b):
    if b is None:
        return b"\x00"
    return uvarint(len(b) + 1) + b


def compact_array(items):
    if items is None:
        return b"\x00"
    return uvarint(len(items) + 1) + b"".join(items)


TAGS = b"\x00"  # no tagged fields


def request_frame(api_key, version, correlation_id, body, flexible, client_id="abuse"):
    """The size-prefixed request: header v1 (v2 with tagged fields when `flexible`) and body."""
    header = i16(api_key) + i16(version) + i32(correlation_id) + string(client_id)
    if flexible:
        header += TAGS
    payload = header + body
    return i32(len(payload)) + payload


# ---------------------------------------------------------------------------------------------
# a reader of responses

class Reader:
    def __init__(self, buf, pos=0):
        self.buf = buf
        self.pos = pos

    def _take(self, fmt, n):
        v = struct.unpack_from(fmt, self.buf, self.pos)[0]
        self.pos += n
        return v

    def i8(self):
        return self._take(">b", 1)

    def i16(self):
        return self._take(">h", 2)

    def i32(self):
        return self._take(">i", 4)

    def i64(self):
        return self._take(">q", 8)

    def uvarint(self):
        shift = 0
        v = 0
        while True:
            b = self.buf[self.pos]
            self.pos += 1
            v |= (b & 0x7F) << shift
            if not b & 0x80:
                return v
            shift += 7

    def varint(self):  # zigzag
        v = self.uvarint()
        return (v >> 1) ^ -(v & 1)

    varlong = varint

    def _raw(self, n):
        """The next n bytes, or None for a negative (null) length."""
        if n < 0:
            return None
        b = bytes(self.buf[self.pos:self.pos + n])
        self.pos += n
        return b

    def string(self):
        b = self._raw(self.i16())
        return None if b is None else b.decode(errors="replace")

    def compact_string(self):
        b = self._raw(self.uvarint() - 1)
        return None if b is None else b.decode(errors="replace")

    def compact_bytes(self):
        return self._raw(self.uvarint() - 1)

    def array_len(self):  # non-flexible
        return self.i32()

    def compact_len(self):
        return self.uvarint() - 1

    def uuid(self):
        return self._raw(16)

    def tags(self):
        for _ in range(self.uvarint()):
            self.uvarint()
            n = self.uvarint()
            self.pos += n


# ---------------------------------------------------------------------------------------------
# connections

class Closed(Exception):
    """The broker closed the connection (EOF or reset)."""


class Conn:
    """One TCP connection to the broker on 127.0.0.1, optionally from another loopback source
    address (127.0.0.2, ...: still the loopback interface), for the per-IP connection limits."""

    def __init__(self, port, source=None, timeout=10.0, rcvbuf=None):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        if rcvbuf is not None:
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        if source is not None:
            check_loopback(source)
            self.sock.bind((source, 0))
        self.sock.settimeout(timeout)
        self.sock.connect(("127.0.0.1", port))
        self.corr = 0

    def next_corr(self):
        self.corr += 1
        return self.corr

    def send(self, data):
        self.sock.sendall(data)

    def _read_exact(self, n, deadline):
        chunks = []
        while n > 0:
            left = deadline - time.time()
            if left <= 0:
                raise socket.timeout("timed out")
            self.sock.settimeout(left)
            try:
                b = self.sock.recv(min(n, 1 << 20))
            except (ConnectionResetError, BrokenPipeError) as e:
                raise Closed(str(e))
            if not b:
                raise Closed("EOF")
            chunks.append(b)
            n -= len(b)
        return b"".join(chunks)

    def recv_frame(self, timeout=30.0):
        deadline = time.time() + timeout
        size = struct.unpack(">i", self._read_exact(4, deadline))[0]
        return self._read_exact(size, deadline)

    def call(self, api_key, version, body, flexible, timeout=30.0, flexible_response=None):
        """Sends one request and returns a Reader after the response header."""
        corr = self.next_corr()
        self.send(request_frame(api_key, version, corr, body, flexible))
        frame = self.recv_frame(timeout)
        r = Reader(frame)
        got = r.i32()
        if got != corr:
            raise AssertionError(f"correlation id {got}, expected {corr}")
        if flexible_response if flexible_response is not None else flexible:
            r.tags()
        return r

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass


def check_loopback(addr):
    if not addr.startswith("127."):
        raise ValueError(f"{addr} is not a loopback address")


# ---------------------------------------------------------------------------------------------
# requests and their responses

def api_versions_v0():
    return request_frame(API_VERSIONS, 0, 7, b"", False)


def metadata_v12(topics, allow_auto_create=False):
    """Metadata v12 for `topics` (None: all). Returns the request body."""
    ts = None if topics is None else [b"\x00" * 16 + compact_string(t) + TAGS for t in topics]
    return compact_array(ts) + i8(1 if allow_auto_create else 0) + i8(0) + TAGS


def parse_metadata_v12(r):
    """{topic: (error_code, is_internal, [partition indexes])}"""
    r.i32()  # throttle
    for _ in range(r.compact_len()):
        r.i32(); r.compact_string(); r.i32(); r.compact_string(); r.tags()
    r.compact_string()  # cluster id
    r.i32()  # controller
    topics = {}
    for _ in range(r.compact_len()):
        err = r.i16()
        name = r.compact_string()
        r.uuid()
        internal = r.i8() != 0
        parts = []
        for _ in range(r.compact_len()):
            r.i16()
            parts.append(r.i32())
            r.i32(); r.i32()
            for _ in range(3):
                for _ in range(r.compact_len()):
                    r.i32()
            r.tags()
        r.i32()
        r.tags()
        topics[name] = (err, internal, sorted(parts))
    return topics


def metadata(conn, topics, allow_auto_create=False):
    r = conn.call(METADATA, 12, metadata_v12(topics, allow_auto_create), True)
    return parse_metadata_v12(r)


def produce_v9(topic, partition, records, acks=-1, timeout_ms=30000):
    part = i32(partition) + compact_bytes(records) + TAGS
    t = compact_string(topic) + compact_array([part]) + TAGS
    return compact_string(None) + i16(acks) + i32(timeout_ms) + compact_array([t]) + TAGS


def parse_produce_v9(r):
    """[(topic, partition, error_code, base_offset, [record errors], error_message)]"""
    out = []
    for _ in range(r.compact_len()):
        name = r.compact_string()
        for _ in range(r.compact_len()):
            idx = r.i32()
            err = r.i16()
            base = r.i64()
            r.i64(); r.i64()
            rec_errors = []
            for _ in range(r.compact_len()):
                rec_errors.append((r.i32(), r.compact_string()))
                r.tags()
            msg = r.compact_string()
            r.tags()
            out.append((name, idx, err, base, rec_errors, msg))
        r.tags()
    return out


def produce(conn, topic, partition, records, timeout=60.0):
    r = conn.call(PRODUCE, 9, produce_v9(topic, partition, records), True, timeout=timeout)
    return parse_produce_v9(r)


def fetch_v12_many_topics(n_topics, max_wait_ms=60000, names=None):
    """A Fetch v12 naming `n_topics` topics with no partitions each (one-character names by
    default, so each costs 4 bytes on the wire): a parked fetch that waits max_wait_ms."""
    names = names or [chr(c) for c in range(ord("a"), ord("z") + 1)]
    encoded = [compact_string(n) + b"\x01" + TAGS for n in names]
    parts = [encoded[i % len(encoded)] for i in range(n_topics)]
    topics = uvarint(n_topics + 1) + b"".join(parts)
    return (i32(-1) + i32(max_wait_ms) + i32(1) + i32(50 << 20) + i8(0) + i32(0) + i32(-1) +
            topics + compact_array([]) + compact_string("") + TAGS)


def fetch_v12(topic, partition, offset, max_wait_ms=0, max_bytes=50 << 20,
              partition_max_bytes=1 << 20):
    p = (i32(partition) + i32(-1) + i64(offset) + i32(-1) + i64(-1) + i32(partition_max_bytes)
         + TAGS)
    t = compact_string(topic) + compact_array([p]) + TAGS
    return (i32(-1) + i32(max_wait_ms) + i32(1) + i32(max_bytes) + i8(0) + i32(0) + i32(-1) +
            compact_array([t]) + compact_array([]) + compact_string("") + TAGS)


def fetch_v12_partitions(topic, partitions, offset=0, max_wait_ms=0, max_bytes=50 << 20,
                         partition_max_bytes=1 << 20, min_bytes=1):
    """A Fetch v12 of `partitions` (in that order) of one topic, each from `offset`."""
    ps = [i32(p) + i32(-1) + i64(offset) + i32(-1) + i64(-1) + i32(partition_max_bytes) + TAGS
          for p in partitions]
    t = compact_string(topic) + compact_array(ps) + TAGS
    return (i32(-1) + i32(max_wait_ms) + i32(min_bytes) + i32(max_bytes) + i8(0) + i32(0) +
            i32(-1) + compact_array([t]) + compact_array([]) + compact_string("") + TAGS)


def parse_fetch_v12(r):
    """(error_code, [(topic, partition, error_code, high_watermark, log_start_offset,
    records bytes)]) of a Fetch v12 response body."""
    r.i32()  # throttle_time_ms
    err = r.i16()
    r.i32()  # session_id
    out = []
    for _ in range(r.compact_len()):
        name = r.compact_string()
        for _ in range(r.compact_len()):
            idx = r.i32()
            perr = r.i16()
            hw = r.i64()
            r.i64()  # last_stable_offset
            log_start = r.i64()
            n = r.compact_len()
            for _ in range(max(n, 0)):
                r.i64(); r.i64(); r.tags()
            r.i32()  # preferred_read_replica
            records = r.compact_bytes() or b""
            r.tags()
            out.append((name, idx, perr, hw, log_start, records))
        r.tags()
    return err, out


def batches(records):
    """[(base offset, record count, batch bytes)] of the whole v2 batches in `records` (a fetch
    may end with a partial one, which is left out)."""
    out = []
    at = 0
    while at + 12 <= len(records):
        base, length = struct.unpack_from(">qi", records, at)
        if at + 12 + length > len(records):
            break
        count = struct.unpack_from(">i", records, at + 57)[0]
        out.append((base, count, records[at:at + 12 + length]))
        at += 12 + length
    return out


def batch_values(batch):
    """The values of an uncompressed v2 batch's records."""
    count = struct.unpack_from(">i", batch, 57)[0]
    r = Reader(batch, 61)
    values = []
    for _ in range(count):
        r.varint()  # length
        r.i8()      # attributes
        r.varlong()  # timestamp delta
        r.varint()  # offset delta
        klen = r.varint()
        if klen > 0:
            r.pos += klen
        vlen = r.varint()
        values.append(None if vlen < 0 else bytes(batch[r.pos:r.pos + vlen]))
        r.pos += max(vlen, 0)
        for _ in range(r.varint()):  # headers
            r.pos += max(r.varint(), 0)
            r.pos += max(r.varint(), 0)
    return values


def create_topics_v5(topics, timeout_ms=30000, validate_only=False):
    """topics: [(name, num_partitions, replication_factor, {config: value})]"""
    ts = []
    for name, n, rf, configs in topics:
        cs = [compact_string(k) + compact_string(v) + TAGS for k, v in (configs or {}).items()]
        ts.append(compact_string(name) + i32(n) + i16(rf) + compact_array([]) + compact_array(cs)
                  + TAGS)
    return compact_array(ts) + i32(timeout_ms) + i8(1 if validate_only else 0) + TAGS


def parse_create_topics_v5(r):
    """{name: (error_code, error_message)}"""
    r.i32()
    out = {}
    for _ in range(r.compact_len()):
        name = r.compact_string()
        err = r.i16()
        msg = r.compact_string()
        r.i32(); r.i16()
        n = r.compact_len()
        for _ in range(max(n, 0)):
            r.compact_string(); r.compact_string(); r.i8(); r.i8(); r.i8(); r.tags()
        r.tags()
        out[name] = (err, msg)
    return out


def create_topics(conn, topics, timeout=60.0):
    r = conn.call(CREATE_TOPICS, 5, create_topics_v5(topics), True, timeout=timeout)
    return parse_create_topics_v5(r)


def create_partitions(conn, topic, count, timeout=60.0):
    body = (compact_array([compact_string(topic) + i32(count) + compact_array(None) + TAGS]) +
            i32(30000) + i8(0) + TAGS)
    r = conn.call(CREATE_PARTITIONS, 2, body, True, timeout=timeout)
    r.i32()
    out = {}
    for _ in range(r.compact_len()):
        name = r.compact_string()
        err = r.i16()
        msg = r.compact_string()
        r.tags()
        out[name] = (err, msg)
    return out


def delete_topics(conn, names, version=4, timeout=60.0):
    """DeleteTopics v4 (flexible) or v1 (not): {name: error_code}"""
    if version >= 4:
        body = compact_array([compact_string(n) for n in names]) + i32(30000) + TAGS
        r = conn.call(DELETE_TOPICS, version, body, True, timeout=timeout)
        r.i32()
        out = {}
        for _ in range(r.compact_len()):
            name = r.compact_string()
            out[name] = r.i16()
            r.tags()
        return out
    body = i32(len(names)) + b"".join(string(n) for n in names) + i32(30000)
    r = conn.call(DELETE_TOPICS, version, body, False, timeout=timeout)
    r.i32()
    out = {}
    for _ in range(r.array_len()):
        name = r.string()
        out[name] = r.i16()
    return out


# ---------------------------------------------------------------------------------------------
# record batches (magic 2)

_crc32c_impl = None


def crc32c(data):
    global _crc32c_impl
    if _crc32c_impl is None:
        _crc32c_impl = _find_crc32c()
    return _crc32c_impl(data)


def _find_crc32c():
    # A C implementation when the system has one (libext2fs exports Castagnoli's CRC), checked
    # against the standard test vector; kafka-python's pure-Python one otherwise.
    for name in ("libext2fs.so.2", ctypes.util.find_library("ext2fs")):
        if not name:
            continue
        try:
            f = ctypes.CDLL(name).ext2fs_crc32c_le
            f.restype = ctypes.c_uint32
            f.argtypes = [ctypes.c_uint32, ctypes.c_char_p, ctypes.c_size_t]

            def c_impl(data, f=f):
                data = bytes(data)
                return f(0xFFFFFFFF, data, len(data)) ^ 0xFFFFFFFF
            if c_impl(b"123456789") == 0xE3069283:
                return c_impl
        except (OSError, AttributeError):
            pass
    try:
        import crc32c as mod  # noqa
        return lambda d: mod.crc32c(bytes(d))
    except ImportError:
        pass
    from kafka.record import _crc32c
    return lambda d: _crc32c.crc(bytes(d))


def record(offset_delta, value, key=None, timestamp_delta=0):
    body = (b"\x00" + varint(timestamp_delta) + varint(offset_delta) +
            (varint(-1) if key is None else varint(len(key)) + key) +
            (varint(-1) if value is None else varint(len(value)) + value) + varint(0))
    return varint(len(body)) + body


def tiny_records(n):
    """n records with null keys and empty values, offset deltas 0..n-1 (7 to 9 bytes each)."""
    out = []
    for i in range(n):
        body = b"\x00\x00" + varint(i) + b"\x01\x00\x00"
        out.append(varint(len(body)) + body)
    return b"".join(out)


def compress(codec, data):
    if codec == "none":
        return data
    if codec == "gzip":
        buf = io.BytesIO()
        with gzip.GzipFile(fileobj=buf, mode="wb", compresslevel=6) as g:
            g.write(data)
        return buf.getvalue()
    if codec == "snappy":
        # Kafka's Java producer writes xerial-framed snappy: a magic header, then blocks of
        # (length, raw snappy) over at most 32 KiB of input each.
        import snappy
        out = [b"\x82SNAPPY\x00", i32(1), i32(1)]
        for off in range(0, len(data), 32768):
            block = snappy.compress(data[off:off + 32768])
            out += [i32(len(block)), block]
        return b"".join(out)
    if codec == "lz4":
        import lz4.frame
        return lz4.frame.compress(data, block_size=lz4.frame.BLOCKSIZE_MAX64KB,
                                  block_linked=False, content_checksum=False,
                                  store_size=False)
    if codec == "zstd":
        import zstandard
        return zstandard.ZstdCompressor(level=3).compress(data)
    raise ValueError(codec)


def record_batch(records_bytes, count, codec="none", base_timestamp=None, max_timestamp=None):
    """A v2 batch at base offset 0 holding `count` records already encoded in `records_bytes`,
    compressed with `codec`."""
    ts = int(time.time() * 1000) if base_timestamp is None else base_timestamp
    payload = compress(codec, records_bytes)
    after_crc = (i16(CODEC_IDS[codec]) + i32(count - 1) + i64(ts) +
                 i64(ts if max_timestamp is None else max_timestamp) + i64(-1) + i16(-1) +
                 i32(-1) + i32(count) + payload)
    crc = crc32c(after_crc)
    after_length = i32(0) + i8(2) + struct.pack(">I", crc) + after_crc
    return i64(0) + i32(len(after_length)) + after_length


def value_batch(values, codec="none"):
    recs = b"".join(record(i, v) for i, v in enumerate(values))
    return record_batch(recs, len(values), codec)
