"""The web console in a real browser (issue 30): headless Chromium (Debian's chromium and
chromium-driver, driven with Selenium) loads every page of a broker holding real data that kcat
produced into small segments. The partition page must draw the segment files on disk; the
animated "find offset N" and "find by timestamp T" are stepped through in the DOM, and each
step is checked against the real files (index entries read from the .index/.timeindex bytes,
batches from `seglog dump-log`) and the answers against `seglog get-offsets` and kcat. The page
must follow the partition live (appends, rolls, retention). Names that are HTML (a consumer
group, a transactional id, a topic asked for in a URL) must show as text. Screenshots of the
partition page are kept under the build directory and compared, with a tolerance, with the
committed docs/images/partition-page.png."""
import os
import struct
import subprocess
import time

from harness import check, free_port, run

HERE = os.path.dirname(os.path.abspath(__file__))
REFERENCE = os.path.join(HERE, "..", "..", "docs", "images", "partition-page.png")
SCRIPT_NAME = "<script>alert(1)</script>"
IMG_NAME = "<img src=x onerror=\"window.__xss=1\">"
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                  "--no-first-run", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--window-size=1400,1100",
                  "--hide-scrollbars", "--force-device-scale-factor=1",
                  "--font-render-hinting=none"]
# The screenshot comparison: the share of pixels that differ by more than PIXEL_DELTA (0-255
# grey levels) may be at most TOLERANCE. Two runs differ in about 0.1% (times, the fill of the
# active segment); the page after another lookup in 3%; a blank page in 14% and the page
# without its segments in 9% (both checked on every run, so the check stays able to fail).
PIXEL_DELTA = 16
TOLERANCE = 0.05


def kcat(*args, input=None):
    return run(["kcat", *args], input=input, timeout=60)


def artifacts_dir(ctx):
    """<build dir>/console-artifacts (the build dir holds cli/seglog), or $SEGLOG_ARTIFACTS."""
    d = os.environ.get("SEGLOG_ARTIFACTS") or os.path.join(
        os.path.dirname(os.path.dirname(ctx.broker.seglog)), "console-artifacts")
    os.makedirs(d, exist_ok=True)
    return d


class Browser:
    def __init__(self, ctx):
        os.environ.setdefault("SE_AVOID_STATS", "true")
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
        opts = webdriver.ChromeOptions()
        opts.binary_location = "/usr/bin/chromium"
        for a in CHROMIUM_FLAGS + [f"--user-data-dir={os.path.join(ctx.ws.dir, 'chromium')}"]:
            opts.add_argument(a)
        self.driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=opts)
        self.driver.set_page_load_timeout(30)
        self.base = f"http://127.0.0.1:{ctx.http_port}"

    def get(self, path):
        self.driver.get(self.base + path)
        return self.driver

    def js(self, script, *args):
        return self.driver.execute_script(script, *args)

    def wait(self, script, what, timeout=30, *args):
        deadline = time.time() + timeout
        while time.time() < deadline:
            got = self.js(script, *args)
            if got:
                return got
            time.sleep(0.1)
        raise AssertionError(f"timed out after {timeout}s waiting for {what}")

    def quit(self):
        self.driver.quit()


def log_files(data, topic="orders", partition=0):
    d = os.path.join(data, f"{topic}-{partition}")
    return sorted(int(f[:-4]) for f in os.listdir(d) if f.endswith(".log"))


def index_entries(path, base, time_index=False):
    """The entries of a .index ((offset, position)) or .timeindex ((timestamp, offset))."""
    with open(path, "rb") as f:
        data = f.read()
    size = 12 if time_index else 8
    out = []
    for i in range(len(data) // size):
        if time_index:
            ts, rel = struct.unpack_from(">qi", data, i * size)
            out.append((ts, base + rel))
        else:
            rel, pos = struct.unpack_from(">ii", data, i * size)
            out.append((base + rel, pos))
    return out


def dump_batches(seglog, path):
    """{position: (baseOffset, lastOffset, size, CreateTime)} of a .log, by seglog dump-log."""
    out = run([seglog, "dump-log", "--files", path]).stdout
    batches = {}
    for line in out.splitlines():
        if not line.startswith("baseOffset:"):
            continue
        f = line.split()
        v = {f[i].rstrip(":"): f[i + 1] for i in range(0, len(f) - 1, 2)}
        batches[int(v["position"])] = (int(v["baseOffset"]), int(v["lastOffset"]),
                                       int(v["size"]), int(v["CreateTime"]))
    return batches


def steps(b):
    """The lookup's steps as the page lists them: [(kind, {data attributes})]."""
    return b.js("""return Array.from(document.querySelectorAll('#steps li')).map(li =>
        [li.dataset.kind, Object.assign({}, li.dataset), li.textContent]);""")


def run_lookup(b, form, value):
    b.js("document.getElementById('fast').checked = false;")
    inp = "offset-input" if form == "offset" else "timestamp-input"
    b.driver.find_element("id", inp).clear()
    b.driver.find_element("id", inp).send_keys(str(value))
    b.driver.find_element("id", f"find-{form}-button").click()
    # The animation shows one step at a time: see it grow before it is done.
    b.wait("return document.querySelectorAll('#steps li').length >= 2", "the first steps", 20)
    early = len(steps(b))
    b.wait("return document.getElementById('lookup-result').dataset.done === '1'",
           f"the {form} lookup of {value} to finish", 90)
    result = b.js("return Object.assign({}, document.getElementById('lookup-result').dataset)")
    all_steps = steps(b)
    check(early < len(all_steps), f"the steps were not animated ({early} of {len(all_steps)} at once)")
    return result, all_steps


def check_index_steps(st, kind_probe, kind_result, entries, target, what):
    probes = [a for k, a, _ in st if k == kind_probe]
    check(probes, f"{what}: no {kind_probe} steps")
    for p in probes:
        slot = int(p["slot"])
        check(0 <= slot < len(entries), f"{what}: probe of slot {slot} of {len(entries)} entries")
        check((int(p["key"]), int(p["value"])) == entries[slot],
              f"{what}: probe slot {slot} shows {p['key']} -> {p['value']}, the file has "
              f"{entries[slot]}")
    res = [a for k, a, _ in st if k == kind_result]
    check(len(res) == 1, f"{what}: {len(res)} {kind_result} steps")
    slot = int(res[0]["slot"])
    floor = [i for i, e in enumerate(entries) if e[0] <= target]
    want = floor[-1] if floor else -1
    check(slot == want, f"{what}: the search ended at slot {slot}, the largest entry <= {target} is "
                        f"at slot {want}")
    return res[0]


def check_scan(st, batches, start, what):
    scan = [a for k, a, _ in st if k == "scan"]
    check(scan and int(scan[0]["position"]) == start,
          f"{what}: the scan starts at {scan[0]['position'] if scan else None}, not {start}")
    for i, s in enumerate(scan):
        pos = int(s["position"])
        check(pos in batches, f"{what}: no batch at position {pos} in dump-log")
        base, last, size, _ = batches[pos]
        check((int(s["baseOffset"]), int(s["lastOffset"]), int(s["size"])) == (base, last, size),
              f"{what}: scan step {s} against dump-log {batches[pos]}")
        if i + 1 < len(scan):
            check(int(scan[i + 1]["position"]) == pos + size, f"{what}: scan skipped a batch")
    return scan


def screenshot_difference(a_path, b_path):
    from PIL import Image, ImageChops
    a = Image.open(a_path).convert("L")
    b = Image.open(b_path).convert("L")
    if a.size != b.size:
        b = b.resize(a.size)
    diff = ImageChops.difference(a, b).point(lambda v: 255 if v > PIXEL_DELTA else 0)
    return diff.histogram()[255] / (a.size[0] * a.size[1])


def check_screenshot(ctx, shot):
    from PIL import Image
    check(os.path.exists(REFERENCE), f"no reference screenshot {REFERENCE} (copy {shot} there "
                                     "after checking it by eye)")
    ratio = screenshot_difference(REFERENCE, shot)
    print(f"screenshot {shot}: {ratio:.3%} of pixels differ from {os.path.relpath(REFERENCE)}")
    # The comparison must tell a broken page from a good one: a blank page, and the reference
    # with its drawing area wiped, both differ more than the tolerance.
    ref = Image.open(REFERENCE).convert("L")
    blank = os.path.join(artifacts_dir(ctx), "blank.png")
    Image.new("L", ref.size, 255).save(blank)
    wiped = ref.copy()
    wiped.paste(255, (0, 180, ref.size[0], ref.size[1]))
    wiped_path = os.path.join(artifacts_dir(ctx), "wiped.png")
    wiped.save(wiped_path)
    for bad, name in ((blank, "a blank page"), (wiped_path, "a page without its drawing")):
        r = screenshot_difference(REFERENCE, bad)
        check(r > TOLERANCE, f"the comparison cannot tell {name} ({r:.3%}) from the reference")
    check(ratio <= TOLERANCE, f"the partition page differs from the reference in {ratio:.3%} of "
                              f"pixels (tolerance {TOLERANCE:.0%}): see {shot}")


def produce(b, rounds, start=0):
    for i in range(start, start + rounds):
        kcat("-b", b.bootstrap, "-P", "-t", "orders", "-X", "batch.num.messages=5",
             input="".join(f"order-{i}-value-{j:03d}\n" for j in range(20)))


def web_console_in_chromium(ctx):
    from confluent_kafka import Consumer, Producer, TopicPartition
    from confluent_kafka.admin import (AdminClient, AlterConfigOpType, ConfigEntry,
                                       ConfigResource, NewTopic)
    b = ctx.broker
    seglog = b.seglog
    data = b.data_dir
    admin = AdminClient({"bootstrap.servers": b.bootstrap})
    fs = admin.create_topics([NewTopic("orders", 1, 1, config={
        "internal.segment.bytes": "4096", "index.interval.bytes": "512"})])
    for f in fs.values():
        f.result(timeout=30)
    produce(b, 30)
    got = kcat("-b", b.bootstrap, "-C", "-t", "orders", "-o", "beginning", "-e", "-q",
               "-f", "%o %T\n").stdout.split("\n")[:-1]
    records = [tuple(map(int, line.split())) for line in got]
    check(len(records) == 600, f"read back {len(records)} of 600 records")
    # A group (its id is HTML) with committed offsets, and a transactional id that is HTML too.
    c = Consumer({"bootstrap.servers": b.bootstrap, "group.id": SCRIPT_NAME,
                  "enable.auto.commit": False, "auto.offset.reset": "earliest"})
    c.assign([TopicPartition("orders", 0, 0)])
    n = 0
    deadline = time.time() + 30
    while n < 250 and time.time() < deadline:
        m = c.poll(1)
        if m is not None and not m.error():
            n += 1
    c.commit(offsets=[TopicPartition("orders", 0, 250)], asynchronous=False)
    c.close()
    p = Producer({"bootstrap.servers": b.bootstrap, "transactional.id": IMG_NAME})
    p.init_transactions(30)
    p.begin_transaction()
    for i in range(3):
        p.produce("payments", value=f"paid-{i}".encode())
    p.commit_transaction(30)

    browser = Browser(ctx)
    try:
        art = artifacts_dir(ctx)
        d = browser.get("/")
        count = int(d.find_element("id", "topic-count").text)
        on_disk = {e.rsplit("-", 1)[0] for e in os.listdir(data) if "-" in e and
                   os.path.isdir(os.path.join(data, e)) and e.rsplit("-", 1)[1].isdigit()} - {
            "__cluster_metadata"}  # the metadata log is no topic
        check(count == len(on_disk), f"overview: {count} topics, {len(on_disk)} on disk ({on_disk})")
        check(d.find_element("id", "group-count").text == "1", "overview: groups")
        check(d.find_element("id", "txn-count").text == "1", "overview: transactions")
        d.save_screenshot(os.path.join(art, "overview.png"))

        # Topics: every topic, rates measured by the page, a link to each partition.
        d = browser.get("/topics")
        names = browser.js("return Array.from(document.querySelectorAll('tbody.topic'))"
                           ".map(t => t.dataset.topic)")
        check(set(names) == on_disk, f"topics page: {names}")
        browser.wait("return document.querySelector('tbody.topic td.rate').textContent !== '-'",
                     "the rates", 10)
        d.save_screenshot(os.path.join(art, "topics.png"))
        browser.js("document.querySelector('tbody.topic[data-topic=\"orders\"] a.partition-link')"
                   ".click()")
        browser.wait("return location.pathname === '/partition'", "the partition link", 10)

        # The partition page: one segment drawn per .log on disk.
        browser.wait("return document.body.dataset.loaded === '1'", "the partition page to load")
        drawn = browser.js("return Array.from(document.querySelectorAll('#segments .segment[id]'))"
                           ".map(s => Number(s.dataset.baseOffset))")
        files = log_files(data)
        check(len(files) >= 5, f"only {len(files)} segments: {files}")
        check(drawn == files, f"drawn segments {drawn}, files on disk {files}")
        active = browser.js("return Array.from(document.querySelectorAll('#segments .segment.active'))"
                            ".map(s => Number(s.dataset.baseOffset))")
        check(active == [files[-1]], f"active segment drawn: {active}")
        for base in files[:-1]:
            size = os.path.getsize(os.path.join(data, "orders-0", f"{base:020d}.log"))
            got = browser.js(f"return Number(document.getElementById('seg-{base}').dataset.size)")
            check(got == size, f"segment {base}: drawn size {got}, file {size}")
            ticks = browser.js(f"return document.querySelectorAll('#seg-{base} .tick.oi').length")
            entries = index_entries(os.path.join(data, "orders-0", f"{base:020d}.index"), base)
            check(ticks == len(entries) > 0, f"segment {base}: {ticks} index ticks, {len(entries)} entries")

        # Find offset N: in a closed segment in the middle, past its first index entry.
        seg = files[2]
        seg_entries = index_entries(os.path.join(data, "orders-0", f"{seg:020d}.index"), seg)
        target = seg_entries[0][0] + 7
        result, st = run_lookup(browser, "offset", target)
        floor = [a for k, a, _ in st if k == "segment"]
        check(int(floor[0]["baseOffset"]) == max(f for f in files if f <= target),
              f"floor step {floor[0]} for {target} (files {files})")
        entry = check_index_steps(st, "index-probe", "index-result", seg_entries, target,
                                  f"find offset {target}")
        batches = dump_batches(seglog, os.path.join(data, "orders-0", f"{seg:020d}.log"))
        scan = check_scan(st, batches, int(entry["value"]), f"find offset {target}")
        pos = int(result["position"])
        base, last, size, _ = batches[pos]
        check(base <= target <= last and int(result["baseOffset"]) == base and
              int(result["segment"]) == seg and scan[-1]["match"] == "1",
              f"find offset {target}: result {result}, the batch at {pos} holds {base}-{last}")
        first = kcat("-b", b.bootstrap, "-C", "-t", "orders", "-o", str(target), "-c", "1", "-e",
                     "-f", "%o").stdout
        check(first == str(target), f"kcat from {target}: {first}")
        print(f"find offset {target}: {len(st)} steps, floor {seg}, index slot "
              f"{entry['slot']} -> {entry['value']}, {len(scan)} batches scanned, batch at {pos}")
        shot = os.path.join(art, "partition-page.png")
        browser.driver.execute_script("window.scrollTo(0, 0)")
        browser.driver.save_screenshot(shot)

        # Find by timestamp T: a time between two batches of a middle segment.
        times = sorted({ts for _, ts in records})
        t_mid = times[len(times) // 2]
        for ts in (t_mid, t_mid - 1, times[0] - 1000):
            want = run([seglog, "get-offsets", "--log-dir", data, "--topic", "orders",
                        "--time", str(ts)]).stdout.split()
            check(len(want) == 1, f"get-offsets {ts}: {want}")
            want_offset = int(want[0].split(":")[2])
            result, st = run_lookup(browser, "timestamp", ts)
            check(int(result["offset"]) == want_offset,
                  f"find by timestamp {ts}: {result.get('offset')}, get-offsets says {want_offset}")
            expected = next(o for o, t in records if t >= ts)
            check(want_offset == expected, f"get-offsets {ts}: {want_offset}, records say {expected}")
            checks = [a for k, a, _ in st if k == "segment-check"]
            chosen = int(checks[-1]["baseOffset"])
            check(checks[-1]["chosen"] == "1" and all(a["chosen"] == "0" for a in checks[:-1]),
                  f"segment checks {checks}")
            tentries = index_entries(os.path.join(data, "orders-0", f"{chosen:020d}.timeindex"),
                                     chosen, time_index=True)
            tres = check_index_steps(st, "timeindex-probe", "timeindex-result", tentries, ts,
                                     f"find by timestamp {ts}")
            oentries = index_entries(os.path.join(data, "orders-0", f"{chosen:020d}.index"), chosen)
            looked = int(next(a for k, a, _ in st if k == "offset-to-find")["offset"])
            check(looked == int(tres["value"]),  # the log start offset is 0 here
                  f"find by timestamp {ts}: looks up offset {looked}, the entry says {tres['value']}")
            oidx = [a for k, a, _ in st if k == "index-result"]
            check(len(oidx) == 1, f"find by timestamp {ts}: {len(oidx)} offset index results")
            floor_slots = [i for i, e in enumerate(oentries) if e[0] <= looked]
            check(int(oidx[0]["slot"]) == (floor_slots[-1] if floor_slots else -1),
                  f"find by timestamp {ts}: offset index slot {oidx[0]['slot']} for {looked}")
            batches = dump_batches(seglog, os.path.join(data, "orders-0", f"{chosen:020d}.log"))
            scan = check_scan(st, batches, int(oidx[0]["value"]), f"find by timestamp {ts}")
            check(scan[-1]["match"] == "1" and int(scan[-1]["maxTimestamp"]) >= ts,
                  f"find by timestamp {ts}: the scan ends at {scan[-1]}")
            recs = [a for k, a, _ in st if k == "record"]
            check(recs and int(recs[-1]["offset"]) == want_offset and recs[-1]["match"] == "1",
                  f"find by timestamp {ts}: record steps end at {recs[-1] if recs else None}")
            print(f"find by timestamp {ts}: offset {want_offset} as get-offsets says; "
                  f"{len(checks)} segments checked, {len(scan)} batches, {len(recs)} records")
        browser.driver.execute_script("window.scrollTo(0, 0)")
        browser.driver.save_screenshot(os.path.join(art, "partition-page-timestamp.png"))

        # Live: appends fill the active segment and roll new ones, as the page shows.
        before = browser.js("return document.getElementById('log-end-offset').textContent")
        produce(b, 10, start=30)
        browser.wait("return document.getElementById('log-end-offset').textContent === '800'",
                     "the log end offset 800 on the page", 15)
        browser.wait("return document.querySelector('#events li.roll') !== null", "a roll event", 10)
        roll = browser.js("return document.querySelector('#events li.roll').textContent")
        check("by size" in roll, f"the roll event: {roll}")
        files = log_files(data)
        browser.wait("return Array.from(document.querySelectorAll('#segments .segment[id]'))"
                     f".map(s => Number(s.dataset.baseOffset)).join() === '{','.join(map(str, files))}'",
                     f"the segments after the appends ({files})", 10)
        print(f"live: log end offset {before} -> 800, segments {files}")
        # Retention as it happens: retention.bytes deletes the oldest segments.
        res = ConfigResource("topic", "orders", incremental_configs=[ConfigEntry(
            "retention.bytes", "12000", incremental_operation=AlterConfigOpType.SET)])
        for f in admin.incremental_alter_configs([res]).values():
            f.result(timeout=30)
        browser.wait("return document.querySelector('#events li.delete') !== null",
                     "a retention event", 20)
        deadline = time.time() + 10
        while time.time() < deadline and len(log_files(data)) >= len(files):
            time.sleep(0.2)
        after = log_files(data)
        check(len(after) < len(files), f"retention deleted nothing: {after}")
        browser.wait("return Array.from(document.querySelectorAll('#segments .segment[id]'))"
                     f".map(s => Number(s.dataset.baseOffset)).join() === '{','.join(map(str, after))}'",
                     f"the segments after retention ({after})", 10)
        check(browser.js("return document.getElementById('settings').textContent")
              .find("segment.bytes4,096") >= 0, "retention.bytes changed the other settings")
        start = browser.js("return document.getElementById('log-start-offset').textContent")
        check(start == str(after[0]), f"log start offset on the page {start}, first file {after[0]}")
        browser.driver.save_screenshot(os.path.join(art, "partition-page-retention.png"))
        print(f"retention: segments {files[:3]}... -> {after}, log start {start}")

        # Groups: the HTML-named group as text, with its lag per partition.
        d = browser.get("/groups")
        ids = browser.js("return Array.from(document.querySelectorAll('section.group'))"
                         ".map(s => [s.dataset.group, s.querySelector('.group-id').textContent])")
        check(ids == [[SCRIPT_NAME, SCRIPT_NAME]], f"groups: {ids}")
        lag = browser.js("return Array.from(document.querySelectorAll('tr.offset-row'))"
                         ".map(r => Array.from(r.cells).map(c => c.textContent))")
        check(lag == [["orders", "0", "250", "800", "550"]], f"group offsets and lag: {lag}")
        d.save_screenshot(os.path.join(art, "groups.png"))
        # Transactions: the HTML-named transactional id as text.
        d = browser.get("/transactions")
        rows = browser.js("return Array.from(document.querySelectorAll('tr.txn-row'))"
                          ".map(r => [r.querySelector('.txn-id').textContent, "
                          "r.querySelector('.state').textContent])")
        check(rows == [[IMG_NAME, "CompleteCommit"]], f"transactions: {rows}")
        d.save_screenshot(os.path.join(art, "transactions.png"))
        # A topic name that is HTML, asked for in the URL: a 404 page that shows it as text.
        from urllib.parse import quote
        d = browser.get(f"/partition?topic={quote(SCRIPT_NAME)}&partition=0")
        err = d.find_element("id", "error").text
        check(err == f"Unknown topic {SCRIPT_NAME}", f"404 page: {err!r}")
        for page in ("/", "/groups", "/transactions", f"/partition?topic={quote(SCRIPT_NAME)}&partition=0"):
            browser.get(page)
            scripts = browser.js("return Array.from(document.scripts).map(s => s.src)")
            check(scripts == [browser.base + "/console.js"], f"{page}: scripts {scripts}")
            check(browser.js("return document.querySelectorAll('img').length") == 0,
                  f"{page}: an <img> element was made from data")
            check(browser.js("return window.__xss === undefined"), f"{page}: data ran as script")
        bad = browser.get("/partition?topic=orders&partition=x")
        check("parameter partition" in bad.find_element("id", "error").text, "400 page")
        check_screenshot(ctx, shot)
    finally:
        browser.quit()
    ctx.expect_records = None


def _setup(ctx):
    ctx.http_port = free_port()
    ctx.broker.overrides += [f"http.listener=127.0.0.1:{ctx.http_port}",
                             "log.retention.check.interval.ms=1000"]


web_console_in_chromium.setup = _setup

CASES = [web_console_in_chromium]
