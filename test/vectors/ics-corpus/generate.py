#!/usr/bin/env python3
"""Records an independent reader's occurrence counts for the corpus (counts.json).

The reader is written here from RFC 5545, not from calpress: a minimal
content-line parser (unfolding, §3.1), python-dateutil's rrule for RRULE
(§3.3.10), zoneinfo for IANA TZIDs and dateutil.tz.tzical for a file's own
VTIMEZONE (§3.6.5). For each VEVENT with no RECURRENCE-ID it counts the
starts in WINDOW: the RRULE set with RDATEs, less EXDATEs and the
occurrences the file overrides (RECURRENCE-ID, changed or cancelled),
compared as instants (a DATE EXDATE removes that day). Floating times are
read in X-WR-TIMEZONE, else UTC (the test site's zone). Open-ended series
stop at WINDOW's end, which is within the horizon calpress stores from the
test's clock (test/calendar/import-corpus.test.ts: now = NOW, 730 days).

Run: python3 test/vectors/ics-corpus/generate.py  (needs python3-dateutil; the test never runs Python)
"""
import datetime as dt
import json
import os
import re
from zoneinfo import ZoneInfo

from dateutil import rrule, tz

HERE = os.path.dirname(os.path.abspath(__file__))
WINDOW = (dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc), dt.datetime(2021, 6, 1, tzinfo=dt.timezone.utc))
NOW = "2020-01-01T00:00:00Z"
UTC = dt.timezone.utc


def content_lines(text):
    text = re.sub(r"\r?\n[ \t]", "", text)
    out = []
    for line in re.split(r"\r?\n", text):
        if not line.strip():
            continue
        # name;params:value - the first colon outside quotes ends the name and parameters
        inq = False
        for i, ch in enumerate(line):
            if ch == '"':
                inq = not inq
            elif ch == ":" and not inq:
                head, value = line[:i], line[i + 1:]
                break
        else:
            continue
        parts = head.split(";")
        params = {}
        for p in parts[1:]:
            if "=" in p:
                k, v = p.split("=", 1)
                params[k.upper()] = v.strip('"')
        out.append((parts[0].upper(), params, value, line))
    return out


def components(lines):
    """Nested components as dicts: name, props [(name, params, value)], children, raw lines."""
    root = {"name": "ROOT", "props": [], "children": [], "raw": []}
    stack = [root]
    for name, params, value, raw in lines:
        if name == "BEGIN":
            comp = {"name": value.upper().strip(), "props": [], "children": [], "raw": [raw]}
            stack[-1]["children"].append(comp)
            stack.append(comp)
        elif name == "END":
            stack[-1]["raw"].append(raw)
            if len(stack) > 1:
                stack.pop()
        else:
            stack[-1]["props"].append((name, params, value))
            stack[-1]["raw"].append(raw)
    return root


def raw_text(comp):
    out = [comp["raw"][0]]
    for name, params, value in comp["props"]:
        ps = "".join(";%s=%s" % (k, '"%s"' % v if ("," in v or ":" in v or ";" in v) else v) for k, v in params.items())
        out.append("%s%s:%s" % (name, ps, value))
    for c in comp["children"]:
        out.append(raw_text(c))
    out.append("END:" + comp["name"])
    return "\n".join(out)


def zone_for(tzid, file_zones, calendar_zone):
    if tzid is None:
        return calendar_zone
    name = tzid.strip()
    try:
        return ZoneInfo(name)
    except Exception:
        pass
    # Mozilla and Evolution paths end in an IANA name: /freeassociation.sourceforge.net/Tzfile/America/Los_Angeles
    segments = name.split("/")
    for k in range(2, 4):
        if len(segments) > k:
            try:
                return ZoneInfo("/".join(segments[-k:]))
            except Exception:
                pass
    if name in file_zones:
        return file_zones[name]
    raise ValueError("unknown TZID %s" % tzid)


def parse_time(value, params, file_zones, calendar_zone):
    """A DATE (date) or DATE-TIME (aware datetime)."""
    value = value.strip()
    if params.get("VALUE") == "DATE" or re.fullmatch(r"\d{8}", value):
        return dt.date(int(value[0:4]), int(value[4:6]), int(value[6:8]))
    m = re.fullmatch(r"(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})(Z?)", value)
    if not m:
        raise ValueError("bad date-time %s" % value)
    y, mo, d, h, mi, s, z = m.groups()
    naive = dt.datetime(int(y), int(mo), int(d), int(h), int(mi), min(int(s), 59))
    if z:
        return naive.replace(tzinfo=UTC)
    zone = zone_for(params.get("TZID"), file_zones, calendar_zone)
    return naive.replace(tzinfo=zone)


def instant(t):
    if isinstance(t, dt.datetime):
        return t.astimezone(UTC)
    return dt.datetime(t.year, t.month, t.day, tzinfo=UTC)


def count_event(ev, overrides, file_zones, calendar_zone):
    props = ev["props"]
    get = lambda n: next(((p, v) for (name, p, v) in props if name == n), None)
    ds = get("DTSTART")
    start = parse_time(ds[1], ds[0], file_zones, calendar_zone)
    all_day = not isinstance(start, dt.datetime)
    rules = [v for (n, p, v) in props if n == "RRULE"]
    if not rules:
        starts = [start]
    else:
        dtstart = dt.datetime(start.year, start.month, start.day) if all_day else start
        rset = rrule.rruleset()
        for r in rules:
            parts = dict(x.split("=", 1) for x in r.split(";") if "=" in x)
            if "UNTIL" in parts:
                u = parse_time(parts["UNTIL"], {}, file_zones, calendar_zone)
                if all_day:
                    u = dt.datetime(u.year, u.month, u.day, 23, 59, 59) if not isinstance(u, dt.datetime) else u.replace(tzinfo=None)
                elif not isinstance(u, dt.datetime):
                    u = dt.datetime(u.year, u.month, u.day, 23, 59, 59, tzinfo=start.tzinfo)
                elif u.tzinfo is not UTC:
                    u = u.replace(tzinfo=start.tzinfo)
                parts["UNTIL"] = (u.astimezone(UTC) if isinstance(u, dt.datetime) and u.tzinfo else u).strftime("%Y%m%dT%H%M%S") + ("Z" if not all_day else "")
            text = ";".join("%s=%s" % kv for kv in parts.items())
            rset.rrule(rrule.rrulestr(text, dtstart=dtstart, ignoretz=False))
        end = WINDOW[1] if not all_day else WINDOW[1].replace(tzinfo=None)
        starts = []
        for o in rset:
            if (o.tzinfo and o >= WINDOW[1]) or (not o.tzinfo and o >= end):
                break
            starts.append(o.date() if all_day else o)
            if len(starts) > 20000:
                break
    for (n, p, v) in props:
        if n == "RDATE" and p.get("VALUE") != "PERIOD":
            for x in v.split(","):
                t = parse_time(x, p, file_zones, calendar_zone)
                if all_day:
                    t = t if not isinstance(t, dt.datetime) else t.date()
                elif not isinstance(t, dt.datetime):
                    t = dt.datetime(t.year, t.month, t.day, start.hour, start.minute, start.second, tzinfo=start.tzinfo)
                starts.append(t)
    removed_instants, removed_days = set(), set()
    exlist = [(p, v) for (n, p, v) in props if n == "EXDATE"] + [(p, v) for (p, v) in overrides]
    for p, v in exlist:
        for x in v.split(","):
            t = parse_time(x, p, file_zones, calendar_zone)
            if isinstance(t, dt.datetime):
                removed_instants.add(instant(t))
            else:
                removed_days.add(t)
    kept = set()
    for s in starts:
        if isinstance(s, dt.datetime):
            if instant(s) in removed_instants or s.date() in removed_days and False:
                continue
            if s.astimezone(UTC).date() in removed_days or s.date() in removed_days:
                continue
            kept.add(instant(s))
        else:
            if s in removed_days:
                continue
            kept.add(instant(s))
    return sum(1 for k in kept if WINDOW[0] <= k < WINDOW[1])


def read_file(path):
    text = open(path, encoding="utf-8", errors="replace").read()
    root = components(content_lines(text))
    cal = next((c for c in root["children"] if c["name"] == "VCALENDAR"), None)
    if cal is None:
        return {"events": []}
    calendar_zone = UTC
    for n, p, v in cal["props"]:
        if n == "X-WR-TIMEZONE":
            try:
                calendar_zone = ZoneInfo(v.strip())
            except Exception:
                pass
    file_zones = {}
    for c in cal["children"]:
        if c["name"] == "VTIMEZONE":
            tzid = next((v for (n, p, v) in c["props"] if n == "TZID"), None)
            try:
                z = tz.tzical(__import__("io").StringIO("BEGIN:VCALENDAR\n" + raw_text(c) + "\nEND:VCALENDAR\n"))
                file_zones[tzid.replace("\\,", ",").replace("\\;", ";")] = z.get(list(z.keys())[0])
            except Exception as e:
                pass
    vevents = [c for c in cal["children"] if c["name"] == "VEVENT"]
    overrides = {}
    for ev in vevents:
        props = ev["props"]
        uid = next((v for (n, p, v) in props if n == "UID"), None)
        rid = next(((p, v) for (n, p, v) in props if n == "RECURRENCE-ID"), None)
        if uid and rid:
            overrides.setdefault(uid, []).append(rid)
    out = []
    for ev in vevents:
        props = ev["props"]
        if any(n == "RECURRENCE-ID" for (n, p, v) in props):
            continue
        uid = next((v for (n, p, v) in props if n == "UID"), None)
        summary = next((v for (n, p, v) in props if n == "SUMMARY"), "")
        entry = {"uid": uid, "summary": summary}
        try:
            entry["count"] = count_event(ev, overrides.get(uid, []) if uid else [], file_zones, calendar_zone)
        except Exception as e:
            entry["error"] = str(e)
        out.append(entry)
    return {"events": out}


def main():
    result = {"window": [WINDOW[0].strftime("%Y-%m-%dT%H:%M:%SZ"), WINDOW[1].strftime("%Y-%m-%dT%H:%M:%SZ")], "now": NOW, "files": {}}
    for d in sorted(os.listdir(HERE)):
        full = os.path.join(HERE, d)
        if not os.path.isdir(full) or d == "licenses":
            continue
        for f in sorted(os.listdir(full)):
            if f.endswith(".ics"):
                result["files"]["%s/%s" % (d, f)] = read_file(os.path.join(full, f))
    with open(os.path.join(HERE, "counts.json"), "w") as fh:
        json.dump(result, fh, indent=1, sort_keys=True)
        fh.write("\n")
    total = sum(e.get("count", 0) for f in result["files"].values() for e in f["events"])
    print("%d files, %d events, %d occurrences" % (len(result["files"]), sum(len(f["events"]) for f in result["files"].values()), total))


if __name__ == "__main__":
    main()
