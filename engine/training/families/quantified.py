"""Corpus v2 family `quantified`: facts about named entities, relations between them and
rules quantified over them, in the plain English users write; ground truth by forward
chaining to the fixpoint, closed world.

A set's world has entities of one vocabulary (plant items with tags, contract parties and
documents, robots, zones and operators, or everyday people, animals and objects), unary
facts ("The drum D-14 is sealed.", "P-2 is stopped." for an antonym), relation facts
("P-2 feeds tank TK-7.", "Acme Ltd signed amendment 3."), negative facts, class defaults of
a categorical attribute ("Pumps have low priority unless stated otherwise.") and rules:

- over one variable: "All sealed drums are inspected.", "If something is heavy and not wet
  then it is slow.", "Every pump that is hot trips, unless it is bypassed.", with an
  excepted entity ("... except D-14");
- through a relation: "If a pump feeds a tank that is full, the pump stops.", "When a pump
  is hot, every tank it feeds is warm.", "If someone likes the cat and the cat is kind
  then they are happy.", "Anything the bear chases is scared.";
- concluding a relation: "If someone chases the mouse then the mouse fears them.",
  "Anyone who signs an amendment is bound by it.", "Anything that is cold needs the heater.";
- concluding a categorical value: "Leaking pumps have high priority."

Semantics (`solve`): an atom holds if stated or concluded by a rule whose conditions hold;
anything else is false (closed world). A negated condition holds when its atom is not
established; the generator only negates attributes that no rule concludes, so the program
is stratified and its fixpoint unique (`solve` checks stratification and evaluates strata
in order anyway). A kind condition ("a drum") holds for an entity whose kind the text
gives ("the drum D-14"; "D-14" alone does not say it is a drum). A categorical variable
takes its stated value, else the value a fired rule concludes, else its class default.
Depth is the least number of rule steps behind a true atom or a concluded value; a stated
answer, a default and a closed-world "no" have depth 0 (as in base.Program).

support[i] is the sentence behind answer i (its fact, negative fact or the rule that
concluded it), kept only if deleting it, with answer i standing in, leaves every other
answer as it was, alone, all kept supports together, and all but one of them.

Every pattern of sentence and question is a tuple in `TEMPLATES` (drawn with `base.pick`,
so one phrasing in five is held out); every name, kind, attribute and relation is drawn
with `base.names` from a pool whose tail is the novel lexicon.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from typing import Iterator, Sequence

from decider.engine.training.corpus import DecisionSet
from decider.engine.training.families import base
from decider.engine.training.families.base import SetBuilder, Style
from decider.engine.training.families.phrasings import quantified as phrasings

DOMAIN = "quantified"


# ============================================================================ lexicon
@dataclass(frozen=True)
class Kind:
    """A kind of entity. `style`: "tag" (named "pump P-204", or "P-204" alone, which does
    not say it is a pump), "named" (the noun is part of the name: "amendment 3"),
    "proper" (a person's first name) or "the" (one per set: "the cat")."""

    key: str
    noun: str
    plural: str
    style: str
    cat: str
    pattern: str = ""  # tag prefix ("P") or name pattern ("amendment {}")
    pool: str = "TAGNUM"
    animate: bool = False


@dataclass(frozen=True)
class Rel:
    """A relation; `cop`: copular ("is bound by"); `past`: facts tell it in the past tense
    ("Acme Ltd signed SOW-12"); subj/obj: the entity categories it links ("*" = any)."""

    key: str
    base: str
    s3: str
    pp: str
    subj: tuple[str, ...]
    obj: tuple[str, ...]
    cop: bool = False
    past: str = ""

    @property
    def pl(self) -> str:
        return "are " + self.s3[3:] if self.cop else self.base


def _rel(forms: str, subj: str, obj: str, past: bool = False) -> Rel:
    """"feed/feeds/fed", "is bound by", "sign/signs/signed" (+ past=True)."""
    if forms.startswith("is "):
        return Rel(forms, "be " + forms[3:], forms, "", tuple(subj.split()), tuple(obj.split()), cop=True)
    b, s3, pp = forms.split("/")
    return Rel(s3, b, s3, pp, tuple(subj.split()), tuple(obj.split()), past=pp if past else "")


@dataclass(frozen=True)
class Group:
    """A categorical attribute: options in their natural order, each with the phrase that
    follows the verb ("has {p} priority" with p = "high")."""

    key: str
    noun: str
    values: tuple[tuple[str, str], ...]
    sg: str
    pl: str
    cats: tuple[str, ...]
    blocks: tuple[str, ...] = ()  # unary words a set using this group must not use

    @property
    def options(self) -> tuple[str, ...]:
        return tuple(v for v, _ in self.values)

    def phrase(self, value: str) -> str:
        return dict(self.values)[value]


def _plural(noun: str) -> str:
    irregular = {"mouse": "mice", "sheep": "sheep", "deer": "deer", "goose": "geese", "moose": "moose",
                 "bison": "bison", "wolf": "wolves", "person": "people", "analyser": "analysers",
                 "shelf": "shelves", "knife": "knives", "yak": "yaks",
                 "statement of work": "statements of work"}
    if noun in irregular:
        return irregular[noun]
    head, _, last = noun.rpartition(" ")
    if last in irregular:
        return (head + " " if head else "") + irregular[last]
    if noun.endswith(("s", "x", "ch", "sh")):
        return noun + "es"
    if noun.endswith("y") and noun[-2] not in "aeiou":
        return noun[:-1] + "ies"
    return noun + "s"


def _kinds(cat: str, spec: str, style: str = "tag", pool: str = "TAGNUM", animate: bool = False) -> tuple[Kind, ...]:
    """"pump:P, heat exchanger:E" -> kinds of one category (the pool's order, tail = novel)."""
    out = []
    for item in spec.split(","):
        noun, _, pattern = item.strip().partition(":")
        out.append(Kind(f"{cat}.{noun}", noun, _plural(noun), style, cat, pattern, pool, animate))
    return tuple(out)


def _tag_numbers() -> tuple[str, ...]:
    """Three-digit tag numbers in clusters of four look-alikes (204, 240, 205, 214); a cluster
    never straddles the seen/novel cut, so a look-alike is in the same half."""
    r = random.Random(8_204_240)  # private and fixed: the pool is a constant
    out: list[str] = []
    taken: set[str] = set()
    while len(out) < 256:
        a, b, c = r.randint(1, 9), r.randint(0, 9), r.randint(0, 9)
        cluster = [f"{a}{b}{c}", f"{a}{c}{b}", f"{a}{b}{(c + 1) % 10}", f"{a}{(b + 1) % 10}{c}"]
        if len(set(cluster)) < 4 or taken.intersection(cluster):
            continue
        taken.update(cluster)
        out.extend(cluster)
    return tuple(out)


TAGNUM = _tag_numbers()
SMALLNUM = tuple(str(i) for i in range(1, 41))
LETTERS = tuple("ABCDEFGHJKLMNPQRSTUVWXYZ")
CLAUSES = tuple(f"{a}.{b}" for a in range(1, 17) for b in range(1, 6))
PEOPLE = tuple("""Anne Bob Charlie Dave Erin Fiona Gary Harry Ivy Jack Karen Liam Mona Nina Oscar Paul Quinn
Rosa Sam Tina Uma Victor Wendy Xavier Yara Zoe Alice Ben Clara Dan Ella Frank Grace Hugo Iris James Kate Leo Maya
Noah Olga Pete Rita Simon Tara Ugo Vera Will Yusuf Zara Adam Beth Colin Diana Ethan Faye George Hannah Ian Julia
Kevin Lucy Mark Nora Owen Priya Ravi Sara Tom Ursula Vince Wanda Amir Bianca Carlos Dina Emil Farah Gil Helen
Isaac Jana Kofi Lena Marco Nadia Omar Petra Rhys Sofia Theo Una Viktor Willa Yves Zeno Aaron Bella Chen Dora
Elias Freya Gabe Holly Igor Jade Kai Lara Milo Nell Otto Pia Rowan Selma Tobias Ulla Wade Ada Basil Cora Dex
Amos Bridget Cecil Delia Ewan Flora Hamish Imogen Jasper Keira Lionel Martha
Edith Flynn Greta Hank Ines Joel Kira Lars Mina Ned Opal Percy Ruth Silas Tess Uri Vlad Wren Abe Bea Cyrus Dot
Enzo Flo Gus Hilda Ivo Juno Kurt Lola Moe Nils Oona Pablo Reza Sven Thea Ulf Vito Xena Yuri Zed Alba Bruno
Cleo Dirk Elsa Fitz Gwen Hector Ilse Jonas Kasia Luca Mabel Nico Odile Piet Quincy Roisin Saoirse Tadhg Ulrike
Vesna Wilhelmina Ximena Yolanda Zbigniew Aurelio Benedikta Casimir Dagny Evander Fenella Gideon Honora""".split())
_COMPANY_STEMS = """Acme Globex Initech Northwind Contoso Fabrikam Borealis Vertex Halcyon Meridian Apex Summit
Pinnacle Keystone Ironclad Bluewater Redwood Silverline Goldcrest Starling Kestrel Harbor Lakeside Riverton
Westbrook Eastgate Southfield Oakridge Pinewood Cedar Granite Cobalt Argon Helix Quantum Nimbus Zephyr Orion
Atlas Triton Polaris Sterling Crescent Beacon Lumen Vantage Praxis Novum Quillon Brackwater Thistledown
Marrowgate Ebonvale Fenwick Gallowmere Hollin Ivorsand Juniperhall Kingsmere Larkspur""".split()
COMPANIES = tuple(f"{s} {x}" for s in _COMPANY_STEMS for x in ("Ltd", "Inc.", "GmbH", "LLC", "plc"))
NAME_POOLS: dict[str, tuple[str, ...]] = {"TAGNUM": TAGNUM, "SMALLNUM": SMALLNUM, "LETTERS": LETTERS,
                                          "CLAUSES": CLAUSES, "PEOPLE": PEOPLE, "COMPANIES": COMPANIES}

# conclusion verbs: "If a pump feeds a tank that is full, the pump stops." (= is stopped)
VERBS = {"stopped": ("stops", "stop"), "closed": ("closes", "close"), "open": ("opens", "open"),
         "tripped": ("trips", "trip"), "running": ("runs", "run"), "alarmed": ("alarms", "alarm"),
         "locked": ("locks", "lock"), "halted": ("halts", "halt"), "moving": ("moves", "move"),
         "vibrating": ("vibrates", "vibrate"), "leaking": ("leaks", "leak"), "overheating": ("overheats", "overheat"),
         "surging": ("surges", "surge"), "cavitating": ("cavitates", "cavitate"), "paused": ("pauses", "pause"),
         "waiting": ("waits", "wait"), "slipping": ("slips", "slip"), "drifting": ("drifts", "drift")}


@dataclass
class Vocab:
    key: str
    kinds: dict[str, tuple[Kind, ...]]       # category -> kinds (pool order; tail = novel)
    weights: dict[str, int]                  # how often a new entity is of a category
    attrs: dict[str, tuple[str, ...]]        # attribute pool name -> adjectives
    pairs: dict[str, tuple[str, ...]]        # attribute pool name -> "open/closed" antonym pairs
    pool_of: dict[str, str]                  # category -> attribute pool name
    rels: tuple[Rel, ...]
    groups: tuple[Group, ...]
    distract: str                            # TEMPLATES key of irrelevant sentences with numbers

    def __post_init__(self) -> None:
        self.rel_keys = tuple(r.key for r in self.rels)
        self.rel_by_key = {r.key: r for r in self.rels}
        self.cats = tuple(self.weights)
        self.cat_draw = tuple(c for c in self.weights for _ in range(self.weights[c]))


def _words(text: str) -> tuple[str, ...]:
    return tuple(w.strip() for w in text.split(",") if w.strip())


PLANT = Vocab(
    key="plant",
    kinds={
        "mover": _kinds("mover", "pump:P, compressor:K, fan:FN, blower:BL, agitator:AG, feeder:FD, ejector:EJ, "
                                 "extruder:EX"),
        "holder": _kinds("holder", "tank:TK, drum:D, vessel:V, silo:SL, hopper:HP, reactor:R, column:C, separator:S, "
                                   "scrubber:SC, thickener:TH, accumulator:AC"),
        "line": _kinds("line", "valve:XV, control valve:FV, filter:F, heat exchanger:E, cooler:CL, heater:H, "
                               "strainer:ST, cyclone:CY, dryer:DR, desuperheater:DS"),
        "drive": _kinds("drive", "motor:M, turbine:KT, gearbox:GB, variable-speed drive:VSD"),
        "protect": _kinds("protect", "breaker:CB, relief valve:PSV, rupture disc:RD, fuse:FU"),
        "sensor": _kinds("sensor", "flow transmitter:FT, pressure transmitter:PT, level transmitter:LT, "
                                   "temperature transmitter:TT, analyser:AT, flame scanner:BS, vibration probe:VT"),
    },
    weights={"mover": 3, "holder": 3, "line": 2, "drive": 1, "protect": 1, "sensor": 1},
    attrs={"*": _words("""sealed, inspected, labelled, leaking, hot, cold, wet, heavy, tagged, flagged,
        calibrated, fouled, overdue, certified, vented, insulated, grounded, corroded,
        vibrating, noisy, hazardous, quarantined, cleared, lubricated, damaged, bypassed, cavitating, overloaded,
        throttled, blocked, frozen, contaminated, degraded, overheating, cracked, serviced, alarmed, restricted,
        permitted, cleaned, sampled, backwashed, commissioned, witnessed, tested, pigged, flushed, dosed, balanced,
        aligned, guarded, painted, earthed, logged, trended, signed off, handed over, on hold, under review,
        due for service, pitted, scheduled, stripped, rebuilt, retagged,
        passivated, lagged, shimmed, derated, pickled, descaled, hydrotested, bunded, blinded, spaded, heat-traced,
        gagged, nitrogen-blanketed, surging, coked, scaled, sooted, stroked, megger-tested, borescoped, re-rated,
        slugging, weeping""")},
    pairs={"*": _words("""open/closed, running/stopped, enabled/disabled, online/offline, energized/de-energized,
        locked/unlocked, in service/out of service, clean/dirty, available/unavailable, connected/disconnected,
        active/inactive, healthy/faulty, manned/unmanned, tripped/reset, armed/disarmed, depressurized/pressurized,
        attended/unattended, primed/unprimed, in spec/out of spec, loaded/unloaded,
        latched/unlatched, engaged/disengaged, plumbed/unplumbed""")},
    pool_of={"mover": "*", "holder": "*", "line": "*", "drive": "*", "protect": "*", "sensor": "*"},
    rels=(
        _rel("feed/feeds/fed", "mover", "holder line"),
        _rel("supply/supplies/supplied", "holder", "mover line"),
        _rel("drain into/drains into/", "holder", "holder"),
        _rel("is connected to", "*", "*"),
        _rel("isolate/isolates/", "line", "mover holder"),
        _rel("drive/drives/driven", "drive", "mover"),
        _rel("protect/protects/protected", "protect", "drive mover holder"),
        _rel("monitor/monitors/monitored", "sensor", "mover holder line drive"),
        _rel("cool/cools/cooled", "line", "holder mover drive"),
        _rel("heat/heats/", "line", "holder"),
        _rel("is upstream of", "*", "*"),
        _rel("back up/backs up/backed up", "mover", "mover"),
        _rel("discharge to/discharges to/", "mover", "holder"),
        _rel("draw from/draws from/", "mover", "holder"),
        _rel("serve/serves/served", "*", "*"),
        _rel("is interlocked with", "*", "*"),
        _rel("vent to/vents to/", "holder", "holder line"),
        _rel("control/controls/controlled", "sensor", "line mover"),
        _rel("purge/purges/", "line", "holder"),
        _rel("blanket/blankets/", "line", "holder"),
        _rel("recirculate to/recirculates to/", "mover", "holder"),
        _rel("is bolted to", "*", "*"),
    ),
    groups=(
        Group("priority", "priority", tuple((v, v) for v in ("low", "medium", "high", "critical")),
              "has {p} priority", "have {p} priority", ("mover", "holder", "line", "drive", "protect", "sensor")),
        Group("condition", "condition", tuple((v, v) for v in ("good", "fair", "poor", "critical")),
              "is in {p} condition", "are in {p} condition", ("mover", "holder", "line", "drive")),
        Group("sil", "SIL rating", tuple((f"SIL {i}", f"SIL {i}") for i in range(1, 5)),
              "is rated {p}", "are rated {p}", ("protect", "sensor", "line")),
    ),
    distract="DISTRACT_PLANT",
)

_PARTY = "supplier, customer, contractor, licensee, vendor, distributor, subcontractor, guarantor, franchisee, lessor"
CONTRACT = Vocab(
    key="contract",
    kinds={
        "party": _kinds("party", _PARTY, "tag", "COMPANIES", animate=True),
        "agreement": _kinds("agreement", "master agreement:MSA, service agreement:SA, licence:LIC, lease:LSE, "
                                         "statement of work:SOW, non-disclosure agreement:NDA, indenture:IND, "
                                         "charter:CP"),
        "instrument": (_kinds("instrument", "amendment:amendment {}, schedule:schedule {}, side letter:side letter {}",
                              "named", "SMALLNUM")
                       + _kinds("instrument", "annex:annex {}, exhibit:exhibit {}", "named", "LETTERS")
                       + _kinds("instrument", "change order:CO")
                       + _kinds("instrument", "addendum:addendum {}, rider:rider {}", "named", "SMALLNUM")),
        "billing": _kinds("billing", "invoice:INV, purchase order:PO, work order:WO, credit note:CN, payment run:PR"),
        "clause": _kinds("clause", "clause:clause {}, section:section {}", "named", "CLAUSES"),
    },
    weights={"party": 4, "agreement": 2, "instrument": 2, "billing": 2, "clause": 1},
    attrs={
        "party": _words("""liable, blacklisted, suspended, in breach, in default, certified, vetted,
            preferred, exempt, sanctioned, bonded, accredited, onboarded, insured, listed, merged, late,
            escalated, flagged, under review, on watch, dormant, reputable, strategic, local, regulated, unionised,
            shortlisted, debarred, overdue, dissolved, restructured, reinstated, audited,
            in administration, garnished, estopped, subrogated, domiciled, gazetted, struck off, enjoined,
            impleaded, distrained"""),
        "doc": _words("""void, effective, expired, terminated, renewed, overdue, pending,
            stamped, redlined, capped, archived, exclusive, terminable, notarised, filed, outstanding, withdrawn,
            initialled, final, indexed, translated, legalised, apostilled, dated, watermarked, uploaded, escalated,
            flagged, material, bespoke, registered, uncapped, evergreen, templated, exported,
            escrowed, rescinded, frustrated, voidable, severable, perfected, engrossed, vitiated, merged out"""),
    },
    pairs={
        "party": _words("""solvent/insolvent, active/inactive, compliant/non-compliant, eligible/ineligible,
            authorised/unauthorised, domestic/foreign, public/private, qualified/unqualified, responsive/unresponsive,
            secured/unsecured, resident/non-resident"""),
        "doc": _words("""valid/invalid, open/closed, enforceable/unenforceable, confidential/public,
            complete/incomplete,
            current/outdated, in force/lapsed, settled/unsettled, binding/non-binding, locked/unlocked,
            vested/unvested, negotiable/non-negotiable, assignable/non-assignable"""),
    },
    pool_of={"party": "party", "agreement": "doc", "instrument": "doc", "billing": "doc", "clause": "doc"},
    rels=(
        _rel("sign/signs/signed", "party", "agreement instrument billing", past=True),
        _rel("is bound by", "party", "agreement instrument clause"),
        _rel("issue/issues/issued", "party", "billing instrument", past=True),
        _rel("approve/approves/approved", "party", "agreement instrument billing", past=True),
        _rel("dispute/disputes/disputed", "party", "billing agreement clause"),
        _rel("countersign/countersigns/countersigned", "party", "agreement instrument", past=True),
        _rel("pay/pays/paid", "party", "billing", past=True),
        _rel("is a party to", "party", "agreement"),
        _rel("is named in", "party", "agreement instrument clause"),
        _rel("draft/drafts/drafted", "party", "agreement instrument clause", past=True),
        _rel("review/reviews/reviewed", "party", "agreement instrument clause billing"),
        _rel("guarantee/guarantees/guaranteed", "party", "party"),
        _rel("indemnify/indemnifies/indemnified", "party", "party"),
        _rel("supply/supplies/supplied", "party", "party"),
        _rel("subcontract to/subcontracts to/", "party", "party"),
        _rel("notify/notifies/notified", "party", "party", past=True),
        _rel("amend/amends/amended", "instrument", "agreement"),
        _rel("reference/references/referenced", "instrument clause", "agreement instrument clause"),
        _rel("supersede/supersedes/superseded", "agreement instrument", "agreement instrument"),
        _rel("incorporate/incorporates/incorporated", "agreement", "instrument clause"),
        _rel("is attached to", "instrument billing", "agreement"),
        _rel("novate/novates/novated", "party", "agreement"),
        _rel("ratify/ratifies/ratified", "party", "agreement instrument", past=True),
        _rel("waive/waives/waived", "party", "clause"),
        _rel("is governed by", "billing instrument", "agreement"),
    ),
    groups=(
        Group("risk", "risk rating", tuple((v, v) for v in ("low", "medium", "high", "severe")),
              "is rated {p} risk", "are rated {p} risk", ("agreement", "instrument", "clause", "billing")),
        Group("terms", "payment term", tuple((v, v) for v in ("net 15", "net 30", "net 45", "net 60", "net 90")),
              "is on {p} terms", "are on {p} terms", ("billing", "agreement")),
        Group("tier", "tier", tuple((f"tier {i}", f"tier {i}") for i in range(1, 5)),
              "is classed as {p}", "are classed as {p}", ("party",)),
    ),
    distract="DISTRACT_CONTRACT",
)

ROBOT = Vocab(
    key="robot",
    kinds={
        "mobile": _kinds("mobile", "robot:R, guided vehicle:AGV, drone:DRN, shuttle:SH, mobile robot:AMR, forklift:FL, "
                                   "tugger:TG"),
        "arm": _kinds("arm", "robot arm:ARM, gantry:GT, cobot:CB, manipulator:MN"),
        "area": _kinds("area", "zone:zone {}, cell:cell {}, aisle:aisle {}, bay:bay {}, mezzanine:mezzanine {}, "
                               "dock:dock {}", "named", "SMALLNUM"),
        "infra": _kinds("infra", "charger:CH, door:DR, gate:G, conveyor:CV, station:ST, lift:LF, turnstile:TS, "
                                 "shutter:SR"),
        "load": _kinds("load", "cart:CT, pallet:PL, tote:TT, rack:RK, trolley:TR, bin:BN"),
        "sensor": _kinds("sensor", "light curtain:LC, camera:CAM, laser scanner:LS, radar:RD, floor mat:FM"),
        "person": _kinds("person", "operator, technician, supervisor, engineer, rigger, marshal", "tag", "PEOPLE",
                         animate=True),
    },
    weights={"mobile": 4, "arm": 1, "area": 2, "infra": 2, "load": 1, "sensor": 1, "person": 1},
    attrs={
        "machine": _words("""idle, charging, halted, faulted, e-stopped, calibrated, localized, lost,
            overloaded, paused, homed, busy, low on battery, overheated, slipping, tilted, mapped, updated,
            tethered, muted, queued, stalled, reversing, throttled, geofenced, tagged, flagged,
            quarantined, certified, serviced, cleaned, degraded, rerouted, blocked, loaded, wet, cold, noisy,
            drifting, desynced, backlogged, derated, re-homed, jittering, brownout-prone, unbalanced"""),
        "place": _words("""occupied, restricted, fenced, lit, congested, cordoned, mapped, reserved, hazardous,
            cleared, swept, quarantined, slippery, cluttered, dusty, noisy, dark, cold, warm, busy, staffed,
            alarmed, tagged, signposted, blocked, wet, audited, marked, full, crowded, flagged,
            flooded, icy, foggy, gritted, barricaded, fogged, overfilled"""),
        "person": _words("""certified, trained, briefed, on shift, fatigued, badged, inducted, rostered, on call,
            qualified, senior, junior, busy, cleared, signed in, first-aid trained, licensed, vetted,
            seconded, deputised, furloughed, upskilled"""),
    },
    pairs={
        "machine": _words("""enabled/disabled, online/offline, moving/stationary, armed/disarmed, locked/unlocked,
            connected/disconnected, in service/out of service, active/inactive, powered/unpowered, latched/unlatched,
            engaged/disengaged"""),
        "place": _words("""open/closed, locked/unlocked, clear/obstructed, enabled/disabled, active/inactive,
            safe/unsafe, accessible/inaccessible, powered/unpowered, sealed/unsealed"""),
        "person": _words("""on duty/off duty, present/absent, authorised/unauthorised, available/unavailable,
            sober/impaired"""),
    },
    pool_of={"mobile": "machine", "arm": "machine", "load": "place", "area": "place", "infra": "place",
             "sensor": "place", "person": "person"},
    rels=(
        _rel("enter/enters/entered", "mobile", "area"),
        _rel("is assigned to", "mobile arm person", "area infra"),
        _rel("dock at/docks at/", "mobile", "infra"),
        _rel("carry/carries/carried", "mobile arm", "load"),
        _rel("tow/tows/towed", "mobile", "load"),
        _rel("follow/follows/followed", "mobile", "mobile"),
        _rel("guard/guards/guarded", "sensor", "area infra"),
        _rel("monitor/monitors/monitored", "sensor person", "area infra mobile arm"),
        _rel("supervise/supervises/supervised", "person", "mobile arm area"),
        _rel("serve/serves/served", "infra", "area mobile"),
        _rel("is parked in", "mobile load", "area"),
        _rel("approach/approaches/approached", "mobile", "area infra"),
        _rel("yield to/yields to/", "mobile", "mobile arm"),
        _rel("inspect/inspects/inspected", "person", "mobile arm infra"),
        _rel("override/overrides/overridden", "person", "mobile arm"),
        _rel("feed/feeds/fed", "infra", "arm"),
        _rel("pick from/picks from/", "arm", "load infra"),
        _rel("wait at/waits at/", "mobile", "infra area"),
        _rel("is paired with", "mobile arm", "mobile arm"),
        _rel("escort/escorts/escorted", "mobile", "mobile person"),
        _rel("patrol/patrols/patrolled", "mobile", "area"),
        _rel("shadow/shadows/shadowed", "mobile", "mobile person"),
        _rel("is slaved to", "mobile arm", "infra"),
    ),
    groups=(
        Group("speed", "speed mode", tuple((v, v) for v in ("creep", "slow", "normal", "fast")),
              "runs in {p} mode", "run in {p} mode", ("mobile", "arm")),
        Group("level", "safety level", tuple((f"level {i}", f"safety level {i}") for i in range(1, 5)),
              "is at {p}", "are at {p}", ("area", "infra")),
        Group("light", "status light", (("green", "a green"), ("amber", "an amber"), ("red", "a red"),
                                        ("blue", "a blue"), ("white", "a white")),
              "shows {p} light", "show {p} light", ("mobile", "arm", "infra")),
    ),
    distract="DISTRACT_ROBOT",
)

_ANIMALS = """cat, dog, bear, mouse, lion, rabbit, squirrel, tiger, cow, horse, fox, wolf, owl, eagle, duck, goat,
    sheep, pig, deer, frog, turtle, hamster, parrot, crow, bee, hedgehog, donkey, goose, swan, seal,
    otter, badger, lynx, heron, ferret, mole, weasel, bison, yak, moose"""
_OBJECTS = """ball, box, kite, lamp, chair, cup, bottle, book, hat, bag, rope, key, coin, bell, brick, vase, shoe,
    clock, pen, spoon, table, candle, mirror, basket, blanket, ladder, bucket,
    lantern, kettle, anvil, thimble, ladle, urn, satchel, tankard"""
_COLOURS = ("white", "yellow", "orange", "red", "pink", "purple", "blue", "green", "brown", "grey", "black")
EVERYDAY = Vocab(
    key="everyday",
    kinds={
        "person": (Kind("person.person", "person", "people", "proper", "person", "", "PEOPLE", True),),
        "animal": tuple(Kind(f"animal.{a}", a, _plural(a), "the", "animal", "", "", True)
                        for a in _words(_ANIMALS)),
        "object": tuple(Kind(f"object.{o}", o, _plural(o), "the", "object", "", "")
                        for o in _words(_OBJECTS)),
    },
    weights={"person": 3, "animal": 3, "object": 2},
    attrs={
        "animate": _words("""kind, young, cold, quiet, rough, nice, smart, furry, round, red, green, blue, white,
            big, heavy, strong, tired, hungry, old, brave, calm, clever, gentle, proud, busy, sleepy, angry,
            friendly, funny, grumpy, lazy, lucky, shy, silly, tall, wise, curious, careful, noisy, cheerful,
            muddy, slow, fast, happy, sad, bold, eager, fierce, loyal, playful, quick, rich, sweet, tough,
            shaggy, spotted, striped, small,
            wistful, sprightly, gaunt, plucky, dapper, morose, jaunty, doughty, feisty, gruff, nimble, perky,
            prim, spry, wily, stoic"""),
        "object": _words("""big, heavy, round, red, green, blue, white, rough, cold, shiny, soft, smooth, sharp,
            hard, cheap, new, old, sticky, bright, dull, dusty, hollow, square, thin, thick, wooden, plastic,
            striped, spotted, warm, loud, quiet, small, fragile, fancy, plain, tall, flat,
            gilded, burnished, lacquered, dented, frayed, ornate, rickety, glossy, mottled, porous, chipped"""),
    },
    pairs={
        "animate": _words("""awake/asleep, wet/dry, clean/dirty, tame/wild, healthy/ill, honest/dishonest,
            polite/rude, patient/impatient, tidy/messy, visible/hidden, present/absent,
            contented/discontented, hopeful/hopeless, sober/tipsy"""),
        "object": _words("""open/closed, wet/dry, clean/dirty, whole/broken, locked/unlocked, visible/hidden,
            lit/unlit, switched on/switched off, sealed/unsealed, tuned/untuned, polished/unpolished"""),
    },
    pool_of={"person": "animate", "animal": "animate", "object": "object"},
    rels=(
        _rel("chase/chases/chased", "person animal", "person animal"),
        _rel("like/likes/liked", "person animal", "*"),
        _rel("visit/visits/visited", "person animal", "person animal"),
        _rel("see/sees/seen", "person animal", "*"),
        _rel("need/needs/needed", "person animal", "*"),
        _rel("eat/eats/eaten", "animal", "animal"),
        _rel("help/helps/helped", "person animal", "person animal"),
        _rel("know/knows/known", "person", "person animal"),
        _rel("admire/admires/admired", "person animal", "person animal"),
        _rel("follow/follows/followed", "person animal", "person animal"),
        _rel("trust/trusts/trusted", "person animal", "person animal"),
        _rel("meet/meets/met", "person", "person"),
        _rel("call/calls/called", "person", "person animal"),
        _rel("hug/hugs/hugged", "person animal", "person animal"),
        _rel("watch/watches/watched", "person animal", "*"),
        _rel("love/loves/loved", "person animal", "*"),
        _rel("avoid/avoids/avoided", "person animal", "*"),
        _rel("fear/fears/feared", "person animal", "person animal"),
        _rel("own/owns/owned", "person", "animal object"),
        _rel("want/wants/wanted", "person animal", "object"),
        _rel("hold/holds/held", "person", "object"),
        _rel("is next to", "*", "*"),
        _rel("pester/pesters/pestered", "person animal", "person animal"),
        _rel("mimic/mimics/mimicked", "person animal", "person animal"),
        _rel("outwit/outwits/outwitted", "person animal", "person animal"),
        _rel("nudge/nudges/nudged", "person animal", "*"),
        _rel("is wary of", "person animal", "*"),
    ),
    groups=(
        Group("colour", "colour", tuple((c, c) for c in _COLOURS), "is {p}", "are {p}", ("animal", "object"),
              blocks=_COLOURS),
        Group("size", "size", (("tiny", "tiny"), ("small", "small"), ("medium", "medium-sized"),
                               ("large", "large"), ("huge", "huge")),
              "is {p}", "are {p}", ("person", "animal", "object"), blocks=("tiny", "small", "big", "large", "huge")),
    ),
    distract="DISTRACT_EVERYDAY",
)

VOCABS: tuple[Vocab, ...] = (PLANT, CONTRACT, ROBOT, EVERYDAY)
VOCAB_WEIGHTS = (3, 2, 2, 3)


# ============================================================================ phrasings
# Every pattern is a tuple of phrasings; base.pick holds out indices 4, 9, 14, ... Slots:
# {e} an entity, {a} an attribute (adjective), {stmt}/{nstmt} a relation statement and
# its negation, {qdo} its yes/no question clause, {vp}/{vpp} a conclusion's verb phrase
# (singular/plural), {A} a condition ("sealed and not wet"), descriptor slots {a_}, {any},
# {every}, {all}, {pl}, {that} ("a drum", "any drum", ... or "something", "anyone", ...).
TEMPLATES: dict[str, tuple[str, ...]] = {
    # ------------------------------------------------------------------ facts
    "FACT": (
        "{e} is {a}.", "{e} is currently {a}.", "Records show {e} is {a}.", "It is confirmed that {e} is {a}.",
        "{e} is {a}, as noted.",
        "Note: {e} is {a}.", "{e} is {a} at the moment.", "As of the last check, {e} is {a}.",
        "{e} has been confirmed {a}.", "{e}: {a}.",
        "We know that {e} is {a}.", "{e} is reported as {a}.", "Observed: {e} is {a}.",
        "According to the log, {e} is {a}.", "{e} is {a} (confirmed).",
        "For the record, {e} is {a}.", "{e} was found to be {a}.", "The latest update says {e} is {a}.",
        "Confirmed: {e} is {a}.", "{e} is listed as {a}.",
    ),
    "FACT_NOT": (
        "{e} is not {a}.", "{e} isn't {a}.", "{e} is not currently {a}.", "Records show {e} is not {a}.",
        "{e} was checked and is not {a}.",
        "It is confirmed that {e} is not {a}.", "{e} is not {a} at the moment.", "Note: {e} is not {a}.",
        "We know that {e} is not {a}.", "{e}: not {a}.",
        "According to the log, {e} is not {a}.", "Confirmed: {e} is not {a}.", "{e} has been confirmed not {a}.",
        "For the record, {e} isn't {a}.", "{e} is listed as not {a}.",
    ),
    "FACT_REL": (
        "{stmt}.", "It is recorded that {stmt}.", "Records show that {stmt}.", "Note that {stmt}.",
        "{stmt}, as confirmed.",
        "We know that {stmt}.", "As per the records, {stmt}.", "Confirmed: {stmt}.", "According to the log, {stmt}.",
        "{stmt} (per the records).",
        "For the record, {stmt}.", "It has been confirmed that {stmt}.",
    ),
    "FACT_REL_PASSIVE": (
        "{o} {be} {pp} by {s}.", "Records show {o} {be} {pp} by {s}.", "Note that {o} {be} {pp} by {s}.",
        "It is recorded that {o} {be} {pp} by {s}.", "{o} {be} {pp} by {s}, as confirmed.",
        "Confirmed: {o} {be} {pp} by {s}.", "According to the log, {o} {be} {pp} by {s}.",
    ),
    "FACT_REL_NOT": (
        "{nstmt}.", "It is recorded that {nstmt}.", "Records show that {nstmt}.", "Note that {nstmt}.",
        "{nstmt}, as confirmed.",
        "We know that {nstmt}.", "Confirmed: {nstmt}.", "According to the log, {nstmt}.",
    ),
    "CAT_FACT": (
        "{e} {vp}.", "The {g} of {e} is {v}.", "{poss} {g} is {v}.", "Records show {e} {vp}.",
        "Note: {e} {vp}.",
        "{poss} {g} is set to {v}.", "The {g} recorded for {e} is {v}.", "It is confirmed that {e} {vp}.",
        "According to the log, {e} {vp}.", "{e} - {g}: {v}.",
        "{poss} {g} has been confirmed as {v}.", "For the record, {e} {vp}.",
    ),
    "CAT_DEFAULT": (
        "{pl} {vpp} unless stated otherwise.", "By default, {pl} {vpp}.", "Unless noted otherwise, every {sg} {vp}.",
        "{pl} {vpp} by default.", "The default {g} for {pl} is {v}.",
        "{a_} {vp} unless something says otherwise.", "Unless a record or rule says otherwise, {pl} {vpp}.",
        "If nothing else is stated, {a_} {vp}.", "Assume {pl} {vpp} unless told otherwise.",
        "The {g} of {a_} defaults to {v}.",
        "Absent other information, {pl} {vpp}.", "Each {sg} {vp} unless stated otherwise.",
    ),
    # ------------------------------------------------------------------ rules over one variable
    "RULE_IF": (
        "If {a_} is {A}, then {pron_c}.", "If {a_} is {A} then {pron_c}.", "{any} {that} is {A} {vp}.",
        "{every} {that} is {A} {vp}.", "{all} {that} are {A} {vpp}.",
        "{pl} {that} are {A} {vpp}.", "When {a_} is {A}, {pron_c}.", "Whenever {a_} is {A}, {pron_c}.",
        "{gen} {that} is {A} {vp}.", "{gen} {vp} if {pron_is} {A}.",
        "If {a_} is {A}, {pron_c}.", "{any} {that} is {A} {vp}, without exception.",
        "Rule: if {a_} is {A}, {pron_c}.", "{gen} {vp} whenever {pron_is} {A}.",
        "As a rule, {any} {that} is {A} {vp}.",
        "{all} {that} are {A} {vpp} as well.", "In every case where {a_} is {A}, {pron_c}.",
        "Once {a_} is {A}, {pron_c}.", "It holds that {any} {that} is {A} {vp}.",
        "{all} {that} are {A} {vpp}, no exceptions.",
    ),
    "RULE_ADJ": (
        "All {adj} {pl} {vpp}.", "Every {adj} {sg} {vp}.", "{adj} {pl} {vpp}.", "Any {adj} {sg} {vp}.",
        "Each {adj} {sg} {vp}.",
        "{an_adj} {sg} {vp}.", "As a rule, {adj} {pl} {vpp}.", "All {adj} {pl} {vpp}, without exception.",
        "The rule is that {adj} {pl} {vpp}.", "Note that every {adj} {sg} {vp}.",
        "{adj} {pl} {vpp} in every case.", "Every single {adj} {sg} {vp}.", "Without exception, {adj} {pl} {vpp}.",
        "It holds that all {adj} {pl} {vpp}.", "By rule, {adj} {pl} {vpp}.",
    ),
    "RULE_UNLESS": (
        "{all} {that} are {P} {vpp} unless they are {N}.", "{every} {that} is {P} {vp}, unless {pron_is} {N}.",
        "{pl} {that} are {P} {vpp} except when they are {N}.", "If {a_} is {P}, {pron_c} unless {pron_is} {N}.",
        "{gen} {that} is {P} {vp} unless {pron_is} {N}.",
        "Unless {pron_is} {N}, {gen} {that} is {P} {vp}.", "{any} {that} is {P} but not {N} {vp}.",
        "{pl} {that} are {P} and not {N} {vpp}.", "{all} {that} are {P} {vpp}, provided they are not {N}.",
        "{pl} {that} are {P} {vpp} as long as they are not {N}.",
        "If {a_} is {P} and not {N}, {pron_c}.", "{gen} {vp} if {pron_is} {P} and not {N}.",
        "Except when {pron_is} {N}, {any} {that} is {P} {vp}.", "{every} {that} is {P} but not {N} {vp}.",
        "{all} {that} are {P} {vpp}; the exception is when they are {N}.",
    ),
    "RULE_ADJ_NOT": (
        "{adj} {pl} that are not {N} {vpp}.", "All {adj} {pl} that are not {N} {vpp}.",
        "Every {adj} {sg} that is not {N} {vp}.", "{adj} {pl} {vpp} unless they are {N}.",
        "Any {adj} {sg} {vp} unless {pron_is} {N}.",
        "{adj} {pl} that aren't {N} {vpp}.", "{an_adj} {sg} that is not {N} {vp}.",
    ),
    "RULE_EXCEPT": (
        "{all} {that} are {A}, except {x}, {vpp}.", "{every} {that} is {A} {vp}, except {x}.",
        "{pl} {that} are {A} {vpp}, with the exception of {x}.", "If {a_} other than {x} is {A}, {pron_c}.",
        "{any} {that} is {A} {vp}, apart from {x}.",
        "Except for {x}, {pl} {that} are {A} {vpp}.", "{all} {that} are {A} {vpp}, {x} excepted.",
    ),
    # ------------------------------------------------------------------ rules through a relation
    # rel(X, Y) and P(Y) -> C(X): "If a pump feeds a tank that is full, the pump stops."
    "RULE_REL_OBJ": (
        "If {ax} {rel} {ay} {thaty} is {P}, {thex_c}.", "If {ax} {rel} {ay} {thaty} is {P}, then {thex_c}.",
        "{anyx} {thatx} {rel} {ay} {thaty} is {P} {vp}.", "{everyx} {thatx} {rel} {ay} {thaty} is {P} {vp}.",
        "{allx} {thatx} {relpl} {ay} {thaty} is {P} {vpp}.",
        "If {ay} is {P}, {everyx} {thatx} {rel} {yobj} {vp}.", "When {ay} is {P}, {anyx} {thatx} {rel} {yobj} {vp}.",
        "{ax} {thatx} {rel} {ay} {thaty} is {P} {vp}.", "{plx} {thatx} {relpl} {ay} {thaty} is {P} {vpp}.",
        "{ax} {vp} if {xpron_rel} {ay} {thaty} is {P}.",
        "Whenever {ax} {rel} {ay} {thaty} is {P}, {thex_c}.",
        "If {ay} is {P}, then {allx} {thatx} {relpl} {yobj} {vpp}.",
        "Once {ay} is {P}, {everyx} {thatx} {rel} {yobj} {vp}.",
    ),
    # rel(X, Y) and P(X) -> C(Y): "When a pump is hot, every tank it feeds is warm."
    "RULE_REL_SUBJ": (
        "If {ax} is {P} and {xpron_rel} {ay}, {they_c}.", "If {ax} {thatx} is {P} {rel} {ay}, {they_c}.",
        "When {ax} is {P}, {everyy} {xpron_rel} {vp}.", "If {ax} is {P}, {ally} {xpron_rel} {vpp}.",
        "If {ax} is {P}, then {anyy} {xpron_rel} {vp}.",
        "{ay} {vp} if {ax} {thatx} is {P} {rel} {yobj}.", "Whenever {ax} {thatx} is {P} {rel} {ay}, {they_c}.",
        "If {ax} {rel} {ay} while {thex} is {P}, {they_c}.", "Once {ax} is {P}, {everyy} {xpron_rel} {vp}.",
        "When {ax} {thatx} is {P} {rel} {ay}, {they_c}.",
        "If {ax} is {P}, {anyy} {xpron_rel} {vp} as well.",
    ),
    # rel(X, c) -> C(X): "Anyone who likes the cat is happy."
    "RULE_TO_CONST": (
        "If {a_} {rel} {c}, then {subj_c}.", "If {a_} {rel} {c} then {subj_c}.", "{any} {that} {rel} {c} {vp}.",
        "{every} {that} {rel} {c} {vp}.", "{all} {that} {relpl} {c} {vpp}.",
        "{pl} {that} {relpl} {c} {vpp}.", "{gen} {that} {rel} {c} {vp}.", "Whenever {a_} {rel} {c}, {subj_c}.",
        "{gen} {vp} if {pron_rel} {c}.", "When {a_} {rel} {c}, {subj_c}.",
        "{any} {that} {rel} {c} {vp}, without exception.", "Rule: if {a_} {rel} {c}, {subj_c}.",
    ),
    # rel(X, c) and P(c) -> C(X): "If someone likes the cat and the cat is kind then they are happy."
    "RULE_TO_CONST_IF": (
        "If {a_} {rel} {c} and {c2} is {P}, then {subj_c}.", "If {a_} {rel} {c} and {c2} is {P} then {subj_c}.",
        "{any} {that} {rel} {c} {vp} if {c2} is {P}.", "If {c2} is {P}, {every} {that} {rel} {c} {vp}.",
        "When {c2} is {P}, {all} {that} {relpl} {c} {vpp}.",
        "Provided {c2} is {P}, {any} {that} {rel} {c} {vp}.", "If {c2} is {P} and {a_} {rel} {c}, {subj_c}.",
        "{every} {that} {rel} {c} {vp} as long as {c2} is {P}.",
    ),
    # rel(c, X) -> C(X): "Anything the bear chases is scared."
    "RULE_FROM_CONST": (
        "If {c} {crel} {a_}, {subj_c}.", "If {c} {crel} {a_}, then {subj_c}.", "{any} {c} {crel} {vp}.",
        "{any} that {c} {crel} {vp}.", "{every} {c} {crel} {vp}.",
        "{all} that {c} {crel} {vpp}.", "Whenever {c} {crel} {a_}, {subj_c}.", "{gen} {vp} if {c} {crel} {xobj}.",
        "When {c} {crel} {a_}, {subj_c}.", "{gen} that {c} {crel} {vp}.",
    ),
    # rel(X, c) -> rel2(c, X): "If someone chases the mouse then the mouse fears them."
    "RULE_SWAP": (
        "If {a_} {rel} {c} then {c2} {rel2} {xobj}.", "If {a_} {rel} {c}, {c2} {rel2} {xobj}.",
        "{c2} {rel2} {any} {that} {rel} {cobj}.", "{c2} {rel2} {every} {that} {rel} {cobj}.",
        "Whenever {a_} {rel} {c}, {c2} {rel2} {xobj}.",
        "{c2} {rel2} all those that {relpl} {cobj}.", "When {a_} {rel} {c}, {c2} {rel2} {xobj}.",
        "If {a_} {rel} {c}, then {c2} {rel2} {xobj}.",
    ),
    # rel(X, Y) -> rel2(X, Y): "Anyone who signs an amendment is bound by it."
    "RULE_REL_REL": (
        "{anyx} {thatx} {rel} {ay} {rel2} {yobj}.", "If {ax} {rel} {ay}, {xpron_rel2} {yobj}.",
        "{everyx} {thatx} {rel} {ay} {rel2} {yobj}.", "{allx} {thatx} {relpl} {ay} {rel2pl} {yobj}.",
        "Whenever {ax} {rel} {ay}, {xpron_rel2} {yobj}.",
        "{genx} {thatx} {rel} {ay} {rel2} {yobj}.", "If {ax} {rel} {ay}, then {xpron_rel2} {yobj}.",
        "When {ax} {rel} {ay}, {xpron_rel2} {yobj}.",
    ),
    # ------------------------------------------------------------------ questions
    "Q_IS": (
        "Is {e} {a}?", "Is {e} currently {a}?", "Would you say {e} is {a}?", "Can {e} be considered {a}?",
        "Is it the case that {e} is {a}?",
        "Is {e} {a} right now?", "Do we know {e} to be {a}?", "Based on this, is {e} {a}?", "Is {e} {a} or not?",
        "{e}: {a}?",
        "Given the above, is {e} {a}?", "Am I right that {e} is {a}?", "Does {e} count as {a}?",
        "Check: is {e} {a}?", "Should {e} be treated as {a}?",
        "Is {e} {a} at this point?", "So, is {e} {a}?", "Is it true that {e} is {a}?", "Can we say {e} is {a}?",
        "Does it follow that {e} is {a}?",
    ),
    "Q_IS_NOT": (
        "Is it true that {e} is not {a}?", "Is {e} not {a}?", "Would you say {e} is not {a}?",
        "Is it correct that {e} isn't {a}?", "Is it the case that {e} is not {a}?",
        "Can we say {e} is not {a}?", "Am I right that {e} is not {a}?", "Is it false that {e} is {a}?",
        "Given the above, is {e} not {a}?", "True or false: {e} is not {a}?",
        "Should {e} be treated as not {a}?", "Does it follow that {e} is not {a}?",
        "Is it wrong to say {e} is {a}?", "Based on this, is {e} not {a}?", "Is {e} definitely not {a}?",
    ),
    "Q_REL": (
        "{qdo}?", "Is it true that {stmt}?", "Would you say that {stmt}?", "Based on this, {qdo}?",
        "Is it the case that {stmt}?",
        "Can we conclude that {stmt}?", "Given the above, {qdo}?", "Am I right that {stmt}?",
        "Do we know that {stmt}?", "True or false: {stmt}?",
        "So {qdo}?", "Check: {qdo}?", "Does it follow that {stmt}?", "Can we say {stmt}?",
        "From the above, {qdo}?",
    ),
    "Q_REL_PASSIVE": (
        "{beq} {o} {pp} by {s}?", "Would you say {o} {be} {pp} by {s}?", "Is it true that {o} {be} {pp} by {s}?",
        "Can we say {o} {be} {pp} by {s}?", "Given the above, {beq_l} {o} {pp} by {s}?",
        "So {beq_l} {o} {pp} by {s}?", "Am I right that {o} {be} {pp} by {s}?",
    ),
    "Q_REL_NOT": (
        "Is it true that {nstmt}?", "Is it the case that {nstmt}?", "Would you say that {nstmt}?",
        "Am I right that {nstmt}?", "Is it correct that {nstmt}?",
        "Can we say that {nstmt}?", "Is it false that {stmt}?", "Given the above, is it true that {nstmt}?",
        "Does it follow that {nstmt}?", "True or false: {nstmt}?",
        "Is it wrong to say that {stmt}?",
    ),
    "Q_CAT": (
        "What is the {g} of {e}?", "What {g} is {e}?", "Which {g} does {e} have?", "What's {poss} {g}?",
        "Which {g} applies to {e}?",
        "What {g} should be recorded for {e}?", "Given the above, what is the {g} of {e}?", "Select the {g} of {e}.",
        "What {g} does {e} end up with?", "{poss} {g} is which of these?",
        "What is {poss} {g}?", "Pick the correct {g} for {e}.", "What {g} has {e} got?",
        "Determine the {g} of {e}.", "What {g} is assigned to {e}?",
    ),
    "Q_WHICH": (
        "Which of these {qwh}?", "Which one {qwh}?", "Which of the following {qwh}?", "Of these, which {qwh}?",
        "Which option {qwh}?",
        "Pick the one that {sv}.", "Which of them {qwh}?", "{sv} which of these?", "Select the one {sv}.",
        "Among these, which {qwh}?",
        "Which one of these {qwh}?",
    ),
    # ------------------------------------------------------------------ irrelevant sentences with numbers
    "DISTRACT_PLANT": (
        "{e} was installed in {year}.", "{e} has a design pressure of {n2} bar.",
        "The last work order on {e} was WO-{n4}.",
        "{e} is located in area {n2}.", "{e} was last overhauled {n2} months ago.",
        "{e} has {n2} open notifications.", "{e} is fitted with a {n3} mm flange.",
        "Shift B logged {n2} rounds on {e}.",
        "{e} is rated for {n3} m3/h.", "{e} appears on drawing P&ID-{n3}.",
    ),
    "DISTRACT_CONTRACT": (
        "{e} is mentioned on page {n2} of the file.", "{e} was scanned on {day} {month}.",
        "The file for {e} holds {n2} documents.", "{e} was last discussed on {day} {month} {year}.",
        "{e} is stored under file no. {n4}.",
        "{e} appears {n2} times in the index.", "The review of {e} took {n2} hours.",
        "{e} was logged in the register in {year}.",
    ),
    "DISTRACT_ROBOT": (
        "{e} has logged {n3} hours.", "{e} was last updated on day {n2}.", "{e} is {n2} metres from the main aisle.",
        "{e} was commissioned in {year}.", "{e} runs firmware {n2}.{n1}.",
        "{e} completed {n3} tasks this week.", "{e} is listed as asset {n4}.", "{e} was last mapped {n2} days ago.",
    ),
    "DISTRACT_EVERYDAY": (
        "{e} was mentioned {n2} times today.", "{e} was photographed in {year}.", "{e} arrived at {n1} o'clock.",
        "{e} has a tag with the number {n3}.", "{e} was first noticed in {month}.",
        "Someone wrote about {e} in {year}.", "{e} appears in {n2} old photos.",
    ),
}
base.add_phrasings(TEMPLATES, phrasings.MORE)  # training sets only (Style.more)


# ============================================================================ logic
# Ground atoms: ("u", attr, e) "e is attr"; ("r", rel, s, o) "s rel o". Categorical
# variables: ("c", group, e). Entities are ints. In a rule, a term is an int (a named
# entity) or a variable "X"/"Y". Conditions:
#   ("u", attr, t, positive)   t is / is not attr (negation as failure)
#   ("r", rel, t1, t2)         t1 rel t2
#   ("k", kind_key, t)         the text gives t's kind ("a drum")
#   ("a", t)                   t is animate ("someone")
#   ("ne", t, e)               t is not entity e ("... except D-14")
# Conclusions: ("u", attr, t), ("r", rel, t1, t2), ("c", group, t, value).

@dataclass(frozen=True)
class Rule:
    conds: tuple
    concl: tuple


@dataclass
class Sent:
    """A sentence and what it states: positive atoms, negative atoms (closed world: these
    change no truth, they only say so), categorical values, class defaults
    (group, kind_key, value), a rule, and the entities it names with their kind."""

    text: str = ""
    facts: tuple = ()
    negs: tuple = ()
    vals: tuple = ()
    defaults: tuple = ()
    rule: Rule | None = None
    intros: tuple = ()


@dataclass
class Universe:
    """The entities: kind key, animate, and whether the kind must be given by the text
    (a tag such as "D-14" says nothing of its kind; "the cat" or "amendment 3" does)."""

    kinds: list[str]
    animate: list[bool]
    tagged: list[bool]


@dataclass
class Model:
    true: dict       # atom -> (depth, supporting sentence or None)
    cats: dict       # var -> (value, depth, supporting sentence or None)
    neg: dict        # atom -> sentence stating that it does not hold
    conflicts: list  # contradictions (a generator rejects such a world)
    edges: list      # (rule sentence, concluded atom or var, positive condition atoms), fired rules

    def holds(self, atom) -> bool:
        return atom in self.true

    def value(self, var) -> str | None:
        got = self.cats.get(var)
        return got[0] if got else None


def _is_var(t) -> bool:
    return isinstance(t, str)


def _pred(lit) -> tuple:
    return (lit[0], lit[1])


def strata(rules: Sequence[Rule]) -> dict[tuple, int]:
    """Level of each concluded predicate: at least that of its positive conditions, above
    that of its negated ones. Raises ValueError when negation runs through a cycle."""
    level: dict[tuple, int] = {}
    for r in rules:
        level.setdefault(_pred(r.concl), 0)
    for _ in range(len(level) + 2):
        changed = False
        for r in rules:
            p = _pred(r.concl)
            for c in r.conds:
                if c[0] not in ("u", "r"):
                    continue
                q = _pred(c)
                need = level.get(q, 0) + (1 if c[0] == "u" and not c[3] else 0)
                if level[p] < need:
                    level[p] = need
                    changed = True
        if not changed:
            return level
    raise ValueError("the rules are not stratified: a negated condition depends on its own conclusion")


def negation_is_safe(rules: Sequence[Rule]) -> bool:
    """The generator's own rule, stricter than stratification: a negated condition is only
    ever on an attribute that no rule concludes (so "not X" means X is not stated)."""
    concluded = {_pred(r.concl) for r in rules}
    return not any(c[0] == "u" and not c[3] and _pred(c) in concluded for r in rules for c in r.conds)


def _order(conds: tuple) -> tuple:
    """Match positive atoms first (they bind variables), then kinds, then tests."""
    def rank(c):
        if c[0] == "r" or (c[0] == "u" and c[3]):
            return 0
        return 1 if c[0] in ("k", "a") else 2
    return tuple(sorted(conds, key=rank))


class _Index:
    def __init__(self, true: dict):
        self.u: dict[str, list[int]] = {}
        self.r: dict[str, list[tuple[int, int]]] = {}
        for atom in true:
            if atom[0] == "u":
                self.u.setdefault(atom[1], []).append(atom[2])
            else:
                self.r.setdefault(atom[1], []).append((atom[2], atom[3]))


def _match(conds: tuple, k: int, b: dict, idx: _Index, true: dict, kind_of: list, animate: list) -> Iterator[dict]:
    if k == len(conds):
        yield b
        return
    c = conds[k]
    t = c[0]
    if t == "u":
        _, attr, v, positive = c
        if positive:
            if _is_var(v) and v not in b:
                for e in idx.u.get(attr, ()):
                    b[v] = e
                    yield from _match(conds, k + 1, b, idx, true, kind_of, animate)
                    del b[v]
            elif ("u", attr, b.get(v, v) if _is_var(v) else v) in true:
                yield from _match(conds, k + 1, b, idx, true, kind_of, animate)
        else:
            e = b[v] if _is_var(v) else v
            if ("u", attr, e) not in true:
                yield from _match(conds, k + 1, b, idx, true, kind_of, animate)
    elif t == "r":
        _, rel, v1, v2 = c
        for s, o in idx.r.get(rel, ()):
            new = []
            ok = True
            for v, e in ((v1, s), (v2, o)):
                if _is_var(v):
                    if v in b:
                        ok = ok and b[v] == e
                    elif ok:
                        b[v] = e
                        new.append(v)
                else:
                    ok = ok and v == e
            if ok:
                yield from _match(conds, k + 1, b, idx, true, kind_of, animate)
            for v in new:
                del b[v]
    elif t in ("k", "a"):
        v = c[-1]
        test = (lambda e: kind_of[e] == c[1]) if t == "k" else (lambda e: animate[e])
        if _is_var(v) and v not in b:
            for e in range(len(kind_of)):
                if test(e):
                    b[v] = e
                    yield from _match(conds, k + 1, b, idx, true, kind_of, animate)
                    del b[v]
        elif test(b[v] if _is_var(v) else v):
            yield from _match(conds, k + 1, b, idx, true, kind_of, animate)
    elif t == "ne":
        e = b[c[1]] if _is_var(c[1]) else c[1]
        if e != c[2]:
            yield from _match(conds, k + 1, b, idx, true, kind_of, animate)
    else:
        raise ValueError(f"unknown condition {c!r}")


def _ground(lit: tuple, b: dict) -> tuple:
    return tuple(b.get(x, x) if _is_var(x) else x for x in lit)


def _positive_atoms(conds: tuple, b: dict) -> list[tuple]:
    out = []
    for c in conds:
        if c[0] == "r":
            out.append(_ground(c, b))
        elif c[0] == "u" and c[3]:
            out.append(("u", c[1], b[c[2]] if _is_var(c[2]) else c[2]))
    return out


def solve(sents: Sequence[Sent], uni: Universe, deleted: frozenset | set = frozenset(), extra_true: Sequence = (),
          extra_vals: Sequence = (), q_intros: frozenset | set = frozenset()) -> Model:
    """Forward chaining to the fixpoint, stratum by stratum, closed world. `deleted`
    sentences are left out; `extra_true`/`extra_vals` are answers that stand in for them;
    `q_intros` are entities whose kind the questions give."""
    n = len(uni.kinds)
    known = [not uni.tagged[e] or e in q_intros for e in range(n)]
    true: dict = {}
    neg: dict = {}
    vals: dict = {}
    conflicts: list = []
    rules: list[tuple[int, Rule]] = []
    defaults: list = []
    for i, s in enumerate(sents):
        if i in deleted:
            continue
        for e in s.intros:
            known[e] = True
        for atom in s.facts:
            true.setdefault(atom, (0, i))
        for atom in s.negs:
            neg.setdefault(atom, i)
        for var, v in s.vals:
            if var in vals and vals[var][0] != v:
                conflicts.append(("two values", var))
            vals.setdefault(var, (v, 0, i))
        defaults.extend((d, i) for d in s.defaults)
        if s.rule is not None:
            rules.append((i, s.rule))
    for atom in extra_true:
        true.setdefault(atom, (0, None))
    for var, v in extra_vals:
        vals.setdefault(var, (v, 0, None))
    kind_of = [uni.kinds[e] if known[e] else None for e in range(n)]
    animate = list(uni.animate)

    bool_rules = [(i, r, _order(r.conds)) for i, r in rules if r.concl[0] in ("u", "r")]
    cat_rules = [(i, r, _order(r.conds)) for i, r in rules if r.concl[0] == "c"]
    level = strata([r for _, r, _ in bool_rules])
    edges: list = []
    for lv in sorted(set(level.values())):
        layer = [x for x in bool_rules if level[_pred(x[1].concl)] == lv]
        while True:
            idx = _Index(true)
            changed = False
            fired = []
            for i, r, conds in layer:
                for b in list(dict(x) for x in _match(conds, 0, {}, idx, true, kind_of, animate)):
                    atom = _ground(r.concl, b)
                    pos = _positive_atoms(r.conds, b)
                    d = 1 + max((true[p][0] for p in pos), default=0)
                    fired.append((i, atom, pos))
                    cur = true.get(atom)
                    if cur is None or d < cur[0]:
                        true[atom] = (d, i)
                        changed = True
            if not changed:
                edges.extend(fired)
                break

    cats: dict = dict(vals)
    idx = _Index(true)
    cand: dict = {}
    for i, r, conds in cat_rules:
        for b in list(dict(x) for x in _match(conds, 0, {}, idx, true, kind_of, animate)):
            _, g, t, v = r.concl
            var = ("c", g, b[t] if _is_var(t) else t)
            pos = _positive_atoms(r.conds, b)
            d = 1 + max((true[p][0] for p in pos), default=0)
            cand.setdefault(var, []).append((v, d, i))
            edges.append((i, var, pos))
    for var, got in cand.items():
        values = list(dict.fromkeys(v for v, _, _ in got))
        if var in cats:
            if any(v != cats[var][0] for v in values):
                conflicts.append(("rule against stated value", var))
            continue
        if len(values) > 1:
            conflicts.append(("rules disagree", var))
        best = min((x for x in got if x[0] == values[0]), key=lambda x: x[1])
        cats[var] = best
    seen_defaults: dict = {}
    for (g, kind, v), i in defaults:
        if seen_defaults.setdefault((g, kind), v) != v:
            conflicts.append(("two defaults", (g, kind)))
        for e in range(n):
            if kind_of[e] == kind:
                cats.setdefault(("c", g, e), (v, 0, None))
    for atom in neg:
        if atom in true:
            conflicts.append(("stated false but holds", atom))
    return Model(true, cats, neg, conflicts, edges)


# ============================================================================ world
class _Retry(Exception):
    """This draw does not make a valid set; the caller draws again."""


@dataclass
class Ent:
    kind: Kind
    name: str      # "D-14", "amendment 3", "Anne", "the cat", "Acme Ltd"
    item: str = "" # the pool item drawn (a tag number), for look-alike names


@dataclass
class Target:
    """Something asked: a boolean atom, a categorical variable, or "which object does s rel"."""

    kind: str            # "bool" | "cat" | "which"
    key: tuple           # atom | var | ("which", rel, s)
    options: tuple = ()  # entity options of a "which" question
    chain: tuple | None = None  # (chain id, position)


@dataclass
class Desc:
    """How a rule names its variable: a kind ("any drum"), "something" or "someone"."""

    mode: str
    kind: Kind | None
    slots: dict
    pron: str
    plural: bool

    def conds(self, var: str) -> tuple:
        if self.mode == "kind":
            return (("k", self.kind.key, var),)
        if self.mode == "person":
            return (("a", var),)
        return ()


def _art(phrase: str) -> str:
    return ("an " if phrase[:1].lower() in "aeiou" else "a ") + phrase


def _desc(mode: str, kind: Kind | None = None) -> Desc:
    if mode == "kind":
        noun, pl = kind.noun, kind.plural
        person = kind.cat == "person"
        slots = dict(a_=_art(noun), gen=_art(noun), any=f"any {noun}", every=f"every {noun}", all=f"all {pl}", pl=pl,
                     sg=noun,
                     that="who" if person else "that", the=f"the {noun}", obj="them" if person else "it")
        return Desc(mode, kind, slots, "they" if person else "it", person)
    if mode == "person":
        slots = dict(a_="someone", gen="anyone", any="anyone", every="everyone", all="all those", pl="those", sg="one",
                     that="who", the="they", obj="them")
        return Desc(mode, None, slots, "they", True)
    slots = dict(a_="something", gen="anything", any="anything", every="everything", all="all things", pl="things",
                 sg="thing",
                 that="that", the="that thing", obj="it")
    return Desc("thing", None, slots, "it", False)


def _part(pool: Sequence[str], style: Style, novel_share: float = 0.25) -> Sequence[str]:
    """The half of `pool` that `base.names` draws from for this style."""
    cut = max(1, int(len(pool) * (1 - novel_share)))
    return pool[cut:] if style.novel and cut < len(pool) else pool[:cut]


def look_alike(item: str, pool: Sequence[str] = TAGNUM) -> list[str]:
    """Tag numbers that look like `item` (its cluster in the pool: 204 -> 240, 205, 214)."""
    i = pool.index(item)
    start = i - i % 4
    return [x for x in pool[start:start + 4] if x != item]


def _fits(cats: tuple[str, ...], cat: str) -> bool:
    return "*" in cats or cat in cats


_TOKEN = re.compile(r"[A-Za-z]+|\d+|[^\sA-Za-z\d]")
_COMMON = frozenset(w.lower() for t in TEMPLATES.values() for x in t for w in re.findall(r"[A-Za-z]+", x)) | frozenset(
    "is are not and the a an it they them that who any every all things people those someone something anyone "
    "anything everyone everything thing one does did has have was by to of in on for with at".split())


def estimate_tokens(text: str) -> float:
    """A guess of the WordPiece length; the module knows nothing of the tokenizer. Words of
    the phrasings are common English (about one piece); lexicon words may split, the more
    the longer they are; numbers split every few digits. Fitted on the shipped tokenizer,
    with a margin in TOKEN_BUDGET (see the tests)."""
    n = 0.0
    for t in _TOKEN.findall(text):
        if t[0].isdigit():
            n += 0.5 + len(t) / 2.5
        elif not t[0].isalpha():
            n += 1.35
        elif t.lower() in _COMMON:
            n += 1.1
        else:
            n += 0.35 + 0.17 * len(t)
    return n


def estimate_prefix(context: str, questions: Sequence[tuple[str, Sequence[str]]]) -> float:
    """Estimated prefix length of (context, [(question text, options)]): [CLS] context [SEP],
    per question a marker, its text and "(a) option" per option, then [SEP]."""
    return 3 + estimate_tokens(context) + sum(1 + estimate_tokens(text) + sum(2.3 + estimate_tokens(o) for o in options)
                                              for text, options in questions)


# Probes that a model reading "is the attribute said anywhere?" gets wrong (`closed_world`): an
# attribute said of one entity and asked of two (`_probe_bound`), asked of an entity nobody gave
# it to (`_probe_closed`), of a look-alike tag (`_probe_lookalike`); and rule instances (two in
# six where rules may be), whose entity outside the rule then often has attributes of its own.
CLOSED_WAYS = ("bound", "bound", "closed", "lookalike")


def attribute_group(key: tuple, model: Model) -> str:
    """What a yes/no question about attribute `key` = ("u", attr, entity) turns on, by the
    solution: "true"; "false, stated" (said not to hold); "false, said of another" (it holds for
    another entity: word spotting says yes); "false, said of nobody"."""
    _, attr, ent = key
    if model.holds(key):
        return "true"
    if key in model.neg:
        return "false, stated"
    elsewhere = any(k[0] == "u" and k[1] == attr and k[2] != ent for k in model.true)
    return "false, said of another" if elsewhere else "false, said of nobody"
TOKEN_BUDGET = 360  # estimated prefix tokens; the tokenizer's limit is 400 (see the tests)


class _World:
    def __init__(self, rng: random.Random, style: Style, vocab: Vocab, n_questions: int, max_links: int,
                 shrink: int = 0, closed_world: float = 0.0):
        self.rng, self.style, self.v = rng, style, vocab
        self.n, self.max_links, self.shrink = n_questions, max_links, shrink
        self.closed_world = closed_world  # share of yes/no probes from CLOSED_WAYS; more broken chains (training)
        self.ents: list[Ent] = []
        self.names_used: set[str] = set()
        self.sents: list[Sent] = []
        self.pending: list[int] = []
        self.introduced: set[int] = set()
        self.q_intros: set[int] = set()
        self.said: set[int] = set()
        self.used: set[str] = set()
        self.role: dict[str, str] = {}
        self.antonym: dict[str, str] = {}
        self.blocked: set[str] = set()
        self.defaults: dict[tuple[str, str], str] = {}
        self.groups_used: list[Group] = []
        self.chains = 0
        self._asked: list[dict] = []  # questions rendered so far (the yes/no balance looks at them)

    # ------------------------------------------------------------------ phrasing
    def t(self, key: str) -> str:
        return base.pick(self.rng, TEMPLATES[key], self.style)

    def say(self, text: str, **logic) -> int:
        self.sents.append(Sent(text=text, intros=tuple(dict.fromkeys(self.pending)), **logic))
        self.introduced.update(self.pending)
        self.pending = []
        return len(self.sents) - 1

    def ref(self, e: int, question: bool = False) -> str:
        """How a sentence (or question) names e. A tag is written in full ("the drum D-14",
        which gives its kind) at its first mention and often later, else alone ("D-14")."""
        ent = self.ents[e]
        k = ent.kind
        if not question:
            self.said.add(e)
        if k.style != "tag":
            return ent.name
        if question:
            full = self.rng.random() < 0.45
            if full:
                self.q_intros.add(e)
        else:
            full = (e not in self.introduced and e not in self.pending) or self.rng.random() < 0.45
            if full:
                self.pending.append(e)
        if not full:
            return ent.name
        return ("the " if self.rng.random() < 0.5 else "") + f"{k.noun} {ent.name}"

    def short(self, e: int) -> str:
        return self.ents[e].name

    # ------------------------------------------------------------------ lexicon
    def pick_kind(self, cat: str) -> Kind:
        kinds = self.v.kinds[cat]
        if len(kinds) == 1:
            return kinds[0]
        key = base.names(self.rng, tuple(k.key for k in kinds), self.style)
        return next(k for k in kinds if k.key == key)

    def new_entity(self, cat: str | None = None, kind: Kind | None = None, avoid: Kind | None = None,
                   cats: Sequence[str] | None = None) -> int:
        for _ in range(40):
            if kind is not None:
                k = kind
            else:
                if cat is not None:
                    c = cat
                elif cats:
                    c = self.rng.choice([x for x in self.v.cat_draw if _fits(tuple(cats), x)] or list(cats))
                else:
                    c = self.rng.choice(self.v.cat_draw)
                if c not in self.v.kinds:
                    continue
                k = self.pick_kind(c)
            if avoid is not None and k.noun == avoid.noun:
                continue
            item = ""
            if k.style == "the":
                name = f"the {k.noun}"
            elif k.style == "proper":
                name = base.names(self.rng, PEOPLE, self.style)
            else:
                item = base.names(self.rng, NAME_POOLS[k.pool], self.style)
                if k.pool == "TAGNUM":
                    name = f"{k.pattern}-{item}"        # "P-204"
                elif k.style == "named":
                    name = k.pattern.format(item)       # "amendment 3"
                else:
                    name = item                         # "Acme Ltd", "Lena"
            if name.lower() in self.names_used:
                continue
            self.names_used.add(name.lower())
            self.ents.append(Ent(k, name, item))
            return len(self.ents) - 1
        raise _Retry("no fresh entity")

    def entity_like(self, e: int) -> int | None:
        """A look-alike of tagged entity e (FT-204 / FT-240), same kind, or None."""
        ent = self.ents[e]
        if ent.kind.style != "tag" or ent.kind.pool != "TAGNUM":
            return None
        for item in self.rng.sample(look_alike(ent.item), 3):
            name = f"{ent.kind.pattern}-{item}"
            if name.lower() not in self.names_used:
                self.names_used.add(name.lower())
                self.ents.append(Ent(ent.kind, name, item))
                return len(self.ents) - 1
        return None

    def some_entity(self, cats: Sequence[str] | None = None, exclude: Sequence[int] = (), reuse: float = 0.35) -> int:
        """An entity of one of `cats`: often one already in the set, else a new one."""
        if self.rng.random() < reuse:
            have = [e for e in range(len(self.ents)) if e not in exclude
                    and (cats is None or _fits(tuple(cats), self.ents[e].kind.cat))]
            if have:
                return self.rng.choice(have)
        return self.new_entity(cats=cats)

    def fresh_attr(self, e: int, role: str, pair: float = 0.22) -> str:
        pool_name = self.v.pool_of[self.ents[e].kind.cat]
        pairs = self.v.pairs.get(pool_name, ())
        if pairs and self.rng.random() < pair:
            for _ in range(6):
                w1, w2 = base.names(self.rng, pairs, self.style).split("/")
                if {w1, w2} & (self.used | self.blocked):
                    continue
                flip = self.rng.random() < 0.5 and not w2.startswith("non-")  # never "not non-binding"
                canonical, other = (w2, w1) if flip else (w1, w2)
                self.used.update((w1, w2))
                self.antonym[canonical] = other
                self.role[canonical] = role
                return canonical
        pool = self.v.attrs[pool_name]
        for _ in range(25):
            a = base.names(self.rng, pool, self.style)
            if a not in self.used and a not in self.blocked:
                break
        else:
            free = [a for a in _part(pool, self.style) if a not in self.used and a not in self.blocked]
            if not free:
                raise _Retry("attributes exhausted")
            a = self.rng.choice(free)
        self.used.add(a)
        self.role[a] = role
        return a

    def pick_rel(self, subj: str | None = None, obj: str | None = None, role: str = "base",
                 fresh: bool = False) -> Rel | None:
        for _ in range(30):
            r = self.v.rel_by_key[base.names(self.rng, self.v.rel_keys, self.style)]
            if subj is not None and not _fits(r.subj, subj):
                continue
            if obj is not None and not _fits(r.obj, obj):
                continue
            if (role == "concl" or fresh) and r.key in self.used:
                continue
            if role == "base" and self.role.get(r.key, "base") != "base":
                continue
            if not any(_fits(r.obj, c) for c in self.v.cats) or not any(_fits(r.subj, c) for c in self.v.cats):
                continue
            self.used.add(r.key)
            self.role[r.key] = role
            return r
        return None

    def other_kind_exists(self, cats: Sequence[str], avoid: Kind) -> bool:
        return any(k.noun != avoid.noun for c in cats for k in self.v.kinds[c])

    def obj_cats(self, r: Rel) -> list[str]:
        return [c for c in self.v.cats if _fits(r.obj, c)]

    def subj_cats(self, r: Rel) -> list[str]:
        return [c for c in self.v.cats if _fits(r.subj, c)]

    def group_for(self, e: int) -> Group | None:
        cat = self.ents[e].kind.cat
        ok = [g for g in self.v.groups if cat in g.cats and not (set(g.blocks) & self.used)]
        if not ok:
            return None
        g = self.rng.choice(ok)
        if g not in self.groups_used:
            self.groups_used.append(g)
            self.blocked.update(g.blocks)
            self.blocked.update(g.phrase(o) for o in g.options)
        return g

    def desc_for(self, e: int, kind_share: float = 0.55) -> Desc:
        k = self.ents[e].kind
        if k.style != "proper" and self.rng.random() < kind_share:
            return _desc("kind", k)
        if k.animate and self.rng.random() < 0.75:
            return _desc("person")
        return _desc("thing")

    # ------------------------------------------------------------------ statements
    def fact(self, e: int, a: str, positive: bool = True) -> int:
        if positive:
            return self.say(self.t("FACT").format(e=self.ref(e), a=a), facts=(("u", a, e),))
        assert self.role.get(a) == "base", a
        if a in self.antonym and self.rng.random() < 0.5:
            text = self.t("FACT").format(e=self.ref(e), a=self.antonym[a])
        else:
            text = self.t("FACT_NOT").format(e=self.ref(e), a=a)
        return self.say(text, negs=(("u", a, e),))

    def stmt(self, r: Rel, s: str, o: str, negative: bool = False) -> str:
        rng = self.rng
        if r.cop:
            rest = r.s3[3:]
            if negative:
                neg = "is not" if rng.random() < 0.6 else "isn't"
                return f"{s} {neg} {rest} {o}"
            return f"{s} {r.s3} {o}"
        if r.past:
            if negative:
                return f"{s} did not {r.base} {o}" if rng.random() < 0.6 else f"{s} has not {r.past} {o}"
            return f"{s} {r.past} {o}" if rng.random() < 0.7 else f"{s} has {r.past} {o}"
        if negative:
            neg = "does not" if rng.random() < 0.6 else "doesn't"
            return f"{s} {neg} {r.base} {o}"
        return f"{s} {r.s3} {o}"

    def qdo(self, r: Rel, s: str, o: str) -> str:
        if r.cop:
            return f"is {s} {r.s3[3:]} {o}"
        if r.past:
            return f"did {s} {r.base} {o}" if self.rng.random() < 0.6 else f"has {s} {r.past} {o}"
        return f"does {s} {r.base} {o}"

    def rel_fact(self, r: Rel, s: int, o: int, positive: bool = True) -> int:
        atom = ("r", r.key, s, o)
        if not positive:
            assert self.role.get(r.key) == "base"
            text = self.t("FACT_REL_NOT").format(nstmt=self.stmt(r, self.ref(s), self.ref(o), negative=True))
            return self.say(text, negs=(atom,))
        if r.pp and self.rng.random() < 0.25:
            o_text = self.ref(o)
            text = self.t("FACT_REL_PASSIVE").format(o=o_text, s=self.ref(s), pp=r.pp, be="was" if r.past else "is")
        else:
            text = self.t("FACT_REL").format(stmt=self.stmt(r, self.ref(s), self.ref(o)))
        return self.say(text, facts=(atom,))

    def value_fact(self, g: Group, e: int, v: str) -> int:
        e_text = self.ref(e)
        text = self.t("CAT_FACT").format(e=e_text, vp=g.sg.format(p=g.phrase(v)), g=g.noun, v=v, poss=e_text + "'s")
        return self.say(text, vals=((("c", g.key, e), v),))

    def ensure_default(self, g: Group, kind: Kind) -> str:
        key = (g.key, kind.key)
        if key not in self.defaults:
            v = self.rng.choice(g.options)
            p = g.phrase(v)
            text = self.t("CAT_DEFAULT").format(pl=kind.plural, sg=kind.noun, a_=_art(kind.noun), g=g.noun, v=v,
                                                vp=g.sg.format(p=p), vpp=g.pl.format(p=p))
            self.say(text, defaults=((g.key, kind.key, v),))
            self.defaults[key] = v
        return self.defaults[key]

    def mention(self, e: int) -> int:
        """An irrelevant sentence naming e (with a number or two)."""
        rng = self.rng
        nums = dict(n1=rng.randint(2, 9), n2=rng.randint(2, 60), n3=rng.randint(100, 950), n4=rng.randint(1000, 9999),
                    year=rng.randint(1998, 2024), day=rng.randint(1, 28),
                    month=rng.choice(("January", "March", "April", "June", "July", "September", "October", "November")))
        return self.say(self.t(self.v.distract).format(e=self.ref(e), **nums))

    # ------------------------------------------------------------------ rules
    def concl_vp(self, concl: tuple) -> tuple[str, str]:
        if concl[0] == "u":
            a = concl[1]
            if a in VERBS and self.rng.random() < 0.4:
                return VERBS[a]
            return f"is {a}", f"are {a}"
        if concl[0] == "r":
            r, c = concl[1], concl[2]
            c_text = self.ref(c)
            return f"{r.s3} {c_text}", f"{r.pl} {c_text}"
        g, v = concl[1], concl[2]
        p = g.phrase(v)
        return g.sg.format(p=p), g.pl.format(p=p)

    @staticmethod
    def concl_lit(concl: tuple, var: str) -> tuple:
        if concl[0] == "u":
            return ("u", concl[1], var)
        if concl[0] == "r":
            return ("r", concl[1].key, var, concl[2])
        return ("c", concl[1].key, var, concl[2])

    def conj(self, pos: list[str], neg: list[str]) -> str:
        items = list(pos) + [f"not {n}" for n in neg]
        if len(items) == 1:
            return items[0]
        if neg and len(items) == 2 and self.rng.random() < 0.4:
            return f"{items[0]} but {items[1]}"
        return ", ".join(items[:-1]) + " and " + items[-1]

    def rule_one(self, desc: Desc, pos: list[str], neg: list[str], concl: tuple, excepted: int | None = None) -> int:
        """A rule over one variable: kind/something/someone with attribute conditions."""
        rng = self.rng
        slots = dict(desc.slots)
        slots["pron_is"] = f"{desc.pron} {'are' if desc.plural else 'is'}"
        prenominal = desc.mode != "person" and len(pos) <= 2 and all(" " not in a for a in pos)
        conds = list(desc.conds("X")) + [("u", a, "X", True) for a in pos] + [("u", n, "X", False) for n in neg]
        if excepted is not None:
            conds.append(("ne", "X", excepted))
            key = "RULE_EXCEPT"
            slots["A"] = self.conj(pos, neg)
            slots["x"] = self.ref(excepted)
        elif len(neg) == 1 and prenominal and rng.random() < 0.3:
            key = "RULE_ADJ_NOT"
        elif len(neg) == 1 and rng.random() < 0.5:
            key = "RULE_UNLESS"
        elif not neg and prenominal and rng.random() < 0.35:
            key = "RULE_ADJ"
        else:
            key = "RULE_IF"
            slots["A"] = self.conj(pos, neg)
        if key in ("RULE_ADJ", "RULE_ADJ_NOT"):
            adj = ", ".join(pos) if rng.random() < 0.5 else " and ".join(pos)
            slots["adj"] = adj
            slots["an_adj"] = _art(adj)
        if key in ("RULE_UNLESS", "RULE_ADJ_NOT"):
            slots["P"] = self.conj(pos, [])
            slots["N"] = neg[0]
        vp, vpp = self.concl_vp(concl)
        slots.update(vp=vp, vpp=vpp, pron_c=f"{desc.pron} {vpp if desc.plural else vp}")
        return self.say(self.t(key).format(**slots), rule=Rule(tuple(conds), self.concl_lit(concl, "X")))

    @staticmethod
    def _pair_slots(dx: Desc, dy: Desc) -> dict:
        slots = {}
        for suffix, d in (("x", dx), ("y", dy)):
            s = d.slots
            slots.update({f"a{suffix}": s["a_"], f"gen{suffix}": s["gen"], f"any{suffix}": s["any"],
                          f"every{suffix}": s["every"],
                          f"all{suffix}": s["all"], f"pl{suffix}": s["pl"], f"that{suffix}": s["that"],
                          f"the{suffix}": s["the"], f"{suffix}obj": s["obj"]})
        return slots

    def rule_rel_obj(self, kx: Kind, r: Rel, ky: Kind, p: str, concl: tuple) -> int:
        """rel(X, Y) and P(Y) -> C(X)."""
        dx, dy = _desc("kind", kx), _desc("kind", ky)
        slots = self._pair_slots(dx, dy)
        vp, vpp = self.concl_vp(concl)
        slots.update(rel=r.s3, relpl=r.pl, P=p, vp=vp, vpp=vpp, thex_c=f"{slots['thex']} {vp}",
                     xpron_rel=f"{dx.pron} {r.pl if dx.plural else r.s3}")
        conds = (("k", kx.key, "X"), ("k", ky.key, "Y"), ("r", r.key, "X", "Y"), ("u", p, "Y", True))
        return self.say(self.t("RULE_REL_OBJ").format(**slots), rule=Rule(conds, self.concl_lit(concl, "X")))

    def rule_rel_subj(self, kx: Kind, r: Rel, ky: Kind, p: str, concl: tuple) -> int:
        """rel(X, Y) and P(X) -> C(Y)."""
        dx, dy = _desc("kind", kx), _desc("kind", ky)
        slots = self._pair_slots(dx, dy)
        vp, vpp = self.concl_vp(concl)
        slots.update(rel=r.s3, relpl=r.pl, P=p, vp=vp, vpp=vpp, they_c=f"{slots['they']} {vp}",
                     xpron_rel=f"{dx.pron} {r.pl if dx.plural else r.s3}",
                     xpron_is=f"{dx.pron} {'are' if dx.plural else 'is'}")
        conds = (("k", kx.key, "X"), ("k", ky.key, "Y"), ("r", r.key, "X", "Y"), ("u", p, "X", True))
        return self.say(self.t("RULE_REL_SUBJ").format(**slots), rule=Rule(conds, self.concl_lit(concl, "Y")))

    def _const_slots(self, desc: Desc, concl: tuple) -> dict:
        slots = dict(desc.slots)
        vp, vpp = self.concl_vp(concl)
        slots.update(vp=vp, vpp=vpp)
        if desc.mode == "person":
            slots["subj_c"] = f"they {vpp}"
        else:
            slots["subj_c"] = f"{desc.slots['the']} {vp}"
        slots["xobj"] = desc.slots["obj"]  # "A tank is full if P-2 feeds it."
        return slots

    def rule_to_const(self, desc: Desc, r: Rel, c: int, concl: tuple, p: str | None = None) -> int:
        """rel(X, c) [and P(c)] -> C(X)."""
        slots = self._const_slots(desc, concl)
        slots.update(rel=r.s3, relpl=r.pl, c=self.ref(c), pron_rel=f"{desc.pron} {r.pl if desc.plural else r.s3}")
        conds = desc.conds("X") + (("r", r.key, "X", c),)
        if p is None:
            key = "RULE_TO_CONST"
        else:
            key = "RULE_TO_CONST_IF"
            slots.update(c2=self.ref(c), P=p)
            conds += (("u", p, c, True),)
        return self.say(self.t(key).format(**slots), rule=Rule(conds, self.concl_lit(concl, "X")))

    def rule_from_const(self, desc: Desc, r: Rel, c: int, concl: tuple) -> int:
        """rel(c, X) -> C(X)."""
        slots = self._const_slots(desc, concl)
        slots.update(c=self.ref(c), crel=r.s3)
        conds = desc.conds("X") + (("r", r.key, c, "X"),)
        return self.say(self.t("RULE_FROM_CONST").format(**slots), rule=Rule(conds, self.concl_lit(concl, "X")))

    def rule_swap(self, desc: Desc, r: Rel, c: int, r2: Rel) -> int:
        """rel(X, c) -> rel2(c, X)."""
        slots = dict(desc.slots)
        c_ent = self.ents[c]
        slots.update(rel=r.s3, relpl=r.pl, c=self.ref(c), c2=self.ref(c), rel2=r2.s3,
                     xobj={"person": "them", "thing": "that thing"}.get(desc.mode, desc.slots["the"]),
                     cobj=c_ent.name if c_ent.kind.style == "proper" else "it")
        conds = desc.conds("X") + (("r", r.key, "X", c),)
        return self.say(self.t("RULE_SWAP").format(**slots), rule=Rule(conds, ("r", r2.key, c, "X")))

    def rule_rel_rel(self, r: Rel, ky: Kind, r2: Rel) -> int:
        """rel(X, Y) -> rel2(X, Y) for anyone X and any Y of kind ky."""
        dx, dy = _desc("person"), _desc("kind", ky)
        slots = self._pair_slots(dx, dy)
        slots.update(rel=r.s3, relpl=r.pl, rel2=r2.s3, rel2pl=r2.pl, xpron_rel2=f"they {r2.pl}",
                     yobj="them" if ky.cat == "person" else "it")
        conds = (("a", "X"), ("k", ky.key, "Y"), ("r", r.key, "X", "Y"))
        return self.say(self.t("RULE_REL_REL").format(**slots), rule=Rule(conds, ("r", r2.key, "X", "Y")))

    # ------------------------------------------------------------------ conclusions
    def conclusion(self, x: int, want_cat: bool) -> tuple[tuple, tuple, str]:
        """(conclusion for a rule, the key asked about, target kind)."""
        if want_cat:
            g = self.group_for(x)
            if g is not None:
                d = self.ensure_default(g, self.ents[x].kind)
                v = self.rng.choice([o for o in g.options if o != d])
                return ("c", g, v), ("c", g.key, x), "cat"
        c = self.fresh_attr(x, "concl")
        return ("u", c), ("u", c, x), "bool"

    # ------------------------------------------------------------------ chains
    def chain(self, links: int, broken: bool, cat_end: bool) -> list[Target]:
        """A start fact and `links` rules, each concluding what the next one needs. A broken
        chain lacks its start fact or one link's extra condition (or meets its exception):
        from there on every node is false."""
        rng = self.rng
        self.chains += 1
        cid = self.chains
        e = self.new_entity()
        a0 = self.fresh_attr(e, "base")
        fail_at = rng.randint(0, links) if broken else -1
        if fail_at == 0:
            r = rng.random()
            twin = self.entity_like(e) if r >= 0.35 else None
            if r < 0.35:
                self.fact(e, a0, positive=False)
            elif twin is not None:
                self.fact(twin, a0)
                if rng.random() < 0.5:
                    self.mention(e)
            else:
                self.mention(e)
        else:
            self.fact(e, a0)
        nodes = [Target("bool", ("u", a0, e), chain=(cid, 0))]
        cur, side = ("u", a0, e), "s"
        owed = fail_at >= 1
        for i in range(1, links + 1):
            key, kind, applied, side = self.link(cur, side, owed and i >= fail_at, cat_end and i == links)
            owed = owed and not applied
            nodes.append(Target(kind, key, chain=(cid, i)))
            cur = key
        return nodes

    def link(self, cur: tuple, side: str, fail: bool, want_cat: bool) -> tuple[tuple, str, bool, str]:
        rng = self.rng
        if cur[0] == "u":
            _, a, e = cur
            ways = ("s1", "s3", "s2", "s4c", "torel")
            way = rng.choices(ways, weights=(45, 15, 15, 10, 0 if want_cat else 15))[0]
            got = getattr(self, f"_link_{way}")(a, e, fail, want_cat)
            return got if got is not None else self._link_s1(a, e, fail, want_cat)
        _, rk, s, o = cur
        r = self.v.rel_by_key[rk]
        if side == "o":
            return self._link_from(r, s, o, want_cat)
        if not want_cat:
            way = rng.choices(("s4", "swap", "relrel"), weights=(40, 30, 30))[0]
            if way == "swap":
                got = self._link_swap(r, s, o)
                if got is not None:
                    return got
            elif way == "relrel":
                got = self._link_relrel(r, s, o)
                if got is not None:
                    return got
        return self._link_s4(r, s, o, want_cat)

    def _conditions(self, a: str, e: int, fail: bool) -> tuple[Desc, list[str], list[str], bool]:
        """Conditions of a one-variable rule on e whose first condition is `a`: maybe an extra
        one (stated for e), maybe an exception (not established for e). When `fail`, the
        rule must not fire for e: the extra condition is missing, the exception holds, or the
        rule is about another kind."""
        rng = self.rng
        desc = self.desc_for(e)
        pos, neg = [a], []
        if rng.random() < 0.3 and self.shrink < 1:
            pos.append(self.fresh_attr(e, "base", pair=0.1))
        if rng.random() < 0.2:
            neg.append(self.fresh_attr(e, "base", pair=0.35))
        mode = ""
        if fail:
            modes = ["missing", "exception"]
            other = None
            if desc.mode == "kind":
                k = self.ents[e].kind
                for _ in range(4):
                    cand = self.pick_kind(k.cat)
                    if cand.noun != k.noun:
                        other = cand
                        break
                if other is not None:
                    modes.append("kind")
            mode = rng.choice(modes)
            if mode == "missing" and len(pos) == 1:
                pos.append(self.fresh_attr(e, "base", pair=0.1))
            elif mode == "exception" and not neg:
                neg.append(self.fresh_attr(e, "base", pair=0.35))
            elif mode == "kind":
                desc = _desc("kind", other)
        if len(pos) > 1:
            if mode != "missing":
                self.fact(e, pos[1])
            elif rng.random() < 0.4:
                self.fact(e, pos[1], positive=False)
        if neg:
            if mode == "exception":
                self.fact(e, neg[0])
            elif rng.random() < 0.3:
                self.fact(e, neg[0], positive=False)
        rng.shuffle(pos)
        return desc, pos, neg, fail

    def _link_s1(self, a, e, fail, want_cat):
        desc, pos, neg, applied = self._conditions(a, e, fail)
        concl, key, kind = self.conclusion(e, want_cat)
        self.rule_one(desc, pos, neg, concl)
        return key, kind, applied, "s"

    def _link_torel(self, a, e, fail, want_cat):
        r2 = self.pick_rel(subj=self.ents[e].kind.cat, role="concl")
        if r2 is None:
            return None
        c = self.some_entity(cats=self.obj_cats(r2), exclude=[e])
        desc, pos, neg, applied = self._conditions(a, e, fail)
        self.rule_one(desc, pos, neg, ("r", r2, c))
        return ("r", r2.key, e, c), "bool", applied, "s"

    def _link_s3(self, a, e, fail, want_cat):
        """rel(X, Y) and a(X) -> C(Y): the chain moves from e to what e relates to."""
        ke = self.ents[e].kind
        r = self.pick_rel(subj=ke.cat)
        if r is None or not self.other_kind_exists(self.obj_cats(r), ke):
            return None
        t = self.new_entity(cats=self.obj_cats(r), avoid=ke)
        if fail:
            if ke.style != "the":
                self.rel_fact(r, self.new_entity(kind=ke), t)
            else:
                self.mention(t)
        else:
            self.rel_fact(r, e, t)
        concl, key, kind = self.conclusion(t, want_cat)
        self.rule_rel_subj(ke, r, self.ents[t].kind, a, concl)
        return key, kind, fail, "s"

    def _link_s2(self, a, e, fail, want_cat):
        """rel(X, Y) and a(Y) -> C(X): the chain moves from e to what relates to e."""
        ke = self.ents[e].kind
        r = self.pick_rel(obj=ke.cat)
        if r is None or not self.other_kind_exists(self.subj_cats(r), ke):
            return None
        x = self.new_entity(cats=self.subj_cats(r), avoid=ke)
        if fail:
            if ke.style != "the":
                self.rel_fact(r, x, self.new_entity(kind=ke))
            else:
                self.mention(x)
        else:
            self.rel_fact(r, x, e)
        concl, key, kind = self.conclusion(x, want_cat)
        self.rule_rel_obj(self.ents[x].kind, r, ke, a, concl)
        return key, kind, fail, "s"

    def _link_s4c(self, a, e, fail, want_cat):
        """rel(X, e) and a(e) -> C(X): e is named in the rule."""
        r = self.pick_rel(obj=self.ents[e].kind.cat)
        if r is None:
            return None
        x = self.new_entity(cats=self.subj_cats(r))
        desc = self.desc_for(x)
        if fail:
            if _fits(r.subj, self.ents[e].kind.cat) and _fits(r.obj, self.ents[x].kind.cat) and self.rng.random() < 0.6:
                self.rel_fact(r, e, x)  # the wrong way round
            else:
                self.mention(x)
        else:
            self.rel_fact(r, x, e)
        concl, key, kind = self.conclusion(x, want_cat)
        self.rule_to_const(desc, r, e, concl, p=a)
        return key, kind, fail, "s"

    def _link_s4(self, r, e, c, want_cat):
        desc = self.desc_for(e)
        concl, key, kind = self.conclusion(e, want_cat)
        self.rule_to_const(desc, r, c, concl)
        return key, kind, False, "s"

    def _link_from(self, r, c, e, want_cat):
        desc = self.desc_for(e)
        concl, key, kind = self.conclusion(e, want_cat)
        self.rule_from_const(desc, r, c, concl)
        return key, kind, False, "s"

    def _link_swap(self, r, e, c):
        r2 = self.pick_rel(subj=self.ents[c].kind.cat, obj=self.ents[e].kind.cat, role="concl")
        if r2 is None:
            return None
        self.rule_swap(self.desc_for(e), r, c, r2)
        return ("r", r2.key, c, e), "bool", False, "o"

    def _link_relrel(self, r, e, c):
        kc = self.ents[c].kind
        if not self.ents[e].kind.animate or kc.style == "proper":
            return None
        r2 = self.pick_rel(subj=self.ents[e].kind.cat, obj=kc.cat, role="concl")
        if r2 is None:
            return None
        self.rule_rel_rel(r, kc, r2)
        return ("r", r2.key, e, c), "bool", False, "s"

    # ------------------------------------------------------------------ probes
    def probe(self, want_cat: bool) -> list[Target]:
        deep = self.max_links >= 1
        if not want_cat and self.closed_world and self.rng.random() < self.closed_world:
            for _ in range(4):
                got = getattr(self, f"_probe_{self.rng.choice(CLOSED_WAYS + ('rule',) * 2 * deep)}")()
                if got:
                    return got
        if want_cat:
            ways = ["cat_default", "cat_value", "cat_value", "which"]
            ways += ["cat_rule", "cat_rule", "which_rule"] if deep else []
        else:
            ways = ["fact", "fact", "negfact", "closed", "lookalike", "relfact", "relneg"]
            ways += ["rule"] * 4 + ["relrule"] * 4 if deep else []
        for _ in range(6):
            got = getattr(self, f"_probe_{self.rng.choice(ways)}")()
            if got:
                return got
        return self._probe_fact()

    def mentioned(self, e: int) -> bool:
        return e in self.said

    def _probe_fact(self):
        e = self.some_entity()
        a = self.fresh_attr(e, "base")
        self.fact(e, a)
        return [Target("bool", ("u", a, e))]

    def _probe_negfact(self):
        e = self.some_entity()
        a = self.fresh_attr(e, "base", pair=0.45)
        self.fact(e, a, positive=False)
        return [Target("bool", ("u", a, e))]

    def _probe_closed(self):
        """An atom nobody establishes: the attribute is said of another entity, or of nobody."""
        e = self.some_entity(reuse=0.6)
        a = self.fresh_attr(e, "base")
        if self.rng.random() < 0.5:
            other = self.some_entity(cats=(self.ents[e].kind.cat,), exclude=[e])
            self.fact(other, a)
        if not self.mentioned(e):
            if self.rng.random() < 0.5:
                self.mention(e)
            else:
                self.fact(e, self.fresh_attr(e, "base"))
        return [Target("bool", ("u", a, e))]

    def _probe_bound(self):
        """An attribute said of one entity, asked of it and of another entity the text names
        (yes, then no, in either order): who it is said of decides, not whether it is said."""
        e = self.some_entity(reuse=0.5)
        other = self.some_entity(cats=(self.ents[e].kind.cat,) if self.rng.random() < 0.6 else None, exclude=[e],
                                 reuse=0.6)
        a = self.fresh_attr(e, "base")
        self.fact(e, a)
        if not self.mentioned(other):
            if self.rng.random() < 0.7:
                self.fact(other, self.fresh_attr(other, "base"))
            else:
                self.mention(other)
        out = [Target("bool", ("u", a, e)), Target("bool", ("u", a, other))]
        self.rng.shuffle(out)
        return out

    def _probe_lookalike(self):
        tagged = [c for c in self.v.cats if any(k.pool == "TAGNUM" for k in self.v.kinds[c])]
        if not tagged:
            return None
        e = self.new_entity(cat=self.rng.choice(tagged))
        twin = self.entity_like(e)
        if twin is None:
            return None
        a = self.fresh_attr(e, "base")
        if self.rng.random() < 0.5:
            e, twin = twin, e
        self.fact(twin, a)
        if self.rng.random() < 0.5:
            self.fact(e, self.fresh_attr(e, "base"))
        else:
            self.mention(e)
        return [Target("bool", ("u", a, e)), Target("bool", ("u", a, twin))]

    def _probe_relfact(self):
        r = self.pick_rel()
        if r is None:
            return None
        s = self.some_entity(cats=self.subj_cats(r))
        o = self.some_entity(cats=self.obj_cats(r), exclude=[s])
        self.rel_fact(r, s, o)
        out = [Target("bool", ("r", r.key, s, o))]
        if _fits(r.subj, self.ents[o].kind.cat) and _fits(r.obj, self.ents[s].kind.cat):
            out.append(Target("bool", ("r", r.key, o, s)))  # who relates to whom
        else:
            o2 = self.some_entity(cats=self.obj_cats(r), exclude=[s, o])
            if not self.mentioned(o2):
                self.mention(o2)
            out.append(Target("bool", ("r", r.key, s, o2)))
        self.rng.shuffle(out)
        return out

    def _probe_relneg(self):
        r = self.pick_rel()
        if r is None:
            return None
        s = self.some_entity(cats=self.subj_cats(r))
        o = self.some_entity(cats=self.obj_cats(r), exclude=[s])
        self.rel_fact(r, s, o, positive=False)
        return [Target("bool", ("r", r.key, s, o))]

    def _rule_instances(self, cat: bool) -> list[Target] | None:
        """A one-variable rule, an entity meeting every condition (derived), one meeting only
        some (or its exception, or named as excepted) and maybe one of another kind."""
        rng = self.rng
        x1 = self.new_entity()
        desc = self.desc_for(x1, kind_share=0.6 if self.ents[x1].kind.style != "the" else 0.0)
        pos = [self.fresh_attr(x1, "base")]
        neg = []
        if rng.random() < 0.6:
            pos.append(self.fresh_attr(x1, "base", pair=0.1))
        if rng.random() < 0.3:
            neg.append(self.fresh_attr(x1, "base", pair=0.35))
        concl, key1, kind = self.conclusion(x1, cat)
        if cat and kind != "cat":
            return None
        for p in pos:
            self.fact(x1, p)
        if neg and rng.random() < 0.3:
            self.fact(x1, neg[0], positive=False)
        k1 = self.ents[x1].kind
        x2 = self.new_entity(kind=k1) if k1.style != "the" else self.new_entity(cat=k1.cat)
        if cat:
            self.ensure_default(concl[1], self.ents[x2].kind)
        modes = (["partial"] if len(pos) > 1 else []) + (["exception"] if neg else []) + ["except"] * (
            desc.mode != "person") + ["nothing"]
        mode = rng.choice(modes)
        excepted = None
        if mode == "partial":
            self.fact(x2, rng.choice(pos))
        elif mode == "exception":
            for p in pos:
                self.fact(x2, p)
            self.fact(x2, neg[0])
        elif mode == "except":
            for p in pos:
                self.fact(x2, p)
            excepted = x2
        elif self.closed_world and rng.random() < 0.5:
            self.fact(x2, self.fresh_attr(x2, "base"))  # attributes of its own, none of the rule's
        else:
            self.mention(x2)
        self.rule_one(desc, pos, neg, concl, excepted=excepted)
        out = [Target(kind, key1), Target(kind, self._key(concl, x2))]
        if rng.random() < 0.5 and desc.mode in ("kind", "person"):
            x3 = None
            if desc.mode == "kind":
                for _ in range(4):
                    k3 = self.pick_kind(k1.cat)
                    if k3.noun != k1.noun:
                        x3 = self.new_entity(kind=k3)
                        break
            else:
                lifeless = [c for c in self.v.cats if not any(k.animate for k in self.v.kinds[c])]
                if lifeless:
                    x3 = self.new_entity(cat=rng.choice(lifeless))
            if x3 is not None and (not cat or concl[1].key in [g.key for g in self.v.groups
                                                                if self.ents[x3].kind.cat in g.cats]):
                if cat:
                    self.ensure_default(concl[1], self.ents[x3].kind)
                for p in pos:
                    self.fact(x3, p)
                out.append(Target(kind, self._key(concl, x3)))
        return out

    @staticmethod
    def _key(concl: tuple, x: int) -> tuple:
        if concl[0] == "u":
            return ("u", concl[1], x)
        if concl[0] == "r":
            return ("r", concl[1].key, x, concl[2])
        return ("c", concl[1].key, x)

    def _probe_rule(self):
        return self._rule_instances(cat=False)

    def _probe_cat_rule(self):
        return self._rule_instances(cat=True)

    def _probe_relrule(self):
        """A rule through a relation, with the right binding (yes) and a wrong one (no)."""
        rng = self.rng
        way = rng.choice(("obj", "subj", "to", "to", "from", "swap"))
        r = self.pick_rel()
        if r is None:
            return None
        if way in ("obj", "subj"):
            x1 = self.new_entity(cats=self.subj_cats(r))
            kx = self.ents[x1].kind
            if not self.other_kind_exists(self.obj_cats(r), kx):
                return None
            y1 = self.new_entity(cats=self.obj_cats(r), avoid=kx)
            ky = self.ents[y1].kind
            two = kx.style != "the" and ky.style != "the"
            x2 = self.new_entity(kind=kx) if two else None
            y2 = self.new_entity(kind=ky) if two else None
            self.rel_fact(r, x1, y1)
            if two:
                self.rel_fact(r, x2, y2)
            if way == "obj":  # rel(X, Y) and p(Y) -> C(X)
                p = self.fresh_attr(y1, "base")
                self.fact(y1, p)
                if two and rng.random() < 0.4:
                    self.fact(y2, p, positive=False)
                concl, key, kind = self.conclusion(x1, False)
                self.rule_rel_obj(kx, r, ky, p, concl)
                out = [Target(kind, key), Target(kind, self._key(concl, y1))]
                if two:
                    out.insert(1, Target(kind, self._key(concl, x2)))
            else:  # rel(X, Y) and p(X) -> C(Y)
                p = self.fresh_attr(x1, "base")
                self.fact(x1, p)
                if two and rng.random() < 0.4:
                    self.fact(x2, p, positive=False)
                concl, key, kind = self.conclusion(y1, False)
                self.rule_rel_subj(kx, r, ky, p, concl)
                out = [Target(kind, key), Target(kind, self._key(concl, x1))]
                if two:
                    out.insert(1, Target(kind, self._key(concl, y2)))
            return out
        if way in ("to", "swap"):
            c = self.some_entity(cats=self.obj_cats(r))
            x1 = self.new_entity(cats=self.subj_cats(r))
            self.rel_fact(r, x1, c)
            desc = self.desc_for(x1)
            x2 = None
            if _fits(r.subj, self.ents[c].kind.cat) and self.subj_cats(r):
                x2 = self.new_entity(cats=[k for k in self.subj_cats(r) if _fits(r.obj, k)] or None)
                if _fits(r.obj, self.ents[x2].kind.cat):
                    self.rel_fact(r, c, x2)  # the wrong way round
                else:
                    self.mention(x2)
            if way == "swap":
                r2 = self.pick_rel(subj=self.ents[c].kind.cat, obj=self.ents[x1].kind.cat, role="concl")
                if r2 is None:
                    return None
                self.rule_swap(desc, r, c, r2)
                out = [Target("bool", ("r", r2.key, c, x1)), Target("bool", ("r", r2.key, x1, c))]
                if x2 is not None:
                    out.append(Target("bool", ("r", r2.key, c, x2)))
                return out
            p = None
            if rng.random() < 0.4:
                p = self.fresh_attr(c, "base")
                if rng.random() < 0.75:
                    self.fact(c, p)
                elif rng.random() < 0.5:
                    self.fact(c, p, positive=False)
            concl, key, kind = self.conclusion(x1, False)
            self.rule_to_const(desc, r, c, concl, p=p)
            out = [Target(kind, key)]
            if x2 is not None:
                out.append(Target(kind, self._key(concl, x2)))
            return out
        # from: rel(c, X) -> C(X)
        c = self.some_entity(cats=self.subj_cats(r))
        x1 = self.new_entity(cats=self.obj_cats(r))
        self.rel_fact(r, c, x1)
        desc = self.desc_for(x1)
        concl, key, kind = self.conclusion(x1, False)
        out = [Target(kind, key)]
        if _fits(r.subj, self.ents[x1].kind.cat) and _fits(r.obj, self.ents[c].kind.cat):
            x2 = self.new_entity(cats=self.subj_cats(r))
            self.rel_fact(r, x2, c)  # x2 relates to c, not c to x2
            out.append(Target(kind, self._key(concl, x2)))
        self.rule_from_const(desc, r, c, concl)
        return out

    def _probe_cat_default(self):
        e = self.some_entity(reuse=0.4)
        g = self.group_for(e)
        if g is None:
            return None
        self.ensure_default(g, self.ents[e].kind)
        if not self.mentioned(e):
            self.mention(e)
        return [Target("cat", ("c", g.key, e))]

    def _probe_cat_value(self):
        e = self.some_entity(reuse=0.3)
        g = self.group_for(e)
        if g is None:
            return None
        k = self.ents[e].kind
        d = self.ensure_default(g, k) if self.rng.random() < 0.7 or (g.key, k.key) in self.defaults else None
        self.value_fact(g, e, self.rng.choice([o for o in g.options if o != d]))
        out = [Target("cat", ("c", g.key, e))]
        if d is not None and k.style != "the" and self.rng.random() < 0.5:
            e2 = self.new_entity(kind=k)
            self.mention(e2)
            out.append(Target("cat", ("c", g.key, e2)))
        return out

    def _which_options(self, r: Rel, s: int, true_o: int) -> tuple[int, ...] | None:
        opts = [true_o]
        for _ in range(self.rng.randint(1, 3)):
            try:
                o = self.new_entity(cats=self.obj_cats(r)) if self.rng.random() < 0.7 else \
                    self.some_entity(cats=self.obj_cats(r), exclude=[s] + opts, reuse=1.0)
            except _Retry:
                break
            if o in opts or o == s:
                continue
            opts.append(o)
            u = self.rng.random()
            if u < 0.4 and r.key in self.role and self.role[r.key] == "base":
                other = self.some_entity(cats=self.subj_cats(r), exclude=[s] + opts)
                self.rel_fact(r, other, o)  # related, but to someone else
            elif u < 0.6 and _fits(r.subj, self.ents[o].kind.cat) and _fits(r.obj, self.ents[s].kind.cat) \
                    and self.role.get(r.key) == "base":
                self.rel_fact(r, o, s)  # the wrong way round
            elif not self.mentioned(o):
                self.mention(o)
        return tuple(opts) if len(opts) >= 2 else None

    def _probe_which(self):
        r = self.pick_rel()
        if r is None:
            return None
        s = self.some_entity(cats=self.subj_cats(r))
        o = self.new_entity(cats=self.obj_cats(r))
        self.rel_fact(r, s, o)
        opts = self._which_options(r, s, o)
        return [Target("which", ("which", r.key, s), options=opts)] if opts else None

    def _probe_which_rule(self):
        s = self.new_entity()
        r2 = self.pick_rel(subj=self.ents[s].kind.cat, role="concl")
        if r2 is None:
            return None
        o = self.some_entity(cats=self.obj_cats(r2), exclude=[s])
        p = self.fresh_attr(s, "base")
        self.fact(s, p)
        self.rule_one(self.desc_for(s), [p], [], ("r", r2, o))
        opts = self._which_options(r2, s, o)
        return [Target("which", ("which", r2.key, s), options=opts)] if opts else None

    def _distractor(self) -> None:
        rng = self.rng
        u = rng.random()
        if u < 0.35:
            self.mention(self.some_entity(reuse=0.6))
        elif u < 0.6:
            e = self.some_entity(reuse=0.5)
            self.fact(e, self.fresh_attr(e, "base"), positive=rng.random() < 0.75)
        elif u < 0.8 and self.max_links >= 1:  # a rule whose condition never holds
            e = self.some_entity(reuse=0.8)
            p = self.fresh_attr(e, "base")
            c = self.fresh_attr(e, "concl")
            self.rule_one(self.desc_for(e), [p], [], ("u", c))
        else:
            r = self.pick_rel(fresh=True)
            if r is not None:
                s = self.some_entity(cats=self.subj_cats(r))
                self.rel_fact(r, s, self.some_entity(cats=self.obj_cats(r), exclude=[s]))

    # ------------------------------------------------------------------ the set
    def universe(self) -> Universe:
        return Universe([e.kind.key for e in self.ents], [e.kind.animate for e in self.ents],
                        [e.kind.style == "tag" for e in self.ents])

    def build(self) -> DecisionSet:
        rng = self.rng
        n, links_max = self.n, self.max_links
        n_cat = sum(rng.random() < 0.34 for _ in range(n))
        targets: list[Target] = []
        keys: set = set()

        def add(batch: list[Target]) -> None:
            for t in batch:
                if len(targets) < n and t.key not in keys:
                    targets.append(t)
                    keys.add(t.key)

        if links_max >= 1 and n >= 2 and rng.random() < 0.7:
            links = links_max if rng.random() < 0.5 else rng.randint(1, links_max)
            if self.shrink >= 2:
                links = min(links, 3)
            nodes = self.chain(links, broken=rng.random() < 0.3 + 0.3 * self.closed_world, cat_end=n_cat > 0 and rng.random() < 0.5)
            size = rng.randint(min(2, len(nodes)), min(n, len(nodes)))
            start = len(nodes) - size if rng.random() < 0.5 else rng.randint(0, len(nodes) - size)
            add(nodes[start:start + size])
        while len(targets) < n:
            have_cat = sum(t.kind != "bool" for t in targets)
            add(self.probe(want_cat=have_cat < n_cat))
        allowance = 20 * n
        for _ in range(rng.randint(0, max(0, (3 if n <= 4 else 2 if n <= 6 else 1) - self.shrink))):
            if estimate_tokens(" ".join(s.text for s in self.sents)) + allowance > TOKEN_BUDGET:
                break
            self._distractor()
        if not self.sents:
            self.mention(self.some_entity())

        if not negation_is_safe([s.rule for s in self.sents if s.rule is not None]):
            raise _Retry("a negated condition on a concluded attribute")
        uni = self.universe()
        model = solve(self.sents, uni)
        if model.conflicts:
            raise _Retry(f"conflict {model.conflicts[0]}")
        asked = [self.ask(t, model) for t in targets]
        # the balance of yes and no is steered inside ask(); texts must differ
        if len({q["text"] for q in asked}) < len(asked):
            raise _Retry("two questions read the same")
        if any(q["depth"] > links_max for q in asked):
            raise _Retry("too deep")
        model_q = solve(self.sents, uni, q_intros=self.q_intros)
        if _answers(model_q, asked) != _answers(model, asked):
            raise _Retry("a question changes what the context says")
        context = " ".join(s.text for s in self.sents)
        if estimate_prefix(context, [(q["text"], q["options"]) for q in asked]) > TOKEN_BUDGET:
            raise _Retry("too long")
        supports = self.supports(uni, model, asked)

        asked_keys = {q["atom"] for q in asked}
        chained = any(c in asked_keys and any(p in asked_keys for p in pos) for _, c, pos in model.edges)
        spots = {t.chain for t in targets if t.chain is not None}
        chained = chained or any((cid, pos + 1) in spots for cid, pos in spots)

        sb = SetBuilder(DOMAIN)
        for s in self.sents:
            sb.say(s.text)
        for q, sup in zip(asked, supports):
            if q["kind"] == "bool":
                sb.ask_boolean(q["text"], q["answer"], q["depth"], sup)
            else:
                sb.ask_choice(q["text"], q["options"], q["answer"], q["depth"], sup)
        sb.chained = chained
        ds = sb.build(rng)
        ds.links = base.answer_links(ds, self.fired_rules(model), self.asked_keys(asked))
        return ds

    @staticmethod
    def fired_rules(model: Model) -> list:
        """The grounded rules that fired, as (conditions, conclusion) for base.answer_links: their
        other conditions (kinds, negated attributes no rule concludes) are settled by the context."""
        out = []
        for _, concl, pos in model.edges:
            head = (concl, model.value(concl)) if concl[0] == "c" else (concl, True)
            out.append(([(p, True) for p in pos], head))
        return out

    def asked_keys(self, asked: list[dict]) -> dict:
        """What each question reads: a yes/no question its atom (negated when its answer is the
        atom's opposite), a categorical one its variable, a which-question each relation atom."""
        out: dict = {}
        for q in asked:
            if q["kind"] == "which":
                for atom in q["which"]:
                    out[atom] = base.Asked(base.cap(q["text"]), equals=self.short(atom[3]))
        for q in asked:
            if q["kind"] == "bool":
                out[q["atom"]] = base.Asked(base.cap(q["text"]), negated=q["answer"] != q["truth"])
            elif q["kind"] == "cat":
                out[q["atom"]] = base.Asked(base.cap(q["text"]))
        return out

    def ask(self, t: Target, model: Model) -> dict:
        """Render one question; returns its text, options, answer, depth, the atom or variable
        it turns on, and the sentence that could support it."""
        rng = self.rng
        if t.kind == "bool":
            truth = model.holds(t.key)
            yes = sum(1 for q in self._asked if q["kind"] == "bool" and q["answer"])
            no = sum(1 for q in self._asked if q["kind"] == "bool" and not q["answer"])
            want = True if yes < no else False if yes > no else rng.random() < 0.5  # the answer this set needs
            flip = truth != want and rng.random() < 0.6
            if t.key[0] == "u":
                _, a, e = t.key
                e_text = self.ref(e, question=True)
                ant = a in self.antonym and (truth or t.key in model.neg)
                if flip and ant and rng.random() < 0.5:
                    text = self.t("Q_IS").format(e=e_text, a=self.antonym[a])
                elif flip:
                    text = self.t("Q_IS_NOT").format(e=e_text, a=a)
                else:
                    text = self.t("Q_IS").format(e=e_text, a=a)
            else:
                _, rk, s, o = t.key
                r = self.v.rel_by_key[rk]
                s_text, o_text = self.ref(s, question=True), self.ref(o, question=True)
                if flip:
                    text = self.t("Q_REL_NOT").format(nstmt=self.stmt(r, s_text, o_text, negative=True),
                                                      stmt=self.stmt(r, s_text, o_text))
                elif r.pp and rng.random() < 0.2:
                    be = "was" if r.past else "is"
                    text = self.t("Q_REL_PASSIVE").format(o=o_text, s=s_text, pp=r.pp, be=be, beq=be.capitalize(),
                                                          beq_l=be)
                else:
                    text = self.t("Q_REL").format(qdo=self.qdo(r, s_text, o_text), stmt=self.stmt(r, s_text, o_text))
            q = dict(kind="bool", text=text, options=(), answer=truth != flip, truth=truth, atom=t.key,
                     depth=model.true[t.key][0] if truth else 0,
                     cand=model.true[t.key][1] if truth else model.neg.get(t.key))
        elif t.kind == "cat":
            got = model.cats.get(t.key)
            if got is None:
                raise _Retry("categorical variable without a value")
            value, depth, sup = got
            g = next(g for g in self.v.groups if g.key == t.key[1])
            k = min(len(g.options), 2 + min(6, int(rng.expovariate(0.6))))
            shown = {value} | set(rng.sample([o for o in g.options if o != value], k - 1))
            options = tuple(o for o in g.options if o in shown)
            e_text = self.ref(t.key[2], question=True)
            text = self.t("Q_CAT").format(e=e_text, g=g.noun, poss=e_text + "'s")
            q = dict(kind="cat", text=text, options=options, answer=value, value=value, atom=t.key,
                     depth=depth, cand=sup)
        else:
            _, rk, s = t.key
            r = self.v.rel_by_key[rk]
            hits = [o for o in t.options if model.holds(("r", rk, s, o))]
            if len(hits) != 1:
                raise _Retry("a which-question needs exactly one true option")
            order = sorted(t.options, key=lambda o: _natural(self.short(o)))
            options = tuple(self.short(o) for o in order)
            s_text = self.ref(s, question=True)
            if r.cop:
                qwh, sv = f"is {s_text} {r.s3[3:]}", f"{s_text} {r.s3}"
            elif r.past:
                qwh, sv = f"did {s_text} {r.base}", f"{s_text} {r.past}"
            else:
                qwh, sv = f"does {s_text} {r.base}", f"{s_text} {r.s3}"
            text = self.t("Q_WHICH").format(qwh=qwh, sv=sv)
            atom = ("r", rk, s, hits[0])
            q = dict(kind="which", text=text, options=options, answer=self.short(hits[0]), atom=atom,
                     which=tuple(("r", rk, s, o) for o in order), depth=model.true[atom][0], cand=model.true[atom][1])
        self._asked.append(q)
        return q

    def supports(self, uni: Universe, model: Model, asked: list[dict]) -> list[int | None]:
        """support[i]: the sentence behind answer i, kept only if deleting it (answer i
        standing in) leaves every other answer as it was; then checked jointly (all kept
        supports deleted, and all but one) as training may delete several at once."""
        base_answers = _answers(model, asked)

        def stand_in(idx: Sequence[int]) -> tuple[list, list]:
            extra_true, extra_vals = [], []
            for i in idx:
                q = asked[i]
                if q["kind"] == "cat":
                    extra_vals.append((q["atom"], q["value"]))
                elif q["kind"] == "which" or q["truth"]:
                    extra_true.append(q["atom"])
            return extra_true, extra_vals

        def keeps(idx: Sequence[int], sents: set[int]) -> bool:
            extra_true, extra_vals = stand_in(idx)
            m = solve(self.sents, uni, deleted=sents, extra_true=extra_true, extra_vals=extra_vals,
                      q_intros=self.q_intros)
            if m.conflicts:
                return False
            got = _answers(m, asked)
            return all(got[j] == base_answers[j] for j in range(len(asked)) if j not in idx)

        out = [q["cand"] if q["cand"] is not None and keeps([i], {q["cand"]}) else None
               for i, q in enumerate(asked)]
        while True:
            chosen = [i for i in range(len(asked)) if out[i] is not None]
            if len(chosen) < 2:
                return out
            groups = [chosen] + [[i for i in chosen if i != j] for j in chosen] if len(chosen) > 2 else [chosen]
            bad = next((g for g in groups if not keeps(g, {out[i] for i in g})), None)
            if bad is None:
                return out
            out[bad[-1]] = None


def _answers(model: Model, asked: list[dict]) -> list:
    got = []
    for q in asked:
        if q["kind"] == "bool":
            got.append(model.holds(q["atom"]))
        elif q["kind"] == "cat":
            got.append(model.value(q["atom"]))
        else:
            got.append(tuple(model.holds(a) for a in q["which"]))
    return got


def _natural(text: str) -> list:
    return [int(p) if p.isdigit() else p for p in re.split(r"(\d+)", text.lower())]


# ============================================================================ entry point
def generate(rng: random.Random, style: Style, n_questions: int, max_links: int,
             closed_world: float = 0.0) -> DecisionSet:
    """One decision set of `n_questions` questions whose answers sit behind at most
    `max_links` rule steps. With `closed_world` > 0, that share of its yes/no questions is
    drawn from `CLOSED_WAYS` (and rule instances where rules may be): an attribute asked of an
    entity that has it and of one that does not, or of one nobody gave it to (the set is then
    not the one `closed_world` = 0 gives)."""
    if not 1 <= n_questions <= 8:
        raise ValueError(f"n_questions must be 1..8, got {n_questions}")
    if not 0 <= max_links <= 5:
        raise ValueError(f"max_links must be 0..5, got {max_links}")
    if not 0.0 <= closed_world <= 1.0:
        raise ValueError(f"closed_world is a share of yes/no questions, 0..1; got {closed_world}")
    for attempt in range(100):
        vocab = rng.choices(VOCABS, weights=VOCAB_WEIGHTS)[0]
        world = _World(rng, style, vocab, n_questions, max_links, shrink=attempt // 10, closed_world=closed_world)
        try:
            return world.build()
        except _Retry:
            continue
    raise RuntimeError("quantified: no valid set in 100 draws")
