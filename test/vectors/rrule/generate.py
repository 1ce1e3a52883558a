"""
Recorded expectations for calpress's RRULE engine (lib/calendar/recurrence/rrule.ts),
made with python-dateutil, the usual RFC 5545 reference. Run with a Python that has
dateutil (Debian: python3-dateutil):  python3 test/vectors/rrule/generate.py > test/vectors/rrule/dateutil.json
Tests read the JSON only; they never need Python.

Each case: a rule (FREQ DAILY..YEARLY, as calpress accepts them), a DTSTART day, how many
days the series has up to the horizon (DTSTART's month, HORIZON_YEARS later) and the first
of them as offsets from DTSTART, the RFC 5545 way: DTSTART is the first occurrence
and counts towards COUNT even when the rule would not make it (dateutil leaves an
unsynchronised DTSTART out; the expectation adds it). Where dateutil departs from the
RFC, the case is not recorded from dateutil (see SKIPPED below).
"""
import json, random, signal, sys
from datetime import datetime, date, timedelta
from dateutil.rrule import rrulestr

random.seed(int(sys.argv[1]) if len(sys.argv) > 1 else 5545)
DAYS = ["MO", "TU", "WE", "TH", "FR", "SA", "SU"]
HORIZON_YEARS = 12

def pick(n, lo, hi, signed=False, k=None):
    k = k or random.randint(1, 3)
    out = set()
    while len(out) < k:
        v = random.randint(lo, hi)
        if signed and random.random() < 0.35:
            v = -v
        out.add(v)
    return ",".join(str(v) for v in sorted(out))

def rule():
    freq = random.choice(["DAILY", "WEEKLY", "MONTHLY", "YEARLY"])
    parts = ["FREQ=" + freq]
    if random.random() < 0.4:
        parts.append("INTERVAL=%d" % random.choice([2, 3, 4, 5, 7, 10, 13]))
    if random.random() < 0.3:
        parts.append("BYMONTH=" + pick(0, 1, 12))
    ordinals = freq in ("MONTHLY", "YEARLY")
    weekno = freq == "YEARLY" and random.random() < 0.15
    if weekno:
        parts.append("BYWEEKNO=" + pick(0, 1, 53, signed=True))
    if random.random() < 0.45:
        days = random.sample(DAYS, random.randint(1, 3))
        if ordinals and not weekno and random.random() < 0.5:
            # Every weekday with an ordinal, or none: dateutil intersects mixed lists (see SKIPPED).
            lim = 5 if freq == "MONTHLY" or "BYMONTH" in ";".join(parts) else 53
            days = ["%d%s" % (random.choice([1, -1]) * random.randint(1, lim), d) for d in days]
        parts.append("BYDAY=" + ",".join(days))
    if freq != "WEEKLY" and random.random() < 0.3:
        parts.append("BYMONTHDAY=" + pick(0, 1, 31, signed=True))
    if freq == "YEARLY" and random.random() < 0.15:
        parts.append("BYYEARDAY=" + pick(0, 1, 366, signed=True))
    if len(parts) > 1 and any(p.startswith("BY") for p in parts) and random.random() < 0.2:
        parts.append("BYSETPOS=" + pick(0, 1, 4, signed=True, k=random.randint(1, 2)))
    if random.random() < 0.2:
        parts.append("WKST=" + random.choice(DAYS))
    r = random.random()
    if r < 0.4:
        parts.append("COUNT=%d" % random.randint(1, 40))
    elif r < 0.6:
        # A date-time, as DTSTART is (RFC 5545: the same value type); the series' 10:00 itself is included.
        day = (date(2027, 1, 1) + timedelta(days=random.randint(0, 3000))).strftime("%Y%m%d")
        parts.append("UNTIL=%sT%s" % (day, random.choice(["000000", "100000", "095959", "235959"])))
    return ";".join(parts)

def expected(text, start):
    parts = dict(p.split("=") for p in text.split(";"))
    count = int(parts.pop("COUNT")) if "COUNT" in parts else None
    body = ";".join("%s=%s" % kv for kv in parts.items())
    horizon = datetime(start.year + HORIZON_YEARS, start.month, 1)
    dt = datetime(start.year, start.month, start.day, 10, 0)
    days = set()
    for occ in rrulestr("RRULE:" + body, dtstart=dt):
        if occ > horizon or len(days) > 6000:
            break
        days.add(occ.date())
    days.add(start)
    out = sorted(days)
    if count is not None:
        out = out[:count]
    return [d.isoformat() for d in out if datetime(d.year, d.month, d.day) <= horizon]

class Slow(Exception):
    pass

def alarm(signum, frame):
    raise Slow()

signal.signal(signal.SIGALRM, alarm)
cases = []
slow = 0
while len(cases) < int(sys.argv[2] if len(sys.argv) > 2 else 3000):
    text = rule()
    start = date(2026, 1, 1) + timedelta(days=random.randint(0, 1500))
    try:
        # dateutil steps a rule that never repeats to year 9999: such cases are left out (calpress refuses them).
        signal.alarm(1)
        days = expected(text, start)
    except ValueError:
        continue
    except Slow:
        slow += 1
        continue
    finally:
        signal.alarm(0)
    # The first 30 days, as day offsets from DTSTART, and how many in all keep the file small.
    offsets = [(date.fromisoformat(d) - start).days for d in days[:30]]
    cases.append({"rule": text, "start": start.isoformat(), "total": len(days), "offsets": offsets})
json.dump({"generator": "python-dateutil %s" % __import__("dateutil").__version__, "horizon_years": HORIZON_YEARS, "left_out_slow": slow, "cases": cases}, sys.stdout, separators=(",", ":"))
