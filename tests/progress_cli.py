#!/usr/bin/env python3
"""The progress line of seglog's long commands (issue 30), end to end: on a log of several
segments, `check`, `dump-log`, `recover` and `clean` with --progress draw "\\r<command>: i/n
segments, ..." lines on stderr ending in one finished line; piped without it they write no
progress at all; under a real pseudo-terminal `check` draws it by itself, and `dump-log`, whose
output goes to the same terminal, does not.
Usage: progress_cli.py SEGLOG_BIN"""
import os
import pty
import re
import select
import subprocess
import sys
import tempfile

SEGLOG = sys.argv[1]
LINE = re.compile(r"\r(\w[\w-]*): (\d+)(?:/(\d+))? segments, [^\r\n]*")


def fail(what):
    print(f"progress_cli: FAILED: {what}")
    sys.exit(1)


def check(cond, what):
    if not cond:
        fail(what)


def run(*args, ok=True):
    # Bytes, decoded here: text mode would turn each \r into a newline.
    p = subprocess.run([SEGLOG, *args], capture_output=True, timeout=120)
    p.stdout, p.stderr = p.stdout.decode(), p.stderr.decode()
    if ok and p.returncode != 0:
        fail(f"{' '.join(args)} exited {p.returncode}: {p.stderr[-2000:]}")
    return p


def progress_lines(stderr, command):
    """The drawn lines of `command`, checked: each redrawn with \\r, counts never going back,
    the last one finished with a newline and complete."""
    draws = LINE.findall(stderr)
    check(draws, f"{command}: no progress line in {stderr!r}")
    check(all(d[0] == command for d in draws), f"another label in {draws}")
    done = [int(d[1]) for d in draws]
    check(done == sorted(done), f"{command}: counts go back: {done}")
    check(stderr.rstrip("\n").count("\n") == 0 and stderr.endswith("\n"),
          f"{command}: not one line redrawn in place, then a newline: {stderr!r}")
    last = stderr.rsplit("\r", 1)[1]
    check("done in" in last, f"{command}: the last line is not the finished one: {last!r}")
    return draws, last


def under_pty(args, stdout_to_pty):
    """Runs seglog with stderr (and stdout when asked) on a pseudo-terminal; returns what the
    terminal received."""
    master, slave = pty.openpty()
    out = slave if stdout_to_pty else subprocess.DEVNULL
    p = subprocess.Popen([SEGLOG, *args], stdout=out, stderr=slave, stdin=subprocess.DEVNULL)
    os.close(slave)
    got = b""
    while True:
        r, _, _ = select.select([master], [], [], 60)
        if not r:
            p.kill()
            fail(f"{args}: no end within 60 s")
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: the other side closed
            break
        if not chunk:
            break
        got += chunk
    os.close(master)
    check(p.wait(timeout=60) == 0, f"{args} under a terminal exited {p.returncode}")
    return got.decode(errors="replace")


def main():
    work = tempfile.mkdtemp(prefix="seglog-progress-")
    data = os.path.join(work, "data")
    # 4 segments of about 1 MiB.
    run("produce", "--log-dir", data, "--topic", "p", "--partition", "0", "--num-records", "14000",
        "--batch-records", "10", "--value-size", "250", "--config", "segment.bytes=1048576")
    run("produce", "--log-dir", data, "--topic", "c", "--partition", "0", "--num-records", "14000",
        "--batch-records", "10", "--value-size", "250", "--key-format", "k%d",
        "--config", "segment.bytes=1048576", "--config", "cleanup.policy=compact")
    part = os.path.join(data, "p-0")
    logs = sorted(os.path.join(part, f) for f in os.listdir(part) if f.endswith(".log"))
    check(len(logs) >= 4, f"expected several segments, got {logs}")

    # Piped: no progress, whatever the command.
    for args in (["check", "--log-dir", data], ["dump-log", "--files", ",".join(logs)],
                 ["recover", "--log-dir", data]):
        p = run(*args)
        check("\r" not in p.stderr and "segments," not in p.stderr,
              f"{args[0]} piped wrote progress: {p.stderr[:300]!r}")
    p = run("check", "--log-dir", data, "--progress", "--no-progress")
    check(p.stderr == "", f"--no-progress after --progress: {p.stderr!r}")

    # Forced: the lines.
    p = run("check", "--log-dir", data, "--progress")
    _, last = progress_lines(p.stderr, "check")
    all_logs = sum(1 for d in os.listdir(data) if os.path.isdir(os.path.join(data, d))
                   for f in os.listdir(os.path.join(data, d)) if f.endswith(".log"))
    check(f" {all_logs}/{all_logs} segments" in last and "(100%)" in last,
          f"check: last line {last!r}, {all_logs} segments")
    check("p-0: OK" in p.stdout, p.stdout)
    p = run("dump-log", "--files", ",".join(logs), "--progress")
    _, last = progress_lines(p.stderr, "dump-log")
    check(f"{len(logs)}/{len(logs)} segments" in last and "(100%)" in last, last)
    check(p.stdout.count("Dumping ") == len(logs), "dump-log output changed")
    p = run("recover", "--log-dir", data, "--progress")
    _, last = progress_lines(p.stderr, "recover")
    # The partitions a broker loads (KRaft's metadata log is not one of them).
    loaded = sum(1 for d in ("p-0", "c-0") for f in os.listdir(os.path.join(data, d))
                 if f.endswith(".log"))
    check(f"{loaded}/{loaded} segments" in last and "(100%)" in last, f"recover: {last!r}")
    p = run("clean", "--log-dir", data, "--topic", "c", "--progress")
    draws, last = progress_lines(p.stderr, "clean")
    check("cleaned 1 partition(s) of c" in p.stdout, p.stdout)
    check("(100%)" in last, f"clean: last line {last!r}")

    # A real terminal: check draws by itself; dump-log with its output on the same terminal
    # does not, and does with its output elsewhere.
    tty = under_pty(["check", "--log-dir", data], stdout_to_pty=True)
    check(re.search(r"\rcheck: \d+/\d+ segments, .*done in", tty), f"check under a pty: {tty!r}")
    check("p-0: OK" in tty, tty)
    tty = under_pty(["dump-log", "--files", ",".join(logs)], stdout_to_pty=True)
    check("\rdump-log:" not in tty and "Dumping " in tty, f"dump-log to the terminal: {tty[:300]!r}")
    tty = under_pty(["dump-log", "--files", ",".join(logs)], stdout_to_pty=False)
    check(re.search(r"\rdump-log: \d+/\d+ segments", tty), f"dump-log to /dev/null: {tty!r}")
    print("progress_cli: passed")


main()
