"""What the config-table generators (src/server/codegen/broker_configs.py,
src/log/codegen/topic_configs.py) share: C++ string literals of arbitrary text, and reading the
JSON that Kafka's own classes print, sorted by name."""
import json


def literal(s):
    """A C++ string literal of `s` (nullptr for None), with no trigraphs."""
    if s is None:
        return "nullptr"
    out = []
    for ch in s:
        if ch == "\\":
            out.append("\\\\")
        elif ch == '"':
            out.append('\\"')
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ord(ch) < 0x20:
            out.append("\\%03o" % ord(ch))
        elif ch == "?":
            out.append("\\?")  # no trigraphs
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def load_sorted_configs(path, tool, types):
    """The JSON list of configs at `path`; exits naming `tool` unless they come sorted by name,
    each once, with a type among `types`."""
    with open(path, encoding="utf-8") as f:
        configs = json.load(f)
    names = [c["name"] for c in configs]
    if names != sorted(names) or len(set(names)) != len(names):
        raise SystemExit(f"{tool}: the configs must come sorted by name, each once")
    for c in configs:
        if c["type"] not in types:
            raise SystemExit(f"{tool}: {c['name']}: unknown type {c['type']}")
    return configs
