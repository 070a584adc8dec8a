// seglog's web console script (served by the broker as /console.js; no build step, no
// libraries). Read-only: it only GETs the console's JSON.
//
// The partition page (#partition) polls /api/partition every second and draws the segments to
// scale of segment.bytes with their offset-index and time-index entries; it notes rolls,
// deletions and rewrites as they happen, and animates the steps of /api/lookup for "find
// offset N" and "find by timestamp T". The topics page (#topics) measures rates from
// /api/topics.
//
// Safety: every text from the server (topic names, numbers) reaches the page through
// textContent or setAttribute, never parsed as HTML; URLs are built with
// encodeURIComponent.
"use strict";

(function () {
  // el("div", {class: "x", "data-a": 1}, child, "text", ...): an element; strings become text.
  function el(tag, attrs) {
    const e = document.createElement(tag);
    if (attrs) {
      for (const k of Object.keys(attrs)) {
        if (attrs[k] !== undefined && attrs[k] !== null) e.setAttribute(k, String(attrs[k]));
      }
    }
    for (let i = 2; i < arguments.length; i++) {
      const c = arguments[i];
      if (c === null || c === undefined) continue;
      e.appendChild(typeof c === "string" || typeof c === "number" ? document.createTextNode(String(c)) : c);
    }
    return e;
  }
  function clear(e) {
    while (e.firstChild) e.removeChild(e.firstChild);
  }
  function fmtInt(n) {
    return Number(n).toLocaleString("en-US");
  }
  function fmtBytes(n) {
    if (n < 1024) return n + " B";
    if (n < 1024 * 1024) return (n / 1024).toFixed(1) + " KiB";
    if (n < 1024 * 1024 * 1024) return (n / 1048576).toFixed(1) + " MiB";
    return (n / 1073741824).toFixed(2) + " GiB";
  }
  function fmtMs(ms) {
    if (ms < 0) return String(ms);
    if (ms % 86400000 === 0) return ms / 86400000 + " d";
    if (ms % 3600000 === 0) return ms / 3600000 + " h";
    if (ms % 60000 === 0) return ms / 60000 + " min";
    if (ms % 1000 === 0) return ms / 1000 + " s";
    return ms + " ms";
  }
  function fmtTime(ms) {
    if (ms < 0) return "none";
    return new Date(ms).toISOString().replace("T", " ").replace("Z", " UTC");
  }
  function fileName(base) {
    return String(base).padStart(20, "0");
  }
  function sleep(ms) {
    return new Promise(function (resolve) { setTimeout(resolve, ms); });
  }
  async function getJson(url) {
    const r = await fetch(url, { cache: "no-store" });
    const body = await r.json();
    if (!r.ok) throw new Error(body && body.error ? body.error : "HTTP " + r.status);
    return body;
  }
  function facts(dl, pairs) {
    clear(dl);
    for (const [k, v, id] of pairs) {
      dl.appendChild(el("dt", null, k));
      dl.appendChild(el("dd", id ? { id: id } : null, v));
    }
  }

  // ---- the partition page ------------------------------------------------------------------
  function partitionPage(root) {
    const topic = root.dataset.topic;
    const partition = root.dataset.partition;
    const query = "topic=" + encodeURIComponent(topic) + "&partition=" + encodeURIComponent(partition);
    const segmentsBox = document.getElementById("segments");
    const eventsBox = document.getElementById("events");
    const stepsBox = document.getElementById("steps");
    const resultBox = document.getElementById("lookup-result");
    const statusBox = document.getElementById("status");
    const tablesBox = document.getElementById("index-tables");
    let view = null;
    let previous = null;
    let selected = null; // base offset of the segment whose index tables are shown
    const ghosts = new Map(); // base offset -> {segment, until}
    const fresh = new Map(); // base offset -> until (a new segment flashes)
    let highlight = { segment: null, oi: new Set(), ti: new Set(), scan: new Set(), found: null };
    let busy = false;

    function event(text, kind) {
      const li = el("li", { class: "event " + kind, "data-kind": kind },
        el("time", null, new Date().toLocaleTimeString()), " ", text);
      eventsBox.insertBefore(li, eventsBox.firstChild);
      while (eventsBox.children.length > 12) eventsBox.removeChild(eventsBox.lastChild);
    }

    function compare(prev, next) {
      if (!prev) return;
      const before = new Map(prev.segments.map(function (s) { return [s.base_offset, s]; }));
      const after = new Map(next.segments.map(function (s) { return [s.base_offset, s]; }));
      const now = Date.now();
      for (const s of next.segments) {
        if (!before.has(s.base_offset) && s.base_offset > prev.segments[prev.segments.length - 1].base_offset) {
          // The segment that was active, as it closed.
          const old = after.get(prev.segments[prev.segments.length - 1].base_offset);
          const closed = old ? old.size : 0;
          const why = closed * 2 > next.config["segment.bytes"] ? "by size (the next batch would not fit)" :
            "by time (segment.ms) or on request";
          event("rolled " + why + ": new active segment " + fileName(s.base_offset) + ".log at offset " +
            fmtInt(s.base_offset) + " (the old one closed at " + fmtBytes(closed) + ")", "roll");
          fresh.set(s.base_offset, now + 3000);
        }
      }
      for (const s of prev.segments) {
        if (!after.has(s.base_offset) && s.base_offset < next.segments[0].base_offset &&
            next.segments_omitted === prev.segments_omitted) {
          event("retention deleted segment " + fileName(s.base_offset) + " (" + fmtBytes(s.size) +
            "); log start offset now " + fmtInt(next.log_start_offset), "delete");
          ghosts.set(s.base_offset, { segment: s, until: now + 5000 });
        } else if (!after.has(s.base_offset)) {
          event("segment " + fileName(s.base_offset) + " replaced (cleaned)", "clean");
        } else if (!s.active && after.get(s.base_offset).size !== s.size) {
          event("segment " + fileName(s.base_offset) + " rewritten by the cleaner: " + fmtBytes(s.size) +
            " -> " + fmtBytes(after.get(s.base_offset).size), "clean");
          fresh.set(s.base_offset, now + 3000);
        }
      }
    }

    // The byte position of an offset-index-entry offset (time-index ticks are drawn where the
    // batch of their offset starts, from the offset index's entries).
    function positionOf(seg, offset) {
      let pos = 0;
      for (const [, o, p] of seg.offset_entries) {
        if (o <= offset) pos = p; else break;
      }
      return pos;
    }

    function drawSegment(seg, cap, ghost) {
      const pct = function (pos) { return Math.min(100, (100 * pos) / cap); };
      const classes = ["segment"];
      if (seg.active && !ghost) classes.push("active");
      if (ghost) classes.push("gone");
      if (!ghost && fresh.has(seg.base_offset)) classes.push("fresh");
      if (selected === seg.base_offset) classes.push("selected");
      const box = el("div", {
        class: classes.join(" "), "data-base-offset": seg.base_offset, "data-size": seg.size,
        "data-next-offset": seg.next_offset, id: ghost ? null : "seg-" + seg.base_offset,
        title: fileName(seg.base_offset) + ".log",
      });
      const last = seg.next_offset - 1;
      box.appendChild(el("div", { class: "seg-head" },
        el("span", { class: "seg-base" }, "base " + fmtInt(seg.base_offset)),
        el("span", { class: "seg-kind" }, ghost ? "deleted" : seg.active ? "active" : "closed")));
      const bar = el("div", { class: "bar" });
      const fill = el("div", { class: "fill" });
      fill.style.width = pct(seg.size) + "%";
      bar.appendChild(fill);
      if (seg.entries_included) {
        for (const [slot, o, p] of seg.offset_entries) {
          const t = el("span", {
            class: "tick oi", "data-slot": slot, "data-offset": o, "data-position": p,
            title: "offset index slot " + slot + ": " + (o - seg.base_offset) + " -> " + p + " (offset " + o + ")",
          });
          t.style.left = pct(p) + "%";
          bar.appendChild(t);
        }
        for (const [slot, ts, o] of seg.time_entries) {
          const t = el("span", {
            class: "tick ti", "data-slot": slot, "data-timestamp": ts, "data-offset": o,
            title: "time index slot " + slot + ": t=" + ts + " -> " + (o - seg.base_offset) + " (offset " + o + ")",
          });
          t.style.left = pct(positionOf(seg, o)) + "%";
          bar.appendChild(t);
        }
      }
      box.appendChild(bar);
      box.appendChild(el("div", { class: "scale" },
        el("span", null, "0"), el("span", { class: "seg-size" }, fmtBytes(seg.size) + " of " + fmtBytes(cap)),
        el("span", null, fmtInt(cap))));
      box.appendChild(el("div", { class: "seg-facts" },
        last >= seg.base_offset ? "offsets " + fmtInt(seg.base_offset) + "-" + fmtInt(last) : "empty",
        el("br"),
        seg.entries_included ? seg.offset_index_entries + " index, " + seg.time_index_entries + " time index entries" :
          "indexes not read",
        el("br"),
        "newest record " + (seg.largest_timestamp >= 0 ? fmtTime(seg.largest_timestamp) : "-")));
      if (!ghost) {
        box.addEventListener("click", function () {
          selected = seg.base_offset;
          render();
        });
      }
      return box;
    }

    function drawTables(seg) {
      clear(tablesBox);
      if (!seg) return;
      tablesBox.appendChild(el("p", { class: "note" }, "Segment " + fileName(seg.base_offset) +
        (seg.offset_entries.length < seg.offset_index_entries ? " (a sample of the entries)" : "") +
        "; click a segment to show its entries."));
      const oi = el("table", { class: "data index", id: "offset-index-table" },
        el("caption", null, fileName(seg.base_offset) + ".index"),
        el("thead", null, el("tr", null, el("th", null, "slot"), el("th", null, "relative offset"),
          el("th", null, "offset"), el("th", null, "position"))));
      const ob = el("tbody");
      for (const [slot, o, p] of seg.offset_entries) {
        ob.appendChild(el("tr", { "data-slot": slot, id: "oi-" + seg.base_offset + "-" + slot },
          el("td", null, slot), el("td", null, o - seg.base_offset), el("td", null, o), el("td", null, p)));
      }
      oi.appendChild(ob);
      const ti = el("table", { class: "data index", id: "time-index-table" },
        el("caption", null, fileName(seg.base_offset) + ".timeindex"),
        el("thead", null, el("tr", null, el("th", null, "slot"), el("th", null, "timestamp"),
          el("th", null, "relative offset"), el("th", null, "offset"))));
      const tb = el("tbody");
      for (const [slot, ts, o] of seg.time_entries) {
        tb.appendChild(el("tr", { "data-slot": slot, id: "ti-" + seg.base_offset + "-" + slot },
          el("td", null, slot), el("td", null, ts), el("td", null, o - seg.base_offset), el("td", null, o)));
      }
      ti.appendChild(tb);
      tablesBox.appendChild(oi);
      tablesBox.appendChild(ti);
    }

    function applyHighlight() {
      for (const e of document.querySelectorAll(".hl")) e.classList.remove("hl", "hl-found");
      for (const e of document.querySelectorAll(".marker")) e.remove();
      if (highlight.segment === null) return;
      const box = document.getElementById("seg-" + highlight.segment);
      if (!box) return;
      box.classList.add("hl");
      const cap = view.config["segment.bytes"];
      for (const slot of highlight.oi) {
        for (const t of box.querySelectorAll(".tick.oi")) if (t.dataset.slot === String(slot)) t.classList.add("hl");
        const row = document.getElementById("oi-" + highlight.segment + "-" + slot);
        if (row) row.classList.add("hl");
      }
      for (const slot of highlight.ti) {
        for (const t of box.querySelectorAll(".tick.ti")) if (t.dataset.slot === String(slot)) t.classList.add("hl");
        const row = document.getElementById("ti-" + highlight.segment + "-" + slot);
        if (row) row.classList.add("hl");
      }
      const bar = box.querySelector(".bar");
      for (const pos of highlight.scan) {
        const m = el("span", { class: "marker scan", "data-position": pos });
        m.style.left = Math.min(100, (100 * pos) / cap) + "%";
        bar.appendChild(m);
      }
      if (highlight.found !== null) {
        const m = el("span", { class: "marker found", "data-position": highlight.found });
        m.style.left = Math.min(100, (100 * highlight.found) / cap) + "%";
        bar.appendChild(m);
      }
    }

    function render() {
      if (!view) return;
      const v = view;
      const now = Date.now();
      facts(document.getElementById("offsets"), [
        ["Log start offset", fmtInt(v.log_start_offset), "log-start-offset"],
        ["High watermark", fmtInt(v.high_watermark), "high-watermark"],
        ["Last stable offset", fmtInt(v.last_stable_offset), "last-stable-offset"],
        ["Log end offset", fmtInt(v.log_end_offset), "log-end-offset"],
        ["Recovery point", fmtInt(v.recovery_point), "recovery-point"],
        ["Size", fmtBytes(v.size_bytes) + " in " + (v.segments.length + v.segments_omitted) + " segments", "size"],
      ]);
      const c = v.config;
      facts(document.getElementById("settings"), [
        ["segment.bytes", fmtInt(c["segment.bytes"])],
        ["segment.ms", fmtMs(c["segment.ms"])],
        ["index.interval.bytes", fmtInt(c["index.interval.bytes"])],
        ["retention.ms", c["retention.ms"] < 0 ? "-1 (no limit)" : fmtMs(c["retention.ms"])],
        ["retention.bytes", c["retention.bytes"] < 0 ? "-1 (no limit)" : fmtInt(c["retention.bytes"])],
        ["cleanup.policy", c["cleanup.policy"]],
      ]);
      clear(segmentsBox);
      if (v.segments_omitted > 0) {
        segmentsBox.appendChild(el("div", { class: "segment omitted" }, v.segments_omitted + " older segments not drawn"));
      }
      const cap = Math.max(1, c["segment.bytes"]);
      const ghostList = [];
      for (const [base, g] of ghosts) {
        if (g.until < now) ghosts.delete(base); else ghostList.push(g.segment);
      }
      for (const [base, until] of fresh) if (until < now) fresh.delete(base);
      ghostList.sort(function (a, b) { return a.base_offset - b.base_offset; });
      for (const g of ghostList) segmentsBox.appendChild(drawSegment(g, cap, true));
      for (const s of v.segments) segmentsBox.appendChild(drawSegment(s, cap, false));
      if (v.leaving_files.length > 0) {
        segmentsBox.appendChild(el("div", { class: "leaving" }, "on their way out: " + v.leaving_files.join(", ")));
      }
      const segs = v.segments;
      let seg = segs.find(function (s) { return s.base_offset === selected; });
      if (!seg) {
        seg = segs[segs.length - 1];
        selected = seg ? seg.base_offset : null;
        const box = seg ? document.getElementById("seg-" + seg.base_offset) : null;
        if (box) box.classList.add("selected");
      }
      drawTables(seg);
      applyHighlight();
    }

    async function poll() {
      try {
        const next = await getJson("/api/partition?" + query);
        compare(previous, next);
        previous = next;
        view = next;
        statusBox.textContent = "live, updated " + new Date().toLocaleTimeString();
        statusBox.className = "live";
        render();
        document.body.dataset.loaded = "1";
      } catch (e) {
        statusBox.textContent = "not updating: " + e.message;
        statusBox.className = "stale";
      }
    }

    // ---- lookups ----
    function step(kind, attrs, text) {
      const a = Object.assign({ class: "step", "data-kind": kind }, attrs || {});
      const li = el("li", a, text);
      stepsBox.appendChild(li);
      li.scrollIntoView({ block: "nearest" });
      return li;
    }
    function delay() {
      return sleep(document.getElementById("fast").checked ? 0 : 650);
    }
    function selectSegment(base) {
      selected = base;
      highlight = { segment: base, oi: new Set(), ti: new Set(), scan: new Set(), found: null };
      render();
    }

    async function playIndexSearch(search, what, base, isTime) {
      const keyName = isTime ? "timestamp" : "offset";
      step(isTime ? "timeindex-search" : "index-search", { "data-file": search.file, "data-entries": search.entries },
        "Binary search of " + search.file + " (" + search.entries + " entries) for the largest entry with " +
        keyName + " <= " + what + (search.entries * (isTime ? 12 : 8) > 8192 ?
          "; the warm section (last 8 KiB) starts at slot " + search.warm_first_slot : ""));
      await delay();
      for (const p of search.probes) {
        (isTime ? highlight.ti : highlight.oi).add(p.slot);
        applyHighlight();
        const shown = isTime ? "t=" + p.key + " -> offset " + p.value : "offset " + p.key + " (relative " +
          (p.key - base) + ") -> position " + p.value;
        step(isTime ? "timeindex-probe" : "index-probe",
          { "data-slot": p.slot, "data-key": p.key, "data-value": p.value, "data-comparison": p.comparison },
          (p.phase === "probe" ? "probe slot " + p.slot + " of [" + p.lo + ", " + p.hi + "]" :
            p.phase === "warm-check" ? "check slot " + p.slot + " (warm section start)" : "check slot " + p.slot + " (first)") +
          ": " + shown + " - " + p.comparison + " the target");
        await delay();
      }
      if (search.probes_omitted > 0) step("note", null, search.probes_omitted + " more probes not shown");
      (isTime ? highlight.ti : highlight.oi).clear();
      if (search.slot >= 0) (isTime ? highlight.ti : highlight.oi).add(search.slot);
      applyHighlight();
      const kind = isTime ? "timeindex-result" : "index-result";
      const attrs = { "data-slot": search.slot, "data-key": search.key, "data-value": search.value };
      if (search.slot < 0) {
        step(kind, attrs, isTime ? "No entry <= target: start from the segment's base offset " + search.value :
          "No entry <= target: scan from the start of the segment (position 0)");
      } else {
        step(kind, attrs, isTime ? "Entry slot " + search.slot + ": t=" + search.key + " -> offset " + search.value :
          "Entry slot " + search.slot + ": offset " + search.key + " -> position " + search.value);
      }
      await delay();
    }

    async function playScan(visit, isTime, target) {
      step("scan-start", { "data-position": visit.scan_from },
        "Scan " + visit.log_file + " forward from position " + visit.scan_from + ", batch header by batch header");
      await delay();
      let i = 0;
      for (const s of visit.scan) {
        if (visit.scan_omitted > 0 && i === visit.scan.length - Math.floor(visit.scan.length / 4)) {
          step("note", null, visit.scan_omitted + " more batches read, not shown");
        }
        i++;
        highlight.scan.add(s.position);
        applyHighlight();
        const range = "offsets " + s.base_offset + "-" + s.last_offset;
        const text = isTime ? "batch at " + s.position + " (" + s.size + " B, " + range + ", max timestamp " +
          s.max_timestamp + "): " + (s.match ? ">= target" : "< target, skip") :
          "batch at " + s.position + " (" + s.size + " B, " + range + "): " +
          (s.match ? "last offset >= " + target + ", stop" : "last offset < " + target + ", skip " + s.size + " B");
        step("scan", {
          "data-position": s.position, "data-size": s.size, "data-base-offset": s.base_offset,
          "data-last-offset": s.last_offset, "data-max-timestamp": s.max_timestamp, "data-match": s.match ? "1" : "0",
        }, text);
        await delay();
      }
    }

    function finish(attrs, text) {
      resultBox.textContent = text;
      for (const k of Object.keys(resultBox.dataset)) delete resultBox.dataset[k];
      for (const k of Object.keys(attrs)) resultBox.dataset[k] = String(attrs[k]);
      resultBox.dataset.done = "1";
    }

    async function findOffset(n) {
      const t = await getJson("/api/lookup?" + query + "&offset=" + encodeURIComponent(n));
      step("segment", { "data-base-offset": t.floor_base_offset },
        t.floor_base_offset < 0 ? "Floor lookup: no segment for offset " + t.target :
          "Floor lookup in the segment map (base offsets " + t.segment_bases.join(", ") +
          (t.segment_bases_omitted ? ", ..." : "") + "): the largest base offset <= " + t.target + " is " +
          t.floor_base_offset + " -> " + fileName(t.floor_base_offset) + ".log");
      if (t.floor_base_offset >= 0) selectSegment(t.floor_base_offset);
      await delay();
      for (const v of t.visits) {
        if (v.base_offset !== t.floor_base_offset) {
          step("segment", { "data-base-offset": v.base_offset }, "Nothing left in the previous segment: next segment " +
            fileName(v.base_offset) + ".log");
          selectSegment(v.base_offset);
          await delay();
        }
        await playIndexSearch(v.offset_index, t.target, v.base_offset, false);
        await playScan(v, false, t.target);
      }
      if (t.found) {
        highlight.found = t.found.position;
        applyHighlight();
        finish({ kind: "offset", target: t.target, segment: t.found.segment_base_offset, position: t.found.position,
          baseOffset: t.found.base_offset, lastOffset: t.found.last_offset, size: t.found.size },
          "Offset " + t.target + " is in the batch at byte " + t.found.position + " of " +
          fileName(t.found.segment_base_offset) + ".log (offsets " + t.found.base_offset + "-" + t.found.last_offset +
          ", " + t.found.size + " B): a fetch from " + t.target + " sends from there.");
      } else {
        finish({ kind: "offset", target: t.target, notFound: "1" }, "Not found: " + t.note);
      }
    }

    async function findTimestamp(ts) {
      const t = await getJson("/api/lookup?" + query + "&timestamp=" + encodeURIComponent(ts));
      for (const c of t.checks) {
        step("segment-check", { "data-base-offset": c.base_offset, "data-largest-timestamp": c.largest_timestamp,
          "data-chosen": c.chosen ? "1" : "0" },
        "Segment " + fileName(c.base_offset) + ": newest record t=" + c.largest_timestamp +
          (c.chosen ? " >= " + t.target + ": this segment" : " < " + t.target + ": too old"));
        if (c.chosen) selectSegment(c.base_offset);
        await delay();
      }
      if (t.visit) {
        await playIndexSearch(t.visit.time_index, t.target, t.visit.base_offset, true);
        step("offset-to-find", { "data-offset": t.offset_searched },
          "Look up offset " + t.offset_searched + " in the offset index" +
          (t.offset_searched !== t.visit.time_index.value ? " (the log start offset)" : ""));
        await delay();
        await playIndexSearch(t.visit.offset_index, t.offset_searched, t.visit.base_offset, false);
        await playScan(t.visit, true, t.target);
        for (const r of t.records) {
          step("record", { "data-offset": r.offset, "data-timestamp": r.timestamp, "data-match": r.match ? "1" : "0" },
            "record " + r.offset + ": t=" + r.timestamp + (r.match ? " >= " + t.target + ": found" : " < " + t.target));
          await delay();
        }
        if (t.records_omitted > 0) step("note", null, t.records_omitted + " more records not shown");
      }
      if (t.found) {
        const batch = t.visit.scan.find(function (s) { return s.match; });
        if (batch) highlight.found = batch.position;
        applyHighlight();
        finish({ kind: "timestamp", target: t.target, offset: t.found.offset, timestamp: t.found.timestamp },
          "The first offset with a timestamp >= " + t.target + " is " + t.found.offset + " (t=" + t.found.timestamp +
          ", " + fmtTime(t.found.timestamp) + ")");
      } else {
        finish({ kind: "timestamp", target: t.target, notFound: "1" }, "Not found: " + t.note);
      }
    }

    async function run(fn, value) {
      if (busy) return;
      busy = true;
      clear(stepsBox);
      resultBox.textContent = "";
      for (const k of Object.keys(resultBox.dataset)) delete resultBox.dataset[k];
      highlight = { segment: null, oi: new Set(), ti: new Set(), scan: new Set(), found: null };
      try {
        await fn(value);
      } catch (e) {
        finish({ error: "1" }, "Error: " + e.message);
      } finally {
        busy = false;
      }
    }
    document.getElementById("find-offset").addEventListener("submit", function (e) {
      e.preventDefault();
      run(findOffset, document.getElementById("offset-input").value.trim());
    });
    document.getElementById("find-timestamp").addEventListener("submit", function (e) {
      e.preventDefault();
      run(findTimestamp, document.getElementById("timestamp-input").value.trim());
    });

    poll();
    setInterval(poll, 1000);
  }

  // ---- the topics page: rates measured between refreshes ------------------------------------
  function topicsPage() {
    let last = null;
    async function poll() {
      let now;
      try {
        now = await getJson("/api/topics");
      } catch (e) {
        return;
      }
      const totals = new Map();
      for (const t of now.topics) {
        let msgs = 0, bytes = 0;
        for (const p of t.partitions) {
          msgs += p.log_end_offset;
          bytes += p.bytes;
        }
        totals.set(t.topic, { msgs: msgs, bytes: bytes });
      }
      if (last) {
        const dt = (now.now_ms - last.at) / 1000;
        for (const body of document.querySelectorAll("tbody.topic")) {
          const a = totals.get(body.dataset.topic), b = last.totals.get(body.dataset.topic);
          if (!a || !b || dt <= 0) continue;
          for (const cell of body.querySelectorAll("td.rate")) {
            const d = cell.dataset.rate === "messages" ? a.msgs - b.msgs : a.bytes - b.bytes;
            const r = Math.max(0, d) / dt;
            cell.textContent = cell.dataset.rate === "messages" ? r.toFixed(1) : fmtBytes(Math.round(r)) + "/s";
          }
        }
      }
      last = { at: now.now_ms, totals: totals };
    }
    poll();
    setInterval(poll, 2000);
  }

  const root = document.getElementById("partition");
  if (root) partitionPage(root);
  if (document.getElementById("topics")) topicsPage();
})();
