#!/usr/bin/env python3
"""Generates seglog's Kafka protocol messages from Kafka's own JSON schemas.

Kafka defines every request, response and header in `common/message/*.json` inside the
kafka-clients jar, and the records its coordinators keep in `__consumer_offsets`,
`__share_group_state` and `__transaction_state` ("coordinator-key" and "coordinator-value"
schemas) in the same directory of the kafka-group-coordinator, kafka-share-coordinator and
kafka-transaction-coordinator jars, and the records the
tiered storage's TopicBasedRemoteLogMetadataManager keeps in `__remote_log_metadata` ("metadata"
schemas in `message/*.json` of the kafka-storage jar), and the records KRaft's controller keeps in
`__cluster_metadata` ("metadata" schemas in `common/metadata/*.json` of the kafka-metadata jar).
This script reads them straight from the
jars (no unpacking), strips the `//` comments, and writes one C++ header and source per schema
into src/protocol/generated/: a struct per message with every nested
structure, in-class defaults from the schema, and Decode/Encode for every version (non-flexible
and flexible encodings, nullable and compact strings, arrays and bytes, tagged fields with
unknown tags kept and written back).

The KRaft metadata records and the KRaft control records (JSON_DATA_SCHEMAS) also get WriteJson:
the JSON Kafka's generated JsonConverters write (for `seglog dump-log`, protocol/json_writer.h).

It also writes api_messages.{h,cc} (the API table and header versions),
coordinator_records.{h,cc} (the coordinators' record types), metadata_records.{h,cc} (KRaft's
metadata record types, and a record's JSON by apiKey) and, for tests only,
message_samples.{h,cc} (a sample of every message at every version, for round trips).

    generate.py --jar kafka-clients-4.4.0.jar --jar kafka-group-coordinator-4.4.0.jar \
        --jar kafka-share-coordinator-4.4.0.jar --jar kafka-transaction-coordinator-4.4.0.jar --jar kafka-storage-4.4.0.jar \
        --jar kafka-metadata-4.4.0.jar --out src/protocol/generated

The framing of the remote log metadata records in their topic (a frame version, the apiKey and
the version before the message) is hand-written: src/protocol/remote_log_metadata_serde.h.

The output is committed; scripts/check_generated.sh regenerates it from the pinned jars and
fails when anything differs.
"""

import argparse
import json
import os
import re
import sys
import zipfile

KAFKA_VERSION = "4.4.0"

CPP_KEYWORDS = {
    "alignas", "alignof", "and", "asm", "auto", "bool", "break", "case", "catch", "char",
    "class", "concept", "const", "constexpr", "continue", "default", "delete", "do", "double",
    "else", "enum", "explicit", "export", "extern", "false", "float", "for", "friend", "goto",
    "if", "inline", "int", "long", "mutable", "namespace", "new", "noexcept", "not", "nullptr",
    "operator", "or", "private", "protected", "public", "register", "requires", "return",
    "short", "signed", "sizeof", "static", "struct", "switch", "template", "this", "throw",
    "true", "try", "typedef", "typename", "union", "unsigned", "using", "virtual", "void",
    "volatile", "while", "xor", "module", "import",
}

PRIMITIVES = {
    "bool": "bool", "int8": "int8_t", "int16": "int16_t", "uint16": "uint16_t",
    "int32": "int32_t", "uint32": "uint32_t", "int64": "int64_t", "float64": "double",
    "string": "std::string", "bytes": "std::vector<uint8_t>", "records": "::seglog::protocol::Records",
    "uuid": "::seglog::Uuid",
}

# RequestHeader.json says 1-2 since Kafka 4.0 dropped ControlledShutdown v0, the only user of
# header v0; seglog still decodes header v0 (no client id) as the issue asks.
VALID_VERSION_OVERRIDES = {"RequestHeader": (0, 2)}


def strip_comments(text):
    out = []
    for line in text.split("\n"):
        # A `//` outside a string starts a comment. Schemas put comments on their own lines or
        # after a value; strings never contain `//` except in URLs, which Kafka's files avoid.
        in_str = False
        cut = len(line)
        i = 0
        while i < len(line):
            c = line[i]
            if c == '"' and (i == 0 or line[i - 1] != "\\"):
                in_str = not in_str
            elif not in_str and line.startswith("//", i):
                cut = i
                break
            i += 1
        out.append(line[:cut])
    return "\n".join(out)


class Versions:
    """A version range: lo..hi inclusive, or empty."""

    def __init__(self, lo, hi):
        self.lo, self.hi = lo, hi

    @staticmethod
    def parse(text, cap=None):
        text = (text or "none").strip()
        if text == "none":
            return Versions(1, 0)
        if text.endswith("+"):
            v = Versions(int(text[:-1]), 0x7FFF)
        elif "-" in text:
            a, b = text.split("-")
            v = Versions(int(a), int(b))
        else:
            v = Versions(int(text), int(text))
        return v.intersect(cap) if cap else v

    def empty(self):
        return self.lo > self.hi

    def intersect(self, other):
        return Versions(max(self.lo, other.lo), min(self.hi, other.hi))

    def contains_all(self, other):
        return other.empty() or (self.lo <= other.lo and other.hi <= self.hi)

    def contains(self, v):
        return self.lo <= v <= self.hi

    def cond(self, var=None, within=None):
        """A C++ condition for `var` in this range; `within` is a range known to hold."""
        var = var or VERSION_VAR[0]
        if self.empty():
            return "false"
        if within is not None and self.contains_all(within):
            return "true"
        parts = []
        if within is None or self.lo > within.lo:
            parts.append(f"{var} >= {self.lo}")
        if self.hi != 0x7FFF and (within is None or self.hi < within.hi):
            parts.append(f"{var} <= {self.hi}")
        return " && ".join(parts) if parts else "true"

    def __str__(self):
        if self.empty():
            return "none"
        if self.hi == 0x7FFF:
            return f"{self.lo}+"
        return f"{self.lo}-{self.hi}" if self.lo != self.hi else f"{self.lo}"


# The name of the version parameter in the code being emitted: "version", or "message_version"
# in structures that have a field named Version.
VERSION_VAR = ["version"]


def V():
    return VERSION_VAR[0]


def snake(name):
    s = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1_\2", name)
    s = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", s).lower()
    if s in CPP_KEYWORDS:
        s += "_"
    return s


def file_stem(name):
    return snake(name).rstrip("_")


class Field:
    def __init__(self, spec, msg, valid):
        self.name = spec["name"]
        self.member = snake(self.name)
        self.type = spec["type"]
        self.about = spec.get("about", "")
        self.tagged = Versions.parse(spec.get("taggedVersions"), valid)
        # A field without "versions" is in its tagged versions (TransactionLogValue's tagged
        # fields); one with neither is a schema error, as in Kafka's generator.
        if "versions" in spec:
            self.versions = Versions.parse(spec["versions"], valid)
        elif not Versions.parse(spec.get("taggedVersions")).empty():
            self.versions = Versions.parse(spec["taggedVersions"], valid)
        else:
            raise ValueError(f"{msg.name}.{self.name}: no versions")
        self.nullable = Versions.parse(spec.get("nullableVersions"), valid)
        self.tag = spec.get("tag")
        self.ignorable = bool(spec.get("ignorable", False))
        self.default = spec.get("default")
        self.flexible_override = spec.get("flexibleVersions")
        self.msg = msg
        self.is_array = self.type.startswith("[]")
        self.elem = self.type[2:] if self.is_array else self.type
        self.struct = None  # the Struct for struct and struct-array types
        if self.elem not in PRIMITIVES:
            if "fields" in spec:
                self.struct = Struct(self.elem, spec["fields"], msg, self.versions)
                msg.add_struct(self.struct)
            else:
                self.struct = msg.pending_ref(self.elem)
        if self.tag is not None and self.tagged.empty():
            raise ValueError(f"{msg.name}.{self.name}: tag without taggedVersions")
        # A tagged field is only tagged; its wire versions are the tagged ones.
        if not self.tagged.empty() and not self.versions.contains_all(self.tagged):
            raise ValueError(f"{msg.name}.{self.name}: taggedVersions outside versions")

    # ----- C++ types and defaults -----

    def nullable_any(self):
        return not self.nullable.empty()

    def elem_cpp(self):
        return PRIMITIVES[self.elem] if self.struct is None else self.struct.name

    def cpp_type(self):
        if self.is_array:
            t = f"std::vector<{self.elem_cpp()}>"
        else:
            t = self.elem_cpp()
        if self.nullable_any() and (self.is_array or self.elem in ("string", "bytes", "records")
                                    or self.struct is not None):
            return f"std::optional<{t}>"
        return t

    def is_optional(self):
        return self.cpp_type().startswith("std::optional<")

    def default_is_null(self):
        return self.default == "null"

    def default_expr(self):
        """The in-class initializer, or '' for the type's own default."""
        if self.is_optional():
            if self.default_is_null():
                return "std::nullopt"
            inner = self.cpp_type()[len("std::optional<"):-1]
            if self.elem == "string" and not self.is_array and self.default:
                return f"std::string({json.dumps(self.default)})"
            return f"{inner}{{}}"
        if self.is_array or self.struct is not None:
            return ""
        d = self.default
        t = self.elem
        if t == "bool":
            return "true" if str(d).lower() == "true" else "false"
        if t in ("int8", "int16", "uint16", "int32", "uint32", "int64"):
            if d is None or d == "":
                return "0"
            v = int(str(d), 0)
            if t == "int64" and v == -(2 ** 63):
                return "INT64_MIN"
            if t == "int32" and v == -(2 ** 31):
                return "INT32_MIN"
            return f"{v}" + ("LL" if t == "int64" and abs(v) > 2 ** 31 else "")
        if t == "float64":
            return str(float(d)) if d not in (None, "") else "0.0"
        if t == "string":
            return json.dumps(d) if d not in (None, "null") else ""
        if t == "uuid" or t == "bytes" or t == "records":
            return ""
        raise ValueError(f"no default for {t}")

    def is_default_expr(self, value):
        """C++ expression: `value` equals the field's default."""
        if self.is_optional():
            if self.default_is_null():
                return f"!{value}.has_value()"
            d = self.default_expr()
            return f"({value} == {d})"
        if self.is_array:
            return f"{value}.empty()"
        if self.struct is not None:
            return f"({value} == {self.struct.name}{{}})"
        if self.elem == "string":
            d = self.default_expr()
            return f"({value} == {d})" if d else f"{value}.empty()"
        if self.elem in ("bytes",):
            return f"{value}.empty()"
        if self.elem == "records":
            return f"{value}.empty()"
        if self.elem == "uuid":
            return f"{value}.IsZero()"
        return f"({value} == {self.default_expr()})"

    def compact_cond(self):
        """Whether this field uses the compact form, as a C++ expression."""
        if self.flexible_override is not None:
            fv = Versions.parse(self.flexible_override)
            return fv.cond() if not fv.empty() else "false"
        return "flexible"


class Struct:
    def __init__(self, name, fields, msg, versions):
        self.name = name
        self.msg = msg
        self.versions = versions
        self.fields = [Field(f, msg, msg.valid) for f in fields]
        tags = {}
        for f in self.fields:
            if f.tag is not None:
                if f.tag in tags:
                    raise ValueError(f"{msg.name}.{name}: duplicate tag {f.tag}")
                tags[f.tag] = f


# The kinds of schema: kafka-clients' protocol messages, and the records the coordinators keep
# in their topics (a key and a value schema per record type).
PROTOCOL_KINDS = ("request", "response", "header", "data")
RECORD_KINDS = ("coordinator-key", "coordinator-value")
# The remote log metadata records (kafka-storage's message/*.json), by apiKey (Kafka's
# MetadataRecordType). The set is pinned: src/protocol/remote_log_metadata_serde.{h,cc} frames
# exactly these, so a Kafka release that adds one must fail here until the serde knows it.
METADATA_KIND = "metadata"
METADATA_RECORDS = {
    0: "RemoteLogSegmentMetadataRecord",
    1: "RemoteLogSegmentMetadataUpdateRecord",
    2: "RemotePartitionDeleteMetadataRecord",
    3: "RemoteLogSegmentMetadataSnapshotRecord",
}
# The jar of the remote log metadata records, and its schemas' directory (not common/message/).
STORAGE_JAR = f"kafka-storage-{KAFKA_VERSION}.jar"
STORAGE_SCHEMA_DIR = "message/"
# KRaft's metadata records (kafka-metadata's common/metadata/*.json, "metadata" schemas too):
# every record the controller appends to __cluster_metadata, numbered by apiKey (Kafka's
# MetadataRecordType). Their framing in the log is src/metadata/metadata_record_serde.h.
KRAFT_JAR = f"kafka-metadata-{KAFKA_VERSION}.jar"
KRAFT_SCHEMA_DIR = "common/metadata/"
# The KRaft control records of kafka-clients ("data" schemas): the values of the control batches in
# __cluster_metadata and its snapshots. DumpLogSegments prints them through their generated
# JsonConverters, so they get WriteJson as the KRaft metadata records do; no other schema does (a
# JSON writer in every message would only cost compile time).
JSON_DATA_SCHEMAS = {"LeaderChangeMessage", "SnapshotHeaderRecord", "SnapshotFooterRecord",
                     "KRaftVersionRecord", "VotersRecord",
                     # DumpLogSegments --offsets-decoder prints a consumer group member's
                     # subscription and assignment bytes of GroupMetadataValue through these.
                     "ConsumerProtocolSubscription", "ConsumerProtocolAssignment"}
# Schemas of the storage jar deliberately not generated, with the reason. Any other schema there
# that is not a "metadata" record is an error, so nothing new is skipped silently.
STORAGE_SKIPPED = {
    # A "data" schema: the layout of the producer state snapshot file (`<offset>.snapshot`) that
    # Kafka's ProducerStateManager writes. It is not a record of __remote_log_metadata, and seglog
    # already reads and writes that file by hand in src/log (docs/format/producer-snapshot.md):
    # its CRC-32C covers the bytes after the Crc field, which a generated Encode cannot fill in.
    "ProducerSnapshot.json": "the producer snapshot file's layout, hand-written in src/log",
}


class Message:
    def __init__(self, spec, coordinator=None, kraft=False):
        self.spec = spec
        # A KRaft metadata record (kafka-metadata's common/metadata/), not a remote log one.
        self.kraft = kraft
        self.name = spec["name"]
        self.kind = spec["type"]
        self.api_key = spec.get("apiKey")
        # For coordinator records: "group" or "transaction" (from the jar), whose record type
        # the apiKey is; record types are per coordinator (LegacyOffsetCommit and TransactionLog
        # are both 0).
        self.coordinator = coordinator
        if self.kind not in PROTOCOL_KINDS + RECORD_KINDS + (METADATA_KIND,):
            raise ValueError(f"{self.name}: unknown schema type {self.kind}")
        if self.kraft and (self.kind != METADATA_KIND or self.api_key is None):
            raise ValueError(f"{self.name}: a {self.kind} schema in {KRAFT_JAR}, want a "
                             f"\"metadata\" record with an apiKey")
        if self.is_metadata() and METADATA_RECORDS.get(self.api_key) != self.name:
            raise ValueError(f"{self.name}: a {self.kind} schema with apiKey {self.api_key}, but "
                             f"the generator knows {METADATA_RECORDS} (remote_log_metadata_serde "
                             f"frames exactly those: extend both together)")
        if self.is_record():
            if coordinator is None:
                raise ValueError(f"{self.name}: a {self.kind} outside a coordinator's jar")
            if self.api_key is None:
                raise ValueError(f"{self.name}: a {self.kind} without an apiKey (record type)")
        lo, hi = VALID_VERSION_OVERRIDES.get(self.name, (None, None))
        valid = Versions.parse(spec["validVersions"])
        if lo is not None:
            valid = Versions(lo, hi)
        self.valid = valid
        self.flexible = Versions.parse(spec.get("flexibleVersions", "none"))
        self.latest_unstable = bool(spec.get("latestVersionUnstable", False))
        self.listeners = spec.get("listeners", [])
        self.structs = []  # in definition order: each struct after the ones it uses
        self.by_name = {}
        self.refs = []
        self.common = {}
        for cs in spec.get("commonStructs", []):
            self.common[cs["name"]] = cs
        self.common_built = {}
        self.root = Struct(self.class_name(), spec.get("fields", []), self, valid)
        for f in self.refs:
            f_struct = self.by_name.get(f[0]) or self.build_common(f[0])
            f[1].__dict__.update(f_struct.__dict__)

    def class_name(self):
        # Kafka's generated Java classes: ProduceRequestData, RequestHeaderData, but
        # ConsumerProtocolAssignment for the "data" structures and OffsetCommitKey for the
        # coordinators' records.
        return self.name + "Data" if self.kind in ("request", "response", "header") else self.name

    def is_record(self):
        return self.kind in RECORD_KINDS

    def is_key(self):
        return self.kind == "coordinator-key"

    def is_metadata(self):
        """A record of __remote_log_metadata (kafka-storage's "metadata" schemas)."""
        return self.kind == METADATA_KIND and not self.kraft

    def is_kraft(self):
        """A record of KRaft's __cluster_metadata (kafka-metadata's "metadata" schemas)."""
        return self.kraft

    def has_json(self):
        """Whether the message gets WriteJson: the KRaft metadata records and control records, and
        the coordinators' records (DumpLogSegments' --offsets-decoder, --share-group-state-decoder
        and --transaction-log-decoder print them through their JsonConverters)."""
        return (self.is_kraft() or self.is_record()
                or (self.kind == "data" and self.name in JSON_DATA_SCHEMAS))

    def record_name(self):
        """The record type's name: OffsetCommit for OffsetCommitKey and OffsetCommitValue."""
        suffix = "Key" if self.is_key() else "Value"
        if not self.name.endswith(suffix):
            raise ValueError(f"{self.name}: a {self.kind} whose name does not end in {suffix}")
        return self.name[:-len(suffix)]

    def add_struct(self, s):
        if s.name in self.by_name:
            raise ValueError(f"{self.name}: struct {s.name} defined twice")
        self.by_name[s.name] = s
        self.structs.append(s)

    def build_common(self, name):
        if name in self.common_built:
            return self.common_built[name]
        if name not in self.common:
            raise ValueError(f"{self.name}: unknown struct type {name}")
        s = Struct(name, self.common[name]["fields"], self, self.valid)
        self.common_built[name] = s
        self.add_struct(s)
        return s

    def pending_ref(self, name):
        if name in self.by_name:
            return self.by_name[name]
        if name in self.common:
            return self.build_common(name)
        placeholder = Struct.__new__(Struct)
        self.refs.append((name, placeholder))
        return placeholder


# ---------------------------------------------------------------------------------------------
# C++ emission


class Out:
    def __init__(self):
        self.lines = []
        self.ind = 0

    def __call__(self, line=""):
        self.lines.append(("  " * self.ind + line) if line else "")

    def block(self, head):
        self(head)
        self.ind += 1

    def end(self, tail="}"):
        self.ind -= 1
        self(tail)

    def text(self):
        return "\n".join(self.lines) + "\n"


def cpp_comment(text, width=96):
    words = text.split()
    lines, cur = [], ""
    for w in words:
        if len(cur) + len(w) + 1 > width:
            lines.append(cur)
            cur = w
        else:
            cur = f"{cur} {w}" if cur else w
    if cur:
        lines.append(cur)
    return [f"// {l}" for l in lines]


def nested_ns(msg):
    """The namespace of a message's nested structures: produce_request_data."""
    return file_stem(msg.class_name())


def header_guard(stem):
    return f"SEGLOG_PROTOCOL_GENERATED_{stem.upper()}_H_"


def flex_const(msg):
    return msg.flexible.lo if not msg.flexible.empty() else 0x7FFF


def emit_struct_decl(o, s, msg, is_root):
    o.block(f"struct {s.name} {{")
    if is_root:
        if msg.is_record():
            o(f"// The {msg.coordinator} coordinator's record type (the schema's apiKey).")
            o(f"static constexpr int16_t kRecordType = {msg.api_key};")
        elif msg.is_kraft():
            o("// The record's type in __cluster_metadata (the schema's apiKey).")
            o(f"static constexpr int16_t kApiKey = {msg.api_key};")
        elif msg.is_metadata():
            o("// The record's type in __remote_log_metadata (the schema's apiKey).")
            o(f"static constexpr int16_t kApiKey = {msg.api_key};")
        elif msg.api_key is not None:
            o(f"static constexpr int16_t kApiKey = {msg.api_key};")
        o(f"static constexpr int16_t kLowestSupportedVersion = {msg.valid.lo};")
        o(f"static constexpr int16_t kHighestSupportedVersion = {msg.valid.hi};")
        o("// The first flexible version (KIP-482); 0x7fff: none.")
        o(f"static constexpr int16_t kLowestFlexibleVersion = {flex_const(msg)};")
        o()
        if msg.structs:
            o("// The nested structures, defined in their own namespace (complete before this")
            o("// struct, so std::optional of them is default-constructible under every compiler).")
            for inner in msg.structs:
                o(f"using {inner.name} = {nested_ns(msg)}::{inner.name};")
            o()
    for f in s.fields:
        about = f.about.strip()
        if about and not about.endswith("."):
            about += "."
        for c in cpp_comment(f"{about} Versions {f.versions}"
                             + (f", nullable {f.nullable}" if not f.nullable.empty() else "")
                             + (f", tagged {f.tagged} (tag {f.tag})" if not f.tagged.empty() else "")
                             + ("." if True else "")):
            o(c)
        d = f.default_expr()
        o(f"{f.cpp_type()} {f.member}{{{d}}};" if d else f"{f.cpp_type()} {f.member};")
    o("// Tagged fields this build does not know, kept to be written back.")
    o("UnknownTaggedFields unknown_tagged_fields;")
    o()
    if is_root:
        o("// Reads this message at `version`; Corruption naming the field for bad bytes.")
        o("// Records fields are views of `reader`'s bytes, which must outlive them.")
    o("::seglog::Status Decode(ProtocolReader* reader, int16_t version);")
    if is_root:
        o("// Appends this message at `version`. Fails (also in writer->status()) on a value")
        o("// the version cannot carry: a non-default non-ignorable field the version lacks, a")
        o("// null where the version has none, a non-compact string over 32767 bytes.")
    o("::seglog::Status Encode(ProtocolWriter* writer, int16_t version) const;")
    if msg.has_json():
        if is_root:
            o(f"// Writes this message at `json_version` as Kafka's {msg.class_name()}JsonConverter.write")
            o("// does: every field the version has (tagged ones only when not default), named as the")
            o("// schema's field with a lower-case first letter, in schema order. Like Kafka's, it")
            o("// checks no version range. InvalidArgument with Kafka's message for a non-default")
            o("// field the version lacks.")
        o("::seglog::Status WriteJson(JsonWriter* out, int16_t json_version) const;")
    if is_root:
        o("// Decodes all of `bytes`: Corruption when bytes are left over.")
        o("static ::seglog::Result<" + s.name + "> Parse(std::span<const uint8_t> bytes, int16_t version);")
    o(f"bool operator==(const {s.name}&) const = default;")
    o.end("};")


def read_scalar(f, elem_target, compact, field_label):
    """Statements reading one non-array value of field f into elem_target."""
    t = f.elem
    L = json.dumps(field_label)
    if f.struct is not None:
        return [f"SEGLOG_RETURN_IF_ERROR({elem_target}.Decode(reader, {V()}));"]
    m = {
        "bool": "ReadBool", "int8": "ReadInt8", "int16": "ReadInt16", "uint16": "ReadUint16",
        "int32": "ReadInt32", "uint32": "ReadUint32", "int64": "ReadInt64",
        "float64": "ReadFloat64", "uuid": "ReadUuid",
    }
    if t in m:
        return [f"SEGLOG_RETURN_IF_ERROR(reader->{m[t]}({L}, &{elem_target}));"]
    if t == "string":
        return [f"SEGLOG_RETURN_IF_ERROR(reader->ReadString({L}, {compact}, &{elem_target}));"]
    if t == "bytes":
        return [f"SEGLOG_RETURN_IF_ERROR(reader->ReadBytes({L}, {compact}, &{elem_target}));"]
    if t == "records":
        return [f"SEGLOG_RETURN_IF_ERROR(reader->ReadRecords({L}, {compact}, &{elem_target}));"]
    raise ValueError(t)


def emit_read_field(o, f, s, msg, target, tagged=False):
    """Reads field f (in its wire form) into `target`; `tagged`: from a tagged field's bytes."""
    compact = f.compact_cond()
    label = f"{s.name}.{f.name}"
    L = json.dumps(label)
    nullable_cond = f.nullable.cond(within=None)
    if f.is_array:
        o("{")
        o.ind += 1
        o("int32_t n_ = 0;")
        o(f"SEGLOG_RETURN_IF_ERROR(reader->ReadArrayLength({L}, {compact}, {nullable_cond}, &n_));")
        if f.is_optional():
            o.block("if (n_ < 0) {")
            o(f"{target}.reset();")
            o.end()
            o.block("else {")
            o(f"auto& vec_ = {target}.emplace();")
        else:
            o.block("{")
            o(f"auto& vec_ = {target};")
            o("vec_.clear();")
        o(f"SEGLOG_RETURN_IF_ERROR(reader->ChargeArray({L}, n_, sizeof({f.elem_cpp()})));")
        o("vec_.reserve(static_cast<size_t>(n_));")
        o.block("for (int32_t i = 0; i < n_; ++i) {")
        o(f"{f.elem_cpp()} elem_{{}};")
        for line in read_scalar(f, "elem_", compact, label):
            o(line)
        o("vec_.push_back(std::move(elem_));")
        o.end()
        o.end()
        o.ind -= 1
        o("}")
        return
    if f.is_optional():
        if f.elem == "string":
            o(f"SEGLOG_RETURN_IF_ERROR(reader->ReadNullableString({L}, {compact}, &{target}));")
        elif f.elem == "bytes":
            o(f"SEGLOG_RETURN_IF_ERROR(reader->ReadNullableBytes({L}, {compact}, &{target}));")
        elif f.elem == "records":
            o(f"SEGLOG_RETURN_IF_ERROR(reader->ReadNullableRecords({L}, {compact}, &{target}));")
        elif f.struct is not None:
            o("{")
            o.ind += 1
            o("bool present_ = true;")
            o.block(f"if ({nullable_cond}) {{")
            # In a tagged field Kafka marks a nullable struct with a uvarint (0 null, 1 present),
            # elsewhere with an int8 (-1 null, 1 present).
            presence = "ReadTaggedStructPresence" if tagged else "ReadStructPresence"
            o(f"SEGLOG_RETURN_IF_ERROR(reader->{presence}({L}, &present_));")
            o.end()
            o.block("if (present_) {")
            o(f"SEGLOG_RETURN_IF_ERROR({target}.emplace().Decode(reader, {V()}));")
            o.end()
            o.block("else {")
            o(f"{target}.reset();")
            o.end()
            o.ind -= 1
            o("}")
            return
        else:
            raise ValueError(f.type)
        o.block(f"if (!{target}.has_value() && !({nullable_cond})) {{")
        o(f"return ::seglog::Status::Corruption(\"non-nullable field {label} was serialized as null\");")
        o.end()
        return
    for line in read_scalar(f, target, compact, label):
        o(line)


def write_scalar(f, value, compact):
    t = f.elem
    m = {
        "bool": "WriteBool", "int8": "WriteInt8", "int16": "WriteInt16", "uint16": "WriteUint16",
        "int32": "WriteInt32", "uint32": "WriteUint32", "int64": "WriteInt64",
        "float64": "WriteFloat64", "uuid": "WriteUuid",
    }
    if f.struct is not None:
        return [f"SEGLOG_RETURN_IF_ERROR({value}.Encode(writer, {V()}));"]
    if t in m:
        return [f"writer->{m[t]}({value});"]
    if t == "string":
        return [f"writer->WriteString({json.dumps(f.name)}, {compact}, {value});"]
    if t == "bytes":
        return [f"writer->WriteBytes({compact}, {value});"]
    if t == "records":
        return [f"writer->WriteRecords({compact}, {value});"]
    raise ValueError(t)


def emit_write_field(o, f, s, msg, value, tagged=False):
    compact = f.compact_cond()
    label = f"{s.name}.{f.name}"
    nullable_cond = f.nullable.cond()
    # A nullable struct's marker: see emit_read_field.
    presence = "WriteTaggedStructPresence" if tagged else "WriteStructPresence"
    if f.is_optional():
        o.block(f"if (!{value}.has_value()) {{")
        o.block(f"if (!({nullable_cond})) {{")
        o(f"return FailEncode(writer, \"non-nullable field {label} was serialized as null at version \", {V()});")
        o.end()
        if f.is_array:
            o(f"writer->WriteNullArray({compact});")
        elif f.struct is not None:
            o(f"writer->{presence}(false);")
        elif f.elem == "string":
            o(f"writer->WriteNullableString({json.dumps(f.name)}, {compact}, {value});")
        elif f.elem == "bytes":
            o(f"writer->WriteNullableBytes({compact}, {value});")
        elif f.elem == "records":
            o(f"writer->WriteNullableRecords({compact}, {value});")
        o.end()
        o.block("else {")
        if f.struct is not None and not f.is_array:
            o(f"if ({nullable_cond}) writer->{presence}(true);")
        inner = f"(*{value})"
        emit_write_plain(o, f, inner, compact)
        o.end()
        return
    emit_write_plain(o, f, value, compact)


def emit_write_plain(o, f, value, compact):
    if f.is_array:
        o(f"writer->WriteArrayLength({compact}, {value}.size());")
        o.block(f"for (const auto& elem_ : {value}) {{")
        for line in write_scalar(f, "elem_", compact):
            o(line)
        o.end()
        return
    for line in write_scalar(f, value, compact):
        o(line)


def emit_struct_impl(o, s, msg, qual):
    valid = msg.valid
    has_flex = not msg.flexible.empty()
    VERSION_VAR[0] = "message_version" if any(f.member == "version" for f in s.fields) else "version"
    o(f"::seglog::Status {qual}::Decode(ProtocolReader* reader, int16_t {V()}) {{")
    o.ind += 1
    o(f"(void){V()};")
    o("(void)reader;")
    o(f"*this = {s.name}{{}};")
    if has_flex:
        o(f"[[maybe_unused]] const bool flexible = {V()} >= {msg.flexible.lo};")
    else:
        o("[[maybe_unused]] constexpr bool flexible = false;")
    for f in s.fields:
        if f.versions.empty():
            continue
        wire = f.versions  # non-tagged presence
        if not f.tagged.empty():
            # Present only as a tagged field in the tagged versions; as a plain field outside.
            plain = [v for v in range(max(valid.lo, wire.lo), min(valid.hi, wire.hi) + 1)
                     if not f.tagged.contains(v)]
            if not plain:
                continue
            cond = f"({f.versions.cond()}) && !({f.tagged.cond()})"
        else:
            cond = f.versions.cond(within=valid)
        if cond == "true":
            emit_read_field(o, f, s, msg, f.member)
        else:
            o.block(f"if ({cond}) {{")
            emit_read_field(o, f, s, msg, f.member)
            o.end()
    if has_flex:
        tagged = [f for f in s.fields if not f.tagged.empty()]
        o.block("if (flexible) {")
        o("uint32_t count_ = 0;")
        o(f"SEGLOG_RETURN_IF_ERROR(reader->ReadUnsignedVarint(\"{s.name} tagged field count\", &count_));")
        o.block("for (uint32_t tag_index_ = 0; tag_index_ < count_; ++tag_index_) {")
        o("uint32_t tag_ = 0;")
        o("uint32_t size_ = 0;")
        o("std::span<const uint8_t> data_;")
        o(f"SEGLOG_RETURN_IF_ERROR(reader->ReadUnsignedVarint(\"{s.name} tag\", &tag_));")
        o(f"SEGLOG_RETURN_IF_ERROR(reader->ReadUnsignedVarint(\"{s.name} tag size\", &size_));")
        o(f"SEGLOG_RETURN_IF_ERROR(reader->ReadRaw(\"{s.name} tagged field\", size_, &data_));")
        if tagged:
            o("bool known_ = false;")
            o.block("switch (tag_) {")
            for f in sorted(tagged, key=lambda x: x.tag):
                o.block(f"case {f.tag}: {{")
                o.block(f"if ({f.tagged.cond()}) {{")
                o("ProtocolReader field_reader_(data_);")
                o("ProtocolReader* outer_ = reader;")
                o("reader = &field_reader_;")
                emit_read_field_guarded(o, f, s, msg)
                o("reader = outer_;")
                o("known_ = true;")
                o.end()
                o("break;")
                o.end()
            o("default:")
            o("  break;")
            o.end()
            o("if (!known_) unknown_tagged_fields.push_back(RawTaggedField{tag_, {data_.begin(), data_.end()}});")
        else:
            o("unknown_tagged_fields.push_back(RawTaggedField{tag_, {data_.begin(), data_.end()}});")
        o.end()
        o.end()
    o("return ::seglog::Status::OK();")
    o.ind -= 1
    o("}")
    o()

    # ----- Encode -----
    o(f"::seglog::Status {qual}::Encode(ProtocolWriter* writer, int16_t {V()}) const {{")
    o.ind += 1
    o(f"(void){V()};")
    o("(void)writer;")
    if has_flex:
        o(f"[[maybe_unused]] const bool flexible = {V()} >= {msg.flexible.lo};")
    else:
        o("[[maybe_unused]] constexpr bool flexible = false;")
    for f in s.fields:
        label = f"{s.name}.{f.name}"
        if not f.tagged.empty():
            plain_cond = f"({f.versions.cond()}) && !({f.tagged.cond()})"
            plain_any = any(not f.tagged.contains(v) and f.versions.contains(v)
                            for v in range(valid.lo, valid.hi + 1))
        else:
            plain_cond = f.versions.cond(within=valid)
            plain_any = not f.versions.intersect(valid).empty()
        if plain_any:
            if plain_cond == "true":
                emit_write_field(o, f, s, msg, f.member)
            else:
                o.block(f"if ({plain_cond}) {{")
                emit_write_field(o, f, s, msg, f.member)
                o.end()
                if f.tagged.empty():
                    o.block(f"else if (!{f.is_default_expr(f.member)}) {{")
                    if f.ignorable:
                        o("// Ignorable: dropped at versions without it.")
                    else:
                        o(f"return FailEncode(writer, \"Attempted to write a non-default {f.name} at version \", {V()});")
                    o.end()
        elif f.tagged.empty():
            o.block(f"if (!{f.is_default_expr(f.member)}) {{")
            if f.ignorable:
                o("// Ignorable: this field is in no version of this struct.")
            else:
                o(f"return FailEncode(writer, \"Attempted to write a non-default {f.name} at version \", {V()});")
            o.end()
    if has_flex:
        tagged = sorted([f for f in s.fields if not f.tagged.empty()], key=lambda x: x.tag)
        o.block("if (flexible) {")
        o("uint32_t count_ = static_cast<uint32_t>(unknown_tagged_fields.size());")
        for f in tagged:
            o(f"const bool write_{f.member} = ({f.tagged.cond()}) && !{f.is_default_expr(f.member)};")
            o(f"if (write_{f.member}) ++count_;")
        o("writer->WriteUnsignedVarint(count_);")
        if tagged:
            o("// Known and unknown_ tagged fields, merged in tag_ order.")
            o("size_t next_unknown_ = 0;")
            o("std::vector<const RawTaggedField*> unknown_;")
            o("for (const RawTaggedField& t : unknown_tagged_fields) unknown_.push_back(&t);")
            o("std::stable_sort(unknown_.begin(), unknown_.end(), [](const RawTaggedField* a, const RawTaggedField* b) { return a->tag < b->tag; });")
            for f in tagged:
                o.block(f"if (write_{f.member}) {{")
                if f.tag > 0:
                    o(f"while (next_unknown_ < unknown_.size() && unknown_[next_unknown_]->tag < {f.tag}u) {{")
                    o("  writer->WriteRawTaggedField(*unknown_[next_unknown_++]);")
                    o("}")
                o("ProtocolWriter field_writer_;")
                o("{")
                o.ind += 1
                o("ProtocolWriter* outer_ = writer;")
                o("writer = &field_writer_;")
                emit_write_field(o, f, s, msg, f.member, tagged=True)
                o("writer = outer_;")
                o.ind -= 1
                o("}")
                o(f"writer->WriteTaggedField({f.tag}, field_writer_);")
                o.end()
            o("while (next_unknown_ < unknown_.size()) writer->WriteRawTaggedField(*unknown_[next_unknown_++]);")
        else:
            o("WriteUnknownTaggedFields(writer, unknown_tagged_fields);")
        o.end()
        for f in tagged:
            o.block(f"if (!({f.tagged.cond()}) && !({f.versions.cond()}) && !{f.is_default_expr(f.member)}) {{")
            if f.ignorable:
                o("// Ignorable: dropped at versions without it.")
            else:
                o(f"return FailEncode(writer, \"Attempted to write a non-default {f.name} at version \", {V()});")
            o.end()
    else:
        pass
    o("return writer->status();")
    o.ind -= 1
    o("}")
    o()
    VERSION_VAR[0] = "version"


def json_name(f):
    """Kafka's FieldSpec.camelCaseName: the field's name with its first letter in lower case."""
    return f.name[0].lower() + f.name[1:]


def emit_json_scalar(o, f, value):
    """Writes one non-array, non-null value of field f (Kafka's JsonConverterGenerator: BooleanNode,
    ShortNode for int8/int16, IntNode for int32/uint16, LongNode for int64/uint32, DoubleNode,
    TextNode of Uuid.toString, TextNode, BinaryNode, the struct's converter)."""
    t = f.elem
    if f.struct is not None:
        o(f"SEGLOG_RETURN_IF_ERROR({value}.WriteJson(out, json_version));")
    elif t == "bool":
        o(f"out->Bool({value});")
    elif t in ("int8", "int16", "uint16", "int32", "uint32", "int64"):
        o(f"out->Int({value});")
    elif t == "float64":
        o(f"out->Double({value});")
    elif t == "uuid":
        o(f"out->Uuid({value});")
    elif t == "string":
        o(f"out->String({value});")
    elif t == "bytes":
        o(f"out->Bytes({value});")
    else:
        # Kafka writes a records field as empty bytes; no schema with WriteJson has one.
        raise ValueError(f"{f.msg.name}.{f.name}: no JSON for type {t}")


def emit_json_value(o, f):
    """Writes field f's value: null, an array of values, or one value."""
    value = f.member
    if f.is_optional():
        o.block(f"if (!{value}.has_value()) {{")
        o("out->Null();")
        o.end()
        o.block("else {")
        value = f"(*{value})"
    if f.is_array:
        o("out->BeginArray();")
        o.block(f"for (const auto& elem_ : {value}) {{")
        emit_json_scalar(o, f, "elem_")
        o.end()
        o("out->EndArray();")
    else:
        emit_json_scalar(o, f, value)
    if f.is_optional():
        o.end()


def emit_json_field(o, f):
    o(f"out->Key(\"{json_name(f)}\");")
    emit_json_value(o, f)


def emit_json_absent(o, f):
    """A field the version lacks: Kafka's generateNonIgnorableFieldCheck."""
    if f.ignorable:
        return
    o.block(f"if (!{f.is_default_expr(f.member)}) {{")
    o(f"return ::seglog::Status::InvalidArgument(\"Attempted to write a non-default {json_name(f)} "
      f"at version \" + std::to_string(json_version));")
    o.end()


def emit_struct_json(o, s, msg, qual):
    """WriteJson: Kafka's JsonConverterGenerator.generateWrite. Each condition is emitted only when
    the struct's versions do not settle it, exactly as Kafka's VersionConditional does, so a
    version outside the schema's range (a control record's own Version field) is written as
    Kafka writes it: no range check, fields by their lower and upper bounds."""
    valid = msg.valid
    o(f"::seglog::Status {qual}::WriteJson(JsonWriter* out, int16_t json_version) const {{")
    o.ind += 1
    o("(void)json_version;")
    o("out->BeginObject();")
    for f in s.fields:
        present = f.versions.intersect(valid)
        cond = present.cond("json_version", within=valid)
        if cond == "false":
            emit_json_absent(o, f)
            continue
        if cond != "true":
            o.block(f"if ({cond}) {{")
        tagged = f.tagged.intersect(present)
        tagged_cond = tagged.cond("json_version", within=present)
        if tagged_cond == "false":
            emit_json_field(o, f)
        else:
            if tagged_cond != "true":
                o.block(f"if (!({tagged_cond})) {{")
                emit_json_field(o, f)
                o.end()
                o.block("else {")
            # A tagged field only when it is not its default (generateNonDefaultValueCheck).
            o.block(f"if (!{f.is_default_expr(f.member)}) {{")
            emit_json_field(o, f)
            o.end()
            if tagged_cond != "true":
                o.end()
        if cond != "true":
            o.end()
            if not f.ignorable:
                o.block("else {")
                emit_json_absent(o, f)
                o.end()
    o("out->EndObject();")
    o("return ::seglog::Status::OK();")
    o.ind -= 1
    o("}")
    o()


def emit_read_field_guarded(o, f, s, msg):
    # The `reader` variable is a non-const pointer in Decode; rebinding it reads the field from
    # the tagged field's own bytes.
    emit_read_field(o, f, s, msg, f.member, tagged=True)


def generated_by(o, src_path, jar):
    """The first lines of a message's files: which schema (its path in the jar) of which jar
    they come from."""
    o(f"// Generated by src/protocol/codegen/generate.py from Kafka {KAFKA_VERSION}'s")
    if jar is None:
        o(f"// {src_path}. Do not edit: change the generator and regenerate.")
    else:
        o(f"// {src_path} in {jar}.")
        o("// Do not edit: change the generator and regenerate.")


def message_header(msg, stem, src_path, jar):
    o = Out()
    generated_by(o, src_path, jar)
    o("//")
    kind = msg.kind
    if msg.is_record():
        part = "key" if msg.is_key() else "value"
        for line in cpp_comment(f"{msg.name}: the {part} of the {msg.coordinator} coordinator's "
                                f"record type {msg.api_key} ({msg.record_name()}), versions "
                                f"{msg.valid}, flexible {msg.flexible}."):
            o(line)
    elif msg.is_kraft():
        for line in cpp_comment(f"{msg.name}: the KRaft metadata record of apiKey "
                                f"{msg.api_key} (the controller's __cluster_metadata), versions "
                                f"{msg.valid}, flexible {msg.flexible}. Its framing in the log is "
                                f"metadata/metadata_record_serde.h."):
            o(line)
    elif msg.is_metadata():
        for line in cpp_comment(f"{msg.name}: the remote log metadata record of apiKey "
                                f"{msg.api_key} (TopicBasedRemoteLogMetadataManager's "
                                f"__remote_log_metadata), versions {msg.valid}, flexible "
                                f"{msg.flexible}. Its framing in the topic is "
                                f"protocol/remote_log_metadata_serde.h."):
            o(line)
    elif msg.api_key is not None:
        o(f"// {msg.name}: the {kind} of API key {msg.api_key}, versions {msg.valid}, flexible {msg.flexible}.")
    else:
        o(f"// {msg.name}: a {kind} structure, versions {msg.valid}, flexible {msg.flexible}.")
    o("//")
    o("// Thread safety: value types; distinct objects may be used from any thread.")
    g = header_guard(stem)
    o(f"#ifndef {g}")
    o(f"#define {g}")
    o()
    o("#include <cstdint>")
    o("#include <optional>")
    o("#include <span>")
    o("#include <string>")
    o("#include <vector>")
    o()
    o("#include \"base/uuid.h\"")
    o("#include \"protocol/protocol_reader.h\"")
    o("#include \"protocol/protocol_writer.h\"")
    o("#include \"protocol/records.h\"")
    o("#include \"protocol/tagged_fields.h\"")
    o("#include \"seglog/result.h\"")
    o("#include \"seglog/status.h\"")
    o()
    o("namespace seglog::protocol {")
    o()
    if msg.has_json():
        o("class JsonWriter;  // protocol/json_writer.h")
        o()
    if msg.structs:
        o(f"// The structures nested in {msg.class_name()}.")
        o(f"namespace {nested_ns(msg)} {{")
        o()
        for inner in msg.structs:
            emit_struct_decl(o, inner, msg, False)
            o()
        o(f"}}  // namespace {nested_ns(msg)}")
        o()
    emit_struct_decl(o, msg.root, msg, True)
    o()
    o("}  // namespace seglog::protocol")
    o()
    o(f"#endif  // {g}")
    return o.text()


def message_source(msg, stem, src_path, jar):
    o = Out()
    generated_by(o, src_path, jar)
    o(f"#include \"protocol/generated/{stem}.h\"")
    o()
    o("#include <algorithm>")
    o("#include <string>")
    o("#include <utility>")
    if msg.has_json():
        o()
        o("#include \"protocol/json_writer.h\"")
    o()
    o("namespace seglog::protocol {")
    o()
    root = msg.class_name()
    for s in msg.structs:
        emit_struct_impl(o, s, msg, f"{nested_ns(msg)}::{s.name}")
        if msg.has_json():
            emit_struct_json(o, s, msg, f"{nested_ns(msg)}::{s.name}")
    emit_struct_impl(o, msg.root, msg, root)
    if msg.has_json():
        emit_struct_json(o, msg.root, msg, root)
    o(f"::seglog::Result<{root}> {root}::Parse(std::span<const uint8_t> bytes, int16_t version) {{")
    o(f"  {root} message;")
    o("  ProtocolReader reader(bytes);")
    o("  SEGLOG_RETURN_IF_ERROR(message.Decode(&reader, version));")
    o("  if (reader.remaining() != 0) {")
    o(f"    return ::seglog::Status::Corruption(\"{msg.name} v\" + std::to_string(version) + \": \" +")
    o("                              std::to_string(reader.remaining()) + \" bytes left over\");")
    o("  }")
    o("  return message;")
    o("}")
    o()
    o("}  // namespace seglog::protocol")
    return o.text()


# ---------------------------------------------------------------------------------------------
# API table and samples


def api_table(msgs):
    reqs = {m.api_key: m for m in msgs if m.kind == "request"}
    resps = {m.api_key: m for m in msgs if m.kind == "response"}
    keys = sorted(reqs)
    h = Out()
    h(f"// Generated by src/protocol/codegen/generate.py from Kafka {KAFKA_VERSION}'s schemas.")
    h("// Do not edit: change the generator and regenerate.")
    h("//")
    h("// The API table: every API key with its name and the versions Kafka's schemas define, and")
    h("// the header versions (request header v2 and response header v1 in flexible versions,")
    h("// except ApiVersions' response header, always v0 so any client can read it; KIP-511).")
    h("//")
    h("// Thread safety: immutable tables and pure functions.")
    g = header_guard("api_messages")
    h(f"#ifndef {g}")
    h(f"#define {g}")
    h()
    h("#include <cstdint>")
    h("#include <span>")
    h("#include <string_view>")
    h("#include <vector>")
    h()
    h("#include \"seglog/status.h\"")
    h()
    h("namespace seglog::protocol {")
    h()
    h("enum class ApiKey : int16_t {")
    for k in keys:
        h(f"  k{reqs[k].name[:-len('Request')]} = {k},")
    h("};")
    h()
    h("struct ApiMessageInfo {")
    h("  int16_t api_key;")
    h("  std::string_view name;  // \"Produce\"")
    h("  int16_t lowest_version;")
    h("  int16_t highest_version;")
    h("  int16_t lowest_flexible_version;  // 0x7fff: none")
    h("  bool latest_version_unstable;")
    h("  bool broker_listener;  // \"broker\" is among the schema's listeners")
    h("};")
    h()
    h("// Every API in key order.")
    h("std::span<const ApiMessageInfo> AllApis();")
    h("// nullptr when `api_key` is unknown.")
    h("const ApiMessageInfo* FindApi(int16_t api_key);")
    h("// REQUIRES: FindApi(api_key) != nullptr.")
    h("int16_t RequestHeaderVersion(int16_t api_key, int16_t api_version);")
    h("int16_t ResponseHeaderVersion(int16_t api_key, int16_t api_version);")
    h()
    h("// Decodes a request or response body of `api_key` at `version`, then encodes it again")
    h("// into *encoded (the fuzzer's and tests' entry to every message).")
    h("Status RoundTripRequest(int16_t api_key, int16_t version, std::span<const uint8_t> body,")
    h("                        std::vector<uint8_t>* encoded);")
    h("Status RoundTripResponse(int16_t api_key, int16_t version, std::span<const uint8_t> body,")
    h("                         std::vector<uint8_t>* encoded);")
    h()
    h("}  // namespace seglog::protocol")
    h()
    h(f"#endif  // {g}")

    c = Out()
    c(f"// Generated by src/protocol/codegen/generate.py from Kafka {KAFKA_VERSION}'s schemas.")
    c("// Do not edit: change the generator and regenerate.")
    c("#include \"protocol/generated/api_messages.h\"")
    c()
    c("#include <algorithm>")
    c("#include <string>")
    c()
    for k in keys:
        c(f"#include \"protocol/generated/{file_stem(reqs[k].name)}.h\"")
        c(f"#include \"protocol/generated/{file_stem(resps[k].name)}.h\"")
    c()
    c("namespace seglog::protocol {")
    c()
    c("namespace {")
    c("constexpr ApiMessageInfo kApis[] = {")
    for k in keys:
        m = reqs[k]
        c(f"    {{{k}, \"{m.name[:-len('Request')]}\", {m.valid.lo}, {m.valid.hi}, {flex_const(m)}, "
          f"{'true' if m.latest_unstable else 'false'}, {'true' if 'broker' in m.listeners else 'false'}}},")
    c("};")
    c()
    c("template <typename T>")
    c("Status RoundTrip(int16_t version, std::span<const uint8_t> body, std::vector<uint8_t>* encoded) {")
    c("  auto parsed = T::Parse(body, version);")
    c("  if (!parsed.ok()) return parsed.status();")
    c("  ProtocolWriter writer;")
    c("  SEGLOG_RETURN_IF_ERROR(parsed.value().Encode(&writer, version));")
    c("  return writer.Flatten(encoded);")
    c("}")
    c("}  // namespace")
    c()
    c("std::span<const ApiMessageInfo> AllApis() { return kApis; }")
    c()
    c("const ApiMessageInfo* FindApi(int16_t api_key) {")
    c("  for (const ApiMessageInfo& info : kApis) {")
    c("    if (info.api_key == api_key) return &info;")
    c("  }")
    c("  return nullptr;")
    c("}")
    c()
    c("int16_t RequestHeaderVersion(int16_t api_key, int16_t api_version) {")
    c("  return api_version >= FindApi(api_key)->lowest_flexible_version ? 2 : 1;")
    c("}")
    c()
    c("int16_t ResponseHeaderVersion(int16_t api_key, int16_t api_version) {")
    c("  if (api_key == static_cast<int16_t>(ApiKey::kApiVersions)) return 0;")
    c("  return api_version >= FindApi(api_key)->lowest_flexible_version ? 1 : 0;")
    c("}")
    c()
    for kind, table in (("Request", reqs), ("Response", resps)):
        c(f"Status RoundTrip{kind}(int16_t api_key, int16_t version, std::span<const uint8_t> body,")
        c(f"                       std::vector<uint8_t>* encoded) {{")
        c("  const ApiMessageInfo* info = FindApi(api_key);")
        c("  if (info == nullptr || version < info->lowest_version || version > info->highest_version) {")
        c("    return Status::InvalidArgument(\"unsupported api key \" + std::to_string(api_key) +")
        c("                                   \" version \" + std::to_string(version));")
        c("  }")
        c("  switch (api_key) {")
        for k in keys:
            c(f"    case {k}:")
            c(f"      return RoundTrip<{table[k].class_name()}>(version, body, encoded);")
        c("    default:")
        c("      return Status::InvalidArgument(\"unknown api key\");")
        c("  }")
        c("}")
        c()
    c("}  // namespace seglog::protocol")
    return h.text(), c.text()


def coordinator_enum(name):
    """The C++ enumerator of a coordinator: kGroup for "group"."""
    return "k" + name[0].upper() + name[1:]


def record_type_enum(name):
    """The C++ enum of a coordinator's record types: GroupRecordType for "group"."""
    return name[0].upper() + name[1:] + "RecordType"


def record_types(msgs):
    """{coordinator: {record type: (key schema, value schema)}}, checked: a record type is one key
    and one value schema of the same name, as Kafka's coordinators expect."""
    types = {}
    for m in msgs:
        slot = types.setdefault(m.coordinator, {}).setdefault(m.api_key, [None, None])
        i = 0 if m.is_key() else 1
        if slot[i] is not None:
            raise ValueError(f"{m.coordinator} coordinator: record type {m.api_key} has two "
                             f"{m.kind} schemas, {slot[i].name} and {m.name}")
        slot[i] = m
    for coordinator, by_type in types.items():
        for t, (k, v) in by_type.items():
            if k is None or v is None:
                missing = "key" if k is None else "value"
                raise ValueError(f"{coordinator} coordinator: record type {t} "
                                 f"({(k or v).name}) has no {missing} schema")
            if k.record_name() != v.record_name():
                raise ValueError(f"{coordinator} coordinator: record type {t} is both "
                                 f"{k.name} and {v.name}")
    return {c: {t: tuple(kv) for t, kv in sorted(by_type.items())}
            for c, by_type in sorted(types.items())}


def coordinator_table(msgs, jars):
    """coordinator_records.{h,cc}: the coordinators' record types, for C++ code to look up the
    key and value schema of a record it reads from a coordinator's topic."""
    types = record_types(msgs)
    h = Out()
    h(f"// Generated by src/protocol/codegen/generate.py from Kafka {KAFKA_VERSION}'s schemas.")
    h("// Do not edit: change the generator and regenerate.")
    h("//")
    h("// The coordinators' record types: every \"coordinator-key\" and \"coordinator-value\" schema")
    h("// of the coordinators' jars. A record type is a key schema and a value schema (OffsetCommitKey")
    h("// and OffsetCommitValue), numbered by the schemas' apiKey within one coordinator: group type 0")
    h("// (LegacyOffsetCommit) and transaction type 0 (TransactionLog) are different records. In a")
    h("// coordinator's topic (__consumer_offsets, __transaction_state) a record's key is the int16")
    h("// record type then the key schema at version 0, and its value the int16 version then the")
    h("// value schema at that version; a null value is a tombstone.")
    h("//")
    h("// Thread safety: immutable tables and pure functions.")
    g = header_guard("coordinator_records")
    h(f"#ifndef {g}")
    h(f"#define {g}")
    h()
    h("#include <cstdint>")
    h("#include <span>")
    h("#include <string>")
    h("#include <string_view>")
    h("#include <vector>")
    h()
    h("#include \"seglog/result.h\"")
    h("#include \"seglog/status.h\"")
    h()
    h("namespace seglog::protocol {")
    h()
    h("// The coordinators whose records Kafka's schemas define.")
    h("enum class Coordinator : int8_t {")
    for i, c in enumerate(types):
        h(f"  {coordinator_enum(c)} = {i},  // {jars[c]}")
    h("};")
    for c, by_type in types.items():
        h()
        h(f"// The {c} coordinator's record types.")
        h(f"enum class {record_type_enum(c)} : int16_t {{")
        for t, (k, v) in by_type.items():
            h(f"  k{k.record_name()} = {t},")
        h("};")
    h()
    h("struct CoordinatorRecordInfo {")
    h("  Coordinator coordinator;")
    h("  int16_t record_type;  // the schema's apiKey")
    h("  bool is_key;  // the record type's key schema; false: its value schema")
    h("  std::string_view name;  // the schema's name (and its struct's): \"OffsetCommitKey\"")
    h("  int16_t lowest_version;")
    h("  int16_t highest_version;")
    h("  int16_t lowest_flexible_version;  // 0x7fff: none")
    h("};")
    h()
    h("// Every key and value schema: by coordinator, then record type, key before value.")
    h("std::span<const CoordinatorRecordInfo> AllCoordinatorRecords();")
    h("// nullptr when `coordinator` has no record type `record_type`.")
    h("const CoordinatorRecordInfo* FindCoordinatorRecord(Coordinator coordinator, int16_t record_type,")
    h("                                                   bool is_key);")
    h()
    h("// Decodes a key (is_key) or value of `record_type` at `version`, then encodes it again into")
    h("// *encoded (the tests' entry to every record schema).")
    h("Status RoundTripCoordinatorRecord(Coordinator coordinator, int16_t record_type, bool is_key,")
    h("                                  int16_t version, std::span<const uint8_t> body,")
    h("                                  std::vector<uint8_t>* encoded);")
    h()
    h("// Decodes a key (is_key) or value of `record_type` at `read_version` from the front of `body`")
    h("// as Kafka's CoordinatorRecordSerde reads it (what follows is ignored; Kafka reads a key at")
    h("// its record type) and writes it as JSON at `json_version`: Kafka's <Schema>JsonConverter.write,")
    h("// the \"data\" that DumpLogSegments' coordinator decoders print (protocol/json_writer.h).")
    h("// NotFound when `coordinator` has no `record_type`; Corruption (the decoder's message) when the")
    h("// bytes do not decode; InvalidArgument (Kafka's message) when the converter refuses it.")
    h("Result<std::string> CoordinatorRecordToJson(Coordinator coordinator, int16_t record_type,")
    h("                                            bool is_key, int16_t read_version,")
    h("                                            int16_t json_version,")
    h("                                            std::span<const uint8_t> body);")
    h()
    h("}  // namespace seglog::protocol")
    h()
    h(f"#endif  // {g}")

    c = Out()
    c(f"// Generated by src/protocol/codegen/generate.py from Kafka {KAFKA_VERSION}'s schemas.")
    c("// Do not edit: change the generator and regenerate.")
    c("#include \"protocol/generated/coordinator_records.h\"")
    c()
    c("#include <string>")
    c()
    c("#include \"protocol/json_writer.h\"")
    for by_type in types.values():
        for k, v in by_type.values():
            c(f"#include \"protocol/generated/{file_stem(k.name)}.h\"")
            c(f"#include \"protocol/generated/{file_stem(v.name)}.h\"")
    c()
    c("namespace seglog::protocol {")
    c()
    c("namespace {")
    c("constexpr CoordinatorRecordInfo kRecords[] = {")
    for coord, by_type in types.items():
        for t, kv in by_type.items():
            for m in kv:
                is_key = "true" if m.is_key() else "false"
                c(f"    {{Coordinator::{coordinator_enum(coord)}, {t}, {is_key}, \"{m.name}\", "
                  f"{m.valid.lo}, {m.valid.hi}, {flex_const(m)}}},")
    c("};")
    c()
    c("// Not RoundTrip: the unity build puts this file beside api_messages.cc.")
    c("template <typename T>")
    c("Status RoundTripRecord(int16_t version, std::span<const uint8_t> body, std::vector<uint8_t>* encoded) {")
    c("  auto parsed = T::Parse(body, version);")
    c("  if (!parsed.ok()) return parsed.status();")
    c("  ProtocolWriter writer;")
    c("  SEGLOG_RETURN_IF_ERROR(parsed.value().Encode(&writer, version));")
    c("  return writer.Flatten(encoded);")
    c("}")
    c()
    c("template <typename T>")
    c("Result<std::string> CoordinatorToJson(int16_t read_version, int16_t json_version,")
    c("                                      std::span<const uint8_t> body) {")
    c("  T record;")
    c("  ProtocolReader reader(body);")
    c("  if (Status s = record.Decode(&reader, read_version); !s.ok()) return Status::Corruption(s.message());")
    c("  JsonWriter writer;")
    c("  SEGLOG_RETURN_IF_ERROR(record.WriteJson(&writer, json_version));")
    c("  return writer.Release();")
    c("}")
    c("}  // namespace")
    c()
    c("std::span<const CoordinatorRecordInfo> AllCoordinatorRecords() { return kRecords; }")
    c()
    c("const CoordinatorRecordInfo* FindCoordinatorRecord(Coordinator coordinator, int16_t record_type,")
    c("                                                   bool is_key) {")
    c("  for (const CoordinatorRecordInfo& info : kRecords) {")
    c("    if (info.coordinator == coordinator && info.record_type == record_type && info.is_key == is_key) {")
    c("      return &info;")
    c("    }")
    c("  }")
    c("  return nullptr;")
    c("}")
    c()
    c("Status RoundTripCoordinatorRecord(Coordinator coordinator, int16_t record_type, bool is_key,")
    c("                                  int16_t version, std::span<const uint8_t> body,")
    c("                                  std::vector<uint8_t>* encoded) {")
    c("  const CoordinatorRecordInfo* info = FindCoordinatorRecord(coordinator, record_type, is_key);")
    c("  if (info == nullptr || version < info->lowest_version || version > info->highest_version) {")
    c("    return Status::InvalidArgument(\"unsupported coordinator record type \" +")
    c("                                   std::to_string(record_type) + \" version \" +")
    c("                                   std::to_string(version));")
    c("  }")
    c("  switch (coordinator) {")
    for coord, by_type in types.items():
        c(f"    case Coordinator::{coordinator_enum(coord)}:")
        c("      switch (record_type) {")
        for t, (k, v) in by_type.items():
            c(f"        case {t}:")
            c(f"          return is_key ? RoundTripRecord<{k.class_name()}>(version, body, encoded)")
            c(f"                        : RoundTripRecord<{v.class_name()}>(version, body, encoded);")
        c("        default:")
        c("          break;")
        c("      }")
        c("      break;")
    c("  }")
    c("  return Status::InvalidArgument(\"unknown coordinator record type\");")
    c("}")
    c()
    c("Result<std::string> CoordinatorRecordToJson(Coordinator coordinator, int16_t record_type,")
    c("                                            bool is_key, int16_t read_version,")
    c("                                            int16_t json_version,")
    c("                                            std::span<const uint8_t> body) {")
    c("  switch (coordinator) {")
    for coord, by_type in types.items():
        c(f"    case Coordinator::{coordinator_enum(coord)}:")
        c("      switch (record_type) {")
        for t, (k, v) in by_type.items():
            c(f"        case {t}:")
            c(f"          return is_key ? CoordinatorToJson<{k.class_name()}>(read_version, json_version, body)")
            c(f"                        : CoordinatorToJson<{v.class_name()}>(read_version, json_version, body);")
        c("        default:")
        c("          break;")
        c("      }")
        c("      break;")
    c("  }")
    c("  return Status::NotFound(\"unknown coordinator record type \" + std::to_string(record_type));")
    c("}")
    c()
    c("}  // namespace seglog::protocol")
    return h.text(), c.text()


def upper_snake(name):
    """Kafka's MetadataRecordType names: TopicRecord -> TOPIC_RECORD."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).upper()


def metadata_table(msgs):
    """metadata_records.{h,cc}: KRaft's metadata record types (kafka-metadata's schemas), for the
    metadata log's serde to look up a record it reads and to round-trip any of them."""
    by_key = {}
    for m in msgs:
        if m.api_key in by_key:
            raise ValueError(f"{m.name} and {by_key[m.api_key].name} share apiKey {m.api_key}")
        by_key[m.api_key] = m
    by_key = dict(sorted(by_key.items()))
    h = Out()
    h(f"// Generated by src/protocol/codegen/generate.py from Kafka {KAFKA_VERSION}'s schemas.")
    h("// Do not edit: change the generator and regenerate.")
    h("//")
    h(f"// KRaft's metadata record types: every \"metadata\" schema of {KRAFT_JAR}, numbered by")
    h("// apiKey as Kafka's MetadataRecordType. In __cluster_metadata a record's value is a frame")
    h("// version, the apiKey and the record's version (uvarints) then the record")
    h("// (metadata/metadata_record_serde.h).")
    h("//")
    h("// Thread safety: immutable tables and pure functions.")
    g = header_guard("metadata_records")
    h(f"#ifndef {g}")
    h(f"#define {g}")
    h()
    h("#include <cstddef>")
    h("#include <cstdint>")
    h("#include <span>")
    h("#include <string>")
    h("#include <string_view>")
    h("#include <vector>")
    h()
    h("#include \"seglog/result.h\"")
    h("#include \"seglog/status.h\"")
    h()
    h("namespace seglog::protocol {")
    h()
    h("enum class MetadataRecordType : int16_t {")
    for k, m in by_key.items():
        h(f"  k{m.name.removesuffix('Record')} = {k},")
    h("};")
    h()
    h("struct MetadataRecordInfo {")
    h("  int16_t api_key;")
    h("  std::string_view name;       // the schema's name (and its struct's): \"TopicRecord\"")
    h("  std::string_view type_name;  // Kafka's MetadataRecordType: \"TOPIC_RECORD\"")
    h("  int16_t lowest_version;")
    h("  int16_t highest_version;")
    h("};")
    h()
    h("// Every record type, by apiKey.")
    h("std::span<const MetadataRecordInfo> AllMetadataRecords();")
    h("// nullptr when no record type has `api_key`.")
    h("const MetadataRecordInfo* FindMetadataRecord(int16_t api_key);")
    h()
    h("// Decodes a record of `api_key` at `version`, then encodes it again into *encoded (the")
    h("// tests' entry to every record schema, and a check that a record is well formed).")
    h("Status RoundTripMetadataRecord(int16_t api_key, int16_t version, std::span<const uint8_t> body,")
    h("                               std::vector<uint8_t>* encoded);")
    h()
    h("// A record as the JSON of Kafka's MetadataJsonConverters.writeJson (the \"data\" that")
    h("// DumpLogSegments --cluster-metadata-decoder prints; protocol/json_writer.h).")
    h("struct MetadataRecordJson {")
    h("  std::string json;")
    h("  size_t bytes_read = 0;  // the record's bytes: what follows them is not the record's")
    h("};")
    h()
    h("// Decodes a record of `api_key` at `version` from the front of `body` as Kafka's")
    h("// MetadataRecordSerde does and writes it as JSON at `version`. NotFound when no record type")
    h("// has `api_key`; Corruption when the bytes do not decode, and for a version outside the")
    h("// type's (Kafka's generated read checks the range only in nested structs: it refuses such a")
    h("// record when it holds one, and otherwise reads it by the schema's field conditions);")
    h("// InvalidArgument (Kafka's message) when the JSON converter refuses the record.")
    h("Result<MetadataRecordJson> MetadataRecordToJson(int16_t api_key, int16_t version,")
    h("                                                std::span<const uint8_t> body);")
    h()
    h("}  // namespace seglog::protocol")
    h()
    h(f"#endif  // {g}")

    c = Out()
    c(f"// Generated by src/protocol/codegen/generate.py from Kafka {KAFKA_VERSION}'s schemas.")
    c("// Do not edit: change the generator and regenerate.")
    c("#include \"protocol/generated/metadata_records.h\"")
    c()
    c("#include <string>")
    c()
    c("#include \"protocol/json_writer.h\"")
    for m in by_key.values():
        c(f"#include \"protocol/generated/{file_stem(m.name)}.h\"")
    c()
    c("namespace seglog::protocol {")
    c()
    c("namespace {")
    c("constexpr MetadataRecordInfo kMetadataRecords[] = {")
    for k, m in by_key.items():
        c(f"    {{{k}, \"{m.name}\", \"{upper_snake(m.name)}\", {m.valid.lo}, {m.valid.hi}}},")
    c("};")
    c()
    c("// Not RoundTrip: the unity build puts this file beside api_messages.cc.")
    c("template <typename T>")
    c("Status RoundTripMetadata(int16_t version, std::span<const uint8_t> body,")
    c("                         std::vector<uint8_t>* encoded) {")
    c("  auto parsed = T::Parse(body, version);")
    c("  if (!parsed.ok()) return parsed.status();")
    c("  ProtocolWriter writer;")
    c("  SEGLOG_RETURN_IF_ERROR(parsed.value().Encode(&writer, version));")
    c("  return writer.Flatten(encoded);")
    c("}")
    c()
    c("template <typename T>")
    c("Result<MetadataRecordJson> MetadataToJson(int16_t version, std::span<const uint8_t> body) {")
    c("  T record;")
    c("  ProtocolReader reader(body);")
    c("  if (Status s = record.Decode(&reader, version); !s.ok()) return Status::Corruption(s.message());")
    c("  JsonWriter writer;")
    c("  SEGLOG_RETURN_IF_ERROR(record.WriteJson(&writer, version));")
    c("  return MetadataRecordJson{writer.Release(), body.size() - reader.remaining()};")
    c("}")
    c("}  // namespace")
    c()
    c("std::span<const MetadataRecordInfo> AllMetadataRecords() { return kMetadataRecords; }")
    c()
    c("const MetadataRecordInfo* FindMetadataRecord(int16_t api_key) {")
    c("  for (const MetadataRecordInfo& info : kMetadataRecords) {")
    c("    if (info.api_key == api_key) return &info;")
    c("  }")
    c("  return nullptr;")
    c("}")
    c()
    c("Status RoundTripMetadataRecord(int16_t api_key, int16_t version, std::span<const uint8_t> body,")
    c("                               std::vector<uint8_t>* encoded) {")
    c("  const MetadataRecordInfo* info = FindMetadataRecord(api_key);")
    c("  if (info == nullptr || version < info->lowest_version || version > info->highest_version) {")
    c("    return Status::InvalidArgument(\"unsupported metadata record type \" + std::to_string(api_key) +")
    c("                                   \" version \" + std::to_string(version));")
    c("  }")
    c("  switch (api_key) {")
    for k, m in by_key.items():
        c(f"    case {k}:")
        c(f"      return RoundTripMetadata<{m.class_name()}>(version, body, encoded);")
    c("    default:")
    c("      break;")
    c("  }")
    c("  return Status::InvalidArgument(\"unknown metadata record type\");")
    c("}")
    c()
    c("Result<MetadataRecordJson> MetadataRecordToJson(int16_t api_key, int16_t version,")
    c("                                                std::span<const uint8_t> body) {")
    c("  const MetadataRecordInfo* info = FindMetadataRecord(api_key);")
    c("  if (info == nullptr) {")
    c("    return Status::NotFound(\"unknown metadata record type \" + std::to_string(api_key));")
    c("  }")
    c("  if (version < info->lowest_version || version > info->highest_version) {")
    c("    return Status::Corruption(\"metadata record type \" + std::to_string(api_key) + \" has no version \" +")
    c("                              std::to_string(version));")
    c("  }")
    c("  switch (api_key) {")
    for k, m in by_key.items():
        c(f"    case {k}:")
        c(f"      return MetadataToJson<{m.class_name()}>(version, body);")
    c("    default:")
    c("      break;")
    c("  }")
    c("  return Status::NotFound(\"unknown metadata record type \" + std::to_string(api_key));")
    c("}")
    c()
    c("}  // namespace seglog::protocol")
    return h.text(), c.text()


def sample_fn_name(msg, s):
    return f"Fill{msg.class_name()}{'' if s is msg.root else '_' + s.name}"


def samples(msgs):
    """Test-only code: a filled sample of every message at every version."""
    h = Out()
    h(f"// Generated by src/protocol/codegen/generate.py from Kafka {KAFKA_VERSION}'s schemas.")
    h("// Do not edit. Test support only: for each message, a sample with a value in every field")
    h("// the version has, so round trips cover every field of every version.")
    h("//")
    h("// Thread safety: the table is immutable; each call builds its own message.")
    g = header_guard("message_samples")
    h(f"#ifndef {g}")
    h(f"#define {g}")
    h()
    h("#include <cstdint>")
    h("#include <span>")
    h("#include <string_view>")
    h("#include <vector>")
    h()
    h("#include \"seglog/status.h\"")
    h()
    h("namespace seglog::protocol::testing {")
    h()
    h("struct MessageCase {")
    h("  std::string_view name;  // the schema's name, e.g. \"ProduceRequest\"")
    h("  int16_t api_key;        // -1 for headers, data structures and coordinator records")
    h("  bool is_request;")
    h("  int16_t lowest_version;")
    h("  int16_t highest_version;")
    h("  int16_t lowest_flexible_version;")
    h("  // Encodes the sample for (version, seed) into *encoded.")
    h("  Status (*encode_sample)(int16_t version, uint32_t seed, std::vector<uint8_t>* encoded);")
    h("  // Decodes `bytes` (all of them), checks the result equals the sample for (version, seed)")
    h("  // when `seed` is not kNoSeed, and encodes it again into *encoded.")
    h("  Status (*decode_check)(int16_t version, uint32_t seed, std::span<const uint8_t> bytes,")
    h("                         std::vector<uint8_t>* encoded);")
    h("};")
    h("inline constexpr uint32_t kNoSeed = 0xffffffff;")
    h()
    h("std::span<const MessageCase> AllMessageCases();")
    h()
    h("}  // namespace seglog::protocol::testing")
    h()
    h(f"#endif  // {g}")

    c = Out()
    c(f"// Generated by src/protocol/codegen/generate.py from Kafka {KAFKA_VERSION}'s schemas.")
    c("// Do not edit.")
    c("#include \"protocol/generated/message_samples.h\"")
    c()
    c("#include <string>")
    c()
    for m in msgs:
        c(f"#include \"protocol/generated/{file_stem(m.name)}.h\"")
    c()
    c("namespace seglog::protocol::testing {")
    c()
    c("namespace {")
    c()
    c("// Record bytes the samples' records fields view (any bytes: the protocol layer does not")
    c("// look inside them).")
    c("const uint8_t kRecordBytes[] = {0, 0, 0, 0, 0, 0, 0, 7, 0, 0, 0, 3, 1, 2, 3};")
    c()
    c("Uuid SampleUuid(uint32_t seed) {")
    c("  Uuid u;")
    c("  for (int i = 0; i < 16; ++i) u.bytes[i] = static_cast<uint8_t>(seed * 31 + i + 1);")
    c("  return u;")
    c("}")
    c()
    for m in msgs:
        root = m.class_name()
        for s in m.structs:
            c(f"void {sample_fn_name(m, s)}({root}::{s.name}* out, int16_t version, uint32_t seed, int depth);")
        c(f"void {sample_fn_name(m, m.root)}({root}* out, int16_t version, uint32_t seed, int depth);")
    c()
    for m in msgs:
        root = m.class_name()
        for s in m.structs + [m.root]:
            qual = root if s is m.root else f"{root}::{s.name}"
            c(f"void {sample_fn_name(m, s)}({qual}* out, int16_t version, uint32_t seed, int depth) {{")
            c.ind += 1
            c("(void)out; (void)version; (void)seed; (void)depth;")
            for i, f in enumerate(s.fields):
                if f.versions.empty():
                    continue
                present = f.versions.cond()
                c.block(f"if ({present}) {{")
                salt = f"(seed + {i * 7 + 1}u)"
                emit_sample_value(c, m, f, f"out->{f.member}", salt)
                c.end()
            if not m.flexible.empty():
                c(f"if (version >= {m.flexible.lo} && seed % 3 == 1) out->unknown_tagged_fields.push_back(RawTaggedField{{1000u + seed % 7, {{1, 2, static_cast<uint8_t>(seed)}}}});")
            c.ind -= 1
            c("}")
            c()
    c("template <typename T, void (*Fill)(T*, int16_t, uint32_t, int)>")
    c("Status EncodeSample(int16_t version, uint32_t seed, std::vector<uint8_t>* encoded) {")
    c("  T message;")
    c("  Fill(&message, version, seed, 0);")
    c("  ProtocolWriter writer;")
    c("  SEGLOG_RETURN_IF_ERROR(message.Encode(&writer, version));")
    c("  return writer.Flatten(encoded);")
    c("}")
    c()
    c("template <typename T, void (*Fill)(T*, int16_t, uint32_t, int)>")
    c("Status DecodeCheck(int16_t version, uint32_t seed, std::span<const uint8_t> bytes,")
    c("                   std::vector<uint8_t>* encoded) {")
    c("  auto parsed = T::Parse(bytes, version);")
    c("  if (!parsed.ok()) return parsed.status();")
    c("  if (seed != kNoSeed) {")
    c("    T expected;")
    c("    Fill(&expected, version, seed, 0);")
    c("    if (!(parsed.value() == expected)) {")
    c("      return Status::Corruption(\"decoded message differs from the sample\");")
    c("    }")
    c("  }")
    c("  ProtocolWriter writer;")
    c("  SEGLOG_RETURN_IF_ERROR(parsed.value().Encode(&writer, version));")
    c("  return writer.Flatten(encoded);")
    c("}")
    c()
    c("constexpr MessageCase kCases[] = {")
    for m in msgs:
        root = m.class_name()
        fn = sample_fn_name(m, m.root)
        api = m.api_key if m.api_key is not None and m.kind in ("request", "response") else -1
        c(f"    {{\"{m.name}\", {api}, {'true' if m.kind == 'request' else 'false'}, {m.valid.lo}, {m.valid.hi}, {flex_const(m)},")
        c(f"     &EncodeSample<{root}, &{fn}>, &DecodeCheck<{root}, &{fn}>}},")
    c("};")
    c()
    c("}  // namespace")
    c()
    c("std::span<const MessageCase> AllMessageCases() { return kCases; }")
    c()
    c("}  // namespace seglog::protocol::testing")
    return h.text(), c.text()


def sample_scalar(m, f, target, salt):
    t = f.elem
    if f.struct is not None:
        return [f"{sample_fn_name(m, f.struct)}(&{target}, version, {salt}, depth + 1);"]
    if t == "bool":
        return [f"{target} = ({salt} % 2) == 0;"]
    if t in ("int8", "int16", "uint16", "int32", "uint32", "int64"):
        return [f"{target} = static_cast<{PRIMITIVES[t]}>({salt} * 2654435761u);"]
    if t == "float64":
        return [f"{target} = static_cast<double>({salt}) / 8.0;"]
    if t == "uuid":
        return [f"{target} = SampleUuid({salt});"]
    if t == "string":
        return [f"{target} = \"s\" + std::to_string({salt});"]
    if t == "bytes":
        return [f"{target} = std::vector<uint8_t>{{1, 2, static_cast<uint8_t>({salt})}};"]
    if t == "records":
        return [f"{target} = ::seglog::protocol::Records::View(kRecordBytes);"]
    raise ValueError(t)


def emit_sample_value(c, m, f, target, salt):
    nullable = f.nullable.cond()
    if f.is_optional():
        if nullable != "false":
            c.block(f"if (({nullable}) && {salt} % 4 == 3) {{")
            c(f"{target}.reset();")
            c(f"return_null_{f.member}:;") if False else None
            c.end()
            c.block("else {")
        else:
            c.block("{")
        inner = f"(*{target})"
        c(f"{target}.emplace();")
        emit_sample_plain(c, m, f, inner, salt)
        c.end()
        return
    emit_sample_plain(c, m, f, target, salt)


def emit_sample_plain(c, m, f, target, salt):
    if f.is_array:
        c(f"{target}.clear();")
        c.block(f"for (uint32_t i = 0; i < (depth < 3 ? 2u : 0u); ++i) {{")
        elem_type = f.elem_cpp() if f.struct is None else f"{m.class_name()}::{f.struct.name}"
        c(f"{elem_type} elem{{}};")
        for line in sample_scalar(m, f, "elem", f"({salt} + i)"):
            c(line)
        c(f"{target}.push_back(std::move(elem));")
        c.end()
        return
    if f.struct is not None:
        c.block("if (depth < 3) {")
        for line in sample_scalar(m, f, target, salt):
            c(line)
        c.end()
        return
    for line in sample_scalar(m, f, target, salt):
        c(line)


def coordinator_of(jar):
    """The coordinator a jar's records belong to: "group" for kafka-group-coordinator-4.4.0.jar;
    None for other jars (kafka-clients)."""
    m = re.fullmatch(r"kafka-([a-z]+)-coordinator-" + re.escape(KAFKA_VERSION) + r"\.jar",
                     os.path.basename(jar))
    return m.group(1) if m else None


def load_schemas(jars):
    """[(path in the jar, jar name, Message)] of every schema of every jar, in file name order.
    The storage jar's schemas are in message/ (every other jar's in common/message/); of them
    only the "metadata" records are generated, and STORAGE_SKIPPED says why the rest are not."""
    msgs = []
    for jar in jars:
        coordinator = coordinator_of(jar)
        is_storage = os.path.basename(jar) == STORAGE_JAR
        is_kraft = os.path.basename(jar) == KRAFT_JAR
        schema_dir = (STORAGE_SCHEMA_DIR if is_storage else
                      KRAFT_SCHEMA_DIR if is_kraft else "common/message/")
        with zipfile.ZipFile(jar) as z:
            names = sorted(n for n in z.namelist()
                           if n.startswith(schema_dir) and n.endswith(".json")
                           and "/" not in n[len(schema_dir):])
            if not names:
                raise ValueError(f"{jar}: no {schema_dir}*.json schemas")
            for n in names:
                spec = json.loads(strip_comments(z.read(n).decode("utf-8")))
                kind = spec.get("type")
                if is_storage:
                    if os.path.basename(n) in STORAGE_SKIPPED:
                        if kind == METADATA_KIND:
                            raise ValueError(f"{jar}: {n} is a {kind} record, yet skipped")
                        continue
                    if kind != METADATA_KIND:
                        raise ValueError(f"{jar}: {n} is a \"{kind}\" schema, neither a remote log "
                                         f"metadata record nor in STORAGE_SKIPPED")
                elif is_kraft:
                    if kind != METADATA_KIND:
                        raise ValueError(f"{jar}: {n} is a \"{kind}\" schema, not a metadata record")
                elif kind == METADATA_KIND:
                    raise ValueError(f"{jar}: {spec['name']} is a remote log metadata record, but "
                                     f"the jar is not {STORAGE_JAR}")
                if kind in RECORD_KINDS and coordinator is None:
                    raise ValueError(f"{jar}: {spec['name']} is a coordinator record, but the jar "
                                     f"is not named kafka-<coordinator>-coordinator-{KAFKA_VERSION}.jar")
                msgs.append((n, os.path.basename(jar), Message(spec, coordinator, is_kraft)))
    check_names([(jar, m) for _, jar, m in msgs])
    return sorted(msgs, key=lambda x: os.path.basename(x[0]))


# What the generator defines besides the schemas' structs: a schema may not take these names.
GENERATED_STEMS = {"api_messages", "coordinator_records", "message_samples", "metadata_records"}
GENERATED_TYPES = {"ApiKey", "ApiMessageInfo", "Coordinator", "CoordinatorRecordInfo",
                   "MetadataRecordType", "MetadataRecordInfo", "MetadataRecordJson",
                   "JsonWriter"}


def check_names(jar_msgs):
    """Fails when two schemas (of one jar or of two) would define the same C++ struct, nested
    namespace or file, or one would take a name the generated tables use."""
    seen = {}
    reserved = set(GENERATED_STEMS) | set(GENERATED_TYPES) | {"testing"}
    reserved |= {record_type_enum(m.coordinator) for _, m in jar_msgs if m.is_record()}
    for jar, m in jar_msgs:
        for name in (m.name, m.class_name(), file_stem(m.name), nested_ns(m)):
            if name in reserved:
                raise ValueError(f"{jar}: {m.name} clashes with the generated {name}")
            other = seen.get(name)
            if other is not None and other[1] is not m:
                raise ValueError(f"{jar}: {m.name} clashes with {other[1].name} of {other[0]} ({name})")
            seen[name] = (jar, m)


def write_if_changed(path, text):
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            if f.read() == text:
                return
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--jar", required=True, action="append",
                    help=f"a jar of schemas: kafka-clients-{KAFKA_VERSION}.jar, "
                         f"kafka-group-coordinator-{KAFKA_VERSION}.jar, "
                         f"kafka-transaction-coordinator-{KAFKA_VERSION}.jar, {STORAGE_JAR}, "
                         f"{KRAFT_JAR} "
                         f"(repeat --jar)")
    ap.add_argument("--out", required=True, help="output directory (src/protocol/generated)")
    args = ap.parse_args()
    msgs = load_schemas(args.jar)
    # Both tables are part of the library: a run that leaves out a jar would drop code.
    if not any(m.kind == "request" for _, _, m in msgs):
        ap.error(f"no request schemas: pass kafka-clients-{KAFKA_VERSION}.jar")
    if not any(m.is_record() for _, _, m in msgs):
        ap.error(f"no coordinator records: pass kafka-group-coordinator-{KAFKA_VERSION}.jar and "
                 f"kafka-transaction-coordinator-{KAFKA_VERSION}.jar too")
    found = {m.api_key: m.name for _, _, m in msgs if m.is_metadata()}
    if found != METADATA_RECORDS:
        ap.error(f"remote log metadata records {found}, want {METADATA_RECORDS}: pass {STORAGE_JAR}")
    if not any(m.is_kraft() for _, _, m in msgs):
        ap.error(f"no KRaft metadata records: pass {KRAFT_JAR}")
    os.makedirs(args.out, exist_ok=True)
    wanted = set()
    for src_path, jar, m in msgs:
        stem = file_stem(m.name)
        shown_jar = jar if m.is_record() or m.is_metadata() or m.is_kraft() else None
        for ext, text in ((".h", message_header(m, stem, src_path, shown_jar)),
                          (".cc", message_source(m, stem, src_path, shown_jar))):
            write_if_changed(os.path.join(args.out, stem + ext), text)
            wanted.add(stem + ext)
    only = [m for _, _, m in msgs]
    h, c = api_table([m for m in only if m.kind in ("request", "response")])
    write_if_changed(os.path.join(args.out, "api_messages.h"), h)
    write_if_changed(os.path.join(args.out, "api_messages.cc"), c)
    jars = {m.coordinator: jar for _, jar, m in msgs if m.is_record()}
    h, c = coordinator_table([m for m in only if m.is_record()], jars)
    write_if_changed(os.path.join(args.out, "coordinator_records.h"), h)
    write_if_changed(os.path.join(args.out, "coordinator_records.cc"), c)
    h, c = metadata_table([m for m in only if m.is_kraft()])
    write_if_changed(os.path.join(args.out, "metadata_records.h"), h)
    write_if_changed(os.path.join(args.out, "metadata_records.cc"), c)
    h, c = samples(only)
    write_if_changed(os.path.join(args.out, "message_samples.h"), h)
    write_if_changed(os.path.join(args.out, "message_samples.cc"), c)
    wanted |= {"api_messages.h", "api_messages.cc", "coordinator_records.h",
               "coordinator_records.cc", "message_samples.h", "message_samples.cc",
               "metadata_records.h", "metadata_records.cc"}
    stems = sorted(file_stem(m.name) for m in only)
    lst = "".join(f"  {s}.cc\n" for s in stems)
    write_if_changed(os.path.join(args.out, "sources.cmake"),
                     "# Generated by src/protocol/codegen/generate.py. Do not edit.\n"
                     "set(SEGLOG_PROTOCOL_GENERATED_SOURCES\n" + lst
                     + "  api_messages.cc\n  coordinator_records.cc\n  metadata_records.cc\n)\n")
    wanted.add("sources.cmake")
    write_if_changed(os.path.join(args.out, ".clang-format"),
                     "# Generated by src/protocol/codegen/generate.py: kept byte-for-byte as the "
                     "generator writes it\n# (scripts/check_generated.sh diffs it), so clang-format "
                     "leaves it alone.\nDisableFormat: true\nSortIncludes: Never\n")
    wanted.add(".clang-format")
    for n in os.listdir(args.out):
        if n not in wanted:
            os.remove(os.path.join(args.out, n))
    records = sum(1 for m in only if m.is_record())
    metadata = sum(1 for m in only if m.is_metadata())
    kraft = sum(1 for m in only if m.is_kraft())
    print(f"generate.py: {len(msgs)} schemas ({records} coordinator records, {metadata} remote log "
          f"metadata records, {kraft} KRaft metadata records) from "
          f"{len(args.jar)} jars -> {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
