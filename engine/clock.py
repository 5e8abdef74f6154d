"""Times of day and dates in a text, as points on one line: what pairing rules 3 add to the notes.

"Deadline: Friday 14 March, 17:00" and "Eero Laine - Fri 14 March 17:40"; "sunset 17:02" and
"17:30 OC-3 on yard road north"; "from 02:00 to 05:00, export must be 60 MW or less" and
"02:05 58 MW": whether one point comes before another is arithmetic on calendars, which a small
encoder has never learned, so code does it and the notes say "after", "before" or "within" in
words (engine/notes.py). The same points give elapsed times: "14:03:10 path blocked" and
"14:04:02 help request sent" are 52 s apart, which a note compares with "blocked for more than
45 seconds".

A point is a clock time ("17:02", "14:03:10", "9:30 pm"), a date ("14 March 2025", "Fri 14
March", "March 14, 2025", "2025-03-14", "14/03/2025"), or a date with a clock time after it
("Friday 14 March, 17:00"). Its `kind` says which of the three it is; only points of one kind
are compared. A date without a year takes the text's commonest year. Two points of one kind
joined by "to", "and" or a dash are a span ("02:00 to 05:00", "between 22:00 and 06:00"; a
span of clock times may run past midnight). This module knows nothing of the model or of torch.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from datetime import date

MONTHS = {m[:3].lower(): i for i, m in enumerate(
    ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November",
     "December"), 1)}
_MONTH = r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sept?(?:ember)?|" \
         r"Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)(?!\w)"
_WEEKDAY = r"(?:(?:Mon|Tues?|Wed(?:nes)?|Thu(?:rs?)?|Fri|Sat(?:ur)?|Sun)(?:day)?\.?,?\s)?"
_ORD = r"(?:st|nd|rd|th)?"
DATE = re.compile(
    rf"(?<![\w/.-]){_WEEKDAY}(?:(?P<d1>[0-3]?\d){_ORD}\s(?:of\s)?(?P<m1>{_MONTH})(?:,?\s(?P<y1>(?:19|20)\d\d))?"
    rf"|(?P<m2>{_MONTH})\s(?P<d2>[0-3]?\d){_ORD}(?:,?\s(?P<y2>(?:19|20)\d\d))?"
    r"|(?P<y3>(?:19|20)\d\d)-(?P<m3>[01]\d)-(?P<d3>[0-3]\d)"
    r"|(?P<d4>[0-3]?\d)[/.](?P<m4>[01]?\d)[/.](?P<y4>(?:19|20)\d\d))(?![\w/-])")
CLOCK = re.compile(r"(?<![\w:./])(?P<h>[01]?\d|2[0-3]):(?P<min>[0-5]\d)(?::(?P<s>[0-5]\d))?"
                   r"(?:\s?(?P<ampm>[ap]\.?m\.?)(?!\w))?(?!\w|[:.,]\d)", re.IGNORECASE)
DATE_THEN_CLOCK = re.compile(r",?\s(?:at\s)?(?=\d)")  # "Friday 14 March, 17:00", "14 March at 09:00"
SPAN = re.compile(r"\s*(?:to|and|until|till|-|–|—)\s*")
DAY = 86400
MIDNIGHT_GAP = 6 * 3600  # the most a clock time that reads earlier may be a later one past midnight


@dataclass
class Point:
    start: int
    end: int
    kind: str    # "clock" (seconds of the day), "date" (days), "datetime" (seconds)
    value: int
    text: str
    high: int | None = None  # a span's end (value is its start); below value: past midnight
    parts: tuple[Point, Point] | None = None  # a span's two points


def _clock_seconds(m: re.Match) -> int:
    h = int(m.group("h"))
    if ampm := m.group("ampm"):
        h = h % 12 + (12 if ampm[0].lower() == "p" else 0)
    return h * 3600 + int(m.group("min")) * 60 + int(m.group("s") or 0)


def _date_parts(m: re.Match) -> tuple[int, int, int | None]:
    """(day, month, year or None) of a `DATE` match, whichever of its four forms it is."""
    i = next(i for i in "1234" if m.group("d" + i) is not None)
    month, year = m.group("m" + i), m.group("y" + i)
    return int(m.group("d" + i)), int(month) if month.isdigit() else MONTHS[month[:3].lower()], \
        int(year) if year else None


def points(text: str) -> list[Point]:
    """Every time point of `text`, in order, spans joined."""
    dates = [(m, _date_parts(m)) for m in DATE.finditer(text)]
    years = Counter(y for _, (_, _, y) in dates if y)
    year = years.most_common(1)[0][0] if years else 2001
    out: list[Point] = []
    taken = []
    for m, (d, mo, y) in dates:
        try:
            day = date(y or year, mo, d).toordinal()
        except ValueError:  # "31 June", "29 February" in a common year
            continue
        end, kind, value = m.end(), "date", day
        if (sep := DATE_THEN_CLOCK.match(text, m.end())) and (c := CLOCK.match(text, sep.end())):
            end, kind, value = c.end(), "datetime", day * DAY + _clock_seconds(c)
        out.append(Point(m.start(), end, kind, value, text[m.start():end]))
        taken.append((m.start(), end))
    days, last = 0, None  # a night log runs past midnight: "23:50 ... 00:30" is the next day's 00:30
    for c in CLOCK.finditer(text):
        if not any(a <= c.start() < b for a, b in taken):
            value = _clock_seconds(c) + days * DAY
            if last is not None and value < last - DAY / 2:
                days, value = days + 1, value + DAY
            out.append(Point(c.start(), c.end(), "clock", value, c.group(0)))
            last = value
    out.sort(key=lambda p: p.start)
    joined: list[Point] = []
    for p in out:
        last = joined[-1] if joined else None
        if last and last.high is None and last.kind == p.kind and (sep := SPAN.match(text, last.end)) \
                and sep.end() == p.start and (p.kind == "clock" or p.value > last.value):
            joined[-1] = Point(last.start, p.end, p.kind, last.value, text[last.start:p.end], p.value, (last, p))
        else:
            joined.append(p)
    return joined


def relation(reading: int, limit: int, high: int | None, kind: str) -> str:
    """How a point's value stands to a limit point's (to a span's, from `limit` to `high`): after,
    before, at (on, for dates); within or outside."""
    if high is not None:
        if kind == "clock":  # a span of clock times is of any day: "between 22:00 and 06:00"
            reading, limit, high = reading % DAY, limit % DAY, high % DAY
        inside = limit <= reading <= high if limit <= high else reading >= limit or reading <= high
        return "within" if inside else "outside"
    if reading == limit:
        return "on" if kind == "date" else "at"
    return "after" if reading > limit else "before"


def elapsed(later: int, earlier: int, kind: str) -> int | None:
    """Seconds from the point `earlier` to the point `later` (values of one kind; a clock time may
    be past midnight), or None where the later one does not come after."""
    step = (later - earlier) * (DAY if kind == "date" else 1)
    if kind == "clock" and step < 0:  # "23:50 ... 00:10" where the text does not run in order
        step = step + DAY if step + DAY <= MIDNIGHT_GAP else 0
    return step if step > 0 else None


def working_days(later: int, earlier: int) -> int:
    """Monday-to-Friday days after the date `earlier` up to and including the date `later` (days
    since 1 January of year 1, as `date.toordinal`)."""
    return sum(date.fromordinal(d).weekday() < 5 for d in range(earlier + 1, later + 1))
