"""
Zoned recurrence vectors for test/calendar/recurrence-property.test.ts: random
recurrence sets (RRULE + RDATE + EXDATE) whose starts sit near DST changes,
with the occurrences RFC 5545 gives them, recorded as JSON so the test never
needs Python.

    python3 test/vectors/rrule-zoned/generate.py [seed] [cases] > test/vectors/rrule-zoned/zoned.json

Needs python-dateutil (Debian: python3-dateutil), zoneinfo with the system tz
database, and Node with the npm `rrule` devDependency installed (the
cross-check, crosscheck.cjs). NOTES.md says what is recorded and why.

How an expectation is made (RFC 5545 section numbers in brackets):
- The rule runs on naive wall clocks (dateutil's rrulestr, no COUNT/UNTIL:
  they are applied here, see below), DTSTART's wall clock included as the
  first instance and counted by COUNT even when the rule would not make it
  [3.3.10 "The DTSTART property value always counts as the first
  occurrence"; 3.8.5.3].
- Each wall clock becomes an instant in the series' zone with zoneinfo's
  fold=0: a repeated wall clock is its first instant, a missing one is read
  with the offset before the gap (02:30 on a New York spring-forward day is
  07:30Z, shown 03:30 EDT) [3.3.5]. Only that occurrence moves: the rule
  keeps its wall clock on every other day.
- UNTIL in UTC bounds the instances as instants (inclusive) [3.3.10]. A
  floating UNTIL (which RFC 5545 does not allow with a TZID DTSTART) is kept
  only where reading it as a wall clock or as an instant gives the same set.
- RDATE and EXDATE in UTC or with a TZID are instants; floating ones are wall
  clocks of the series' zone, kept only where wall and instant readings agree.
  EXDATE removes from the whole set (rule and RDATE instances), and the same
  instant made twice is one instance [3.8.5.3: "Duplicate instances are
  ignored"].
- Every instance lasts the exact duration of DTSTART..DTEND (as instants)
  [3.8.5.3]; its end is that instant shown in the zone.
- All-day series (DTSTART;VALUE=DATE) are dates: rules, UNTIL, RDATE and
  EXDATE are compared as dates [3.3.4], and each instance spans as many days
  as the first.
"""
import hashlib, json, random, signal, subprocess, sys, os
from datetime import datetime, date, time, timedelta, timezone
from zoneinfo import ZoneInfo
from dateutil.rrule import rrulestr

SEED = int(sys.argv[1]) if len(sys.argv) > 1 else 20270314
CASES = int(sys.argv[2]) if len(sys.argv) > 2 else 3600
random.seed(SEED)
HERE = os.path.dirname(os.path.abspath(__file__))
UTC = timezone.utc
DAYS = ["MO", "TU", "WE", "TH", "FR", "SA", "SU"]
# An open-ended series is recorded up to this many days after DTSTART's wall clock (calpress's horizon:
# occurrencesToStore(..., now before the start, WINDOW_DAYS)); a series that ends, in full.
WINDOW_DAYS = 400
# The first FIRST instances of each series are recorded in full; all of them as a count and a hash.
FIRST = 12
# More than this many instances in a series that ends: not recorded (calpress stores at most 5,000).
MAX_TOTAL = 4000
# zone: (first year, last year, weight). Sao Paulo is historic (Brazil dropped DST in 2019; its
# changes were at midnight, so a day starts in a gap). Chatham's are at 02:45 / 03:45 (+12:45/+13:45).
ZONES = {
    "Europe/Rome": (2025, 2032, 3),
    "America/New_York": (2025, 2032, 3),
    "Australia/Sydney": (2025, 2032, 3),
    "Asia/Kolkata": (2025, 2032, 1),
    "UTC": (2025, 2032, 1),
    "America/Sao_Paulo": (2010, 2018, 2),
    "Pacific/Chatham": (2025, 2032, 2),
    "Europe/London": (2025, 2032, 2),
}
OTHER_ZONES = ["Asia/Tokyo", "America/Los_Angeles", "Europe/Berlin", "Australia/Adelaide"]


def transitions(zone, y0, y1):
    """(instant, wall before, wall after) of every offset change: a gap when after > before, else a fold."""
    z = ZoneInfo(zone)
    out = []
    t = datetime(y0, 1, 1, tzinfo=UTC)
    end = datetime(y1 + 1, 1, 1, tzinfo=UTC)
    off = t.astimezone(z).utcoffset()
    while t < end:
        n = t + timedelta(hours=1)
        o = n.astimezone(z).utcoffset()
        if o != off:
            lo, hi = t, n
            while hi - lo > timedelta(minutes=1):
                mid = lo + (hi - lo) / 2
                mid = mid.replace(second=0, microsecond=0)
                if mid.astimezone(z).utcoffset() == off:
                    lo = mid if mid > lo else lo + timedelta(minutes=1)
                else:
                    hi = mid
            out.append((hi, (hi + off).replace(tzinfo=None), (hi + o).replace(tzinfo=None)))
            off = o
        t = n
    return out


TRANSITIONS = {zone: transitions(zone, y0, y1) for zone, (y0, y1, _) in ZONES.items()}


def instant(wall, zone):
    """A wall clock of `zone` as an instant, RFC 5545 3.3.5's way (zoneinfo fold=0)."""
    return wall.replace(tzinfo=ZoneInfo(zone), fold=0).astimezone(UTC)


def shown(t, zone):
    """An instant as `YYYYMMDDTHHMMSS±HHMM`: its wall clock in `zone` and the offset there."""
    local = t.astimezone(ZoneInfo(zone))
    off = int(local.utcoffset().total_seconds() // 60)
    sign = "+" if off >= 0 else "-"
    return local.strftime("%Y%m%dT%H%M%S") + "%s%02d%02d" % (sign, abs(off) // 60, abs(off) % 60)


def sql(t, zone=None):
    return (t.astimezone(ZoneInfo(zone)) if zone else t).strftime("%Y-%m-%d %H:%M:%S")


def ical(wall):
    return wall.strftime("%Y%m%dT%H%M%S")


# ---- rules: the random ones of test/vectors/rrule/generate.py (the forms dateutil follows the RFC on) ----

def pick(lo, hi, signed=False, k=None):
    k = k or random.randint(1, 3)
    out = set()
    while len(out) < k:
        v = random.randint(lo, hi)
        if signed and random.random() < 0.35:
            v = -v
        out.add(v)
    return ",".join(str(v) for v in sorted(out))


def random_rule():
    freq = random.choice(["DAILY", "WEEKLY", "MONTHLY", "YEARLY"])
    parts = ["FREQ=" + freq]
    if random.random() < 0.35:
        parts.append("INTERVAL=%d" % random.choice([2, 3, 4, 5, 7, 10, 13]))
    if random.random() < 0.3:
        parts.append("BYMONTH=" + pick(1, 12))
    ordinals = freq in ("MONTHLY", "YEARLY")
    weekno = freq == "YEARLY" and random.random() < 0.15
    if weekno:
        parts.append("BYWEEKNO=" + pick(1, 53, signed=True))
    if random.random() < 0.45:
        days = random.sample(DAYS, random.randint(1, 3))
        if ordinals and not weekno and random.random() < 0.5:
            # Every weekday with an ordinal, or none: dateutil intersects mixed lists, which the RFC does not.
            lim = 5 if freq == "MONTHLY" or "BYMONTH" in ";".join(parts) else 53
            days = ["%d%s" % (random.choice([1, -1]) * random.randint(1, lim), d) for d in days]
        parts.append("BYDAY=" + ",".join(days))
    if freq != "WEEKLY" and random.random() < 0.3:
        parts.append("BYMONTHDAY=" + pick(1, 31, signed=True))
    if freq == "YEARLY" and random.random() < 0.15:
        parts.append("BYYEARDAY=" + pick(1, 366, signed=True))
    if len(parts) > 1 and any(p.startswith("BY") for p in parts) and random.random() < 0.2:
        parts.append("BYSETPOS=" + pick(1, 4, signed=True, k=random.randint(1, 2)))
    if random.random() < 0.2:
        parts.append("WKST=" + random.choice(DAYS))
    return ";".join(parts)


def shaped_rule(day):
    """A rule that lands on `day` (a DST change's day) again and again, the way real series meet DST."""
    wd = DAYS[day.weekday()]
    nth = (day.day - 1) // 7 + 1
    last = (day + timedelta(days=7)).month != day.month
    ordinal = -1 if last and random.random() < 0.6 else nth
    return random.choice([
        "FREQ=DAILY",
        "FREQ=DAILY;INTERVAL=%d" % random.choice([2, 3, 7]),
        "FREQ=WEEKLY",
        "FREQ=WEEKLY;BYDAY=%s,%s" % (wd, random.choice([d for d in DAYS if d != wd])),
        "FREQ=WEEKLY;INTERVAL=2;BYDAY=%s" % wd,
        "FREQ=MONTHLY;BYDAY=%d%s" % (ordinal, wd),
        "FREQ=YEARLY;BYMONTH=%d;BYDAY=%d%s" % (day.month, ordinal, wd),
        "FREQ=YEARLY;BYMONTH=%d;BYDAY=%s;BYSETPOS=%d" % (day.month, wd, ordinal),
        "FREQ=MONTHLY;BYMONTHDAY=%d" % day.day,
    ])


# ---- expansion ----

class Slow(Exception):
    pass


def alarm(signum, frame):
    raise Slow()


signal.signal(signal.SIGALRM, alarm)


def rule_walls(body, dt0, stop, cap=MAX_TOTAL + 200):
    """The wall clocks dateutil's rule makes from dt0 up to `stop` (at most `cap`), DTSTART not added."""
    out = []
    for w in rrulestr("RRULE:" + body, dtstart=dt0):
        if w > stop or len(out) >= cap:
            break
        out.append(w)
    return out


class Ambiguous(Exception):
    """A floating value whose wall-clock and instant readings give different sets."""


def recurrence_set(c, walls, mode):
    """
    The instances (sorted (instant, key)) of case `c` given the rule's walls from dateutil, with floating
    values read as wall clocks ("wall") or as instants ("instant"). Timed series only.
    """
    zone = c["zone"]
    dt0 = c["dt0"]
    ws = sorted(set(walls) | {dt0})
    if c["count"] is not None:
        ws = ws[: c["count"]]
    u = c["until"]
    if u is not None:
        kind, value = u
        if kind == "utc":
            ws = [w for w in ws if w == dt0 or instant(w, zone) <= value]
        elif mode == "wall":
            ws = [w for w in ws if w == dt0 or w <= value]
        else:
            ws = [w for w in ws if w == dt0 or instant(w, zone) <= instant(value, zone)]
    if c["horizon"] is not None:
        ws = [w for w in ws if w <= c["horizon"]]
    # Candidates: (key wall or None, instant).
    cands = [(w, instant(w, zone)) for w in ws]
    for kind, value, tz in c["rdates"]:
        if kind == "float":
            cand = (value, instant(value, zone))
        elif kind == "utc":
            cand = (None, value)
        else:
            cand = (None, instant(value, tz))
        # An open-ended series is recorded up to its window, RDATEs too (their wall clock in the zone).
        if c["horizon"] is None or cand[1].astimezone(ZoneInfo(zone)).replace(tzinfo=None) <= c["horizon"]:
            cands.append(cand)
    kept = []
    keys, instants, unkeyed = set(), set(), set()
    for key, t in cands:
        if mode == "wall":
            # Wall clocks against wall clocks, instants against anything with no wall clock of its own.
            dup = (key in keys or t in unkeyed) if key is not None else t in instants
        else:
            dup = t in instants
        if not dup:
            kept.append((key, t))
            instants.add(t)
            if key is None:
                unkeyed.add(t)
            else:
                keys.add(key)
    out = []
    for key, t in kept:
        gone = False
        for kind, value, tz in c["exdates"]:
            if kind == "float":
                gone |= (key == value) if (mode == "wall" and key is not None) else (t == instant(value, zone))
            elif kind == "utc":
                gone |= t == value
            else:
                gone |= t == instant(value, tz)
        if not gone:
            out.append((t, key))
    return sorted(out, key=lambda p: p[0])


def in_gap_or_fold(wall, zone):
    """'g' when `wall` does not exist in `zone`, 'f' when it exists twice, '' otherwise."""
    z = ZoneInfo(zone)
    a = wall.replace(tzinfo=z, fold=0)
    b = wall.replace(tzinfo=z, fold=1)
    if a.utcoffset() == b.utcoffset():
        return ""
    # A gap: the wall clock read back from its instant is another one.
    return "g" if a.astimezone(UTC).astimezone(z).replace(tzinfo=None) != wall else "f"


# ---- one case ----

def pick_zone():
    names = list(ZONES)
    return random.choices(names, weights=[ZONES[n][2] for n in names])[0]


def make_case(index):
    zone = pick_zone()
    y0, y1, _ = ZONES[zone]
    all_day = random.random() < 0.2
    trs = TRANSITIONS[zone]
    edge = None
    if trs and random.random() < 0.85:
        edge = random.choice(trs[:-2] if len(trs) > 4 else trs)
        anchor = edge[1].date()
    else:
        anchor = date(y0, 1, 1) + timedelta(days=random.randint(0, (y1 - y0) * 365))
    # Time of day: in the change's missing or repeated hour, at its edges, or anywhere.
    if edge is not None and random.random() < 0.75:
        lo, hi = sorted([edge[1], edge[2]])
        span = int((hi - lo).total_seconds() // 60)
        r = random.random()
        if r < 0.65:
            tod = (lo + timedelta(minutes=random.choice([0, span // 4, span // 2, span - 15, span - 1]))).time()
        else:
            tod = (lo + timedelta(minutes=random.choice([-60, -15, -1, span, span + 15, span + 30]))).time()
    else:
        tod = time(random.randint(0, 23), random.choice([0, 15, 30, 45]))
    if edge is not None and random.random() < 0.3:
        body = shaped_rule(anchor)
    else:
        body = random_rule()
    weekly_shape = body.startswith("FREQ=WEEKLY") and "BYDAY" not in body
    r = random.random()
    back = 0 if r < 0.1 else random.randint(1, 14) if r < 0.5 else random.randint(15, 120) if r < 0.75 else random.randint(121, 800)
    if weekly_shape:
        back = 7 * (back // 7)
    start = anchor - timedelta(days=back)
    if start.year < y0:
        start = date(y0, 1, 1) + timedelta(days=random.randint(0, 60))
    dt0 = datetime.combine(start, time(0, 0) if all_day else tod)
    if all_day:
        span = random.choice([1, 1, 1, 2, 3])
        dur = None
    else:
        minutes = random.choice([15, 30, 60, 60, 90, 120, 180, 300, 1440, 1500])
        dtend = dt0 + timedelta(minutes=minutes)
        dur = instant(dtend, zone) - instant(dt0, zone)
        if dur <= timedelta(0):
            return None
    c = {"zone": zone, "dt0": dt0, "dtend": None if all_day else dtend, "all_day": all_day, "body": body, "count": None, "until": None, "horizon": None, "rdates": [], "exdates": []}
    # The rule's walls, far enough for any bound chosen below.
    far = dt0 + timedelta(days=6 * 366)
    try:
        signal.alarm(1)
        walls = rule_walls(body, dt0, far)
    except Slow:
        return "slow"
    except ValueError:
        return None
    finally:
        signal.alarm(0)
    if not walls or (walls == [dt0]):
        # Nothing after DTSTART for six years: calpress refuses a rule that never repeats; a sparse one
        # is not this test's subject (test/vectors/rrule covers the engine's days).
        return None
    after = [w for w in walls if w > dt0]
    if not after:
        return None
    r = random.random()
    line = "RRULE:" + body
    if r < 0.4:
        c["count"] = random.randint(1, 40)
        line += ";COUNT=%d" % c["count"]
        if len(walls) < c["count"]:
            # A sparse rule: its COUNT reaches past six years.
            try:
                signal.alarm(1)
                walls = rule_walls(body, dt0, datetime(9999, 1, 1), cap=c["count"])
                far = walls[-1]
            except Slow:
                return "slow"
            finally:
                signal.alarm(0)
    elif r < 0.65:
        target = random.choice(after[:60])
        if all_day:
            u = target.date() + timedelta(days=random.choice([0, 0, -1, 1, 30]))
            c["until"] = ("date", u)
            line += ";UNTIL=" + u.strftime("%Y%m%d")
        elif random.random() < 0.6:
            delta = timedelta(minutes=random.choice([0, 0, 0, -60, 60, -30, 30, -1, 24 * 60]))
            u = instant(target, zone) + delta
            c["until"] = ("utc", u)
            line += ";UNTIL=" + u.strftime("%Y%m%dT%H%M%SZ")
        else:
            u = target + timedelta(minutes=random.choice([0, 0, -60, 60, -30, 30]))
            c["until"] = ("float", u)
            line += ";UNTIL=" + ical(u)
    else:
        c["horizon"] = dt0 + timedelta(days=WINDOW_DAYS)
    lines = [line]
    # Instances the rule makes (before RDATE/EXDATE): where RDATEs duplicate and EXDATEs aim.
    near = after[:40]
    day_kinds = [w for w in near if in_gap_or_fold(w, zone)]
    if all_day:
        if random.random() < 0.3:
            ds = sorted({(dt0 + timedelta(days=random.randint(1, 300))).date() for _ in range(random.randint(1, 3))} | ({random.choice(near).date()} if random.random() < 0.3 else set()))
            c["rdates"] = [("date", d, None) for d in ds]
            lines.append("RDATE;VALUE=DATE:" + ",".join(d.strftime("%Y%m%d") for d in ds))
        if random.random() < 0.35:
            pool = [dt0] + near
            ds = sorted({random.choice(pool).date() for _ in range(random.randint(1, 3))})
            c["exdates"] = [("date", d, None) for d in ds]
            lines.append("EXDATE;VALUE=DATE:" + ",".join(d.strftime("%Y%m%d") for d in ds))
    else:
        if random.random() < 0.3:
            for _ in range(random.randint(1, 3)):
                r = random.random()
                if r < 0.3 and edge is not None:
                    lo, hi = sorted([edge[1], edge[2]])
                    w = lo + timedelta(minutes=random.choice([0, int((hi - lo).total_seconds() // 120), -30, int((hi - lo).total_seconds() // 60)]))
                elif r < 0.5:
                    w = random.choice(near)
                else:
                    w = datetime.combine((dt0 + timedelta(days=random.randint(1, 300))).date(), time(random.randint(0, 23), random.choice([0, 30])))
                if w <= dt0:
                    continue
                f = random.random()
                if f < 0.5:
                    c["rdates"].append(("float", w, None))
                elif f < 0.85:
                    c["rdates"].append(("utc", instant(w, zone), None))
                else:
                    tz = zone if random.random() < 0.6 else random.choice(OTHER_ZONES)
                    c["rdates"].append(("tzid", instant(w, zone).astimezone(ZoneInfo(tz)).replace(tzinfo=None), tz))
        if random.random() < 0.35:
            pool = [dt0] + near + day_kinds * 3
            for _ in range(random.randint(1, 3)):
                w = random.choice(pool)
                f = random.random()
                if f < 0.4:
                    c["exdates"].append(("float", w, None))
                elif f < 0.75:
                    c["exdates"].append(("utc", instant(w, zone), None))
                elif f < 0.85:
                    tz = zone if random.random() < 0.6 else random.choice(OTHER_ZONES)
                    c["exdates"].append(("tzid", instant(w, zone).astimezone(ZoneInfo(tz)).replace(tzinfo=None), tz))
                else:
                    # Near misses: an hour off, which must remove nothing (unless it is another instance).
                    c["exdates"].append(("utc", instant(w, zone) + timedelta(hours=random.choice([-1, 1])), None))
        lines += date_lines("RDATE", c["rdates"]) + date_lines("EXDATE", c["exdates"])
    c["lines"] = lines
    c["walls"] = walls
    c["stop"] = far
    c["dur"] = dur
    c["span"] = span if all_day else None
    return c


def date_lines(name, values):
    out = []
    floats = [ical(v) for k, v, _ in values if k == "float"]
    utcs = [v.strftime("%Y%m%dT%H%M%SZ") for k, v, _ in values if k == "utc"]
    if floats:
        out.append("%s:%s" % (name, ",".join(floats)))
    if utcs:
        out.append("%s:%s" % (name, ",".join(utcs)))
    for k, v, tz in values:
        if k == "tzid":
            out.append("%s;TZID=%s:%s" % (name, tz, ical(v)))
    return out


def all_day_set(c, walls):
    dt0 = c["dt0"]
    ds = sorted({w.date() for w in walls} | {dt0.date()})
    if c["count"] is not None:
        ds = ds[: c["count"]]
    if c["until"] is not None:
        ds = [d for d in ds if d == dt0.date() or d <= c["until"][1]]
    if c["horizon"] is not None:
        ds = [d for d in ds if d <= c["horizon"].date()]
    ds = sorted(set(ds) | {d for _, d, _ in c["rdates"] if c["horizon"] is None or d <= c["horizon"].date()})
    gone = {d for _, d, _ in c["exdates"]}
    return [d for d in ds if d not in gone]


def tag(c, key, t):
    """Why an instance is interesting: g = its rule wall clock is missing (moved out of a gap), f = repeated
    (the first instant taken), r = it comes from an RDATE only, e = its end crosses a change (exact duration)."""
    zone = c["zone"]
    s = ""
    if key is not None:
        s += in_gap_or_fold(key, zone)
    else:
        s += "r"
    end = t + c["dur"]
    if t.astimezone(ZoneInfo(zone)).utcoffset() != end.astimezone(ZoneInfo(zone)).utcoffset():
        s += "e"
    return s


def record(c):
    zone = c["zone"]
    if c["all_day"]:
        days = all_day_set(c, c["walls"])
        if len(days) > MAX_TOTAL:
            return None
        last = lambda d: d + timedelta(days=c["span"] - 1)
        canon = ["%s|%s" % (d.isoformat(), last(d).isoformat()) for d in days]
        first = [d.strftime("%Y%m%d") for d in days[:FIRST]]
        start, end = c["dt0"].date().isoformat(), last(c["dt0"].date()).isoformat()
    else:
        a = recurrence_set(c, c["walls"], "instant")
        b = recurrence_set(c, c["walls"], "wall")
        if [t for t, _ in a] != [t for t, _ in b]:
            raise Ambiguous()
        if len(a) > MAX_TOTAL:
            return None
        dur = c["dur"]
        canon = ["%s|%s|%s|%s" % (sql(t, zone), sql(t), sql(t + dur, zone), sql(t + dur)) for t, _ in a]
        first = []
        for t, key in a[:FIRST]:
            g = tag(c, key, t)
            first.append("%s %s%s" % (shown(t, zone), shown(t + dur, zone), " " + g if g else ""))
        days = a
        start = sql(c["dt0"])
        end = sql(c["dtend"])
    out = {
        "zone": zone,
        "all_day": c["all_day"],
        "start": start,
        "end": end,
        "recurrence": c["lines"],
        "window": None if c["horizon"] is None else sql(c["horizon"]),
        "total": len(days),
        "hash": hashlib.sha256("\n".join(canon).encode()).hexdigest()[:16],
        "first": first,
    }
    return out


def main():
    cases = []
    crosscheck_input = []
    stats = {"slow": 0, "ambiguous": 0, "too_many": 0}
    while len(cases) < CASES:
        c = make_case(len(cases))
        if c == "slow":
            stats["slow"] += 1
            continue
        if c is None:
            continue
        try:
            rec = record(c)
        except Ambiguous:
            stats["ambiguous"] += 1
            continue
        if rec is None:
            stats["too_many"] += 1
            continue
        cases.append(rec)
        crosscheck_input.append({"rule": c["body"], "start": c["dt0"].strftime("%Y-%m-%dT%H:%M:%S"), "walls": [w.strftime("%Y-%m-%dT%H:%M:%S") for w in c["walls"]], "stop": c["stop"].strftime("%Y-%m-%dT%H:%M:%S")})
    # The cross-check: npm rrule (a port of dateutil, written separately) on the same rules and wall clocks.
    res = subprocess.run(["node", os.path.join(HERE, "crosscheck.cjs")], input=json.dumps(crosscheck_input), capture_output=True, text=True, check=True)
    verdicts = json.loads(res.stdout)
    disagreements = 0
    for rec, v in zip(cases, verdicts):
        if v is not None:
            if not v.startswith("rrule.js BYSETPOS"):
                # A difference with no known cause: someone must read the RFC on it before it is recorded.
                sys.exit("unexplained disagreement with npm rrule: %s %s: %s" % (rec["start"], rec["recurrence"][0], v))
            disagreements += 1
            rec["crosscheck"] = v
    print(json.dumps({
        "generator": "python-dateutil %s + zoneinfo (tzdata %s), cross-checked with npm rrule %s; seed %d" % (__import__("dateutil").__version__, tzdata_version(), rrule_version(), SEED),
        "window_days": WINDOW_DAYS,
        "first": FIRST,
        "left_out": stats,
        "crosscheck_disagreements": disagreements,
        "cases": cases,
    }, separators=(",", ":")))


def tzdata_version():
    try:
        with open("/usr/share/zoneinfo/tzdata.zi") as f:
            return f.readline().split()[-1]
    except OSError:
        return "?"


def rrule_version():
    return json.loads(subprocess.run(["node", "-p", "JSON.stringify(require('rrule/package.json').version)"], capture_output=True, text=True, cwd=HERE, check=True).stdout)


if __name__ == "__main__":
    main()
