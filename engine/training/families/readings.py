"""Corpus-v2 family `readings`: plant status reports and alarm panels with numbers.

A context is what a shift log, a status report or an alarm panel says about a plant:
instrument readings with units ("TT-101 reads 131.5 °C", "LT-301 (TK-12 level) at 92 %"),
limits and set points (trips, H/HH/L/LL alarms, operating windows, "within 0.5 bar of its
set point", "110% of rated current"), the line-up (duty/standby pairs, controller and line
modes, plant state) and the logic that acts on them ("K-101 trips if TT-101 goes above its
trip setting", "when K-101 trips, K-102 starts and line 3 goes to MANUAL").

Semantics (exact; no unit conversion ever):
- comparisons: above / exceeds / over / greater than are strict (>); reaches / at least /
  not below are inclusive (>=); below / under / less than / falls below are strict (<);
  at most / no more than / does not exceed are inclusive (<=). "Between A and B", operating
  windows and bands include their ends; "within X of the set point" means |x - SP| <= X.
  Numbers compare as decimals (128 = 128.0, 0.8 = 0.80). A reading is compared only with
  limits in its own unit; a local gauge in another unit is a distractor.
- alarm state: high-high above HH, else high above H, else low-low below LL, else low
  below L, else normal (a tag whose alarm state is asked never reads exactly on a limit).
- the line-up (running/standby status, duty unit, controller mode, plant state) is a
  default: a rule or a case list that fires overrides it. A boolean state (a valve open, a
  heater disabled, a start permissive made, a bypass active) holds only when stated or
  concluded (closed world).

Ground truth is forward chaining with `base.Program`: comparisons and alarm states are
computed here exactly and enter the program as facts; rules, case lists and defaults do the
rest. `support[i]` is checked by deletion: the candidate sentence is removed, answer i is
forced, and every other answer must stay the same for every value the lost numbers could
have had (`World._solve` enumerates them); the supports of a set are also checked together,
since training deletes those of all revealed answers at once.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, replace
from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal
from itertools import product
from typing import Callable, Hashable, Sequence

from decider.engine.training.corpus import DecisionSet
from decider.engine.training.families.base import (COUNTS, Asked, Cases, Program, Rule, SetBuilder, Style, Value,
                                                   add_phrasings, answer_links, cap, compared_with, names, pick,
                                                   listed, none_or_more, program_rules, written_labels, written_numbers)
from decider.engine.training.families.phrasings import readings as phrasings

DOMAIN = "readings"

# ============================================================================ numbers
OPS = (">", ">=", "<", "<=", "between", "outside", "within", "beyond")
MIRROR = {">": "<", ">=": "<=", "<": ">", "<=": ">="}  # x OP t  <=>  t MIRROR[OP] x


def dec(x) -> Decimal:
    """An exact decimal from a Decimal, an int or a written number ("1,480", "0.80")."""
    if isinstance(x, Decimal):
        return x
    if isinstance(x, float):
        raise TypeError("pass numbers as str, int or Decimal (floats are not exact)")
    return Decimal(str(x).replace(",", ""))


def compare(op: str, x, a, b=None) -> bool:
    """x OP a (b: the upper end of a band, or the tolerance of `within`/`beyond`), exactly."""
    x, a = dec(x), dec(a)
    b = None if b is None else dec(b)
    if op == ">":
        return x > a
    if op == ">=":
        return x >= a
    if op == "<":
        return x < a
    if op == "<=":
        return x <= a
    if op == "between":
        return min(a, b) <= x <= max(a, b)
    if op == "outside":
        return not compare("between", x, a, b)
    if op == "within":
        return abs(x - a) <= b
    if op == "beyond":
        return abs(x - a) > b
    raise ValueError(f"unknown comparison {op!r}")


def alarm_state(x, limits: dict) -> str:
    """"HH", "H", "LL", "L" or "normal" for a reading against the alarm limits it has."""
    x = dec(x)
    lim = {k: dec(v) for k, v in limits.items()}
    if "HH" in lim and x > lim["HH"]:
        return "HH"
    if "H" in lim and x > lim["H"]:
        return "H"
    if "LL" in lim and x < lim["LL"]:
        return "LL"
    if "L" in lim and x < lim["L"]:
        return "L"
    return "normal"


def percent_of(pct, rated) -> Decimal:
    """pct % of a rated value, exactly (110 % of 40 A = 44 A)."""
    return dec(pct) * dec(rated) / Decimal(100)


def decimals(v) -> int:
    """Digits after the point that the value needs (128.0 -> 0, 0.80 -> 1)."""
    return max(0, -dec(v).normalize().as_tuple().exponent)


def fmt_number(v, places: int = 0, thousands: bool = False) -> str:
    """The value written with at least `places` decimals (never rounded: the value's own
    decimals always show), optionally with thousands separators."""
    v = dec(v)
    places = max(places, decimals(v))
    return f"{v:,.{places}f}" if thousands else f"{v:.{places}f}"


# ============================================================================ lexicon
UNIT_SPELLINGS: dict[str, tuple[str, ...]] = {
    "degC": ("°C", "degC", "deg C", "C", "degrees C", "degrees Celsius", "°C"),
    "degF": ("°F", "degF", "deg F", "F", "degrees F"),
    "bar": ("bar",), "barg": ("barg", "bar(g)", "bar g"), "kPa": ("kPa",), "MPa": ("MPa",),
    "psi": ("psi",), "psig": ("psig",), "mbar": ("mbar",),
    "pct": ("%", "%", "percent", "pct"),
    "m3h": ("m³/h", "m3/h", "m3/hr", "m³/hr"), "lpm": ("L/min", "l/min", "lpm"), "kgh": ("kg/h", "kg/hr"),
    "tph": ("t/h", "tph"), "rpm": ("rpm", "RPM", "r/min"), "amp": ("A", "amps", "A"), "kV": ("kV",),
    "mms": ("mm/s", "mm/s RMS", "mm/sec"), "ppm": ("ppm",), "pH": ("pH",), "m": ("m", "metres"),
    "mm": ("mm",), "kW": ("kW",), "uScm": ("µS/cm", "uS/cm"),
}
TIGHT = ("%", "°C", "°F")  # may be written without a space: 92%, 131.5°C


@dataclass(frozen=True)
class Qty:
    tags: tuple[str, ...]   # ISA letters of its instruments
    nouns: tuple[str, ...]
    adj: str                # "high-{adj} trip"
    scales: tuple[tuple[str, str, str, tuple[tuple[str, str], ...]], ...]  # (unit, lo, hi, ((grid, step), ...))
    gauge: str = ""         # letters of a local gauge (other-unit distractor)


def _scales(*specs: str) -> tuple:
    """"unit lo hi grid/step grid/step ..." -> (unit, lo, hi, ((grid, step), ...)): limits are
    multiples of a grid between lo and hi, readings multiples of a step that divides it."""
    out = []
    for spec in specs:
        unit, lo, hi, *combos = spec.split()
        out.append((unit, lo, hi, tuple(tuple(c.split("/")) for c in combos)))
    return tuple(out)


_C = "degC 30 450 5/1 5/0.1 1/0.1 0.5/0.1 10/1"
_BAR = "1 60 0.5/0.1 0.1/0.01 1/0.1 0.5/0.05"
QTY: dict[str, Qty] = {
    "temp": Qty(("TT", "TI", "TE"), ("temperature", "temp", "temperature"), "temperature",
                _scales(_C, _C, _C, "degF 90 800 5/1 10/1 1/0.1"), "TG"),
    "press": Qty(("PT", "PI"), ("pressure", "pressure", "press."), "pressure",
                 _scales("bar " + _BAR, "barg " + _BAR, "kPa 50 900 10/1 5/1 10/0.5", "MPa 0.5 12 0.1/0.01 0.5/0.1",
                         "psi 15 900 5/1 10/1 1/0.1", "psig 15 900 5/1 10/1"), "PG"),
    "lowp": Qty(("PT", "PI"), ("pressure", "pressure"), "pressure",
                _scales("mbar 5 250 5/1 1/0.1", "kPa 2 50 1/0.1 0.5/0.1")),
    "dp": Qty(("PDT", "PDI"), ("differential pressure", "DP", "dP"), "DP",
              _scales("mbar 20 900 10/1 5/1", "kPa 5 150 1/0.1 5/0.5", "bar 0.2 3 0.1/0.01 0.05/0.01")),
    "flow": Qty(("FT", "FI"), ("flow", "flow rate", "flow"), "flow",
                _scales("m3h 5 900 5/1 1/0.1 10/1", "lpm 10 600 5/1 1/0.5", "kgh 100 9000 50/10 100/1 10/1",
                        "tph 1 400 1/0.1 5/1"), "FG"),
    "level": Qty(("LT", "LI"), ("level",), "level",
                 _scales("pct 5 98 1/0.1 5/1 1/1 5/0.5", "pct 5 98 1/0.1 5/1", "m 0.5 20 0.1/0.01 0.5/0.1",
                         "mm 10 900 10/1 5/1")),
    "current": Qty(("IT", "II"), ("current", "amps", "load current"), "current",
                   _scales("amp 10 600 1/0.1 5/1 0.5/0.1")),
    "speed": Qty(("ST", "SI", "SE"), ("speed",), "speed", _scales("rpm 300 12000 50/1 100/10 10/1")),
    "vib": Qty(("VT", "VI", "VE"), ("vibration",), "vibration", _scales("mms 2 15 0.1/0.1 0.5/0.1 0.1/0.01")),
    "o2": Qty(("AT", "AI"), ("O2", "oxygen"), "O2", _scales("pct 1 21 0.1/0.1 0.5/0.1 0.1/0.01")),
    "ph": Qty(("AT", "AI"), ("pH",), "pH", _scales("pH 4 11 0.1/0.01 0.5/0.1 0.1/0.1")),
    "cond": Qty(("AT", "CIT"), ("conductivity",), "conductivity", _scales("uScm 5 2500 5/1 50/1")),
    "gas": Qty(("AT", "AI"), ("H2S", "CO"), "gas", _scales("ppm 5 500 5/1 1/0.1")),
    "volt": Qty(("ET", "EI"), ("voltage",), "voltage", _scales("kV 0.4 33 0.1/0.01 0.5/0.1")),
    "power": Qty(("JT", "JI"), ("power", "load"), "power", _scales("kW 10 5000 10/1 50/1")),
}
HIGH_SIDE = ("trip_hi", "H", "HH", "max")
LOW_SIDE = ("trip_lo", "L", "LL", "min")
LIMIT_NAMES: dict[str, tuple[str, ...]] = {
    "trip_hi": ("high trip", "trip setting", "trip point", "high-{adj} trip", "HH trip", "shutdown limit", "trip"),
    "trip_lo": ("low trip", "low-{adj} trip", "LL trip", "low shutdown limit", "low trip point"),
    "H": ("high alarm", "H alarm", "hi alarm", "high alarm limit", "high-{adj} alarm"),
    "HH": ("high-high alarm", "HH alarm", "hi-hi alarm", "high-high limit", "HH alarm limit"),
    "L": ("low alarm", "L alarm", "lo alarm", "low alarm limit", "low-{adj} alarm"),
    "LL": ("low-low alarm", "LL alarm", "lo-lo alarm", "low-low limit", "LL alarm limit"),
    "max": ("maximum allowable", "max limit", "design maximum", "upper limit", "maximum"),
    "min": ("minimum", "min limit", "lower limit", "minimum allowable", "low limit"),
}


@dataclass(frozen=True)
class Kind:
    word: str
    prefixes: tuple[str, ...]
    points: tuple[tuple[str, str], ...]  # (where on the equipment, quantity)
    pairs: bool      # comes as duty/standby pairs (P-7A / P-7B)
    rotating: bool   # runs, trips and stops


# the last quarter is the novel-lexicon tail
EQUIPMENT: dict[str, Kind] = {
    "pump": Kind("pump", ("P",), (("discharge", "press"), ("suction", "press"), ("discharge", "flow"), ("motor",
                                                                                                        "current"),
                                  ("bearing", "temp"), ("bearing", "vib"), ("seal pot", "press")), True, True),
    "compressor": Kind("compressor", ("K", "C"), (("discharge", "temp"), ("discharge", "press"), ("suction", "press"),
                                                  ("lube oil", "press"), ("lube oil", "temp"), ("shaft", "vib"),
                                                  ("shaft", "speed"), ("motor", "current")), True, True),
    "heat exchanger": Kind("heat exchanger", ("HX", "E"), (("outlet", "temp"), ("inlet", "temp"), ("shell-side",
                                                                                                   "press"),
                                                           ("cooling water", "flow"), ("", "dp")), False, False),
    "boiler": Kind("boiler", ("B", "BLR"), (("drum", "level"), ("steam", "press"), ("flue gas", "temp"),
                                            ("feedwater", "flow"), ("flue gas", "o2")), True, True),
    "tank": Kind("tank", ("TK", "T"), (("", "level"), ("", "temp"), ("vapour space", "lowp")), False, False),
    "kiln": Kind("kiln", ("KL",), (("burning zone", "temp"), ("shell", "temp"), ("drive", "speed"), ("inlet", "o2"),
                                   ("main drive", "current")), False, True),
    "chiller": Kind("chiller", ("CH",), (("chilled water outlet", "temp"), ("condenser", "press"), ("compressor",
                                                                                                    "current"),
                                         ("chilled water", "flow")), True, True),
    "conveyor": Kind("conveyor", ("BC", "CNV"), (("drive", "current"), ("drive", "speed"), ("gearbox", "temp")), False,
                     True),
    "fan": Kind("fan", ("FN",), (("", "speed"), ("bearing", "vib"), ("motor", "current"), ("inlet", "lowp")), True,
                True),
    "blower": Kind("blower", ("BL",), (("discharge", "press"), ("discharge", "temp"), ("motor", "current"), ("bearing",
                                                                                                             "vib")),
                   True, True),
    "cooling tower": Kind("cooling tower", ("CT",), (("basin", "level"), ("return water", "temp"), ("supply water",
                                                                                                    "temp"),
                                                     ("fan", "vib")), False, False),
    "dryer": Kind("dryer", ("DR",), (("outlet", "temp"), ("inlet", "temp"), ("exhaust", "lowp"), ("drum", "speed")),
                  False, True),
    "reactor": Kind("reactor", ("R",), (("bed", "temp"), ("", "press"), ("", "level"), ("jacket", "temp")), False,
                    False),
    "column": Kind("column", ("COL", "T"), (("top", "press"), ("bottom", "temp"), ("reflux", "flow"), ("sump", "level"),
                                            ("", "dp")), False, False),
    "separator": Kind("separator", ("V", "SEP"), (("", "level"), ("", "press"), ("gas outlet", "flow")), False, False),
    "furnace": Kind("furnace", ("H", "F"), (("outlet", "temp"), ("fuel gas", "press"), ("stack", "o2"), ("tube skin",
                                                                                                         "temp")),
                    False, True),
    "turbine": Kind("turbine", ("TB", "ST"), (("", "speed"), ("exhaust", "temp"), ("bearing", "vib"), ("lube oil",
                                                                                                       "press")),
                    False, True),
    "mixer": Kind("mixer", ("MX", "M"), (("motor", "current"), ("shaft", "speed"), ("", "temp")), False, True),
    "transformer": Kind("transformer", ("TR", "TX"), (("winding", "temp"), ("oil", "temp"), ("secondary", "volt"),
                                                      ("load", "current")), False, False),
    "air compressor": Kind("air compressor", ("AC",), (("discharge", "press"), ("discharge", "temp"), ("motor",
                                                                                                       "current")),
                           True, True),
    "extruder": Kind("extruder", ("EX",), (("barrel", "temp"), ("melt", "press"), ("screw", "speed"), ("motor",
                                                                                                       "current")),
                     False, True),
    "scrubber": Kind("scrubber", ("SC",), (("liquor", "ph"), ("sump", "level"), ("", "dp"), ("outlet", "gas")), False,
                     False),
    "crusher": Kind("crusher", ("CR",), (("motor", "current"), ("bearing", "vib"), ("bearing", "temp")), False, True),
    "mill": Kind("mill", ("ML", "BM"), (("bearing", "temp"), ("motor", "current"), ("", "vib"), ("outlet", "temp")),
                 False, True),
    "evaporator": Kind("evaporator", ("EV",), (("", "level"), ("vapour", "press"), ("product", "temp"),
                                               ("condensate", "cond")), False, False),
    "clarifier": Kind("clarifier", ("CL",), (("outlet", "ph"), ("sludge", "level"), ("rake drive", "current")), False,
                      False),
    "generator": Kind("generator", ("G", "GEN"), (("stator winding", "temp"), ("output", "volt"), ("", "power"),
                                                  ("bearing", "vib")), True, True),
}
KINDS = tuple(EQUIPMENT)

# valve types: (tag letters, names, normally closed?)
VALVES: dict[str, tuple[str, tuple[str, ...], bool]] = {
    "relief": ("PSV", ("relief valve", "safety valve"), True),
    "blowdown": ("BDV", ("blowdown valve",), True),
    "vent": ("XV", ("vent valve",), True),
    "bypass": ("HV", ("bypass valve",), True),
    "drain": ("XV", ("drain valve",), True),
    "dump": ("XV", ("dump valve",), True),
    "recycle": ("FV", ("recycle valve", "minimum-flow valve"), True),
    "shutdown": ("SDV", ("shutdown valve",), False),
    "esd": ("ESDV", ("ESD valve", "emergency shutdown valve"), False),
    "isolation": ("XV", ("isolation valve", "inlet isolation valve"), False),
    "feed": ("XV", ("feed valve", "feed isolation valve"), False),
    "fuel": ("XV", ("fuel gas valve", "fuel shut-off valve"), False),
    "flare": ("XV", ("flare valve",), True),
    "quench": ("XV", ("quench valve",), True),
    "slam-shut": ("SSV", ("slam-shut valve",), False),
    "steam": ("XV", ("steam isolation valve",), False),
}
VALVE_KINDS = tuple(VALVES)

DISABLERS: dict[str, str] = {
    "heater": "EH", "burner": "BR", "agitator": "AG", "trace heating circuit": "HT", "dosing pump": "DP",
    "feeder": "FD", "sampler": "SA", "ignitor": "IG", "soot blower": "SB", "electric heater": "EH",
    "desuperheater": "DS", "vibrator": "VB", "rapper": "RP",
}
DISABLER_KINDS = tuple(DISABLERS)

LINES = ("line 1", "line 2", "line 3", "line 4", "line 5", "line 6", "line 7", "line 8", "line 9", "line 10",
         "line 11", "line 12", "train A", "train B", "train C", "train D", "kiln feed", "the reflux loop",
         "the recycle loop", "the feed loop", "the level loop", "packing line 1", "packing line 2", "filling line 3",
         "the dosing loop", "the cooling loop", "the pressure loop", "the spray loop", "the draft control",
         "the drum level control", "the fuel control",
         "the quench loop", "the brine loop", "the slurry loop", "the purge loop", "line 14", "line 15", "train E",
         "train F", "the vent loop", "bottling line 2")
AREAS = ("the plant", "unit 100", "unit 200", "unit 300", "unit 400", "unit 500", "the boiler house",
         "the tank farm", "the north plant", "the south plant", "area 3", "area 5", "the kiln section",
         "the compressor house", "the utilities block", "the acid plant", "the packing hall",
         "the water treatment plant", "the CHP unit", "the dryer section", "the pump house",
         "unit 600", "the east block", "area 7", "the calciner section", "the gas plant", "the lime plant",
         "the brine section")
OOS_REASONS = ("seal replacement", "bearing change", "inspection", "a motor fault", "coupling alignment",
               "valve repair", "cleaning", "a leaking flange", "overhaul", "electrical isolation",
               "impeller replacement", "a gearbox fault", "painting", "a cable fault", "hot work",
               "rotor balancing")
TRIP_CAUSES = ("high vibration", "motor overload", "low lube oil pressure", "high discharge temperature",
               "seal leak", "earth fault", "overspeed", "high bearing temperature", "low suction pressure",
               "phase imbalance", "high winding temperature", "loss of cooling")
MODE_WORDS = (("MANUAL", "AUTO", "CASCADE"), ("manual", "auto", "cascade"), ("MAN", "AUTO", "CAS"),
              ("Manual", "Auto", "Cascade"))
ALARM_WORDS = ({"LL": "low-low", "L": "low", "normal": "normal", "H": "high", "HH": "high-high"},
               {"LL": "LL", "L": "L", "normal": "normal", "H": "H", "HH": "HH"},
               {"LL": "LOLO", "L": "LO", "normal": "normal", "H": "HI", "HH": "HIHI"})
ALARM_ORDER = ("LL", "L", "normal", "H", "HH")
# A comparison drill's blocks (`generate(drills=...)`): each compares a reading with numbers said
# beside it (named limits, alarm limits, a band, a set point and tolerance, a rating); a drill
# has no distractors, so its only other instruments are those its other questions ask about.
DRILL_BLOCKS = (("compare", 6), ("alarm", 2), ("window", 1), ("setpoint", 1), ("rated", 1))
STATUS = ("running", "standby", "stopped", "tripped", "out of service")
REL_WORDS = (("below", "at", "above"), ("lower", "equal", "higher"), ("under", "exactly on", "over"),
             ("below it", "right at it", "above it"))
BAND_WORDS = (("below", "within", "above"), ("below the band", "inside the band", "above the band"),
              ("under range", "in range", "over range"), ("too low", "OK", "too high"))
GROUP_REL = {">": ("above", "over", "higher than", "greater than"),  # how a group question words its comparison
             ">=": ("at or above", "at or over", "not below", "equal to or above"),
             "<": ("below", "under", "lower than", "less than"),
             "<=": ("at or below", "not above", "equal to or below", "at or under")}
GROUP_SIZES = (2, 2, 3, 3, 4)
PLANT_STATES = ("normal operation", "reduced rate", "safe mode", "shutdown")
VALVE_POS = {True: ("q_valve_pos", "open", "closed", ("open", "closed")),    # the atom "open"
             False: ("q_valve_pos", "closed", "open", ("open", "closed"))}   # the atom "closed"
TRIP_POS = ("q_trip_pos", "bypassed", "armed", ("armed", "bypassed"))


def _numbers() -> tuple[str, ...]:
    nums = [str(i) for i in range(1, 60)] + [str(i) for i in range(100, 1000)]
    random.Random("readings:tag-numbers").shuffle(nums)
    return tuple(nums)


NUMBERS = _numbers()  # loop and equipment numbers; the last quarter is the novel tail


def half(pool: Sequence[str], style: Style, novel_share: float = 0.25) -> Sequence[str]:
    """The part of a pool that `base.names` draws from for this style."""
    cut = max(1, int(len(pool) * (1 - novel_share)))
    return pool[cut:] if style.novel and cut < len(pool) else pool[:cut]


def similar_numbers(num: str, pool: Sequence[str]) -> list[str]:
    """Loop numbers easy to confuse with `num`: same digits reordered, or one digit changed."""
    out = []
    for cand in pool:
        if cand != num and len(cand) == len(num) and (
                sorted(cand) == sorted(num) or sum(x != y for x, y in zip(cand, num)) == 1):
            out.append(cand)
    return out


# ============================================================================ phrasings
# Every pattern is a tuple; `pick` holds out indices 4, 9, 14, ... for the held-out split.
# A comparison's outcome said in words beside its numbers ("TT-101 reads 131.5 °C, above 128 °C";
# `World.state_outcomes`, opt-in: the splits never draw them). {q} a threshold, {lo}/{hi} a
# band's ends, {w} an alarm word.
STATED: dict[str, tuple[str, ...]] = {
    "above": ("above {q}", "over {q}", "higher than {q}", "which is above {q}", "i.e. above {q}",
              "exceeding {q}", "more than {q}"),
    "below": ("below {q}", "under {q}", "lower than {q}", "which is below {q}", "i.e. below {q}",
              "short of {q}", "less than {q}"),
    "at": ("right at {q}", "exactly {q}", "level with {q}", "which is exactly {q}", "i.e. exactly {q}"),
    "within": ("between {lo} and {hi}", "inside {lo} to {hi}", "within the {lo}-{hi} band"),
    "under": ("below the {lo}-{hi} band", "under {lo}, the bottom of its band", "short of the {lo}-{hi} band"),
    "over": ("above the {lo}-{hi} band", "over {hi}, the top of its band", "past the {lo}-{hi} band"),
    "alarm": ("alarm state {w}", "in {w} alarm", "alarm: {w}", "{w} on the alarm panel"),
    "normal": ("no alarm", "alarm state normal", "not in alarm", "alarms clear"),
}

# Placeholders: {s} a measurement as subject (tag, or "the" + description), {n0} the same
# without article, {t} a tag, {d} a description, {q} a quantity, {lim} a limit name,
# {thr} a threshold phrase, {u}/{a}/{b} equipment, {v} a valve, {x} a disabled item,
# {ctl} a controller or line, {m} a mode, {p} a plant area, {st} a plant state,
# {c}/{c2} conditions, {r}/{r2} results, {e} an exception.
TEMPLATES: dict[str, tuple[str, ...]] = {
    # ------------------------------------------------------------------ readings and limits
    "reading": (
        "{t} ({d}) reads {q}.", "The {d} ({t}) is at {q}.", "{t} ({d}) is reading {q}.", "{t}, {d}: {q}.",
        "The {d} is {q} on {t}.", "{t} is showing {q} for the {d}.", "The {d} reads {q} ({t}).",
        "{t} = {q} ({d}).", "{t} ({d}) indicating {q}.", "{q} on {t}, the {d}.",
        "Reading on {t} ({d}) is {q}.", "The {d} is measured at {q} by {t}.", "{t} PV {q} ({d}).",
        "We have {q} on the {d} ({t}).", "{t} is at {q}; that is the {d}.", "The {d}, {t}, is now {q}.",
        "{t} ({d}) steady at {q}.", "Current value of {t} ({d}): {q}.", "{t} [{d}] {q}.",
        "{t} for the {d} gives {q}."),
    "reading_notag": (
        "The {d} is {q}.", "{d} at {q}.", "{q} on the {d}.", "The {d} is reading {q}.", "{d}: {q}.",
        "The {d} stands at {q}.", "{d} now {q}."),
    "desc": ("{e} {pn}", "{pn} on {e}", "{pn} of {e}", "{kind} {e} {pn}", "{pn} at {e}", "{pn} measured on {e}"),
    "limit": (
        "The {lim} on {s} is set at {q}.", "{s} {lim}: {q}.", "{lim} for {s} is {q}.", "{s} has its {lim} at {q}.",
        "{lim} on {s} set to {q}.", "{s}: {lim} = {q}.", "The {lim} of {s} is configured at {q}.",
        "{q} is the {lim} for {s}.", "The {n0} {lim} is {q}.", "{lim} setting on {s}: {q}.",
        "{s} {lim} setting is {q}.", "{s}: {lim} at {q}.", "Per the alarm and trip list, the {lim} on {s} is {q}.",
        "{s} is configured with a {lim} of {q}.", "The {lim} for {s} sits at {q}."),
    "limit_pair": (
        "{s} alarms: {l1} at {q1}, {l2} at {q2}.", "Alarm limits on {s} are {q1} ({l1}) and {q2} ({l2}).",
        "{s}: {l1} {q1} / {l2} {q2}.", "The {l1} on {s} is {q1} and the {l2} is {q2}.",
        "{l1} {q1}, {l2} {q2} on {s}.", "For {s}, the {l1} is set at {q1} and the {l2} at {q2}.",
        "{s}: {l1} = {q1}, {l2} = {q2}.",
        "{s} has {l1} {q1} and {l2} {q2}.", "Alarm settings for {s}: {l1} {q1}, {l2} {q2}.",
        "{l1} and {l2} on {s} are {q1} and {q2}."),
    "window": (
        "{s} must stay between {lo} and {hi}.", "Operating window for {s}: {lo} to {hi}.",
        "{s} should be kept within {lo}-{hi}.", "Normal range of {s} is {lo} to {hi}.",
        "Allowed band on {s}: {lo} - {hi}.", "Keep {s} between {lo} and {hi}.",
        "The operating range of {s} is {lo} to {hi}, ends included.", "The {n0} window is {lo} to {hi}.",
        "{s} is to be held between {lo} and {hi}.", "Limits for {s}: min {lo}, max {hi}.",
        "{s} has to remain in the {lo} to {hi} range."),
    "setpoint": (
        "{s} set point is {sp}; allowed deviation ±{tol}.", "SP on {s}: {sp}, tolerance {tol}.",
        "{s} is controlled at {sp} ± {tol}.", "Target for {s} is {sp}, to be held within {tol}.",
        "{s} must stay within {tol} of its {sp} set point.", "{n0} setpoint {sp} (band ±{tol}).",
        "The controller holds {s} at {sp}; acceptable deviation is {tol}.",
        "Keep {s} within ±{tol} of the {sp} setpoint.", "{s} should read {sp}, give or take {tol}.",
        "Set point for {s} is {sp} with a tolerance of {tol}."),
    "rated": (
        "Rated {noun} of {u} is {q}.", "{u} nameplate {noun}: {q}.", "{u} is rated at {q}.",
        "Full-load {noun} for {u} is {q}.", "{u} rated {noun} {q}.", "The rated {noun} for {u} is {q}.",
        "{u}: rated {noun} = {q}."),
    "thr_named": ("its {lim}", "the {lim}", "its {lim} setting", "the configured {lim}", "its {lim} value",
                  "the {lim} setting"),
    "thr_pct": ("{p}% of rated", "{p}% of its rated {noun}", "{p} percent of rated {noun}", "{p}% of the rated value",
                "{p}% of nameplate {noun}"),
    "thr_pct_inline": ("{p}% of rated ({r})", "{p}% of its {r} rating", "{p}% of the rated {r}",
                       "{p}% of nameplate ({r})", "{p} percent of the {r} rating"),
    "other_unit": (
        "Local gauge {t2} on the {d} shows {q2}.", "Field gauge {t2} reads {q2} for the {d}.",
        "{t2} (local indication, {d}) reads {q2}.", "The local {d} gauge {t2} is at {q2}.",
        "Panel indicator {t2} shows {q2} for the {d}.", "{t2}, the field gauge on the {d}, reads {q2}."),
    # ------------------------------------------------------------------ comparisons
    "q_gt": (
        "Is {s} above {thr}?", "Does {s} exceed {thr}?", "Has {s} gone above {thr}?", "Is {s} over {thr}?",
        "Is {s} higher than {thr}?", "Is {s} greater than {thr}?", "Is the reading of {s} above {thr}?",
        "Is {s} currently exceeding {thr}?", "Is {s} more than {thr}?", "Has {s} risen above {thr}?",
        "Is {s} running above {thr}?", "Is {s} in excess of {thr}?", "{s} > {thr}?", "Is {s} sitting above {thr}?",
        "Has {s} exceeded {thr}?"),
    "q_ge": (
        "Has {s} reached {thr}?", "Is {s} at or above {thr}?", "Is {s} at least {thr}?", "Is {s} not below {thr}?",
        "Has {s} hit {thr}?", "Is {s} greater than or equal to {thr}?", "Is {s} at {thr} or above?",
        "Is {s} no lower than {thr}?", "{s} >= {thr}?", "Has {s} come up to {thr}?", "Is {s} at or over {thr}?",
        "Has {s} got to {thr} yet?"),
    "q_lt": (
        "Is {s} below {thr}?", "Has {s} fallen below {thr}?", "Is {s} under {thr}?", "Is {s} less than {thr}?",
        "Is {s} lower than {thr}?", "Has {s} dropped below {thr}?", "Is {s} still under {thr}?",
        "Has {s} gone below {thr}?", "{s} < {thr}?", "Is {s} beneath {thr}?", "Is {s} sitting below {thr}?",
        "Is the reading of {s} below {thr}?"),
    "q_le": (
        "Is {s} at or below {thr}?", "Is {s} no more than {thr}?", "Is {s} at most {thr}?", "Is {s} not above {thr}?",
        "Does {s} stay at or under {thr}?", "Is {s} no higher than {thr}?", "Is {s} less than or equal to {thr}?",
        "{s} <= {thr}?", "Is {s} at {thr} or below?", "Does {s} not exceed {thr}?"),
    "c_gt": (
        "{s} exceeds {thr}", "{s} goes above {thr}", "{s} rises above {thr}", "{s} is above {thr}",
        "{s} climbs above {thr}", "{s} is greater than {thr}", "{s} gets above {thr}", "{s} is over {thr}",
        "{s} goes over {thr}", "{s} is higher than {thr}", "{s} > {thr}", "{s} is more than {thr}"),
    "c_ge": (
        "{s} reaches {thr}", "{s} hits {thr}", "{s} is at or above {thr}", "{s} is at least {thr}",
        "{s} gets to {thr}", "{s} is not below {thr}", "{s} comes up to {thr}", "{s} >= {thr}",
        "{s} is at {thr} or higher", "{s} is greater than or equal to {thr}"),
    "c_lt": (
        "{s} falls below {thr}", "{s} drops below {thr}", "{s} is below {thr}", "{s} goes under {thr}",
        "{s} is less than {thr}", "{s} gets below {thr}", "{s} is lower than {thr}", "{s} < {thr}",
        "{s} dips below {thr}", "{s} is under {thr}"),
    "c_le": (
        "{s} is at or below {thr}", "{s} is no more than {thr}", "{s} is at most {thr}", "{s} falls to {thr} or lower",
        "{s} does not exceed {thr}", "{s} <= {thr}", "{s} is not above {thr}", "{s} drops to {thr} or below",
        "{s} goes no higher than {thr}", "{s} is less than or equal to {thr}"),
    "nc_gt": ("{s} is not above {thr}", "{s} does not exceed {thr}", "{s} has not exceeded {thr}",
              "{s} is not over {thr}",
              "{s} has not gone above {thr}", "{s} is not higher than {thr}"),
    "nc_ge": ("{s} has not reached {thr}", "{s} is not at or above {thr}", "{s} has not hit {thr}",
              "{s} is not at least {thr}", "{s} has not come up to {thr}", "{s} is short of {thr}"),
    "nc_lt": ("{s} is not below {thr}", "{s} has not fallen below {thr}", "{s} is not under {thr}",
              "{s} is not less than {thr}", "{s} has not dropped below {thr}", "{s} is not lower than {thr}"),
    "nc_le": ("{s} is not at or below {thr}", "{s} is not at most {thr}", "{s} is not at {thr} or below",
              "{s} is not less than or equal to {thr}", "{s} is not at or under {thr}"),
    "q_inside": (
        "Is {s} inside its operating window?", "Is {s} within its normal range?", "Is {s} inside the allowed band?",
        "Is {s} within limits?", "Is {s} in range?", "Is {s} within its operating range?",
        "Is {s} inside its allowed band?", "Is {s} inside the {lo} to {hi} band?", "Is {s} still in its window?",
        "Is {s} within {lo}-{hi}?"),
    "q_between": ("Is {s} between {lo} and {hi}?", "Does {s} lie between {lo} and {hi}?",
                  "Is {s} in the {lo} to {hi} range?", "Is {s} somewhere from {lo} to {hi}?",
                  "Is {s} between {lo} and {hi} inclusive?", "Is {s} within {lo} to {hi}?"),
    "q_outside": (
        "Is {s} outside its operating window?", "Is {s} out of range?", "Has {s} left its normal range?",
        "Is {s} outside the allowed band?", "Is {s} outside {lo} to {hi}?", "Has {s} gone outside its operating range?",
        "Is {s} out of its window?", "Is {s} outside the {lo}-{hi} limits?",
        "Is {s} outside its normal range?", "Has {s} moved out of its allowed band?"),
    "nc_inside": ("{s} is not inside its operating window", "{s} is not within its normal range", "{s} is not in range",
                  "{s} is not between {lo} and {hi}", "{s} is not within the allowed band"),
    "q_within": (
        "Is {s} within tolerance of its set point?", "Is {s} within {tol} of set point?",
        "Is {s} inside its allowed deviation?", "Is {s} on set point within tolerance?",
        "Is the deviation of {s} from SP within limits?", "Is {s} holding within ±{tol} of target?",
        "Is {s} within the permitted band around its SP?", "Is {s} within ±{tol} of {sp}?",
        "Is {s} close to set point, within the allowed {tol}?",
        "Is {s} within its tolerance band?"),
    "q_beyond": (
        "Has {s} deviated from its set point by more than the tolerance?", "Is {s} off set point by more than {tol}?",
        "Is {s} outside its allowed deviation?", "Is {s} more than {tol} away from its set point?",
        "Is the deviation of {s} from SP beyond limits?", "Has {s} drifted outside ±{tol} of target?"),
    "nc_within": ("{s} is not within tolerance of its set point", "{s} is not within {tol} of set point",
                  "{s} is not holding within ±{tol} of target", "the deviation of {s} from SP is not within limits",
                  "{s} is not inside its allowed deviation"),
    "q_alarm": (
        "What alarm state is {s} in?", "Which alarm, if any, is active on {s}?", "What is the alarm status of {s}?",
        "Where does {s} sit against its alarm limits?", "Which alarm band is {s} in?",
        "What alarm condition is {s} showing?", "What is the current alarm state of {s}?", "Alarm state of {s}?",
        "How does {s} stand against its alarm settings?", "Which alarm level applies to {s} right now?"),
    "q_rel": ("Is {s} below, at or above {thr}?", "How does {s} compare with {thr}?", "Where is {s} relative to {thr}?",
              "Is {s} under, on or over {thr}?", "Compared with {thr}, where is {s}?",
              "Relative to {thr}, how is {s} reading?",
              "Is {s} lower than, equal to or higher than {thr}?", "How does {s} stand against {thr}?",
              "Is {s} below {thr}, right on it, or above it?", "Against {thr}, where does {s} read?"),
    "q_band": ("Is {s} below, within or above its operating window?", "Where is {s} relative to its operating window?",
               "Relative to its allowed band, where does {s} sit?", "How does {s} compare with its normal range?",
               "Which side of its window is {s} on, if any?", "Where does {s} stand against its operating range?"),
    "q_sp_band": ("Is {s} below, within or above its set-point tolerance band?",
                  "Where is {s} relative to its set point and tolerance?",
                  "How does {s} compare with its allowed deviation band?",
                  "Is {s} under, inside or over its tolerance band around SP?",
                  "Relative to the SP band, where is {s}?",
                  "Where does {s} sit against its set point, allowing for the tolerance?"),
    "q_higher": ("Which reads higher, {a} or {b}?", "Which of {a} and {b} shows the higher value?",
                 "Which is higher: {a} or {b}?", "Of {a} and {b}, which is reading higher?",
                 "Which has the higher reading, {a} or {b}?", "Which one is up higher, {a} or {b}?"),
    "q_lower": ("Which reads lower, {a} or {b}?", "Which of {a} and {b} shows the lower value?",
                "Which is lower: {a} or {b}?", "Of {a} and {b}, which is reading lower?",
                "Which has the lower reading, {a} or {b}?", "Which one is down lower, {a} or {b}?"),
    "q_pair_gt": ("Is {a} reading higher than {b}?", "Does {a} read above {b}?", "Is {a} above {b}?",
                  "Is {a} higher than {b}?", "Is {a} greater than {b}?", "Is the value on {a} higher than on {b}?"),
    "pair_reading": ("{a} reads {qa} and {b} reads {qb}.", "{a}: {qa}; {b}: {qb}.", "{a} is at {qa}, {b} at {qb}.",
                     "Readings: {a} {qa}, {b} {qb}.", "{a} shows {qa} while {b} shows {qb}.",
                     "{a} and {b} read {qa} and {qb} respectively."),
    # ------------------------------------------------------------------ groups of alike readings
    "group_reading": (
        "{list}.", "Readings: {list}.", "{pn} readings: {list}.", "{e} {pn}: {list}.", "Latest {pn} values: {list}.",
        "Current {pn} readings on {e}: {list}.", "DCS values for the {pn}: {list}.", "{e} {pn} transmitters: {list}.",
        "The {pn} transmitters on {e} read {list}.", "We have {list} on the {pn}.", "{pn} ({e}) - {list}.",
        "Field readings for the {e} {pn} are {list}."),
    "group_item": ("{t} {q}", "{t} at {q}", "{t}: {q}", "{t} = {q}", "{t} reading {q}", "{t} on {q}"),
    "group_respectively": (
        "{tags} read {qs} respectively.", "{tags} are at {qs} respectively.", "{tags} show {qs}, in that order.",
        "Respectively, {tags} read {qs}.", "{tags} indicate {qs} respectively.",
        "The {pn} on {tags} is {qs}, in that order."),
    "group_limit": (
        "The {lim} on {g} is {q}.", "{g}: {lim} {q} each.", "All of {g} have a {lim} of {q}.",
        "{lim} for each of {g}: {q}.", "Each of {g} has its {lim} at {q}.", "The common {lim} for {g} is set at {q}.",
        "{g} share one {lim}: {q}.", "{q} is the {lim} for every one of {g}.", "The {pn} {lim} is {q} on each of {g}.",
        "{lim} ({g}): {q}.", "One {lim} of {q} applies to {g}.", "For {g} the {lim} is {q}, the same on each."),
    "group_ref": (
        "the {n} {pn} readings on {e}", "the {n} {pn} transmitters on {e}", "{e}'s {n} {pn} readings",
        "the {n} {pn} sensors of {e}", "the {n} {pn} measurements on {e}", "the {n} {e} {pn} transmitters"),
    "thr_group": ("the {lim}", "their {lim}", "the common {lim}", "the {lim} setting", "the shared {lim}",
                  "the {lim} they share"),
    "q_count": (
        "How many of {g} are {rel} {thr}?", "How many of {g} read {rel} {thr}?", "Of {g}, how many are {rel} {thr}?",
        "How many readings among {g} are {rel} {thr}?", "Number of {g} {rel} {thr}?",
        "How many of {g} are now {rel} {thr}?", "Count of {g} reading {rel} {thr}?",
        "How many of {g} show a value {rel} {thr}?", "In how many of {g} is the reading {rel} {thr}?",
        "How many of {g} sit {rel} {thr}?"),
    "q_which": (
        "Which of {g} is {rel} {thr}?", "Which of {g} reads {rel} {thr}?", "Which one of {g} is {rel} {thr}?",
        "Among {g}, which is {rel} {thr}?", "Which of {g} shows a value {rel} {thr}?",
        "Of {g}, which one reads {rel} {thr}?", "Which reading among {g} is {rel} {thr}?",
        "Which of {g}, if any, is {rel} {thr}?"),
    "q_any": (
        "Is any of {g} {rel} {thr}?", "Are any of {g} {rel} {thr}?", "Does any of {g} read {rel} {thr}?",
        "Is at least one of {g} {rel} {thr}?", "Is one or more of {g} {rel} {thr}?",
        "Do any of {g} show a value {rel} {thr}?", "Is there any of {g} {rel} {thr}?",
        "Does at least one of {g} read {rel} {thr}?"),
    "q_none": (
        "Are none of {g} {rel} {thr}?", "Is none of {g} {rel} {thr}?", "Does none of {g} read {rel} {thr}?",
        "Is it the case that none of {g} is {rel} {thr}?", "Do none of {g} read {rel} {thr}?"),
    "q_all": (
        "Are all of {g} {rel} {thr}?", "Is every one of {g} {rel} {thr}?", "Do all of {g} read {rel} {thr}?",
        "Is each of {g} {rel} {thr}?", "Are {g} all {rel} {thr}?", "Do {g} all read {rel} {thr}?",
        "Is every reading among {g} {rel} {thr}?", "Is every single one of {g} {rel} {thr}?"),
    "q_atleast": (
        "Are at least {k} of {g} {rel} {thr}?", "Do at least {k} of {g} read {rel} {thr}?",
        "Are {k} or more of {g} {rel} {thr}?", "Is the reading {rel} {thr} on at least {k} of {g}?",
        "Do {k} or more of {g} show a value {rel} {thr}?", "Is the count of {g} {rel} {thr} at least {k}?"),
    "neg_q": (
        "Is it true that {c}?", "Can you confirm that {c}?", "Is it the case that {c}?", "Is it correct that {c}?",
        "Would it be right to say that {c}?", "True or false: {c}?", "Confirm: {c}?", "Am I right that {c}?",
        "Would you agree that {c}?", "Is it accurate to say that {c}?"),
    # ------------------------------------------------------------------ rules
    "rule": (
        "If {c}, {r}.", "When {c}, {r}.", "{r} if {c}.", "{r} when {c}.", "Whenever {c}, {r}.", "{r} whenever {c}.",
        "Logic: {c} -> {r}.", "C&E: {c} => {r}.", "Interlock: if {c}, {r}.", "As soon as {c}, {r}.",
        "Once {c}, {r}.", "{r} as soon as {c}.", "If {c} then {r}.", "In case {c}, {r}.", "Any time {c}, {r}.",
        "Per the cause and effect chart, when {c}, {r}.", "The logic says: if {c}, {r}.",
        "{r} on the condition that {c}.", "Should it happen that {c}, {r}.", "Protection: {c} => {r}."),
    "rule_unless": (
        "If {c}, {r}, unless {e}.", "When {c}, {r} (unless {e}).", "{r} when {c}, except when {e}.",
        "Unless {e}, {r} when {c}.", "{r} whenever {c}, unless {e}.", "When {c}, {r}; this does not happen if {e}.",
        "If {c} then {r}, except if {e}.", "{r} if {c}, but not if {e}.",
        "If {c}, {r}; the exception is when {e}.", "{r} if {c}, except in case {e}."),
    "rule_and": ("If {c} and {c2}, {r}.", "When {c} and {c2}, {r}.", "{r} when both {c} and {c2}.",
                 "{r} if {c} and {c2}.", "Logic: {c} AND {c2} -> {r}.", "If both {c} and {c2}, {r}."),
    "rule_two": ("When {c}, {r} and {r2}.", "If {c}, {r} and {r2}.", "{c} => {r}; {r2}.",
                 "Whenever {c}, {r}, and {r2}.",
                 "If {c}: {r}, {r2}.", "As soon as {c}, {r} and {r2}."),
    "case": (
        "{ctl} runs in {d} unless {c}, in which case it goes to {m}.", "{ctl} is in {d}; if {c}, it switches to {m}.",
        "{ctl}: {d}, or {m} when {c}.", "Normally {ctl} is in {d}, but it drops to {m} if {c}.",
        "{ctl} stays in {d} unless {c} (then {m}).", "{ctl} mode is {d} by default and {m} whenever {c}.",
        "Default mode for {ctl} is {d}; {m} if {c}.", "{ctl} operates in {d}; when {c} it is put in {m}.",
        "{ctl} goes to {m} when {c}, otherwise it stays in {d}.", "If {c}, {ctl} runs in {m}; otherwise {d}."),
    "perm_rule": (
        "The start permissive for {u} requires that {c}.", "{u} may only be started when {c}.",
        "{u} is permitted to start once {c}.", "Start permissive on {u}: {c}.", "{u} cannot start unless {c}.",
        "The permissive to start {u} is made when {c}.", "{u} start is allowed if {c}.",
        "{u} is clear to start when {c}."),
    # ------------------------------------------------------------------ consequences (r: as result, c: as condition)
    "trip_r": ("{u} trips", "{u} trips out", "{u} is tripped", "{u} goes to trip", "{u} will trip",
               "the {u} trip is activated", "{u} shuts down on a trip", "a trip of {u} is initiated",
               "{u} is tripped out", "{u} goes down on a trip"),
    "trip_c": ("{u} trips", "{u} has tripped", "{u} is tripped", "there is a trip on {u}", "{u} trips out",
               "a {u} trip occurs", "{u} goes down on a trip",
               "{u} has tripped out", "{u} goes to trip", "{u} is tripped out"),
    "start_r": ("{u} starts", "{u} auto-starts", "{u} is started", "{u} starts automatically", "{u} kicks in",
                "{u} comes on line", "the standby {kind} {id} starts", "{u} cuts in"),
    "start_c": ("{u} starts", "{u} is running", "{u} has started", "{u} comes on line", "{u} is in operation"),
    "stop_r": ("{u} stops", "{u} is stopped", "{u} is shut down", "{u} is taken off line", "{u} is halted",
               "{u} stops running"),
    "stop_c": ("{u} stops", "{u} is stopped", "{u} is shut down", "{u} has stopped", "{u} is off line"),
    "open_r": ("{v} opens", "{v} is opened", "{v} goes open", "{v} is driven open", "{v} opens fully", "{v} will open",
               "the logic opens {v}"),
    "open_c": ("{v} opens", "{v} is open", "{v} has opened", "{v} goes open", "{v} is in the open position"),
    "close_r": ("{v} closes", "{v} is closed", "{v} shuts", "{v} goes closed", "{v} is driven shut", "{v} trips closed",
                "the logic closes {v}"),
    "close_c": ("{v} closes", "{v} is closed", "{v} has closed", "{v} is shut", "{v} goes closed"),
    "mode_r": ("{ctl} goes to {m}", "{ctl} is switched to {m}", "{ctl} drops to {m}", "{ctl} is put in {m}",
               "{ctl} falls back to {m}", "{ctl} changes to {m}", "{ctl} is placed in {m}",
               "{ctl} switches to {m} mode",
               "{ctl} reverts to {m}"),
    "mode_c": ("{ctl} is in {m}", "{ctl} goes to {m}", "{ctl} is switched to {m}", "{ctl} is running in {m}",
               "{ctl} is on {m}"),
    "plant_r": ("{p} goes to {st}", "{p} is put into {st}", "{p} enters {st}", "{p} is brought to {st}",
                "{p} moves to {st}", "{p} switches to {st}"),
    "plant_c": ("{p} is in {st}", "{p} goes to {st}", "{p} enters {st}", "{p} is put into {st}",
                "{p} has moved to {st}"),
    "disable_r": ("{x} is disabled", "{x} is inhibited", "{x} is blocked", "{x} gets disabled",
                  "the interlock disables {x}", "{x} is locked out"),
    "disable_c": ("{x} is disabled", "{x} is inhibited", "{x} has been disabled", "{x} is blocked",
                  "{x} is locked out"),
    "duty_r": ("duty changes over to {u}", "{u} takes over duty", "{u} becomes the duty {kind}", "duty passes to {u}",
               "{u} is made the duty unit"),
    "duty_c": ("{u} is on duty", "{u} has duty", "duty is on {u}", "{u} is the duty {kind}", "{u} takes over duty"),
    # ------------------------------------------------------------------ line-up, defaults, stated facts
    "run_default": ("{u} is running.", "{u} is in service.", "{u} on line.", "{u} running normally.",
                    "{u} is in operation.", "{u} running.", "{u} is up and running.", "Status of {u}: running.",
                    "{u} currently running.", "{u} is on line and running."),
    "standby_default": ("{u} is on standby.", "{u} in auto standby.", "{u} is standby and available.",
                        "{u} sits on standby.", "{u} is the standby {kind}.", "Status of {u}: standby.",
                        "{u} is available on standby.",
                        "{u} standing by.", "{u} is on auto-standby.", "{u} available as standby."),
    "role_duty": ("the duty {kind}", "the {kind} on duty", "the {kind} that has duty", "the duty-side {kind}",
                  "the {kind} carrying the duty", "the {kind} in duty"),
    "role_standby": ("the standby {kind}", "the {kind} on standby", "the spare {kind}", "the stand-by {kind}",
                     "the {kind} standing by", "the {kind} in standby"),
    "lineup": ("{a} duty, {b} standby.", "{a} is the duty {kind} with {b} on standby.",
               "Line-up: {a} running (duty), {b} standby.", "{a} in service, {b} in standby.", "Duty/standby: {a}/{b}.",
               "{a} is running and {b} is on auto-standby.", "{a} on duty; {b} standing by.",
               "{b} is standby to {a}, which is running on duty.", "{kind}s: {a} running, {b} standby.",
               "Running {kind} is {a}; {b} is the standby."),
    "mode_default": ("{ctl} is in {m}.", "{ctl} runs in {m}.", "{ctl} mode: {m}.", "{ctl} is in {m} mode.",
                     "{ctl} normally in {m}.", "{ctl} on {m}.", "Mode of {ctl} is {m}.",
                     "{ctl} has been running in {m}.",
                     "{ctl} set to {m}.", "{ctl} currently in {m}."),
    "plant_default": ("{p} is in {st}.", "{p}: {st}.", "Current state of {p}: {st}.", "{p} is in {st} at present.",
                      "{p} status: {st}.", "{p} has been in {st} all shift.",
                      "{p} running in {st}.", "{p} is currently in {st}.", "{p} remains in {st}.",
                      "State of {p}: {st}."),
    "fact_oos": ("{u} is out of service for {why}.", "{u} OOS ({why}).", "{u} has been taken out of service for {why}.",
                 "{u} is out of service pending {why}.", "{u}: out of service, {why}.",
                 "{u} remains out of service ({why})."),
    "fact_stopped": ("{u} is stopped.", "{u} stopped, no demand.", "{u} has been shut down by the operator.",
                     "{u} is off, no load demand.", "{u} stopped at shift start.",
                     "{u} is not running (stopped on demand)."),
    "fact_tripped": ("{u} tripped earlier on {why} and has not been reset.", "{u} is tripped ({why}).",
                     "{u} is down on a {why} trip.", "{u} tripped on {why}; awaiting reset.", "{u}: tripped, {why}.",
                     "{u} is still tripped after a {why} trip."),
    "fact_running": ("{u} is running.", "{u} running, no alarms.", "{u} is on line.", "{u} in operation.",
                     "{u} is up and running.", "{u} running since the start of shift."),
    "fact_open": ("{v} is open.", "{v} open.", "{v} is in the open position.",
                  "{v} reported open by the field operator.",
                  "{v} shows open on the DCS.", "{v} has been opened.",
                  "{v} is currently open.", "Field check: {v} open.", "{v} was found open on rounds.",
                  "Position of {v}: open."),
    "fact_closed": ("{v} is closed.", "{v} closed.", "{v} is in the closed position.",
                    "{v} confirmed shut by the field operator.", "{v} shows closed on the DCS.",
                    "{v} has been closed.",
                    "{v} is currently closed.", "Field check: {v} closed.", "{v} was found shut on rounds.",
                    "Position of {v}: closed."),
    "bypass_e": ("the trip on {t} is bypassed", "{t} is in bypass", "a bypass is active on {t}", "{t} is overridden",
                 "the {t} trip is inhibited", "an MOS is in place on {t}"),
    "bypass_fact": ("The {t} trip bypass is active (MOS).", "Bypass in place on {t} for calibration.",
                    "{t} is in bypass for maintenance.", "An override is active on {t}.",
                    "MOS active on {t} until end of shift.",
                    "The trip on {t} has been bypassed by the shift supervisor."),
    "bypass_neg": ("No bypass is active on {t}.", "The bypass on {t} was removed this morning.",
                   "{t} is not in bypass.",
                   "The MOS on {t} has been cleared.", "{t} trip is armed, no override."),
    "inhibit_e": ("auto-start of {u} is inhibited", "the auto-start on {u} is disabled", "{u} auto-start is blocked",
                  "{u} has its auto-start switched off", "auto-start is inhibited on {u}"),
    "inhibit_fact": ("Auto-start of {u} is inhibited.", "{u}: auto-start disabled.",
                     "The auto-start on {u} has been switched off for maintenance.",
                     "{u} auto-start blocked by operations.",
                     "Auto-start inhibited on {u} (permit in force)."),
    "inhibit_neg": ("Auto-start of {u} is armed.", "{u} auto-start is enabled.", "The auto-start on {u} is in service.",
                    "The auto-start inhibit on {u} was removed.", "{u} auto-start: armed."),
    # ------------------------------------------------------------------ questions about states
    "q_running": ("Is {u} running?", "Is {u} in operation?", "Is {u} on line?", "Is {u} currently running?",
                  "Is {u} up?",
                  "Is {u} running right now?", "Is {u} operating?", "Is {u} running at the moment?",
                  "Is {u} on stream?",
                  "Is {u} now running?"),
    "q_still_running": ("Is {u} still running?", "Is {u} still on line?", "Is {u} still in operation?",
                        "Has {u} kept running?", "Is {u} still going?", "Is {u} still up?"),
    "q_stopped": ("Is {u} stopped?", "Is {u} down?", "Is {u} off line?", "Is {u} at standstill?",
                  "Is {u} out of operation?", "Is {u} idle?",
                  "Is {u} shut down?", "Is {u} at rest?", "Is {u} standing still?", "Is {u} currently stopped?"),
    "q_tripped": ("Has {u} tripped?", "Is {u} tripped?", "Did {u} trip?", "Is {u} in a tripped state?",
                  "Has {u} tripped out?", "Is there a trip on {u}?", "Did {u} trip out?", "Is {u} down on a trip?",
                  "Has {u} gone to trip?",
                  "Has a trip occurred on {u}?"),
    "q_standby": ("Is {u} on standby?", "Is {u} still on standby?", "Is {u} sitting in standby?",
                  "Is {u} in standby mode?", "Is {u} waiting on standby?", "Is {u} still the unit on standby?"),
    "q_oos": ("Is {u} out of service?", "Is {u} OOS?", "Is {u} down for maintenance?",
              "Has {u} been taken out of service?", "Is {u} out of commission?"),
    "q_available": ("Is {u} available?", "Is {u} in service?", "Is {u} available for operation?", "Can {u} be used?",
                    "Is {u} serviceable?"),
    "q_status": ("What is the status of {u}?", "What state is {u} in?", "{u} status?", "What is {u} doing now?",
                 "Which state best describes {u}?", "What is the current status of {u}?", "Status of {u}?",
                 "What state is {u} in at the moment?", "How would you describe the status of {u}?",
                 "Where does {u} stand now?"),
    "nc_running": ("{u} is not running", "{u} is no longer running", "{u} is not in operation", "{u} is not on line",
                   "{u} is not operating", "{u} is not running at present"),
    "nc_tripped": ("{u} has not tripped", "{u} is not tripped", "{u} did not trip", "there is no trip on {u}",
                   "{u} has not tripped out"),
    "q_open": ("Is {v} open?", "Has {v} opened?", "Is {v} open now?", "Is {v} in the open position?", "Did {v} open?",
               "Is {v} showing open?", "Has {v} gone open?", "Is {v} currently open?",
               "Has {v} been opened?", "Is {v} open at the moment?"),
    "q_closed": ("Is {v} closed?", "Is {v} shut?", "Is {v} in the closed position?", "Is {v} closed now?",
                 "Is {v} showing closed?", "Is {v} currently shut?", "Is {v} fully closed?",
                 "Is {v} currently closed?",
                 "Is {v} shut at the moment?", "Is {v} in the shut position?"),
    "nc_open": ("{v} is not open", "{v} has not opened", "{v} did not open", "{v} is not in the open position",
                "{v} is not showing open"),
    "nc_closed": ("{v} is not closed", "{v} has not closed", "{v} is not shut", "{v} is not in the closed position",
                  "{v} did not close"),
    "q_valve_pos": ("What position is {v} in?", "Is {v} open or closed?", "What is the position of {v}?",
                    "{v} position?", "Which position does {v} show?", "Open or closed: {v}?",
                    "Is {v} open, or is it closed?", "Which is it for {v}: open or closed?",
                    "What position is {v} showing?", "{v}: open or closed?"),
    "q_enable_pos": ("Is {x} enabled or disabled?", "What is the state of {x}, enabled or disabled?",
                     "Which applies to {x}: enabled or disabled?", "Enabled or disabled: {x}?",
                     "What state is {x} in?", "{x}: enabled or disabled?"),
    "q_trip_pos": ("Is the {t} trip armed or bypassed?", "What state is the trip on {t} in?",
                   "Armed or bypassed: the {t} trip?", "Is {t} protection armed or in bypass?",
                   "What is the status of the {t} trip?", "Which is it for the {t} trip, armed or bypassed?"),
    "q_mode_is": ("Is {ctl} in {m}?", "Is {ctl} running in {m}?", "Is {ctl} on {m}?", "Is {ctl} currently in {m} mode?",
                  "Is {ctl} set to {m}?", "Is the mode of {ctl} {m}?", "Is {ctl} in {m} now?", "Does {ctl} run in {m}?",
                  "Is {ctl} operating in {m}?", "Has {ctl} ended up in {m}?"),
    "q_mode": ("What mode is {ctl} in?", "Which mode is {ctl} running in?", "What is the mode of {ctl}?", "{ctl} mode?",
               "What control mode is {ctl} in now?", "In which mode is {ctl} operating?", "Mode of {ctl}?",
               "What mode does {ctl} end up in?", "Which mode applies to {ctl}?", "What is {ctl} set to?"),
    "nc_mode": ("{ctl} is not in {m}", "{ctl} is no longer in {m}", "{ctl} is not running in {m}",
                "{ctl} is not on {m}",
                "{ctl} is not set to {m}"),
    "q_plant_is": ("Is {p} in {st}?", "Has {p} gone to {st}?", "Is {p} now in {st}?", "Is {p} currently in {st}?",
                   "Has {p} entered {st}?", "Is {p} in {st} at the moment?",
                   "Is the state of {p} {st}?", "Is {p} in {st} now?", "Has {p} been put into {st}?",
                   "Is {p} sitting in {st}?"),
    "q_plant": ("What state is {p} in?", "What is the operating state of {p}?", "Which operating state applies to {p}?",
                "What state has {p} ended up in?", "{p}: what operating state?", "What is the current state of {p}?",
                "Which state is {p} in now?", "{p} state?", "What operating state is {p} in at the moment?",
                "How is {p} operating now?"),
    "nc_plant": ("{p} is not in {st}", "{p} has not gone to {st}", "{p} is no longer in {st}",
                 "{p} has not entered {st}",
                 "{p} is not currently in {st}"),
    "q_disabled": ("Is {x} disabled?", "Is {x} inhibited?", "Is {x} blocked?", "Has {x} been disabled?",
                   "Is {x} locked out by the interlock?", "Is {x} currently disabled?"),
    "q_enabled": ("Is {x} enabled?", "Is {x} available?", "Is {x} still enabled?", "Is {x} permitted to run?",
                  "Is {x} released for operation?", "Is {x} enabled right now?"),
    "nc_disabled": ("{x} is not disabled", "{x} is not inhibited", "{x} has not been disabled", "{x} is not blocked",
                    "{x} is not locked out"),
    "q_duty_is": ("Is {u} the duty {kind}?", "Is {u} on duty?", "Does {u} have duty?", "Is {u} carrying the duty?",
                  "Is {u} now the duty unit?"),
    "q_duty": ("Which of {a} and {b} is on duty?", "Which {kind} is on duty, {a} or {b}?", "Who has duty: {a} or {b}?",
               "Which unit of the {a}/{b} pair is on duty?", "Which of {a}/{b} is carrying the load?",
               "Which {kind} in the {a}/{b} set has duty now?"),
    "q_perm": ("Is the start permissive for {u} made?", "Is {u} permitted to start?", "Can {u} be started?",
               "Is {u} clear to start?", "Is the {u} start permissive satisfied?", "Is {u} ready to start?"),
    "q_noperm": ("Is the start of {u} blocked?", "Is {u} prevented from starting?",
                 "Is the start permissive for {u} missing?", "Is {u} inhibited from starting?",
                 "Is {u} held off from starting?"),
    "nc_perm": ("the start permissive for {u} is not made", "{u} is not permitted to start", "{u} cannot be started",
                "{u} is not clear to start", "the {u} start permissive is not satisfied"),
    "q_bypass": ("Is {t} in bypass?", "Is there an active bypass on {t}?", "Is the {t} trip bypassed?",
                 "Is {t} overridden?", "Is an MOS in place on {t}?"),
    "q_armed": ("Is the {t} trip armed?", "Is the trip on {t} live?", "Is {t} protection in service?",
                "Is {t} out of bypass?", "Is the {t} trip active and not bypassed?"),
    "nc_bypass": ("{t} is not in bypass", "the {t} trip is not bypassed", "there is no bypass on {t}",
                  "{t} is not overridden", "no MOS is in place on {t}", "the {t} trip is armed",
                  "the trip on {t} is live", "{t} is out of bypass", "{t} protection is in service",
                  "nobody has bypassed {t}"),
    "q_inhibited": ("Is the auto-start of {u} inhibited?", "Is {u} auto-start disabled?",
                    "Is auto-start blocked on {u}?",
                    "Has the auto-start of {u} been switched off?", "Is {u} prevented from auto-starting?"),
    "q_autostart": ("Is the auto-start of {u} armed?", "Is {u} auto-start enabled?", "Is {u} set to auto-start?",
                    "Is auto-start available on {u}?", "Is the {u} auto-start in service?"),
    "nc_inhibited": ("the auto-start of {u} is not inhibited", "{u} auto-start is not disabled",
                     "auto-start is not blocked on {u}", "the auto-start of {u} has not been switched off",
                     "{u} is not prevented from auto-starting", "the auto-start of {u} is armed",
                     "{u} auto-start is enabled", "{u} is set to auto-start", "auto-start is available on {u}",
                     "the {u} auto-start is in service"),
    # ------------------------------------------------------------------ distractors
    "note": ("Ambient temperature is {n} °C.", "Shift handover at {h}:00.",
             "{u} has run {big} hours since its last overhaul.",
             "Work order {wo} is open on {u}.", "Last calibration of {t} was {n} days ago.",
             "Cooling water supply at {n} °C.",
             "Operator rounds completed at {h}:{mm}.", "Next inspection of {u} is due in {n} days.",
             "Tank farm inventory is {big} m³.", "{t} was re-ranged {h} weeks ago."),
    "mention_valve": ("{v} is installed on the {u} discharge line.", "{v} protects {u}.", "{u} is fitted with {v}.",
                      "{v} is normally closed.", "{v} sits downstream of {u}.", "{v} was last tested in March."),
}
add_phrasings(TEMPLATES, phrasings.MORE)  # training sets only (Style.more)
FREQUENT = ("reading", "limit", "limit_pair", "rule", "rule_unless", "case", "window", "setpoint", "lineup",
            "run_default", "standby_default", "mode_default", "plant_default", "fact_open", "fact_closed",
            "q_gt", "q_ge", "q_lt", "q_le", "c_gt", "c_ge", "c_lt", "c_le", "q_rel", "q_inside", "q_outside",
            "q_within", "q_alarm", "neg_q", "q_status", "q_running", "q_stopped", "q_tripped", "q_open", "q_closed",
            "q_valve_pos", "q_mode", "q_mode_is", "q_plant", "q_plant_is", "trip_r", "trip_c")
CLAUSE = {">": "c_gt", ">=": "c_ge", "<": "c_lt", "<=": "c_le"}
QUESTION = {">": "q_gt", ">=": "q_ge", "<": "q_lt", "<=": "q_le"}
NEGATED = {">": "nc_gt", ">=": "nc_ge", "<": "nc_lt", "<=": "nc_le"}


# ============================================================================ world
@dataclass
class Equip:
    id: str
    kind: str
    partner: "Equip | None" = None  # the standby unit of a duty/standby pair (on the duty unit)
    duty: "Equip | None" = None     # the duty unit (on the standby unit)


class NoRoom(Exception):
    """A draw asked for a value the measurement's grid has no room for (a positive reading
    below a limit of one step); the set is drawn again."""


@dataclass
class Meas:
    id: str                # the tag, or the description of a tagless reading
    tag: str | None
    equip: Equip
    pn: str                # "discharge temperature"
    qty: str
    unit: str
    grid: Decimal          # limits are multiples of it
    step: Decimal          # reading resolution
    lo: Decimal
    hi: Decimal
    value: Decimal = Decimal(0)
    sentence: int | None = None
    point: str = ""


@dataclass
class Cand:
    """A question the set may ask: `make(sol)` returns (target, text, options); targets are
    ("truth", atom, polarity), ("is", var, value, polarity) or ("cat", var)."""

    key: Hashable
    make: Callable


@dataclass
class Direct:
    """A value read straight off the numbers (depth 0): a comparison, an alarm state, a band
    position. `deps`: the sentences it needs; `domain`: what it may be when one is deleted;
    `support()`: the sentences that may stand for it, best first."""

    fn: Callable[[], Value]
    deps: tuple[int, ...]
    domain: tuple
    support: Callable[[], list[int]]


@dataclass
class Node:
    kind: str
    lit: tuple                     # the literal a rule concludes (or a condition tests)
    cond: Callable[[], str]        # phrased as a condition
    concl: Callable[[], str]       # phrased as a result
    cand: Cand | None
    equip: Equip | None = None


_TOKEN = re.compile(r"[A-Za-z]+|\d+|[^\sA-Za-z\d]")
_DIGITS = (0, 1.0, 1.0, 1.6, 2.0, 2.4)
_CAPS = (0, 1.0, 1.2, 1.6, 1.7, 1.7)


def estimate_tokens(text: str) -> int:
    """The WordPiece tokens a text takes, estimated from the mean cost of each kind of piece
    in this family's text (numbers of three digits split in two about half the time, tags
    like "BL" or "ESDV" in two or three, long words in two); about 2% over on a whole set."""
    n = 0.0
    for t in _TOKEN.findall(text):
        if t.isdigit():
            n += _DIGITS[min(len(t), 5)]
        elif t.isupper() and len(t) > 1:
            n += _CAPS[min(len(t), 5)]
        elif t.isalpha():
            n += 1.12 if len(t) < 8 else 1.35
        else:
            n += 1.0
    return int(n + 0.999)


TOKEN_BUDGET = 398  # estimated prefix tokens of a whole set (the tokenizer's count runs 6+ below it; the cap is 400)
QUESTION_COST = 19  # estimated tokens of an average question with its options


def compared(key: tuple) -> tuple[Decimal, ...]:
    """The numbers a comparison atom ("cmp", mid, op, a, b, src) or a position variable ("rel",
    mid, a, src) sets a reading against: its limits, not a tolerance (within / beyond's b)."""
    if key[0] == "rel":
        return (key[2],)
    _, _, op, a, b, _ = key
    return (a,) if b is None or op in ("within", "beyond") else (a, b)


class World:
    """One set under construction: sentences, the program, the numbers, the candidate questions."""

    def __init__(self, rng: random.Random, style: Style, slack: int = 0, values: random.Random | None = None,
                 flip: int | None = None, stated: tuple[float, random.Random] | None = None,
                 roles: random.Random | None = None, role_rules: float = 0.0, drill: bool = False,
                 groups: float = 0.0):
        self.rng, self.style = rng, style
        # Twins (`generate_twins`): the numbers that place a reading against its limits come
        # from `values`, everything else from `rng`, so that a set and its twin, which draws
        # the same structure, stay sentence for sentence alike; outcome draw number `flip`
        # (`outcome`) is turned the other way in the twin. Alone, both are `rng`.
        self.vrng = values or rng
        self.flip, self.outcomes = flip, 0
        self.slack = slack  # context tokens kept free on top of the usual margins (grows on retries)
        self.b = SetBuilder(DOMAIN)
        self.p = Program()
        self.readings: dict[str, tuple[Decimal, int | None]] = {}
        self.direct: dict[Hashable, Direct] = {}
        self.used: set[str] = set()
        self.meas: list[Meas] = []
        self.equips: list[Equip] = []
        self.concluded: set = set()
        self.status_default: dict[str, str] = {}
        self.mode_words = rng.choice(MODE_WORDS)
        self.alarm_words = rng.choice(ALARM_WORDS)
        self.band_words = rng.choice(BAND_WORDS)
        self.rel_words = rng.choice(REL_WORDS)
        self.asked: list[Cand] = []
        self.tokens = 0
        self.n = 8
        self.relevant: set | None = None  # the direct values that matter (set by evaluate)
        self.stated = stated  # (share, its own draws) for state_outcomes, or None
        # roles sets (`generate(roles=...)`): their own draws, or None; the kinds of the pairs a rule
        # named a unit of by role (no second pair of such a kind, and no rule moves its duty)
        self.roles = roles
        self.role_kinds: set[str] = set()
        self.role_rules = role_rules  # in a roles set: share of chains that start by tripping a pair's duty unit
        self.limits: list[tuple[str, Decimal, int]] = []  # (measurement, a number said of it, its sentence)
        self.drill = drill  # a comparison drill: every block compares readings with numbers (`plan`)
        self.groups = groups  # share of blocks that are groups of alike readings (`block_group`)
        self.group_sentences: set[int] = set()  # sentences that give a whole group's readings
        self.grouped: set[str] = set()  # measurements of a group: only their tags tell them apart
        self.worded: list[tuple[str, tuple]] = []  # (text, target) of each question, once finished

    # ---------------------------------------------------------------- sentences and names
    def say(self, text: str) -> int:
        self.tokens += estimate_tokens(text)
        return self.b.say(text)

    def fmt(self, pattern: str, **kw) -> str:
        text = pick(self.rng, TEMPLATES[pattern], self.style).format(**kw)
        return text.replace("setting setting", "setting").replace("..", ".")

    def fresh(self, make: Callable[[], str]) -> str:
        for _ in range(400):
            name = make()
            if name not in self.used:
                self.used.add(name)
                return name
        raise RuntimeError("ran out of fresh names")

    def num(self) -> str:
        return names(self.rng, NUMBERS, self.style)

    def kind(self, ok: Callable[[Kind], bool] = lambda k: True) -> str:
        """An equipment kind that fits, from this style's half of the lexicon."""
        for _ in range(40):
            k = names(self.rng, KINDS, self.style)
            if ok(EQUIPMENT[k]):
                return k
        fits = [k for k in half(KINDS, self.style) if ok(EQUIPMENT[k])]
        if not fits:
            raise RuntimeError("no equipment kind fits")
        return self.rng.choice(fits)

    def has_kind(self, ok: Callable[[Kind], bool]) -> bool:
        return any(ok(EQUIPMENT[k]) for k in half(KINDS, self.style))

    def new_equip(self, ok: Callable[[Kind], bool] = lambda k: True, pair: bool = False) -> Equip:
        kind = self.kind((lambda k: ok(k) and k.pairs and k.word not in self.role_kinds) if pair else ok)
        prefix = self.rng.choice(EQUIPMENT[kind].prefixes)
        if not pair:
            e = Equip(self.fresh(lambda: f"{prefix}-{self.num()}"), kind)
            self.equips.append(e)
            return e
        while True:
            n = self.num()
            a, b = f"{prefix}-{n}A", f"{prefix}-{n}B"
            if a not in self.used and b not in self.used:
                break
        self.used.update((a, b))
        ea, eb = Equip(a, kind), Equip(b, kind)
        duty, standby = (eb, ea) if self.roles is not None and self.roles.random() < 0.5 else (ea, eb)
        duty.partner, standby.duty = standby, duty
        self.equips += [ea, eb]
        return duty

    def new_meas(self, equip: Equip | None = None, ok: Callable[[str], bool] = lambda q: True,
                 tagless: float = 0.12) -> Meas:
        rng = self.rng
        for _ in range(100):
            e = equip or self.new_equip(lambda k: any(ok(q) for _, q in k.points))
            taken = {(m.point, m.qty) for m in self.meas if m.equip is e}
            points = [pt for pt in EQUIPMENT[e.kind].points if ok(pt[1]) and pt not in taken]
            if points:
                break
            equip = None
        else:
            raise RuntimeError("no measurement point fits")
        point, qty = rng.choice(points)
        spec = QTY[qty]
        unit, lo, hi, combos = rng.choice(spec.scales)
        grid, step = (Decimal(x) for x in rng.choice(combos))
        noun = rng.choice(spec.nouns)
        pn = f"{point} {noun}".strip()
        if rng.random() < tagless:
            tag = None
            mid = self.fresh(lambda: f"{e.id} {pn}")
        else:
            suffix = "A" if rng.random() < 0.12 else ""
            tag = self.fresh(lambda: f"{rng.choice(spec.tags)}-{self.num()}{suffix}")
            mid = tag
        m = Meas(mid, tag, e, pn, qty, unit, grid, step, Decimal(lo), Decimal(hi), point=point)
        self.meas.append(m)
        return m

    # ---------------------------------------------------------------- phrases
    def desc(self, m: Meas) -> str:
        return self.fmt("desc", e=m.equip.id, pn=m.pn, kind=EQUIPMENT[m.equip.kind].word)

    def subj(self, m: Meas) -> str:
        """The measurement as a subject: its tag or "the" + a description."""
        if m.tag is not None and (self.rng.random() < 0.55 or m.id in self.grouped):
            return m.tag
        return "the " + self.desc(m)

    def bare(self, m: Meas) -> str:
        return m.tag if m.tag is not None and (self.rng.random() < 0.6 or m.id in self.grouped) else self.desc(m)

    def qtext(self, unit: str, value, places: int | None = None) -> str:
        """A quantity as written: number (sometimes with an extra trailing zero or a
        thousands separator) and one spelling of the unit. How the number is written depends on
        its value, so it draws from `vrng`; the unit's spelling from `rng` (a twin keeps it)."""
        rng = self.vrng
        v = dec(value)
        need = decimals(v)
        places = need if places is None else max(places, need)
        if rng.random() < 0.18 and places < 2:
            places += 1
        elif places > need and rng.random() < 0.3:
            places = need
        num = fmt_number(v, places, thousands=v >= 1000 and rng.random() < 0.4)
        spelled = self.rng.choice(UNIT_SPELLINGS[unit])
        if unit == "pH":
            return f"pH {num}"
        if spelled in TIGHT and self.rng.random() < 0.5:
            return f"{num}{spelled}"
        return f"{num} {spelled}"

    def mqty(self, m: Meas, value) -> str:
        return self.qtext(m.unit, value, decimals(m.step))

    def span(self, m: Meas, lo, hi) -> tuple[str, str]:
        """The two ends of a band: the unit written once (after the upper end; pH before the lower)."""
        if m.unit == "pH":
            return f"pH {fmt_number(lo, decimals(m.grid))}", fmt_number(hi, decimals(m.grid))
        if self.rng.random() < 0.3:
            return self.mqty(m, lo), self.mqty(m, hi)
        return fmt_number(lo, decimals(m.grid)), self.mqty(m, hi)

    def limit_name(self, kind: str, m: Meas) -> str:
        return self.rng.choice(LIMIT_NAMES[kind]).format(adj=QTY[m.qty].adj)

    def eref(self, e: Equip) -> str:
        return e.id if self.rng.random() < 0.6 else f"{EQUIPMENT[e.kind].word} {e.id}"

    def uref(self, e: Equip) -> str:
        """A unit as a rule names it: as eref does, or in a roles set, three times in four, by its role
        in a pair whose line-up the set states, whose duty no rule moves and whose kind no other
        pair of the set shares ("the standby pump")."""
        duty = e.duty or e
        if (self.roles is None or duty.partner is None or duty.id not in self.status_default
                or ("duty", duty.id) in self.concluded or self.roles.random() < 0.25
                or sum(x.kind == e.kind and x.duty is not None for x in self.equips) > 1):
            return self.eref(e)
        self.role_kinds.add(e.kind)
        return self.fmt("role_duty" if e is duty else "role_standby", kind=EQUIPMENT[e.kind].word)

    # ---------------------------------------------------------------- numbers
    def grid_value(self, m: Meas, lo: Decimal | None = None, hi: Decimal | None = None) -> Decimal:
        lo = m.lo if lo is None else lo
        hi = m.hi if hi is None else hi
        a = max(1, int((lo / m.grid).to_integral_value(rounding=ROUND_CEILING)))
        b = int((hi / m.grid).to_integral_value(rounding=ROUND_FLOOR))
        return m.grid * self.rng.randint(a, max(a, b))

    def outcome(self, options: Sequence):
        """What a comparison is to come out as, one of `options` (an alarm band, which of two
        readings is higher), drawn from `rng`; the twin's chosen draw takes another option."""
        choice = self.rng.choice(options)
        if self._turned():
            choice = self.vrng.choice([o for o in options if o != choice] or [choice])
        return choice

    def truth(self, p: float = 0.5) -> bool:
        """A comparison's wanted truth: True with probability p (the twin's chosen draw negated)."""
        return (self.rng.random() < p) != self._turned()

    def _turned(self) -> bool:
        """Counts an outcome draw; whether it is the one the twin turns the other way."""
        k, self.outcomes = self.outcomes, self.outcomes + 1
        return k == self.flip

    def offset(self, m: Meas, around: Decimal) -> Decimal:
        """A positive distance: mostly a few steps, sometimes far."""
        rng = self.vrng
        if rng.random() < 0.6:
            k = rng.randint(1, 3)
        else:
            k = rng.randint(4, max(5, min(400, int(abs(around) * Decimal("0.15") / m.step))))
        return m.step * k

    def below(self, m: Meas, a: Decimal) -> Decimal:
        d = self.offset(m, a)
        while a - d <= 0 and d > m.step:
            d = max(m.step, (d / 2 // m.step) * m.step)
        return a - d

    def place(self, m: Meas, op: str, a: Decimal, b: Decimal | None, want: bool, eq: float = 0.3) -> Decimal:
        """A reading on the step grid with compare(op, x, a, b) == want; ends and thresholds
        are hit exactly in a share `eq` of the cases where that is allowed."""
        rng = self.vrng
        if op in (">", ">=", "<", "<="):
            up, incl = op in (">", ">="), op in (">=", "<=")
            if want == incl and rng.random() < eq:
                x = a
            elif want == up:
                x = a + self.offset(m, a)
            else:
                x = self.below(m, a)
                if x <= 0 and want == incl:  # no reading on the grid below a limit of one step: the limit itself
                    x = a
                elif x <= 0:
                    raise NoRoom(f"no positive {m.unit or 'value'} on a grid of {m.step} lies below {a}")
        elif op in ("between", "outside"):
            inside = want if op == "between" else not want
            if inside:
                inner = int((b - a) / m.step) - 1
                if rng.random() < eq or inner < 1:
                    x = rng.choice((a, b))
                else:
                    x = a + m.step * rng.randint(1, inner)
            else:
                x = self.below(m, a) if rng.random() < 0.5 else b + self.offset(m, b)
                if x <= 0:
                    x = b + self.offset(m, b)
        elif op in ("within", "beyond"):
            near = want if op == "within" else not want
            sign = 1 if rng.random() < 0.5 else -1
            if near:
                d = b if rng.random() < eq else m.step * rng.randint(0, max(0, int(b / m.step) - 1))
            else:
                d = b + self.offset(m, b)
            x = a + sign * d
            if x <= 0:
                x = a + d
        else:
            raise ValueError(op)
        assert x > 0 and compare(op, x, a, b) == want, (op, x, a, b, want)
        return x

    # ---------------------------------------------------------------- facts about numbers
    def say_reading(self, m: Meas, value: Decimal) -> int:
        m.value = value
        q = self.mqty(m, value)
        if m.tag is None:
            s = self.say(self.fmt("reading_notag", d=self.desc(m), q=q))
        else:
            s = self.say(self.fmt("reading", t=m.tag, d=self.desc(m), q=q))
        m.sentence = s
        self.readings[m.id] = (value, s)
        return s

    def reading(self, mid: str, value, sentence: int | None) -> None:
        """Register a reading said elsewhere (hand-built worlds)."""
        self.readings[mid] = (dec(value), sentence)

    def value(self, mid: str) -> Decimal:
        return self.readings[mid][0]

    def label_question_numbers(self, targets: list[tuple], texts: list[str]) -> list[tuple[int, Decimal, int]]:
        """DecisionSet.question_labels: the threshold a question writes itself ("Is TT-101 above
        131 °C?", "... below, at or above 131 °C?"), by how the reading compares with it."""
        out = []
        for k, (target, text) in enumerate(zip(targets, texts)):
            key = target[1]
            if not (isinstance(key, tuple) and key and key[0] in ("cmp", "rel")) or key[-1] is not None:
                continue  # not a comparison, or its number is said in a sentence of its own
            written = written_numbers(text)
            x = self.value(key[1])
            out += [(k, v, compared_with(x, v)) for v in dict.fromkeys(compared(key)) if v in written]
        return out

    def say_limit(self, m: Meas, kind: str) -> None:
        """A limit of kind `kind` on `m` that nothing asks about (its words drawn before its value)."""
        s, n0, lim = self.subj(m), self.bare(m), self.limit_name(kind, m)
        value = self.grid_value(m)
        self.limit(m.id, value, self.say(self.fmt("limit", s=s, n0=n0, lim=lim, q=self.mqty(m, value))))

    def limit(self, mid: str, value, sentence: int) -> None:
        """A number said of measurement `mid` in `sentence` (a limit, a band's end, a set point):
        the set's number labels compare the reading with it (`label_numbers`)."""
        self.limits.append((mid, dec(value), sentence))

    def label_numbers(self) -> list[tuple[int, Decimal, int]]:
        """DecisionSet.number_labels: each reading, in its own sentence (1), and each number said
        of a measurement (a limit, a band's end, a set point, a rule's threshold), by how the
        measurement's reading compares with it (0 below, 1 equal, 2 above; base.written_labels
        leaves out what a sentence does not write or holds twice with two labels)."""
        said: dict[tuple[int, Decimal], set[int]] = {}
        for value, sentence in self.readings.values():
            if sentence is not None:
                said.setdefault((sentence, value), set()).add(1)
        limits = list(self.limits)
        for d in self.p.definitions:  # thresholds written in a rule's own words ("if FT-364 dips below 216 m³/h")
            for conditions, sentence in ([(d.conditions, d.sentence)] if isinstance(d, Rule)
                                         else [(c, s) for c, _, s in d.cases]):
                for atom, _ in conditions if sentence is not None else ():
                    if isinstance(atom, tuple) and atom[0] == "cmp" and atom[5] is None:
                        limits += [(atom[1], v, sentence) for v in compared(atom)]
        for mid, value, sentence in limits:
            x = self.value(mid)
            said.setdefault((sentence, value), set()).add(compared_with(x, value))
        return written_labels(said, self.b.sentences)

    def cmp_atom(self, mid: str, op: str, a, b=None, src: int | None = None) -> tuple:
        """The comparison `reading(mid) OP a [b]` (an atom); `src` is the sentence that states
        the limit, None when the number is written where the comparison is used."""
        a = dec(a)
        b = None if b is None else dec(b)
        key = ("cmp", mid, op, a, b, src)
        for v in compared(key) if src is not None else ():
            self.limit(mid, v, src)
        reading = self.readings[mid][1]
        deps = tuple(x for x in (reading, src) if x is not None)
        self.direct[key] = Direct(lambda: compare(op, self.value(mid), a, b), deps, (True, False),
                                  lambda: [x for x in (src, reading) if x is not None])
        return key

    def alarm_var(self, mid: str, limits: dict[str, tuple], words: dict[str, str] | None = None) -> tuple:
        """The alarm state of a reading (a categorical variable in `words`), from its limits
        {level: (value, sentence)}; the limit that puts it in its state supports it."""
        var = ("alarm", mid)
        words = words or ALARM_WORDS[0]
        lims = {k: (dec(v), x) for k, (v, x) in limits.items()}
        for v, x in lims.values():
            if x is not None:
                self.limit(mid, v, x)
        state = lambda: alarm_state(self.value(mid), {k: v for k, (v, _) in lims.items()})  # noqa: E731
        deps = tuple(x for x in [self.readings[mid][1]] + [x for _, x in lims.values()] if x is not None)
        def support() -> list[int]:
            level = state()
            return [lims[level][1]] if level in lims and lims[level][1] is not None else []
        self.direct[var] = Direct(lambda: words[state()], deps, tuple(words[k] for k in ALARM_ORDER), support)
        return var

    def band_var(self, mid: str, lo, hi, src: int | None, words: Sequence[str] = ("below", "within", "above")) -> tuple:
        """Where a reading sits against an inclusive band [lo, hi]: words[0], [1] or [2]."""
        lo, hi = dec(lo), dec(hi)
        var = ("band", mid, lo, hi, src)

        def where():
            x = self.value(mid)
            return words[0] if x < lo else words[2] if x > hi else words[1]
        deps = tuple(x for x in (self.readings[mid][1], src) if x is not None)
        self.direct[var] = Direct(where, deps, tuple(words), lambda: [src] if src is not None else [])
        return var

    def rel_var(self, mid: str, a, src: int | None = None, words: Sequence[str] = ("below", "at", "above")) -> tuple:
        """A reading against one threshold: below it, exactly at it, or above it."""
        a = dec(a)
        var = ("rel", mid, a, src)

        def where():
            x = self.value(mid)
            return words[0] if x < a else words[2] if x > a else words[1]
        reading = self.readings[mid][1]
        deps = tuple(x for x in (reading, src) if x is not None)
        self.direct[var] = Direct(where, deps, tuple(words), lambda: [x for x in (src, reading) if x is not None])
        return var

    def pair_var(self, a: str, b: str, higher: bool = True) -> tuple:
        """Which of two readings (same unit, never equal) is the higher (or the lower)."""
        var = ("higher" if higher else "lower", a, b)

        def which():
            up = self.value(a) > self.value(b)
            return a if up == higher else b
        deps = tuple(x for x in (self.readings[a][1], self.readings[b][1]) if x is not None)
        self.direct[var] = Direct(which, deps, (a, b), lambda: [])
        return var

    def pair_atom(self, a: str, b: str) -> tuple:
        """The atom `reading(a) > reading(b)`."""
        key = ("pair", a, ">", b)
        deps = tuple(x for x in (self.readings[a][1], self.readings[b][1]) if x is not None)
        self.direct[key] = Direct(lambda: self.value(a) > self.value(b), deps, (True, False), lambda: [])
        return key

    # ---------------------------------------------------------------- ground truth
    def _solve(self, deleted: frozenset = frozenset(), forced: dict | None = None, limit: int = 64):
        """Every solution the context minus `deleted`, plus the `forced` answers, allows:
        comparisons and alarm states whose numbers were deleted take every value. None when
        there are more than `limit` combinations."""
        forced = forced or {}
        fixed, unknown = {}, []
        for key, d in self.direct.items():
            if self.relevant is not None and key not in self.relevant:
                continue  # neither asked nor used by a rule: it changes nothing
            if key in forced:
                fixed[key] = forced[key]
            elif any(s in deleted for s in d.deps):
                unknown.append((key, d.domain))
            else:
                fixed[key] = d.fn()
        count = 1
        for _, vals in unknown:
            count *= len(vals)
        if count > limit:
            return None
        out = []
        for combo in product(*(vals for _, vals in unknown)):
            vals = dict(fixed)
            vals.update(zip((k for k, _ in unknown), combo))
            p = Program()
            for atom, (h, s) in self.p.facts.items():
                if s not in deleted:
                    p.facts[atom] = (h, s)
            for key, v in vals.items():
                if isinstance(v, bool):
                    if v:
                        p.fact(key, True)
                else:
                    p.value(key, v)
            for var, (v, s) in self.p.values.items():
                if s not in deleted:
                    p.values[var] = (v, s)
            for var, (v, s) in self.p.defaults.items():
                if s not in deleted:
                    p.defaults[var] = (v, s)
            for d in self.p.definitions:
                if isinstance(d, Rule):
                    if d.sentence not in deleted:
                        p.definitions.append(d)
                else:
                    cases = [c for c in d.cases if c[2] not in deleted]
                    if cases:
                        p.definitions.append(Cases(d.var, cases, d.otherwise, d.sentence))
            for key, v in forced.items():
                if key in self.direct:
                    continue
                if isinstance(v, bool):
                    p.fact(key, v)
                else:
                    p.value(key, v)
            out.append(p.solve())
        return out

    @staticmethod
    def answer(target: tuple, sol: dict):
        """The answer a solution gives: True/False, an option, or None (undetermined)."""
        if target[0] in ("truth", "pos"):
            got = sol.get(target[1])
            holds = got is not None and got.value is True
            if target[0] == "pos":
                return target[2] if holds else target[3]
            return holds == target[2]
        got = sol.get(target[1])
        if got is None:
            return None
        if target[0] == "is":
            return (got.value == target[2]) == target[3]
        return got.value

    @staticmethod
    def _forced(target: tuple, answer) -> dict | None:
        if target[0] in ("truth", "pos"):
            return {target[1]: answer == target[2]}
        if target[0] == "is":
            return {target[1]: target[2]} if answer == target[3] else None
        return {target[1]: answer}

    def _candidates(self, target: tuple, sol: dict) -> list[int]:
        """Sentences that might settle a target: a comparison's limit, then its reading; a
        fact or the rule/case that concluded it; the limit that puts a tag in its alarm."""
        key = target[1]
        if key in self.direct:
            return self.direct[key].support()
        got = sol.get(key)
        if got is None or got.support is None or (target[0] in ("truth", "pos") and got.value is not True):
            return []
        return [got.support]

    def evaluate(self, targets: list[tuple]) -> tuple[list, list[int], list[int | None]]:
        """Answers, depths and supports of the targets (see the module docstring)."""
        self.relevant = {t[1] for t in targets}
        for d in self.p.definitions:
            for body in ([d.conditions] if isinstance(d, Rule) else [c[0] for c in d.cases]):
                self.relevant.update(k for k, _ in body)
        sol = self._solve()[0]
        answers = [self.answer(t, sol) for t in targets]
        depths = []
        for t in targets:
            got = sol.get(t[1])
            depths.append(0 if got is None or t[1] in self.direct else got.depth)
        supports: list[int | None] = []
        for i, t in enumerate(targets):
            forced = self._forced(t, answers[i])
            found = None
            if forced is not None:
                for s in self._candidates(t, sol):
                    sols = self._solve(frozenset((s,)), forced)
                    if sols is not None and all(self.answer(targets[j], alt) == answers[j]
                                                for alt in sols for j in range(len(targets)) if j != i):
                        found = s
                        break
            supports.append(found)
        while not self._jointly_ok(targets, answers, supports):
            supports[max(i for i, x in enumerate(supports) if x is not None)] = None
        return answers, depths, supports

    def _holds_after(self, targets: list[tuple], answers: list, deleted: set[int], forced_from: list[int],
                     check: list[int]) -> bool:
        forced: dict = {}
        for i in forced_from:
            forced.update(self._forced(targets[i], answers[i]))
        sols = self._solve(frozenset(deleted), forced, limit=256)
        return sols is not None and all(self.answer(targets[j], alt) == answers[j] for alt in sols for j in check)

    def _jointly_ok(self, targets: list[tuple], answers: list, supports: list[int | None]) -> bool:
        """Training deletes the supports of all revealed answers at once. With every support
        deleted and every supported answer given, the other answers must stay; and each
        supported answer must stay when all the other supports go (then any subset works)."""
        have = [i for i, x in enumerate(supports) if x is not None]
        if len(have) < 2:
            return True
        rest = [j for j in range(len(targets)) if supports[j] is None]
        if not self._holds_after(targets, answers, {supports[i] for i in have}, have, rest):
            return False
        for i in have:
            others = [k for k in have if k != i]
            gone = {supports[k] for k in others}
            if supports[i] in gone or not self._holds_after(targets, answers, gone, others, [i]):
                return False
        return True

    def chained(self, targets: list[tuple]) -> bool:
        asked = {t[1] for t in targets}
        for d in self.p.definitions:
            if isinstance(d, Rule):
                head, body = d.conclusion[0], [c[0] for c in d.conditions]
            else:
                head, body = d.var, [c[0] for case in d.cases for c in case[0]]
            if head in asked and any(k in asked for k in body):
                return True
        return False

    # ---------------------------------------------------------------- candidate questions
    def _neg(self, pattern: str, **kw) -> str:
        return self.fmt("neg_q", c=self.fmt(pattern, **kw))

    def _options(self, domain: Sequence[str], truth: str, most: int = 8) -> tuple[str, ...]:
        others = [v for v in domain if v != truth]
        k = self.rng.randint(1, min(len(others), most - 1))
        shown = set(self.rng.sample(others, k)) | {truth}
        return tuple(v for v in domain if v in shown)

    def cmp_cand(self, key: tuple, m: Meas, thr: Callable[[], str], rel: float = 0.0) -> Cand:
        """A comparison asked as is, negated, or (share `rel`) as below / at / above."""
        op = key[2]
        var = self.rel_var(m.id, key[3], key[5], self.rel_words) if rel > 0 else None

        def make(sol):
            s, r = self.subj(m), self.rng.random()
            if var is not None and self.rng.random() < rel:
                return ("cat", var), self.fmt("q_rel", s=s, thr=thr()), self._options(self.rel_words, sol[var].value, 3)
            if r < 0.68:
                return ("truth", key, True), self.fmt(QUESTION[op], s=s, thr=thr()), None
            if r < 0.9:
                return ("truth", key, False), self._neg(NEGATED[op], s=s, thr=thr()), None
            return ("truth", key, True), self._neg(CLAUSE[op], s=s, thr=thr()), None
        return Cand(key, make)

    def band_cand(self, key: tuple, m: Meas, named: bool) -> Cand:
        """A question on a band: operating window / inclusive range ("between", "outside") or
        a set point with tolerance ("within", "beyond")."""
        op, a, b = key[2], key[3], key[4]

        def make(sol):
            s = self.subj(m)
            if op in ("between", "outside"):
                lo, hi = self.span(m, a, b)
                kw = dict(s=s, lo=lo, hi=hi)
                if op == "outside":
                    return ("truth", key, True), self.fmt("q_outside", **kw), None
                if not named:
                    return ("truth", key, True), self.fmt("q_between", **kw), None
                if self.rng.random() < 0.3:
                    return ("truth", key, False), self._neg("nc_inside", **kw), None
                return ("truth", key, True), self.fmt("q_inside", **kw), None
            kw = dict(s=s, sp=self.mqty(m, a), tol=self.mqty(m, b))
            if op == "beyond":
                return ("truth", key, True), self.fmt("q_beyond", **kw), None
            if self.rng.random() < 0.3:
                return ("truth", key, False), self._neg("nc_within", **kw), None
            return ("truth", key, True), self.fmt("q_within", **kw), None
        return Cand(key, make)

    def atom_cand(self, key: tuple, pos: str, anti: str, neg: str, choice: tuple | None = None, **kw) -> Cand:
        """A boolean state: asked as is, by its antonym, negated, or (`choice` = (pattern,
        word if it holds, word if not, options)) as a two-way choice."""
        def make(sol):
            r = self.rng.random()
            args = {k: (v() if callable(v) else v) for k, v in kw.items()}
            if choice is not None and self.rng.random() < 0.35:
                pattern, yes, no, options = choice
                return ("pos", key, yes, no), self.fmt(pattern, **args), options
            if r < 0.5:
                return ("truth", key, True), self.fmt(pos, **args), None
            if r < 0.8:
                return ("truth", key, False), self.fmt(anti, **args), None
            return ("truth", key, False), self._neg(neg, **args), None
        return Cand(key, make)

    def status_cand(self, e: Equip, forms: Sequence[str]) -> Cand:
        var = ("status", e.id)

        def make(sol):
            u = self.eref(e)
            form = self.rng.choice(forms)
            if form == "cat":
                truth = sol[var].value
                return ("cat", var), self.fmt("q_status", u=u), self._options(STATUS, truth)
            table = {"running": (("is", var, "running", True), "q_running"),
                     "still": (("is", var, "running", True), "q_still_running"),
                     "stopped": (("is", var, "running", False), "q_stopped"),
                     "tripped": (("is", var, "tripped", True), "q_tripped"),
                     "standby": (("is", var, "standby", True), "q_standby"),
                     "oos": (("is", var, "out of service", True), "q_oos"),
                     "available": (("is", var, "out of service", False), "q_available")}
            if form == "nc_running":
                return ("is", var, "running", False), self._neg("nc_running", u=u), None
            if form == "nc_tripped":
                return ("is", var, "tripped", False), self._neg("nc_tripped", u=u), None
            target, pattern = table[form]
            return target, self.fmt(pattern, u=u), None
        return Cand(var, make)

    def mode_cand(self, var: tuple, ctl: str, values: Sequence[str]) -> Cand:
        def make(sol):
            r = self.rng.random()
            if r < 0.6:
                return ("cat", var), self.fmt("q_mode", ctl=ctl), self._options(self.mode_words, sol[var].value)
            m = self.rng.choice(values)
            if r < 0.88:
                return ("is", var, m, True), self.fmt("q_mode_is", ctl=ctl, m=m), None
            return ("is", var, m, False), self._neg("nc_mode", ctl=ctl, m=m), None
        return Cand(var, make)

    def plant_cand(self, var: tuple, area: str, values: Sequence[str]) -> Cand:
        def make(sol):
            r = self.rng.random()
            if r < 0.6:
                return ("cat", var), self.fmt("q_plant", p=area), self._options(PLANT_STATES, sol[var].value)
            st = self.rng.choice(values)
            if r < 0.88:
                return ("is", var, st, True), self.fmt("q_plant_is", p=area, st=st), None
            return ("is", var, st, False), self._neg("nc_plant", p=area, st=st), None
        return Cand(var, make)

    def duty_cand(self, a: Equip, b: Equip) -> Cand:
        var = ("duty", a.id)
        word = EQUIPMENT[a.kind].word

        def make(sol):
            if self.rng.random() < 0.5:
                first, second = sorted((a.id, b.id))  # the duty unit is not always named first
                return ("cat", var), self.fmt("q_duty", a=first, b=second, kind=word), (a.id, b.id)
            u = self.rng.choice((a, b))
            return ("is", var, u.id, True), self.fmt("q_duty_is", u=u.id, kind=word), None
        return Cand(var, make)

    def band_pos_cand(self, var: tuple, m: Meas, pattern: str) -> Cand:
        def make(sol):
            return ("cat", var), self.fmt(pattern, s=self.subj(m)), self._options(self.band_words, sol[var].value, 3)
        return Cand(var, make)

    def pair_cands(self, a: Meas, b: Meas) -> list[Cand]:
        """Which of two same-unit readings is higher / lower, and whether one exceeds the other."""
        x, y = (a, b) if self.rng.random() < 0.5 else (b, a)
        higher = self.rng.random() < 0.6
        var = self.pair_var(x.id, y.id, higher)

        def make(sol):
            return ("cat", var), self.fmt("q_higher" if higher else "q_lower", a=x.id, b=y.id), (x.id, y.id)
        key = self.pair_atom(x.id, y.id)

        def make_bool(sol):
            return ("truth", key, True), self.fmt("q_pair_gt", a=x.id, b=y.id), None
        return [Cand(var, make), Cand(key, make_bool)]

    def alarm_cand(self, var: tuple, m: Meas) -> Cand:
        def make(sol):
            domain = tuple(self.alarm_words[k] for k in ALARM_ORDER)
            return ("cat", var), self.fmt("q_alarm", s=self.subj(m)), self._options(domain, sol[var].value, 5)
        return Cand(var, make)

    # ---------------------------------------------------------------- line-up
    def lineup(self, e: Equip) -> None:
        """State the line-up of e (and its pair) once: defaults the rules may override."""
        if e.id in self.status_default:
            return
        a = e.duty or e
        b = a.partner
        if b is None:
            s = self.say(self.fmt("run_default", u=self.eref(a)))
            self.p.default(("status", a.id), "running", s)
            self.status_default[a.id] = "running"
            return
        s = self.say(self.fmt("lineup", a=a.id, b=b.id, kind=EQUIPMENT[a.kind].word))
        self.p.default(("status", a.id), "running", s)
        self.p.default(("status", b.id), "standby", s)
        self.p.default(("duty", a.id), a.id, s)
        self.status_default[a.id], self.status_default[b.id] = "running", "standby"

    # ---------------------------------------------------------------- comparisons as roots
    def root(self, m: Meas | None = None, want: bool | None = None, named: float = 0.45,
             ops: Sequence[str] = (">", ">=", "<", "<="), pct: float = 0.25, rel: float = 0.25) -> tuple[Node, Meas]:
        """A reading and a comparison on it (a named limit, a number, or a share of rated),
        with the comparison's truth `want`; the node's condition phrase is the comparison."""
        rng = self.rng
        want = self.truth() if want is None else want
        if m is None:
            m = self.new_meas()
        op = rng.choice(ops)
        pct_ok = m.qty in ("current", "speed", "power")
        if pct_ok and rng.random() < pct:
            for _ in range(30):  # a threshold on the reading's own grid
                share = rng.choice((80, 90, 95, 100, 105, 110, 115, 120, 125))
                rated = self.grid_value(m, m.lo + m.grid)
                a = percent_of(share, rated)
                if a % m.step == 0:
                    break
            self.say_reading(m, self.place(m, op, a, None, want))
            noun = QTY[m.qty].nouns[0]
            if rng.random() < 0.5:
                src = self.say(self.fmt("rated", u=self.eref(m.equip), noun=noun, q=self.mqty(m, rated)))
                key = self.cmp_atom(m.id, op, a, None, src)
                thr = lambda: self.fmt("thr_pct", p=share, noun=noun)  # noqa: E731
            else:
                key = self.cmp_atom(m.id, op, a)
                thr = lambda: self.fmt("thr_pct_inline", p=share, noun=noun, r=self.mqty(m, rated))  # noqa: E731
        else:
            a = self.grid_value(m)
            self.say_reading(m, self.place(m, op, a, None, want))
            if rng.random() < named:
                kind = rng.choice(HIGH_SIDE if op in (">", ">=") else LOW_SIDE)
                src = self.say(self.fmt("limit", s=self.subj(m), n0=self.bare(m), lim=self.limit_name(kind, m),
                                        q=self.mqty(m, a)))
                key = self.cmp_atom(m.id, op, a, None, src)
                thr = lambda: self.fmt("thr_named", lim=self.limit_name(kind, m))  # noqa: E731
            else:
                key = self.cmp_atom(m.id, op, a)
                thr = lambda: self.mqty(m, a)  # noqa: E731
        cond = lambda: self.fmt(CLAUSE[op], s=self.subj(m), thr=thr())  # noqa: E731
        return Node("root", (key, True), cond, cond, self.cmp_cand(key, m, thr, rel), m.equip), m

    # ---------------------------------------------------------------- consequence nodes
    def node(self, kind: str, prev: Node | None) -> Node:
        rng = self.rng
        if kind == "trip":
            e = prev.equip if prev is not None and prev.equip is not None else None
            if e is None or not EQUIPMENT[e.kind].rotating or ("status", e.id) in self.concluded \
                    or self.status_default.get(e.id, "running") != "running":
                e = self.new_equip(lambda k: k.rotating, pair=rng.random() < 0.6)
            self.lineup(e)
            u = lambda: self.uref(e)  # noqa: E731
            return Node("trip", (("status", e.id), "tripped"), lambda: self.fmt("trip_c", u=u()),
                        lambda: self.fmt("trip_r", u=u()),
                        self.status_cand(e, ("running", "still", "stopped", "tripped", "nc_tripped", "nc_running")
                                         + ("cat",) * 5), e)
        if kind == "start":
            e = prev.equip if prev is not None else None
            if e is None or e.partner is None or ("status", e.partner.id) in self.concluded:
                e = self.new_equip(lambda k: k.rotating, pair=True)
            self.lineup(e)
            sb = e.partner
            word = EQUIPMENT[sb.kind].word
            u = lambda: self.uref(sb)  # noqa: E731
            return Node("start", (("status", sb.id), "running"), lambda: self.fmt("start_c", u=u()),
                        lambda: self.fmt("start_r", u=u(), kind=word, id=sb.id),
                        self.status_cand(sb, ("running", "standby", "stopped", "nc_running") + ("cat",) * 4), e)
        if kind == "duty":
            e = prev.equip if prev is not None else None
            if e is not None and e.duty is not None:
                e = e.duty
            if e is None or e.partner is None or ("duty", e.id) in self.concluded or e.kind in self.role_kinds:
                e = self.new_equip(lambda k: k.rotating, pair=True)
            self.lineup(e)
            sb = e.partner
            word = EQUIPMENT[sb.kind].word
            return Node("duty", (("duty", e.id), sb.id), lambda: self.fmt("duty_c", u=sb.id, kind=word),
                        lambda: self.fmt("duty_r", u=sb.id, kind=word), self.duty_cand(e, sb), e)
        if kind == "stop":
            e = self.new_equip(lambda k: k.rotating)
            self.lineup(e)
            u = lambda: self.eref(e)  # noqa: E731
            return Node("stop", (("status", e.id), "stopped"), lambda: self.fmt("stop_c", u=u()),
                        lambda: self.fmt("stop_r", u=u()),
                        self.status_cand(e, ("running", "still", "stopped", "nc_running") + ("cat",) * 4), e)
        if kind in ("open", "close"):
            v = self.new_valve(normally_closed=kind == "open")
            atom = ("open" if kind == "open" else "closed", v[0])
            ref = lambda: self.vref(v)  # noqa: E731
            pos, anti = ("q_open", "q_closed") if kind == "open" else ("q_closed", "q_open")
            return Node(kind, (atom, True), lambda: self.fmt(f"{kind}_c", v=ref()), lambda: self.fmt(f"{kind}_r",
                                                                                                     v=ref()),
                        self.atom_cand(atom, pos, anti, "nc_open" if kind == "open" else "nc_closed",
                                       VALVE_POS[kind == "open"], v=ref))
        if kind == "mode":
            ctl = self.new_ctl()
            d, m = rng.sample(self.mode_words, 2)
            var = ("mode", ctl)
            s = self.say(self.fmt("mode_default", ctl=ctl, m=d))
            self.p.default(var, d, s)
            return Node("mode", (var, m), lambda: self.fmt("mode_c", ctl=ctl, m=m), lambda: self.fmt("mode_r", ctl=ctl,
                                                                                                     m=m),
                        self.mode_cand(var, ctl, (d, m)))
        if kind == "plant":
            area = self.fresh(lambda: names(self.rng, AREAS, self.style))
            st = rng.choice(PLANT_STATES[1:])
            var = ("plant", area)
            s = self.say(self.fmt("plant_default", p=area, st=PLANT_STATES[0]))
            self.p.default(var, PLANT_STATES[0], s)
            return Node("plant", (var, st), lambda: self.fmt("plant_c", p=area, st=st),
                        lambda: self.fmt("plant_r", p=area, st=st), self.plant_cand(var, area, (PLANT_STATES[0], st)))
        if kind == "disable":
            word = names(self.rng, DISABLER_KINDS, self.style)
            xid = self.fresh(lambda: f"{DISABLERS[word]}-{self.num()}")
            ref = lambda: f"{word} {xid}" if self.rng.random() < 0.7 else xid  # noqa: E731
            atom = ("disabled", xid)
            return Node("disable", (atom, True), lambda: self.fmt("disable_c", x=ref()),
                        lambda: self.fmt("disable_r", x=ref()),
                        self.atom_cand(atom, "q_disabled", "q_enabled", "nc_disabled",
                                       ("q_enable_pos", "disabled", "enabled", ("enabled", "disabled")), x=ref))
        raise ValueError(kind)

    def new_valve(self, normally_closed: bool) -> tuple[str, str]:
        for _ in range(40):
            k = names(self.rng, VALVE_KINDS, self.style)
            if VALVES[k][2] == normally_closed:
                break
        else:
            k = self.rng.choice([v for v in half(VALVE_KINDS, self.style) if VALVES[v][2] == normally_closed])
        prefix, words, _ = VALVES[k]
        vid = self.fresh(lambda: f"{prefix}-{self.num()}")
        return vid, self.rng.choice(words)

    def vref(self, v: tuple[str, str]) -> str:
        r = self.rng.random()
        return v[0] if r < 0.5 else f"{v[1]} {v[0]}" if r < 0.85 else f"the {v[1]} {v[0]}"

    def new_ctl(self) -> str:
        if self.rng.random() < 0.5:
            return self.fresh(lambda: f"{self.rng.choice(('FIC', 'LIC', 'PIC', 'TIC'))}-{self.num()}")
        return self.fresh(lambda: names(self.rng, LINES, self.style))

    def link(self, conds: list[Node], node: Node, exception: tuple | None = None, second: Node | None = None) -> int:
        """A rule sentence: conditions -> node (and `second`), unless the exception atom holds."""
        c = conds[0].cond()
        r = node.concl()
        if exception is not None:
            text = self.fmt("rule_unless", c=c, r=r, e=exception[1]())
        elif second is not None:
            text = self.fmt("rule_two", c=c, r=r, r2=second.concl())
        elif len(conds) > 1:
            text = self.fmt("rule_and", c=c, c2=conds[1].cond(), r=r)
        else:
            text = self.fmt("rule", c=c, r=r)
        s = self.say(text)
        body = [n.lit for n in conds] + ([(exception[0], False)] if exception is not None else [])
        for head in (node, second):
            if head is not None:
                self.p.rule(body, head.lit, s)
                self.concluded.add(head.lit[0])
        return s

    # ---------------------------------------------------------------- blocks
    NEXT = {
        "root": (("trip", 6), ("stop", 1), ("open", 2), ("close", 2), ("mode", 2), ("plant", 1), ("disable", 1)),
        "trip": (("start", 12), ("duty", 2), ("close", 2), ("mode", 2), ("plant", 2), ("stop", 1), ("open", 1)),
        "start": (("mode", 2), ("plant", 1), ("open", 1), ("close", 1), ("duty", 2), ("disable", 1)),
        "duty": (("mode", 2), ("plant", 1), ("disable", 1)),
        "stop": (("close", 2), ("mode", 1), ("plant", 1), ("disable", 1)),
        "open": (("plant", 2), ("mode", 1), ("stop", 1), ("disable", 1)),
        "close": (("stop", 2), ("mode", 1), ("plant", 1), ("disable", 1), ("trip", 1)),
        "mode": (("plant", 2), ("disable", 1), ("open", 1), ("close", 1)),
        "plant": (("close", 2), ("stop", 1), ("disable", 1), ("mode", 1)),
        "disable": (("mode", 1), ("plant", 1), ("close", 1)),
    }

    def _next_kind(self, prev: Node) -> str:
        options = self.NEXT[prev.kind]
        if prev.kind in ("trip", "start") and (prev.equip is None or (prev.equip.partner or prev.equip.duty) is None):
            options = tuple(o for o in options if o[0] not in ("start", "duty")) or options
        kinds, weights = zip(*options)
        return self.rng.choices(kinds, weights)[0]

    def block_chain(self, max_links: int, room: int) -> tuple[list[Cand], list[Cand]]:
        """A reading, a comparison and a chain of rules across kinds; asks a run of its nodes."""
        rng = self.rng
        top = min(max_links, max(1, room - 1)) if room > 1 else max_links
        links = top if rng.random() < 0.5 else rng.randint(max(1, top // 2), top)
        r = rng.random()
        # a roles set's chain on a pair's duty unit: its first rule trips the unit, named by role
        lead = bool(self.role_rules) and self.roles is not None and self.roles.random() < self.role_rules
        equip = self.new_equip(lambda k: k.rotating, pair=lead or r < 0.5) if lead or r < 0.8 else None
        root, m = self.root(m=self.new_meas(equip), want=self.truth(0.62), rel=0.12)
        nodes, extras = [root], []
        for i in range(links):
            if i > 0 and self.tokens > self.room_left(55):
                break
            prev = nodes[-1]
            node = self.node("trip" if lead and i == 0 else self._next_kind(prev), prev)
            conds, exception, second = [prev], None, None
            r = rng.random() if self.tokens < self.room_left(70) else 1.0
            if i == 0 and m.tag is not None and r < 0.34:
                exception = self.exception_bypass(m.tag, extras)
            elif node.kind == "start" and r < 0.3:
                exception = self.exception_inhibit(node.lit[0][1], extras)
            elif node.kind == "start" and r < 0.6 and ("duty", node.equip.id) not in self.concluded:
                second = self.node("duty", node)
                extras.insert(0, second.cand)
            elif r < 0.42 and i < links - 1:
                kinds = [k for k in ("mode", "plant", "close", "open", "disable") if k != node.kind]
                second = self.node(rng.choice(kinds), None)
                if second.cand is not None:
                    extras.append(second.cand)
            elif r < 0.55:
                extra, _ = self.root(want=self.truth(0.75), named=0.0)
                conds.append(extra)
            self.link(conds, node, exception, second)
            nodes.append(node)
        cands = [n.cand for n in nodes if n.cand is not None]
        if room == 1:
            return [rng.choice(cands[1:] + cands[-1:])], []
        take = min(room, len(cands))
        start = rng.randint(0, len(cands) - take)
        return cands[start:start + take], extras

    def exception_bypass(self, tag: str, extras: list[Cand]) -> tuple:
        atom = ("bypass", tag)
        self.fact_about(atom, "bypass_fact", "bypass_neg", t=tag)
        extras.append(self.atom_cand(atom, "q_bypass", "q_armed", "nc_bypass", TRIP_POS, t=tag))
        return atom, lambda: self.fmt("bypass_e", t=tag)

    def exception_inhibit(self, uid: str, extras: list[Cand]) -> tuple:
        atom = ("inhibit", uid)
        self.fact_about(atom, "inhibit_fact", "inhibit_neg", u=uid)
        extras.append(self.atom_cand(atom, "q_inhibited", "q_autostart", "nc_inhibited", u=uid))
        return atom, lambda: self.fmt("inhibit_e", u=uid)

    def fact_about(self, atom: tuple, yes: str, no: str, **kw) -> None:
        """An exception atom: stated (hides the rule), stated not to hold, or never mentioned."""
        r = self.rng.random()
        if r < 0.5:
            self.p.fact(atom, True, self.say(self.fmt(yes, **kw)))
        elif r < 0.75:
            self.p.fact(atom, False, self.say(self.fmt(no, **kw)))

    def block_case(self, max_links: int, room: int) -> tuple[list[Cand], list[Cand]]:
        """A controller or line whose mode a case list overrides on a reading."""
        root, m = self.root(named=0.0)
        ctl = self.new_ctl()
        d, mv = self.rng.sample(self.mode_words, 2)
        var = ("mode", ctl)
        s = self.say(self.fmt("case", ctl=ctl, d=d, m=mv, c=root.cond()))
        self.p.default(var, d, s)
        self.p.cases(var, [([root.lit], mv, s)])
        self.concluded.add(var)
        return [self.mode_cand(var, ctl, (d, mv)), root.cand], []

    def block_permissive(self, max_links: int, room: int) -> tuple[list[Cand], list[Cand]]:
        e = self.new_equip(lambda k: k.rotating)
        root, m = self.root(self.new_meas(e), named=0.0)
        atom = ("permissive", e.id)
        s = self.say(self.fmt("perm_rule", u=self.eref(e), c=root.cond()))
        self.p.rule([root.lit], (atom, True), s)
        u = lambda: self.eref(e)  # noqa: E731
        return [self.atom_cand(atom, "q_perm", "q_noperm", "nc_perm", u=u), root.cand], []

    def block_compare(self, max_links: int, room: int) -> tuple[list[Cand], list[Cand]]:
        """A reading, one or two named limits, questions against them and against a number."""
        rng = self.rng
        m = self.new_meas()
        sets = (("trip_hi",), ("trip_lo",), ("H",), ("HH",), ("L",), ("LL",), ("max",), ("min",),
                ("H", "trip_hi"), ("HH", "trip_hi"), ("L", "trip_lo"), ("L", "H"), ("max",), ("trip_hi",))
        kinds = rng.choice(sets)
        values: dict[str, Decimal] = {}
        base = self.grid_value(m)
        for k in kinds:
            if not values:
                values[k] = base
            elif k in HIGH_SIDE:
                values[k] = max(values.values()) + m.grid * rng.randint(1, 8)
            else:
                values[k] = min(values.values()) - m.grid * rng.randint(1, 8)
        if min(values.values()) <= m.grid * 3:
            shift = m.grid * 3 - min(values.values()) + m.grid * rng.randint(1, 5)
            values = {k: v + shift for k, v in values.items()}

        def natural(k: str) -> str:
            hi = k in HIGH_SIDE
            return rng.choices((">", ">=", "<=", "<") if hi else ("<", "<=", ">=", ">"), (4, 4, 1.5, 1))[0]

        order = list(kinds)
        rng.shuffle(order)
        first = order[0]
        op0 = natural(first)
        self.say_reading(m, self.place(m, op0, values[first], None, self.truth()))
        cands = []
        for i, k in enumerate(order):
            src = self.say(self.fmt("limit", s=self.subj(m), n0=self.bare(m), lim=self.limit_name(k, m),
                                    q=self.mqty(m, values[k])))
            op = op0 if i == 0 else natural(k)
            key = self.cmp_atom(m.id, op, values[k], None, src)
            cands.append(self.cmp_cand(key, m, (lambda k=k: self.fmt("thr_named", lim=self.limit_name(k, m))), rel=0.4))
        op = rng.choice((">", ">=", "<", "<="))
        t = self.place(m, MIRROR[op], m.value, None, self.truth())
        key = self.cmp_atom(m.id, op, t)
        cands.append(self.cmp_cand(key, m, lambda: self.mqty(m, t), rel=0.4))
        return cands, []

    def block_alarm(self, max_links: int, room: int) -> tuple[list[Cand], list[Cand]]:
        """A tag with two to four alarm limits, asked for its alarm state."""
        rng = self.rng
        m = self.new_meas()
        levels = rng.choice((("H", "HH"), ("L", "LL"), ("L", "H"), ("LL", "L", "H", "HH"), ("L", "H", "HH"), ("H",
                                                                                                              "HH")))
        values: dict[str, Decimal] = {}
        v = self.grid_value(m, m.lo + m.grid * 8)
        for k in (x for x in ALARM_ORDER if x in levels):
            values[k] = v
            v += m.grid * rng.randint(1, 6)
        bands = ["normal"] + list(levels)
        target = self.outcome(bands)
        lo = {"HH": values.get("HH"), "H": values.get("H"), "normal": values.get("L"),
              "L": values.get("LL"), "LL": None}[target]
        hi = {"HH": None, "H": values.get("HH"), "normal": values.get("H"),
              "L": values.get("L"), "LL": values.get("LL")}[target]
        if lo is None and hi is None:
            x = m.lo
        elif lo is None:
            x = self.below(m, hi)
        elif hi is None:
            x = lo + self.offset(m, lo)
        elif hi - lo > m.step:
            x = lo + m.step * self.vrng.randint(1, int((hi - lo) / m.step) - 1)
        else:
            x = None
        if x is None or x <= 0 or x in values.values():
            x = max(values.values()) + self.offset(m, max(values.values()))
        self.say_reading(m, x)
        ordered = [k for k in ("H", "HH", "L", "LL") if k in levels]
        sentence_of: dict[str, int] = {}
        while ordered:
            k = ordered.pop(0)
            mate = next((o for o in ordered if (o in ("H", "HH")) == (k in ("H", "HH"))), None)
            if mate is not None and rng.random() < 0.7:
                ordered.remove(mate)
                s = self.say(self.fmt("limit_pair", s=self.subj(m), l1=self.limit_name(k, m), q1=self.mqty(m,
                                                                                                           values[k]),
                                      l2=self.limit_name(mate, m), q2=self.mqty(m, values[mate])))
                sentence_of[k] = sentence_of[mate] = s
            else:
                sentence_of[k] = self.say(self.fmt("limit", s=self.subj(m), n0=self.bare(m), lim=self.limit_name(k, m),
                                                   q=self.mqty(m, values[k])))
        var = self.alarm_var(m.id, {k: (values[k], sentence_of[k]) for k in levels}, self.alarm_words)
        cands = [self.alarm_cand(var, m)]
        k = rng.choice(levels)
        op = rng.choice((">", ">=") if k in ("H", "HH") else ("<", "<="))
        key = self.cmp_atom(m.id, op, values[k], None, sentence_of[k])
        cands.append(self.cmp_cand(key, m, lambda: self.fmt("thr_named", lim=self.limit_name(k, m))))
        return cands, []

    def block_window(self, max_links: int, room: int) -> tuple[list[Cand], list[Cand]]:
        rng = self.rng
        m = self.new_meas()
        lo = self.grid_value(m, m.lo + m.grid * 3)
        hi = lo + m.grid * rng.randint(2, 12)
        op = "outside" if rng.random() < 0.3 else "between"
        self.say_reading(m, self.place(m, op, lo, hi, self.truth()))
        lo_s, hi_s = self.span(m, lo, hi)
        s = self.say(self.fmt("window", s=self.subj(m), n0=self.bare(m), lo=lo_s, hi=hi_s))
        self.limit(m.id, lo, s)
        self.limit(m.id, hi, s)
        if rng.random() < 0.5:
            cands = [self.band_pos_cand(self.band_var(m.id, lo, hi, s, self.band_words), m, "q_band")]
        else:
            cands = [self.band_cand(self.cmp_atom(m.id, op, lo, hi, s), m, named=True)]
        x, r = m.value, rng.random()
        if r < 0.5:    # x inside [a, b], ends included
            a, b = self.place(m, "<=", x, None, True), self.place(m, ">=", x, None, True)
        elif r < 0.75:  # the band lies above x
            a = self.place(m, "<=", x, None, False)
            b = a + m.grid * rng.randint(1, 8)
        else:           # the band lies below x
            b = self.place(m, ">=", x, None, False)
            a = self.below(m, b)
        if a == b:
            b = a + m.step
        cands.append(self.band_cand(self.cmp_atom(m.id, "between", a, b), m, named=False))
        return cands, []

    def block_setpoint(self, max_links: int, room: int) -> tuple[list[Cand], list[Cand]]:
        rng = self.rng
        m = self.new_meas()
        tol = m.step * rng.randint(2, 20)
        sp = self.grid_value(m, m.lo + tol + m.grid)
        op = "beyond" if rng.random() < 0.3 else "within"
        self.say_reading(m, self.place(m, op, sp, tol, self.truth()))
        s = self.say(self.fmt("setpoint", s=self.subj(m), n0=self.bare(m), sp=self.mqty(m, sp), tol=self.mqty(m, tol)))
        self.limit(m.id, sp, s)
        if rng.random() < 0.5:
            return [self.band_pos_cand(self.band_var(m.id, sp - tol, sp + tol, s, self.band_words), m, "q_sp_band")], []
        return [self.band_cand(self.cmp_atom(m.id, op, sp, tol, s), m, named=True)], []

    def block_rated(self, max_links: int, room: int) -> tuple[list[Cand], list[Cand]]:
        e = self.new_equip(lambda k: any(q in ("current", "speed", "power") for _, q in k.points))
        m = self.new_meas(e, lambda q: q in ("current", "speed", "power"))
        root, _ = self.root(m, named=0.0, ops=(">", ">=", ">", ">=", "<="), pct=1.0)
        return [root.cand], []

    def block_fact(self, max_links: int, room: int) -> tuple[list[Cand], list[Cand]]:
        """Stated facts: a unit's status, a valve's position, a mode, a bypass."""
        rng = self.rng
        r = rng.random()
        if r < 0.45:
            e = self.new_equip(lambda k: k.rotating)
            status = rng.choice(("out of service", "stopped", "tripped", "running"))
            pattern = {"out of service": "fact_oos", "stopped": "fact_stopped", "tripped": "fact_tripped",
                       "running": "fact_running"}[status]
            why = names(rng, OOS_REASONS if status == "out of service" else TRIP_CAUSES, self.style)
            s = self.say(self.fmt(pattern, u=self.eref(e), why=why))
            self.p.value(("status", e.id), status, s)
            self.status_default[e.id] = status
            forms = {"out of service": ("oos", "available", "running", "stopped", "cat", "cat", "cat"),
                     "stopped": ("running", "stopped", "oos", "available", "cat", "cat", "cat"),
                     "tripped": ("tripped", "nc_tripped", "running", "cat", "cat"),
                     "running": ("running", "stopped", "nc_running", "tripped", "cat", "cat", "cat")}[status]
            return [self.status_cand(e, forms)], []
        if r < 0.7:
            nc = rng.random() < 0.5
            v = self.new_valve(normally_closed=nc)
            atom = ("open", v[0]) if nc else ("closed", v[0])
            is_open = rng.random() < 0.5
            s = self.say(self.fmt("fact_open" if is_open else "fact_closed", v=self.vref(v)))
            self.p.fact(atom, is_open == nc, s)
            ref = lambda: self.vref(v)  # noqa: E731
            if nc:
                return [self.atom_cand(atom, "q_open", "q_closed", "nc_open", VALVE_POS[True], v=ref)], []
            return [self.atom_cand(atom, "q_closed", "q_open", "nc_closed", VALVE_POS[False], v=ref)], []
        if r < 0.88:
            ctl = self.new_ctl()
            mv = rng.choice(self.mode_words)
            var = ("mode", ctl)
            s = self.say(self.fmt("mode_default", ctl=ctl, m=mv))
            self.p.value(var, mv, s)
            other = rng.choice([x for x in self.mode_words if x != mv])
            return [self.mode_cand(var, ctl, (mv, other))], []
        m = self.new_meas(tagless=0.0)
        self.say_reading(m, self.grid_value(m))
        extras: list[Cand] = []
        atom = ("bypass", m.tag)
        if rng.random() < 0.55:
            self.p.fact(atom, True, self.say(self.fmt("bypass_fact", t=m.tag)))
        else:
            self.p.fact(atom, False, self.say(self.fmt("bypass_neg", t=m.tag)))
        return [self.atom_cand(atom, "q_bypass", "q_armed", "nc_bypass", TRIP_POS, t=m.tag)], extras

    def block_pair(self, max_links: int, room: int) -> tuple[list[Cand], list[Cand]]:
        """Two readings of the same quantity in the same unit (two pumps, two bearings)."""
        rng = self.rng
        a = self.new_meas(tagless=0.0)
        b = self.new_meas(ok=lambda q: q == a.qty, tagless=0.0)
        b.unit, b.grid, b.step, b.lo, b.hi = a.unit, a.grid, a.step, a.lo, a.hi
        va = self.grid_value(a) + a.step * rng.randint(0, 9)
        gap = a.step * self.vrng.randint(1, 3) if rng.random() < 0.5 else self.offset(a, va)
        vb = va + gap * self.outcome((1, -1))
        if vb <= 0:
            vb = va + a.step
        if rng.random() < 0.4:
            a.value, b.value = va, vb
            s = self.say(self.fmt("pair_reading", a=a.tag, b=b.tag, qa=self.mqty(a, va), qb=self.mqty(b, vb)))
            a.sentence = b.sentence = s
            self.readings[a.id], self.readings[b.id] = (va, s), (vb, s)
        else:
            self.say_reading(a, va)
            self.say_reading(b, vb)
        return self.pair_cands(a, b), []

    def block_group(self, max_links: int, room: int) -> tuple[list[Cand], list[Cand]]:
        """Two to four alike readings (TT-1011A, TT-1011B, TT-1011C on one unit) against one
        limit they share (said once, or written in the question), asked over the group: how
        many are past it, which one is (or none, both, more than one), whether any, all or at
        least k are, and one of them alone."""
        rng = self.rng
        first = self.new_meas(tagless=0.0)
        n = rng.choice(GROUP_SIZES)
        stem = first.tag[:-1] if first.tag.endswith("A") else first.tag
        tags = [f"{stem}{letter}" for letter in "ABCD"[:n]]
        if any(t in self.used and t != first.tag for t in tags):
            raise NoRoom(f"{stem}: a tag of the group is taken")
        self.used.update(tags)
        first.id = first.tag = tags[0]
        members = [first] + [replace(first, id=t, tag=t) for t in tags[1:]]
        self.meas += members[1:]
        self.grouped.update(tags)
        kind = rng.choice(HIGH_SIDE + LOW_SIDE)
        op = rng.choice((">", ">=") if kind in HIGH_SIDE else ("<", "<="))
        limit = self.grid_value(first, first.lo + first.grid * 4)
        past = set(rng.sample(range(n), self.outcome(tuple(range(n + 1)))))
        values = [self.place(m, op, limit, None, i in past) for i, m in enumerate(members)]
        for m, v in zip(members, values):
            m.value = v
        pn, unit = first.pn, first.equip.id
        if rng.random() < 0.6:
            if rng.random() < 0.7:
                items = [self.fmt("group_item", t=m.tag, q=self.mqty(m, v)) for m, v in zip(members, values)]
                sentence = self.say(self.fmt("group_reading", list=listed(items), pn=pn, e=unit))
            else:
                sentence = self.say(self.fmt("group_respectively", tags=listed(tags), pn=pn,
                                             qs=listed([self.mqty(m, v) for m, v in zip(members, values)])))
            for m, v in zip(members, values):
                m.sentence = sentence
                self.readings[m.id] = (v, sentence)
            self.group_sentences.add(sentence)
        else:
            for m, v in zip(members, values):
                self.say_reading(m, v)
        lim = self.limit_name(kind, first)

        def group() -> str:
            r = rng.random()
            if r < 0.4:
                return listed(tags)
            if r < 0.6:
                return stem + "A" + "".join("/" + t[-1] for t in tags[1:])
            return self.fmt("group_ref", n=COUNTS[1][n], pn=pn, e=unit)

        if rng.random() < 0.65:
            src = self.say(self.fmt("group_limit", g=group(), lim=lim, q=self.mqty(first, limit), pn=pn))
            thr = lambda: self.fmt("thr_group", lim=lim)  # noqa: E731
        else:
            src, thr = None, (lambda: self.mqty(first, limit))
        ids = tuple(m.id for m in members)
        deps = tuple(dict.fromkeys(x for x in [self.readings[i][1] for i in ids] + [src] if x is not None))
        keys = [self.cmp_atom(i, op, limit, None, src) for i in ids]
        holds = lambda: [compare(op, self.value(i), limit) for i in ids]  # noqa: E731
        counts = rng.choice(COUNTS)[:n + 1]
        none, many = none_or_more(rng, n)

        def which() -> str:
            yes = [i for i, h in zip(ids, holds()) if h]
            return yes[0] if len(yes) == 1 else none if not yes else many

        def direct(name: str, fn: Callable[[], Value], domain: tuple, *extra) -> tuple:
            key = ("group", name, ids, op, limit, src, *extra)
            self.direct[key] = Direct(fn, deps, domain, lambda: [])
            return key

        count = direct("count", lambda: counts[sum(holds())], counts)
        pick = direct("which", which, ids + (none, many))
        some = direct("any", lambda: any(holds()), (True, False))
        every = direct("all", lambda: all(holds()), (True, False))
        k = rng.randint(2, n - 1) if n > 2 else None
        least = direct("least", lambda: sum(holds()) >= k, (True, False), k) if k else None

        def ask(pattern: str, target: tuple, options=None, **kw) -> Cand:
            def make(sol):
                text = self.fmt(pattern, g=group(), rel=rng.choice(GROUP_REL[op]), thr=thr(), n=COUNTS[1][n], **kw)
                return target, text, options
            return Cand(target[1], make)

        cands = [ask("q_count", ("cat", count), counts), ask("q_which", ("cat", pick), ids + (none, many)),
                 ask("q_none", ("truth", some, False)) if rng.random() < 0.3 else ask("q_any", ("truth", some, True)),
                 ask("q_all", ("truth", every, True))]
        if least:
            cands.append(ask("q_atleast", ("truth", least, True), k=rng.choice(COUNTS)[k]))
        i = rng.randrange(n)
        cands.append(self.cmp_cand(keys[i], members[i], (lambda: self.fmt("thr_named", lim=lim)) if src is not None
                                   else (lambda: self.mqty(first, limit))))
        rng.shuffle(cands)
        return cands, []

    def block_free(self, max_links: int, room: int) -> tuple[list[Cand], list[Cand]]:
        """Questions that need no new sentence: a reading already given against a number
        written in the question."""
        rng = self.rng
        said = [m for m in self.meas if m.sentence is not None]
        if not said:
            return self.block_fact(max_links, room)
        cands = []
        tagged = [m for m in said if m.tag is not None]
        pairs = [(x, y) for i, x in enumerate(tagged) for y in tagged[i + 1:] if x.unit == y.unit and x.value != y.value
                 and ("higher", x.id, y.id) not in self.direct and ("lower", x.id, y.id) not in self.direct]
        if pairs and rng.random() < 0.4:
            cands.append(self.pair_cands(*rng.choice(pairs))[0])
        for _ in range(room - len(cands)):
            m = rng.choice(said)
            op = rng.choice((">", ">=", "<", "<="))
            t = self.place(m, MIRROR[op], m.value, None, self.truth())
            key = self.cmp_atom(m.id, op, t)
            cands.append(self.cmp_cand(key, m, lambda m=m, t=t: self.mqty(m, t), rel=0.4))
        return cands, []

    def block_mention(self, max_links: int, room: int) -> tuple[list[Cand], list[Cand]]:
        """A valve that is mentioned but never said to open: closed world."""
        v = self.new_valve(normally_closed=True)
        e = self.new_equip()
        self.say(self.fmt("mention_valve", v=self.vref(v), u=e.id))
        atom = ("open", v[0])
        return [self.atom_cand(atom, "q_open", "q_closed", "nc_open", VALVE_POS[True], v=lambda: self.vref(v))], []

    # ---------------------------------------------------------------- distractors
    def distractor(self) -> None:
        rng = self.rng
        tagged = [m for m in self.meas if m.tag is not None and m.sentence is not None]
        kind = rng.choices(("similar", "other_unit", "note", "dead_rule", "second"), (4, 3, 2, 2, 2))[0]
        if kind == "similar" and tagged:
            m = rng.choice(tagged)
            letters, rest = m.tag.split("-", 1)
            num = rest.rstrip("AB")
            near = [n for n in similar_numbers(num, half(NUMBERS, self.style)) if f"{letters}-{n}" not in self.used]
            if near:
                tag = self.fresh(lambda: f"{letters}-{rng.choice(near)}")
                same_point = lambda k: (m.point, m.qty) in k.points  # noqa: E731
                if self.has_kind(same_point):
                    e, pn = self.new_equip(same_point), m.pn
                else:
                    e, pn = self.new_equip(), m.pn.split(" ")[-1]
                twin = Meas(tag, tag, e, pn, m.qty, m.unit, m.grid, m.step, m.lo, m.hi, point=m.point)
                self.meas.append(twin)
                self.say_reading(twin, self.grid_value(twin) + (twin.step if rng.random() < 0.5 else 0))
                if rng.random() < 0.5:
                    k = rng.choice(("trip_hi", "H", "HH", "L", "LL"))
                    self.say_limit(twin, k)
                return
        if kind == "other_unit":
            conv = {"degC": ("degF", lambda x: x * 9 / 5 + 32), "bar": ("psi", lambda x: x * Decimal("14.5038")),
                    "barg": ("psig", lambda x: x * Decimal("14.5038")), "kPa": ("psi",
                                                                                lambda x: x * Decimal("0.145038")),
                    "m3h": ("lpm", lambda x: x * 1000 / 60)}
            fit = [m for m in tagged if m.unit in conv and QTY[m.qty].gauge]
            if fit:
                m = rng.choice(fit)
                unit, f = conv[m.unit]
                num = m.tag.split("-", 1)[1]
                gauge = f"{QTY[m.qty].gauge}-{num}"
                if gauge not in self.used:
                    self.used.add(gauge)
                    value = f(m.value).quantize(Decimal("0.1"))
                    self.say(self.fmt("other_unit", t2=gauge, d=self.desc(m), q2=self.qtext(unit, value)))
                    return
        if kind == "dead_rule":
            root, m = self.root(want=False)
            node = self.node(rng.choice(("open", "close", "disable", "mode")), None)
            self.link([root], node)
            return
        if kind == "second" and self.meas:
            m0 = rng.choice(self.meas)
            e = self.new_equip(lambda k: any(q == m0.qty for _, q in k.points))
            m = self.new_meas(e, lambda q: q == m0.qty)
            self.say_reading(m, self.grid_value(m))
            k = rng.choice(("trip_hi", "H", "HH", "L", "LL", "max", "min"))
            self.say_limit(m, k)
            return
        t = rng.choice(tagged).tag if tagged else self.fresh(lambda: f"TI-{self.num()}")
        u = rng.choice(self.equips).id if self.equips else self.new_equip().id
        self.say(self.fmt("note", n=rng.randint(3, 45), h=rng.randint(1, 23), mm=f"{rng.randint(0, 59):02d}",
                          big=fmt_number(rng.randint(1200, 48000), 0, thousands=rng.random() < 0.5),
                          wo=rng.randint(40000, 99999), t=t, u=u))

    # ---------------------------------------------------------------- the set
    def room_left(self, margin: int) -> int:
        """Context tokens still free once the questions are in, less a margin."""
        return TOKEN_BUDGET - QUESTION_COST * self.n - margin - self.slack

    def plan(self, n_questions: int, max_links: int) -> None:
        rng = self.rng
        self.n = n_questions
        room = n_questions
        first = True
        while room > 0:
            if self.drill:
                kinds = DRILL_BLOCKS
            elif max_links == 0:
                kinds = (("compare", 26), ("alarm", 18), ("window", 12), ("setpoint", 11), ("rated", 6), ("fact", 17),
                         ("mention", 8), ("pair", 10))
            elif first and (n_questions >= 2 or rng.random() < 0.5) and rng.random() < 0.85:
                kinds = (("chain", 1),)
            else:
                kinds = (("chain", 26), ("case", 14), ("permissive", 7), ("compare", 12), ("alarm", 10), ("window", 6),
                         ("setpoint", 6), ("rated", 3), ("fact", 9), ("mention", 4), ("pair", 6))
            if self.tokens > self.room_left(45):
                kinds = (("free", 1),)
            elif self.tokens > self.room_left(90):
                kinds = tuple(k for k in kinds if k[0] in ("fact", "mention", "compare")) or (("fact", 1),)
            if self.groups and len(kinds) > 1 and self.tokens <= self.room_left(120) \
                    and rng.random() < self.groups:  # draws nothing at groups = 0: the sets stay as they were
                kind = "group"
            else:
                kind = rng.choices(*zip(*kinds))[0]
            cands, extras = getattr(self, f"block_{kind}")(max_links, room)
            if self.drill:  # any of the block's questions, not the first ones
                rng.shuffle(cands)
            if kind != "chain":
                cands = cands[:rng.randint(1, min(len(cands), room))]
            cands = cands[:room]
            room -= len(cands)
            for extra in extras[:2]:
                if room > 0 and rng.random() < 0.6:
                    cands.append(extra)
                    room -= 1
            self.asked += cands
            first = False
        for _ in range(0 if self.drill else rng.choice((0, 1, 1, 2, 2, 3))):  # a drill: nothing else
            if self.tokens > self.room_left(30):
                break
            self.distractor()

    def word_questions(self, sol: dict) -> tuple[list, list[str], list] | None:
        """One wording of every asked question (distinct texts and targets), or None."""
        targets, texts, options = [], [], []
        for cand in self.asked:
            for _ in range(8):
                target, text, opts = cand.make(sol)
                text = cap(text)
                if text not in texts and target not in targets:
                    break
            else:
                return None
            targets.append(target)
            texts.append(text)
            options.append(opts)
        return targets, texts, options

    def state_outcomes(self, share: float, rng: random.Random) -> None:
        """Say in words, beside the numbers, how a reading compares with what it is compared
        with, for about `share` of the comparisons, each with a clause on its reading's sentence
        ("TT-101 reads 131.5 °C, above 128 °C.", "..., in HH alarm.", "..., between 40 and 60 %.").
        The clause says what the numbers say, so no answer changes; what a question asks is
        then also in the words. Draws only on `rng`, and only with share > 0."""
        by_id = {m.id: m for m in self.meas}

        def quantity(m: Meas, v: Decimal, unit: bool = True) -> str:
            number = fmt_number(v, decimals(m.step))
            return f"{number} {rng.choice(UNIT_SPELLINGS[m.unit])}" if unit else number

        clauses: dict[int, dict[tuple, str]] = {}  # sentence -> {what it is compared with: clause}
        for key in list(self.direct):
            mid = key[1]
            if key[0] not in ("cmp", "rel", "band", "alarm") or mid not in by_id or rng.random() >= share:
                continue
            m, (x, sentence) = by_id[mid], self.readings[mid]
            if sentence is None or sentence in self.group_sentences:  # a clause there would not say whose
                continue
            if key[0] == "alarm":
                word = self.direct[key].fn()
                normal = word == self.alarm_words["normal"]
                clause, what = rng.choice(STATED["normal" if normal else "alarm"]).format(w=word), ("alarm",)
            elif key[0] == "band" or (key[0] == "cmp" and key[4] is not None):
                if key[0] == "band":
                    lo, hi = key[2], key[3]
                elif key[2] in ("within", "beyond"):  # a set point and its tolerance
                    lo, hi = key[3] - key[4], key[3] + key[4]
                else:
                    lo, hi = sorted((key[3], key[4]))
                where = "under" if x < lo else "over" if x > hi else "within"
                clause = rng.choice(STATED[where]).format(lo=quantity(m, lo, unit=False), hi=quantity(m, hi))
                what = (lo, hi)
            else:
                a = key[3] if key[0] == "cmp" else key[2]
                clause = rng.choice(STATED["above" if x > a else "below" if x < a else "at"]).format(q=quantity(m, a))
                what = (a,)
            said = clauses.setdefault(sentence, {})
            if what not in said and len(said) < 2:
                said[what] = clause
        for sentence, said in clauses.items():
            text = self.b.sentences[sentence].rstrip(".")
            self.b.sentences[sentence] = f"{text}, {' and '.join(said.values())}."
            self.tokens += sum(estimate_tokens(c) + 1 for c in said.values())

    def finish(self) -> DecisionSet | None:
        """The set, or None when its questions cannot be worded distinctly within the budget."""
        rng = self.rng
        if self.stated:
            self.state_outcomes(*self.stated)
        sol = self._solve()[0]
        for _ in range(4):
            worded = self.word_questions(sol)
            if worded is None:
                return None
            targets, texts, options = worded
            total = self.tokens + 2 + sum(estimate_tokens(t) + 1 + sum(estimate_tokens(o) + 3 for o in (opts or ()))
                                          for t, opts in zip(texts, options))
            if total <= TOKEN_BUDGET:
                break
        else:
            return None
        answers, depths, supports = self.evaluate(targets)
        for target, text, opts, ans, d, sup in zip(targets, texts, options, answers, depths, supports):
            if ans is None:
                raise AssertionError(f"undetermined answer for {target}")
            if opts is None:
                self.b.ask_boolean(text, ans, d, sup)
            else:
                self.b.ask_choice(text, opts, ans, d, sup)
        self.worded = list(zip(texts, targets))  # each question's text and target, for tests and probes
        self.b.chained = self.chained(targets)
        self.b.number_labels = self.label_numbers()
        self.b.question_labels = self.label_question_numbers(targets, texts)
        ds = self.b.build(rng)
        ds.links = answer_links(ds, program_rules(self.p.definitions), self.asked_keys(targets, texts))
        return ds

    @staticmethod
    def asked_keys(targets: list[tuple], texts: list[str]) -> dict:
        """What each question reads, for the consistency links (targets: see `Cand`)."""
        out = {}
        for t, text in zip(targets, texts):
            if t[0] == "truth":
                out[t[1]] = Asked(text, negated=not t[2])
            elif t[0] == "is":
                out[t[1]] = Asked(text, equals=t[2], negated=not t[3])
            elif t[0] == "cat":
                out[t[1]] = Asked(text)
        return out


def generate(rng: random.Random, style: Style, n_questions: int, max_links: int, stated: float = 0.0,
             roles: float = 0.0, role_rules: float = 0.0, drills: float = 0.0, groups: float = 0.0) -> DecisionSet:
    """One decision set of plant readings and set points (see the module docstring). With
    `stated` > 0, about that share of its comparisons also has its outcome said in words on
    the reading's sentence (`World.state_outcomes`); the set is then drawn on a stream of its
    own, so it is not the set that `stated` = 0 gives. With `roles` > 0, that share of the sets
    is a roles set: either unit of a duty/standby pair may have the duty, and rules name a unit
    by its role three times in four (`World.uref`), so only the line-up tells which tag a rule means;
    `role_rules` of a roles set's rule chains start by tripping the duty unit of a pair (so that a
    rule names a role far more often than the one set in five of `role_rules` = 0). With `drills`
    > 0, that share of the sets is a comparison drill: every block compares a reading with the
    numbers said beside it (DRILL_BLOCKS), and each asks any of its questions; no rules, no facts,
    no distractors. With `groups` > 0, that share of the blocks (other than a set's first rule
    chain) is a group of alike readings against one limit they share, asked how many are past it,
    which, whether any, all or at least k are (`World.block_group`)."""
    return generate_world(rng, style, n_questions, max_links, stated=stated, roles=roles, role_rules=role_rules,
                          drills=drills, groups=groups)[0]


def generate_world(rng: random.Random, style: Style, n_questions: int, max_links: int,
                   **knobs) -> tuple[DecisionSet, World]:
    """`generate`, also returning the finished world (its `worded` questions' targets); for
    tests and probes that look at what each question asks."""
    return _generate(rng, style, n_questions, max_links, **knobs)


def generate_twins(rng: random.Random, style: Style, n_questions: int, max_links: int,
                   stated: float = 0.0, roles: float = 0.0, role_rules: float = 0.0,
                   drills: float = 0.0, groups: float = 0.0) -> tuple[DecisionSet, ...]:
    """A set and its twin: the same sentences, tags, limits and questions, with one comparison
    drawn the other way (a reading placed on the other side of its limit, a threshold in a
    question moved past the reading, another alarm band, the other reading of a pair higher),
    and the answers that follow. What tells the two apart is a number, so a model that answers
    both right reads it; one that guesses from the words gets one of them wrong. (Where the
    flipped draw changes which questions fit, the twin may differ more.) A set that compares
    nothing comes alone."""
    seed = rng.getrandbits(64)

    def build(flip: int | None) -> tuple[DecisionSet, World]:
        return _generate(random.Random(seed), style, n_questions, max_links,
                         values=random.Random(seed ^ 0x9E3779B97F4A7C15), flip=flip, stated=stated, roles=roles,
                         role_rules=role_rules, drills=drills, groups=groups)

    base, world = build(None)
    if not world.outcomes:
        return (base,)
    return base, build(random.Random(seed + 1).randrange(world.outcomes))[0]


def _generate(rng: random.Random, style: Style, n_questions: int, max_links: int,
              values: random.Random | None = None, flip: int | None = None,
              stated: float = 0.0, roles: float = 0.0, role_rules: float = 0.0,
              drills: float = 0.0, groups: float = 0.0) -> tuple[DecisionSet, World]:
    """The set and its world (`World.outcomes`: how many comparison outcomes it drew)."""
    if not 1 <= n_questions <= 8:
        raise ValueError(f"n_questions must be 1..8, got {n_questions}")
    if not 0.0 <= stated <= 1.0:
        raise ValueError(f"stated is a share of comparisons, 0..1; got {stated}")
    if not 0.0 <= roles <= 1.0:
        raise ValueError(f"roles is a share of sets, 0..1; got {roles}")
    if not 0.0 <= role_rules <= 1.0:
        raise ValueError(f"role_rules is a share of a roles set's rule chains, 0..1; got {role_rules}")
    if not 0.0 <= drills <= 1.0:
        raise ValueError(f"drills is a share of sets, 0..1; got {drills}")
    if not 0.0 <= groups <= 1.0:
        raise ValueError(f"groups is a share of blocks, 0..1; got {groups}")
    max_links = max(0, min(5, max_links))
    said = random.Random(rng.getrandbits(64)) if stated else None
    named = random.Random(rng.getrandbits(64)) if roles and rng.random() < roles else None
    drill = bool(drills) and rng.random() < drills  # draws nothing at drills = 0: the sets stay as they were
    for attempt in range(60):
        w = World(rng, style, slack=4 * attempt, values=values, flip=flip, stated=(stated, said) if said else None,
                  roles=named, role_rules=role_rules, drill=drill, groups=groups)
        try:
            w.plan(n_questions, max_links)
        except NoRoom:
            continue
        s = w.finish()
        if s is not None:
            return s, w
    raise RuntimeError("could not fit a set into the token budget")
