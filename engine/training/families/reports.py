"""Corpus-v2 family "reports": plant shift logs and alarm lists, robot perception and
navigation summaries, and the standing orders and safety policies that go with them.

Two registers, as operators and robot stacks write them:

- plant shift logs: timestamped lines (`06:14 P-101A tripped on low suction pressure;
  P-101B started.`), alarm events (`ALM HH LT-301 92%`, `LT-301 HH ACK`, `LT-301 HH RTN`),
  readings, handover notes. The LATEST entry about a thing sets its current state; an
  acknowledged alarm stays active until it returns to normal. Logs keep their order
  (`shuffle="none"`, or "tail" when standing orders follow the log).
- robot summaries: `Obstacle at 0.8 m in lane 2; forklift FL-4 crossing; AGV-07 battery
  18%.`, with distances, speeds, counts and percentages compared exactly against limits
  (`within 1.0 m` is inclusive, `closer than 1.0 m` strict), and policies whose FIRST
  matching rule decides the action (base.Program.cases), modes with defaults overridden
  by events, and chains event -> state -> rule -> mode -> action.

Ground truth: the log, readings and alarms are evaluated here in Python (exact integer
arithmetic, tenths for decimals); rules, case lists and defaults by base.Program. Closed
world: a state never stated nor derived does not hold. `evaluate()` re-solves a world with
a sentence deleted and an answer pinned, which is how `support` is checked.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Callable, Hashable, Sequence

from decider.engine.training.corpus import DecisionSet
from decider.engine.training.families import base
from decider.engine.training.families.base import Style
from decider.engine.training.families.phrasings import reports as phrasings

DOMAIN = "reports"

# ============================================================================ templates
# Every pattern is a tuple of phrasings, picked with base.pick (one in five held out).
# Keys: s_* sentence fragments, c_* conditions inside rules, q_* questions, k_* / r_*
# rule and case-list frames, op* comparison phrases, w_* wordings of a value.

T: dict[str, tuple[str, ...]] = {
    # ---------------------------------------------------------------- plant log lines
    "ts": ("{hh}:{mm}", "{hh}{mm}", "{hh}:{mm}h", "{hh}:{mm} -", "[{hh}:{mm}]", "{hh}:{mm} hrs",
           "{hh}.{mm}", "{hh}:{mm}:", "{hh}{mm}h", "{hh}:{mm} |"),
    "s_header": ("Shift log {U}, {shift} shift", "{U} - {shift} shift handover", "Log for {U}, {shift} shift",
                 "{shift} shift, {U}: operator log", "Operator log {U} ({shift})", "{U} shift report, {shift}",
                 "Control room log, {U}, {shift} shift", "{U} panel log - {shift}", "Handover log {U}, {shift} shift",
                 "{U} {shift} shift log"),
    "s_pump_duty": ("{P} on duty", "{P} running as duty pump", "duty pump {P} running", "{P} duty, running",
                    "{P} in service as duty", "{P} running, duty", "took over with {P} on duty",
                    "{P} on line as duty pump", "{P} is duty and running", "at handover {P} running"),
    "s_pump_start": ("{P} started", "started {P}", "{P} restarted", "{P} back on line", "{P} put on line",
                     "{P} running", "{P} started from DCS", "{P} lined up and started", "{P} started, running OK",
                     "{P} started locally", "{P} up and running", "{P} restarted after checks",
                     "{P} brought on line", "got {P} running", "{P} on line"),
    "s_pump_standby": ("{P} on standby", "{P} left on standby", "{P} in auto-standby", "{P} lined up as standby",
                       "{P} set to standby", "{P} standby, ready to start", "{P} kept as standby",
                       "{P} on standby, auto-start armed", "{P} placed on standby", "{P} standby"),
    "s_pump_stop": ("{P} stopped", "stopped {P}", "{P} shut down", "{P} taken off line", "{P} stopped for changeover",
                    "{P} stopped from DCS", "{P} shut down locally", "{P} stopped, not needed", "{P} switched off",
                    "{P} off line", "{P} stopped on request", "took {P} off line"),
    "s_pump_trip": ("{P} tripped on {why}", "{P} trip, {why}", "{P} tripped ({why})", "{P} tripped - {why}",
                    "{P} tripped out on {why}", "trip on {P}: {why}", "{P} tripped, cause {why}",
                    "{P} went down on {why}", "{P} tripped", "{P} lost on {why}", "{P} tripped, {why} suspected",
                    "{P} dropped out on {why}"),
    "s_pump_oos": ("{P} OOS for {work}", "{P} out of service for {work}", "{P} handed over to maintenance for {work}",
                   "{P} isolated and LOTO for {work}", "{P} taken OOS ({work})", "{P} locked out for {work}",
                   "{P} out of service, {work}", "{P} released to maintenance ({work})", "{P} OOS",
                   "{P} under maintenance for {work}"),
    "s_pump_rts": ("{P} returned to service, on standby", "{P} back from maintenance, left on standby",
                   "{P} RTS, standby", "{P} handed back by maintenance, on standby", "{P} de-isolated, standby",
                   "{P} back in service as standby"),
    "s_pump_mention": ("{P} seal checked, no leak", "oil top-up on {P}", "{P} guard refitted",
                       "{P} tagged for PM next week", "{P} motor heater checked", "{P} on the PM list",
                       "spares ordered for {P}", "{P} paperwork filed with maintenance", "{P} coupling guard inspected",
                       "{P} area hosed down"),
    "s_valve_open": ("{V} opened for {why}", "{V} opened", "opened {V} for {why}", "{V} cracked open for {why}",
                     "{V} open ({why})", "{V} lined up open", "{V} opened, {why} in progress", "{V} fully opened",
                     "{V} set open for {why}", "{V} opened locally for {why}", "{V} opened from DCS",
                     "{V} opened to start {why}"),
    "s_valve_close": ("{V} closed", "{V} shut", "closed {V}", "{V} closed after {why}", "{V} shut, {why} done",
                      "{V} fully closed", "{V} closed locally", "{V} shut from DCS", "{V} closed, {why} finished",
                      "{V} closed and tagged", "shut {V}", "{V} closed off"),
    "s_ctrl_manual": ("{C} put in manual", "{C} to MAN", "{C} switched to manual", "{C} placed in manual",
                      "{C} in MAN for {why}", "{C} taken to manual", "{C} on hand control",
                      "{C} to manual, output held", "{C} set to MAN", "{C} in manual"),
    "s_ctrl_auto": ("{C} back in auto", "{C} to AUTO", "{C} switched to automatic", "{C} returned to auto",
                    "{C} put in auto", "{C} placed on AUTO", "{C} in auto", "{C} restored to automatic",
                    "{C} set to AUTO", "{C} on auto"),
    "s_ctrl_cascade": ("{C} to CAS", "{C} put in cascade", "{C} back on cascade", "{C} switched to cascade",
                       "{C} set to CAS", "{C} in cascade"),
    "s_alm": ("ALM {lvl} {tag} {val}", "{tag} {lvl} alarm, {val}", "{lvl} alarm on {tag} at {val}",
              "{tag} in {lvl} alarm ({val})", "alarm {tag} {lvl} {val} UNACK", "{tag} went {lvl}, {val}",
              "{lvl} {tag} {val} ALM", "{tag} {lvl} came in at {val}", "new alarm: {tag} {lvl} {val}",
              "{tag} {lvl} ALM {val}", "{lvl} on {tag}, {val}", "{tag} alarm {lvl} at {val}"),
    "s_ack": ("{tag} {lvl} ACK", "{lvl} on {tag} acknowledged", "ACK {lvl} {tag}", "acked {tag} {lvl}",
              "{tag} {lvl} alarm acknowledged by board op", "{lvl} {tag} ACK by panel", "acknowledged {tag} {lvl}",
              "{tag} {lvl} acknowledged", "{tag} {lvl} ACKed", "board op ACK on {tag} {lvl}"),
    "s_rtn": ("{tag} {lvl} RTN", "{lvl} {tag} returned to normal", "{tag} {lvl} cleared, {val}",
              "{tag} back to normal ({val}), {lvl} RTN", "{lvl} alarm on {tag} RTN at {val}", "{tag} {lvl} RTN, now {val}",
              "{tag} out of {lvl} alarm, {val}", "{lvl} on {tag} cleared", "RTN {lvl} {tag}",
              "{tag} {lvl} back to normal"),
    "s_alm_ack": ("ALM {lvl} {tag} {val} ACK", "{tag} {lvl} {val} - ACK", "{lvl} {tag} {val} acknowledged",
                  "{tag} {lvl} alarm ({val}), ACK", "alarm {tag} {lvl} {val}, acked", "{tag} {lvl} {val} ALM ACK"),
    "s_read": ("{tag} at {val}", "{tag} reading {val}", "{tag} = {val}", "{tag} now {val}", "{tag} showing {val}",
               "{tag} steady at {val}", "{tag} reads {val}", "{tag} logged at {val}", "field check {tag} {val}",
               "{tag} {val}", "{tag} indicating {val}", "{tag} holding at {val}"),
    "s_note": ("lab sample taken at SP-{n}", "scaffold crew on site at {E}", "walkdown done, no leaks found",
               "radio check OK", "PTW {k} issued for {E} cleaning", "fire pump weekly test done",
               "drain pots on {E} checked", "handover discussed with the day lead", "gas test at {E} OK, {n}% LEL",
               "ambient {n} degC", "cooling water supply {n} degC", "{E} insulation repair ongoing",
               "housekeeping round done", "contractor list updated, {n} on site", "instrument tech called for {E}"),
    # ---------------------------------------------------------------- robot summaries
    "ts_r": ("{hh}:{mm}:{ss}", "[{hh}:{mm}:{ss}]", "{hh}:{mm}:{ss} -", "t={hh}:{mm}:{ss}", "{hh}:{mm}:{ss}Z",
             "{hh}:{mm}:{ss} |"),
    "s_rheader": ("Status report {R}", "Perception summary, {R}", "{R} nav summary", "Fleet status: {R}",
                  "[{R}] perception/nav report", "Robot summary ({R})", "{R} navigation status",
                  "Summary from {R} stack", "{R} - perception digest", "Nav report for {R}"),
    "s_lane": ("{R} in lane {l}", "{R} travelling in lane {l}", "{R} on lane {l}", "{R}: current lane {l}",
               "{R} driving lane {l}", "position: {R} lane {l}", "{R} now in lane {l}", "{R} following lane {l}",
               "{R} lane {l}", "{R} entered lane {l}"),
    "s_obst": ("obstacle at {d} in lane {l}", "lane {l}: obstacle {d}", "obstacle in lane {l} at {d}",
               "lane {l} obstacle, range {d}", "object in lane {l}, {d}", "static obstacle lane {l} at {d}",
               "pallet in lane {l}, {d} away", "lane {l}: object at {d}", "obstacle {d}, lane {l}",
               "obstruction in lane {l} at {d}", "lane {l} blocked by an object at {d}", "box in lane {l}, {d} out"),
    "s_person": ("person detected at {d}", "nearest person {d}", "pedestrian at {d}", "human detected, range {d}",
                 "person {d} from {R}", "nearest human {d}", "operator on foot at {d}", "person in view at {d}",
                 "people: nearest {d}", "closest person {d} away", "walker detected at {d}", "person at {d}"),
    "s_count": ("zone {z}: {kp} detected", "{kp} in zone {z}", "zone {z} occupancy {k}", "zone {z}: {kp}",
                "people in zone {z}: {k}", "zone {z} headcount {k}", "{kp} detected in zone {z}", "zone {z} - {kp}",
                "occupancy zone {z}: {k}", "zone {z} person count {k}"),
    "s_batt": ("{R} battery {p}", "{R} SoC {p}", "{R} at {p} battery", "battery {R}: {p}", "{R} charge level {p}",
               "{R}: batt {p}", "{R} state of charge {p}", "{R} battery at {p}", "SoC {R} {p}",
               "{R} reports battery {p}"),
    "s_speed": ("{R} speed {v}", "{R} moving at {v}", "{R} current speed {v}", "{R} at {v}", "velocity {R} {v}",
                "{R} travelling at {v}", "{R}: v = {v}", "{R} doing {v}", "{R} speed reading {v}",
                "{R} cruising at {v}"),
    "s_speed_limit": ("speed limit in shared aisles {v}", "shared-aisle limit {v}", "max speed in shared aisles {v}",
                      "aisle speed limit (shared) {v}", "limit for shared aisles: {v}",
                      "speed cap in shared aisles {v}", "shared aisles capped at {v}",
                      "shared aisle max {v}", "shared-aisle speed limit: {v}", "in shared aisles max {v}"),
    "s_fl_crossing": ("forklift {F} crossing", "{F} crossing lane {l}", "forklift {F} crossing the aisle",
                      "{F} in the aisle, crossing", "forklift {F} cutting across lane {l}", "{F} crossing ahead",
                      "cross traffic: forklift {F}", "{F} moving across the aisle", "forklift {F} in the crossing",
                      "{F} passing through the crossing"),
    "s_fl_parked": ("forklift {F} parked", "{F} parked at bay {b}", "{F} stationary at the charger",
                    "forklift {F} idle, parked", "{F} parked, forks down", "{F} standing at bay {b}",
                    "{F} parked off-aisle"),
    "s_fl_loading": ("forklift {F} loading at dock {b}", "{F} loading a trailer at dock {b}", "{F} busy at dock {b}",
                     "{F} picking at rack {b}", "{F} working at dock {b}", "forklift {F} loading"),
    "s_sens_degraded": ("{S} degraded", "{S} degraded, reduced range", "{S} fault", "{S} reporting errors",
                        "{S} status: DEGRADED", "{S} dirty, degraded", "warning: {S} degraded", "{S} intermittent",
                        "{S} partially blind", "{S} health: degraded"),
    "s_sens_ok": ("{S} OK", "{S} healthy", "{S} status: OK", "{S} nominal", "{S} back to normal", "{S} working",
                  "{S} clean, OK", "{S} health: OK", "{S} self-test passed", "{S} status green"),
    "s_estop_pressed": ("E-stop pressed on {R}", "{R} E-stop active", "emergency stop triggered on {R}",
                        "{R}: E-STOP", "E-stop engaged, {R}", "{R} e-stop hit", "{R} emergency stop pressed"),
    "s_estop_released": ("E-stop on {R} reset", "{R} E-stop released", "{R} e-stop cleared",
                         "emergency stop on {R} reset", "{R}: E-STOP reset", "{R} e-stop pulled out and reset"),
    "s_rmode": ("{R} mode {m}", "{R} switched to {m}", "{R} now in {m} mode", "mode change {R}: {m}",
                "{R} -> {m}", "{R} set to {m}", "{R} entered {m} mode", "operator put {R} in {m}", "{R} in {m}",
                "{R} changed mode to {m}"),
    "s_rnoise": ("heading to dock {b}", "task T-{k}: pick at rack R{b}", "Wi-Fi signal -{n} dBm", "map version {b}.{n}",
                 "next waypoint WP-{k}", "payload {n} kg", "odometry {k} m today", "motor temp {n} degC",
                 "CPU load {n}%", "queue: {b} missions", "last docking {n} min ago", "localisation score 0.{n}"),
    # ---------------------------------------------------------------- rules and policies
    "r_if": ("If {A}, {C}", "{C} if {A}", "When {A}, {C}", "Whenever {A}, {C}", "If {A}, then {C}",
             "{C} whenever {A}", "As long as {A}, {C}", "In case {A}, {C}", "{C} as soon as {A}",
             "Once {A}, {C}", "{C} when {A}", "Provided {A}, {C}"),
    "r_unless": ("If {A}, {C}, unless {X}", "{C} when {A}, except when {X}", "When {A}, {C} - not if {X}",
                 "If {A}, {C}; this does not apply if {X}", "{C} if {A}, unless {X}",
                 "Whenever {A}, {C}, except if {X}", "Unless {X}, {C} when {A}"),
    "r_and": ("{A} and {B}", "{A}, and {B}", "{A} while {B}", "{A} and at the same time {B}", "{A} and also {B}",
              "{A} together with the fact that {B}"),
    "r_prefix_plant": ("", "Standing order: ", "SOP: ", "Note: ", "Shift lead: ", "Per procedure: ", "Orders: ",
                       "Reminder: "),
    "r_prefix_robot": ("", "Policy: ", "Site rule: ", "Safety rule: ", "Nav rule: ", "Fleet rule: ", "Config: "),
    "k_first": ("if {A}, {V}", "{V} if {A}", "when {A}, {V}", "if {A}, then {V}", "{V} as soon as {A}",
                "{V} whenever {A}", "in case {A}, {V}", "first, if {A}, {V}"),
    "k_next": ("otherwise, if {A}, {V}", "else if {A}, {V}", "failing that, {V} if {A}", "if not, and {A}, {V}",
               "otherwise {V} if {A}", "next, if {A}, {V}", "else, when {A}, {V}", "otherwise, when {A}, {V}"),
    "k_last": ("otherwise {V}", "else {V}", "in all other cases {V}", "if none of these applies, {V}",
               "otherwise, {V}", "failing all of that, {V}", "else just {V}"),
    "k_or": ("{A} or {B}", "{A}, or {B}", "either {A} or {B}", "{A} or if {B}", "{A}, or if {B}"),
    # numbered rules; k_num_last[i] closes a list numbered in the style of k_num[i]
    "k_num": ("Rule {k}: if {A}, {V}", "{k}) {V} if {A}", "Priority {k}: when {A}, {V}", "Step {k} - if {A}, {V}",
              "Rule {k}: {V} when {A}", "P{k}: if {A}, {V}", "{k}. If {A}, {V}", "R{k} - {V} if {A}",
              "Check {k}: if {A}, {V}", "#{k}: {V} when {A}"),
    "k_num_last": ("Rule {k}: if no rule above applies, {V}", "{k}) otherwise {V}", "Priority {k}: in all other cases, {V}",
                   "Step {k} - if none of the above, {V}", "Rule {k} (default): {V}", "P{k}: otherwise {V}",
                   "{k}. Otherwise, {V}", "R{k} - default: {V}", "Check {k}: if nothing above matched, {V}",
                   "#{k}: in any other case, {V}"),
    "k_intro": ("The first rule that applies wins", "Rules are checked in order; the first match applies",
                "Lower rule numbers take precedence", "Apply only the highest-priority rule that matches",
                "Check the rules top-down and stop at the first that applies", "Earlier rules override later ones"),
    "k_head_robot": ("Policy for {R}: ", "{R} safety policy: ", "Nav rules: ", "", "Safety logic: ",
                     "Per site rules, ", "Policy: "),
    "k_head_plant": ("Standing orders for {U}: ", "SOP {U}: ", "", "Response plan: ", "Shift lead orders: ",
                     "Orders for {U}: "),
    # derived states (rule conclusions, conditions, questions)
    "d_concl": ("{S} is {a}", "{S} counts as {a}", "treat {S} as {a}", "{S} must be considered {a}",
                "{S} is considered {a}", "consider {S} {a}", "{S} is declared {a}", "{S} becomes {a}",
                "{S} is to be treated as {a}", "mark {S} as {a}"),
    "d_cond": ("{S} is {a}", "{S} is considered {a}", "{S} has been declared {a}", "{S} counts as {a}",
               "{S} is flagged {a}", "{S} is marked {a}", "{S} is now {a}", "{S} has become {a}",
               "{S} is reported {a}", "{S} is treated as {a}"),
    "q_derived": ("Is {S} {a}?", "Is {S} currently {a}?", "Should {S} be treated as {a}?", "Does {S} count as {a}?",
                  "Per the orders, is {S} {a}?", "Is {S} {a} right now?", "Has {S} become {a}?",
                  "Would {S} be {a} at this point?", "Is {S} to be considered {a}?", "Going by the notes, is {S} {a}?",
                  "Given the report, is {S} {a}?", "Is {S} flagged as {a}?"),
    "q_derived_neg": ("Is it true that {S} is not {a}?", "Is {S} not {a}?", "Can we say {S} is not {a}?",
                      "Is it correct that {S} isn't {a}?", "Would you say {S} is not {a}?", "Is {S} not {a} now?"),
    # plant unit mode (categorical, default + overrides / priority)
    "s_unit_default": ("{U} runs at {v} unless an order says otherwise", "Default for {U}: {v}",
                       "{U} normally at {v}", "Unless told otherwise, {U} stays at {v}", "{U} is at {v} by default",
                       "Planned mode for {U}: {v}", "{U} on {v} per the plan", "Baseline for {U} is {v}"),
    "w_unit_normal rate": ("keep {U} at normal rate", "{U} stays at normal rate", "run {U} at normal rate",
                           "carry on at normal rate on {U}", "hold {U} at normal rate", "{U} continues at normal rate"),
    "w_unit_reduced rate": ("cut {U} to reduced rate", "{U} goes to reduced rate", "drop {U} to reduced rate",
                            "run {U} at reduced rate", "bring {U} down to reduced rate", "{U} moves to reduced rate"),
    "w_unit_hot standby": ("put {U} on hot standby", "{U} goes to hot standby", "take {U} to hot standby",
                           "{U} moves to hot standby", "switch {U} to hot standby", "place {U} on hot standby"),
    "w_unit_shutdown": ("shut {U} down", "{U} goes to shutdown", "take {U} to shutdown", "bring {U} to shutdown",
                        "{U} is shut down", "trip {U} to shutdown"),
    "q_unit_mode": ("What mode should {U} be in now?", "Which operating mode applies to {U}?",
                    "Per the standing orders, what mode for {U}?", "What state should {U} be put in?",
                    "What is the required mode for {U}?", "Where should {U} be running, per the orders?",
                    "What does the procedure call for on {U}?", "Which mode is {U} supposed to be in?",
                    "What mode does {U} end up in?", "What should {U} be set to now?",
                    "Going by the log and the orders, what mode for {U}?", "{U}: which mode applies now?"),
    "q_unit_is": ("Is {v} the required mode for {U}?", "Should {U} be in {v} now?", "Per the orders, is {U} in {v}?",
                  "Does the procedure put {U} in {v}?", "Is {U} meant to be in {v}?", "Is the mode for {U} now {v}?"),
    "q_unit_not": ("Is it true that {U} should not be in {v}?", "Is {v} the wrong mode for {U} right now?",
                   "Is it correct that {U} is not meant to be in {v}?", "Can we say {U} should not be in {v}?",
                   "Would {v} be the wrong call for {U}?"),
    # ---------------------------------------------------------------- plant questions
    "q_run": ("Is {P} running?", "Is {P} on line?", "Is {P} in operation right now?", "Is {P} running at the moment?",
              "{P} running?", "Is {P} up?", "Is {P} currently running?", "Is {P} pumping?", "Do we have {P} running?",
              "Is {P} on?", "Is {P} running now?", "Is {P} in operation?"),
    "q_down": ("Is {P} down?", "Is {P} off line?", "Is it true that {P} is not running?", "Is {P} not running now?",
               "Is it correct that {P} isn't running?", "{P} down at the moment?", "Is {P} idle?",
               "Can we confirm {P} is not running?", "Is {P} off?", "Is {P} down right now?"),
    "q_tripped": ("Is {P} tripped?", "Is {P} sitting tripped?", "Is {P} currently in a tripped state?",
                  "Is {P} down on a trip?", "Is {P} tripped right now?", "Is {P} in trip?"),
    "q_oos": ("Is {P} out of service?", "Is {P} OOS?", "Is {P} with maintenance?", "Is {P} unavailable (OOS)?",
              "Is {P} locked out for work?", "Is {P} currently out of service?"),
    "q_not_oos": ("Is it true that {P} is not out of service?", "Is {P} in service?", "Is it correct that {P} isn't OOS?",
                  "Is {P} not OOS?", "Can we say {P} is not with maintenance?", "Is {P} not out of service?"),
    "q_standby": ("Is {P} on standby?", "Is {P} the standby pump?", "Is {P} sitting on standby?", "Is {P} in standby?",
                  "Is {P} lined up as standby?", "Is {P} on auto-standby?"),
    "q_pstatus": ("What is the status of {P}?", "{P} status?", "What state is {P} in?", "Where does {P} stand now?",
                  "What's {P} doing at the moment?", "Current state of {P}?", "How is {P} at the end of the log?",
                  "What is {P}'s status right now?", "Which state best describes {P}?", "Status of {P} at handover?"),
    "q_duty": ("Which pump is on duty for {B}?", "Which of {A} and {A2} is running?", "Duty pump on {B}?",
               "Which {B} pump is running now?", "Which pump is carrying {B}?", "Which pump is online for {B}?",
               "What is the duty pump on {B}?", "Which of the {B} pumps is running?",
               "Which pump is doing the duty on {B}?", "Which {B} pump is on line?"),
    "q_vopen": ("Is {V} open?", "Is {V} still open?", "Is {V} in the open position?", "{V} open?",
                "Is {V} currently open?", "Has {V} been left open?", "Is {V} open right now?", "Is {V} standing open?",
                "Is {V} open at the moment?", "Is {V} lined up open?"),
    "q_vshut": ("Is {V} shut?", "Is {V} closed?", "Is {V} closed now?", "Is {V} in the closed position?", "{V} shut?",
                "Is {V} shut at the moment?", "Is {V} currently closed?", "Is {V} closed off?", "Is {V} shut right now?",
                "Is {V} closed at this point?"),
    "q_vnotopen": ("Is it true that {V} is not open?", "Is it correct that {V} isn't open?", "Can we say {V} is not open?",
                   "Is {V} not open?", "Would you say {V} is not open?"),
    "q_vnotshut": ("Is it true that {V} is not closed?", "Is it correct that {V} isn't shut?", "Is {V} not closed?",
                   "Can we say {V} is not shut?", "Would you say {V} is not closed?"),
    "q_vpos": ("What position is {V} in?", "{V} position?", "Where is {V} now, open or shut?", "Is {V} open or closed?",
               "What is the position of {V}?", "In what position did {V} end up?", "Current position of {V}?",
               "How is {V} set now?", "What's the state of {V}?", "Where did {V} end up?"),
    "q_cmode": ("What mode is {C} in?", "{C} mode?", "Which mode is {C} in now?", "What mode did {C} end up in?",
                "Current mode of {C}?", "What's {C} running in?", "How is {C} set, mode-wise?", "In which mode is {C}?",
                "What is the controller mode of {C}?", "Which mode was {C} left in?"),
    "q_cis": ("Is {C} in {m}?", "Is {C} on {m}?", "Is {C} running in {m}?", "Is {C} currently in {m}?",
              "Is {C} set to {m}?", "Has {C} been left in {m}?", "Is {C} in {m} right now?"),
    "q_cnot": ("Is it true that {C} is not in {m}?", "Is {C} out of {m}?", "Is it correct that {C} isn't in {m}?",
               "Is {C} not in {m}?", "Can we say {C} is not on {m}?"),
    "q_aactive": ("Is the {lvl} alarm on {tag} still active?", "Is {tag} still in {lvl} alarm?",
                  "Is the {tag} {lvl} still standing?", "Is there an active {lvl} alarm on {tag}?",
                  "Is the {tag} {lvl} alarm still up?", "Is {tag} in {lvl} alarm right now?",
                  "Is the {lvl} on {tag} still active?", "Is the {tag} {lvl} alarm active?",
                  "Does {tag} still have a {lvl} alarm?", "Is {tag} {lvl} still in?", "Is {tag} in {lvl} alarm now?"),
    "q_artn": ("Has the {lvl} alarm on {tag} returned to normal?", "Has {tag} {lvl} cleared?", "Is {tag} {lvl} RTN?",
               "Is the {tag} {lvl} back to normal?", "Has the {lvl} on {tag} gone RTN?",
               "Is the {lvl} alarm on {tag} cleared?"),
    "q_anot": ("Is it true that the {lvl} alarm on {tag} is not active?", "Is it correct that {tag} is not in {lvl} alarm?",
               "Is {tag} out of {lvl} alarm?", "Can we say the {tag} {lvl} is not active?",
               "Is the {tag} {lvl} alarm inactive?", "Is the {lvl} on {tag} not active?"),
    "q_aack": ("Has the {lvl} alarm on {tag} been acknowledged?", "Is {tag} {lvl} ACKed?",
               "Is the {lvl} on {tag} acknowledged?", "Has the board op acknowledged {tag} {lvl}?",
               "Is the {tag} {lvl} alarm acked?", "Has {tag} {lvl} been acked?"),
    "q_aunack": ("Is the {lvl} on {tag} still unacknowledged?", "Is {tag} {lvl} still unacked?",
                 "Is the {tag} {lvl} alarm waiting for ACK?", "Is {tag} {lvl} unacknowledged?",
                 "Is it true that the {tag} {lvl} has not been acknowledged?"),
    "q_astate": ("What is the state of the {tag} {lvl} alarm?", "Where does the {lvl} alarm on {tag} stand?",
                 "{tag} {lvl} alarm status?", "What's the status of the {lvl} on {tag}?",
                 "How does the {tag} {lvl} alarm stand now?", "Current state of alarm {tag} {lvl}?",
                 "What state is the {lvl} on {tag} in?", "Status of the {tag} {lvl} alarm at handover?",
                 "Which best describes the {lvl} alarm on {tag}?", "What is the {tag} {lvl} alarm doing now?"),
    "q_read": ("Is {tag} {op}?", "Is {tag} reading {op}?", "Does {tag} read {op}?", "Is the latest {tag} reading {op}?",
               "Is {tag} currently {op}?", "Is {tag} now {op}?", "Going by the last reading, is {tag} {op}?",
               "Is the {what} on {tag} {op}?", "Is {tag} sitting {op}?", "Per the latest entry, is {tag} {op}?"),
    # plant conditions (inside rules)
    "c_run": ("{P} is running", "{P} is on line", "{P} is in operation", "{P} is up", "{P} runs"),
    "c_down": ("{P} is down", "{P} is not running", "{P} is off line", "{P} is not in operation", "{P} isn't running"),
    "c_tripped": ("{P} is tripped", "{P} sits tripped", "{P} is in a tripped state", "{P} is down on a trip",
                  "{P} is in trip"),
    "c_oos": ("{P} is out of service", "{P} is OOS", "{P} is with maintenance", "{P} is locked out",
              "{P} is out of service for work"),
    "c_standby": ("{P} is on standby", "{P} sits on standby", "{P} is the standby pump", "{P} is in standby",
                  "{P} is lined up as standby"),
    "c_vopen": ("{V} is open", "{V} stands open", "{V} is left open", "{V} is in the open position", "{V} is opened"),
    "c_vnotopen": ("{V} is not open", "{V} isn't open", "{V} is not left open", "{V} is not in the open position",
                   "{V} is not opened"),
    "c_vshut": ("{V} is closed", "{V} is shut", "{V} is in the closed position", "{V} is closed off", "{V} stays shut"),
    "c_cis": ("{C} is in {m}", "{C} is on {m}", "{C} has been put in {m}", "{C} is running in {m}", "{C} is left in {m}"),
    "c_aactive": ("the {lvl} alarm on {tag} is active", "{tag} is in {lvl} alarm", "the {tag} {lvl} is standing",
                  "there is an active {lvl} on {tag}", "the {lvl} on {tag} is in"),
    "c_anot": ("the {lvl} alarm on {tag} is not active", "{tag} is not in {lvl} alarm", "the {tag} {lvl} is clear",
               "there is no active {lvl} on {tag}", "the {lvl} on {tag} is not in"),
    "c_read": ("{tag} is {op}", "{tag} reads {op}", "the {what} on {tag} is {op}", "{tag} shows {op}",
               "the reading on {tag} is {op}"),
    # ---------------------------------------------------------------- robot policy values
    "w_act_stop": ("stop", "stop immediately", "come to a full stop", "halt", "stop and hold", "brake to a stop",
                   "stop in place", "perform a protective stop", "stop at once", "halt in place"),
    "w_act_wait": ("wait", "wait in place", "hold position and wait", "pause and wait", "wait for clearance",
                   "stand by and wait", "hold and wait", "wait where it is"),
    "w_act_slow down": ("slow down", "reduce speed", "slow to creep speed", "drop to reduced speed", "go slow",
                        "cut speed", "proceed slowly", "decelerate to creep", "slow down to walking pace",
                        "travel at reduced speed"),
    "w_act_reroute": ("reroute", "take another route", "replan the path", "find an alternative route",
                      "reroute around it", "replan via another aisle", "switch to an alternate path", "detour"),
    "w_act_return to dock": ("return to dock", "go back to the dock", "head to the charger", "return to base",
                             "drive back to the dock", "abort and return to dock", "go charge at the dock"),
    "w_act_continue": ("continue at the aisle limit", "continue", "carry on at normal speed", "proceed at full speed",
                       "keep going at the aisle limit", "continue the mission", "proceed normally",
                       "continue at normal speed", "keep driving at the shared-aisle limit", "carry on"),
    "q_action": ("What should {R} do next?", "What's the next action for {R}?",
                 "Which action does the policy give {R} right now?", "What must {R} do now?",
                 "Next step for {R} per the policy?", "How should {R} respond now?",
                 "What does the policy tell {R} to do?", "Under the rules, what should {R} do?",
                 "What is {R}'s required action?", "Which response applies to {R}?",
                 "What action is {R} expected to take?", "Given this report, what should {R} do?"),
    "q_act_continue": ("Is {R} allowed to continue at full speed?", "Can {R} carry on at normal speed?",
                       "Is {R} cleared to continue?", "May {R} keep going at the aisle limit?",
                       "Is {R} free to proceed normally?", "Can {R} just continue?"),
    "q_act_stop": ("Must {R} stop?", "Does {R} have to stop now?", "Is a stop required for {R}?", "Should {R} halt?",
                   "Is {R} required to stop?", "Has {R} got to stop?"),
    "q_act_slow down": ("Should {R} slow down?", "Does {R} need to reduce speed?", "Is {R} required to slow down?",
                        "Must {R} go slow?", "Is reduced speed required for {R}?", "Should {R} cut its speed?"),
    "q_act_wait": ("Should {R} wait?", "Does {R} have to hold and wait?", "Is {R} supposed to wait?",
                   "Must {R} wait in place?", "Is waiting the required action for {R}?", "Should {R} hold and wait?"),
    "q_act_reroute": ("Should {R} reroute?", "Does {R} need to take another route?", "Is {R} required to replan?",
                      "Must {R} find another path?", "Is rerouting required for {R}?", "Should {R} replan its path?"),
    "q_act_return to dock": ("Should {R} return to dock?", "Does {R} have to head back to the dock?",
                             "Is {R} sent back to the dock?", "Must {R} go back to charge?",
                             "Is return-to-dock required for {R}?", "Should {R} go back to the dock?"),
    "q_act_not": ("Is it true that {R} should not {v}?", "Is it the case that {R} should not {v}?",
                  "Would it be wrong for {R} to {v} now?", "Is it correct that {R} is not to {v}?",
                  "Is it fair to say {R} should not {v}?", "Per the policy, should {R} not {v}?"),
    # robot mode
    "s_rmode_default": ("{R} runs in {m} mode unless an event changes it", "default mode for {R}: {m}",
                        "{R} normally operates in {m} mode", "{R} is in {m} mode by default",
                        "unless something overrides it, {R} stays in {m} mode", "baseline mode {R}: {m}",
                        "{R} works in {m} mode unless told otherwise"),
    "c_rmode_to": ("{R} switches to {m} mode", "{R} goes into {m} mode", "{R} drops to {m} mode",
                   "put {R} in {m} mode", "{R} must be in {m} mode", "the mode of {R} becomes {m}",
                   "{R} changes to {m} mode", "{R} enters {m} mode"),
    "c_rmode_is": ("{R} is in {m} mode", "{R} is running in {m} mode", "{R}'s mode is {m}",
                   "{R} is operating in {m} mode", "the mode of {R} is {m}"),
    "q_rmode": ("What mode is {R} in?", "Which mode is {R} in now?", "{R} mode?", "What operating mode applies to {R}?",
                "What mode should {R} be in now?", "In which mode is {R} running?", "What's {R}'s current mode?",
                "Which operating mode does {R} end up in?", "What is the mode of {R} at this point?",
                "Mode of {R} right now?"),
    "q_rmode_is": ("Is {R} in {m} mode?", "Is {R} running in {m} mode?", "Is {R} currently in {m} mode?",
                   "Has {R} ended up in {m} mode?", "Is {R}'s mode {m}?", "Is {R} operating in {m} mode now?"),
    "q_rmode_not": ("Is it true that {R} is not in {m} mode?", "Is it correct that {R} isn't in {m} mode?",
                    "Is {R} in a mode other than {m}?", "Would you say {R} is not in {m} mode?",
                    "Is {R} out of {m} mode?"),
    # robot conditions
    "c_person": ("a person is {op}", "anyone is {op}", "the nearest person is {op}", "a pedestrian is {op}",
                 "someone is {op}", "a person is detected {op}", "any human is {op}", "a worker on foot is {op}",
                 "perception reports a person {op}", "somebody comes {op}"),
    "c_obst_ego": ("an obstacle in {R}'s lane is {op}", "there is an obstacle {op} in {R}'s lane",
                   "the obstacle in {R}'s own lane is {op}", "an object in {R}'s lane is {op}",
                   "something in {R}'s lane is {op}", "{R}'s lane has an obstacle {op}",
                   "the lane {R} is in has an obstacle {op}", "an obstacle ahead of {R} in its lane is {op}"),
    "c_batt": ("{R}'s battery is {op}", "the battery of {R} is {op}", "the battery on {R} is {op}",
               "{R}'s state of charge is {op}", "{R}'s SoC is {op}", "{R}'s charge level is {op}",
               "{R} has a battery level {op}"),
    "c_count_any": ("anyone is in zone {z}", "zone {z} is occupied", "a person is in zone {z}",
                    "people are present in zone {z}", "zone {z} has people in it", "someone is in zone {z}"),
    "c_count": ("the headcount in zone {z} is {op}", "occupancy of zone {z} is {op}", "the person count in zone {z} is {op}",
                "the number of people in zone {z} is {op}", "zone {z} occupancy is {op}"),
    "c_fl_any": ("a forklift is crossing", "any forklift is crossing", "a forklift is in the aisle",
                 "forklift cross traffic is reported", "a forklift is crossing {R}'s path", "there is a forklift crossing"),
    "c_fl": ("forklift {F} is crossing", "{F} is in the aisle", "{F} is crossing", "{F} is reported crossing",
             "{F} cuts across the aisle"),
    "c_sens": ("the {S} is degraded", "the {S} is faulty", "the {S} reports degraded", "the {S} is impaired",
               "the {S} has a fault"),
    "c_sens_ok": ("the {S} is OK", "the {S} is healthy", "the {S} reports OK", "the {S} is working normally",
                  "the {S} is in good health"),
    "c_estop": ("the E-stop on {R} is pressed", "{R}'s E-stop is active", "an emergency stop is active on {R}",
                "the E-stop on {R} is engaged", "{R} is E-stopped"),
    "c_speed_over": ("{R} is above the shared-aisle limit", "{R}'s speed exceeds the shared-aisle limit",
                     "{R} is faster than the shared-aisle limit", "{R} is over the shared-aisle limit",
                     "{R}'s speed is above the shared-aisle limit"),
    # robot questions
    "q_batt": ("Is {R}'s battery {op}?", "Is the battery on {R} {op}?", "{R} battery {op}?",
               "Is {R}'s state of charge {op}?", "Is {R}'s SoC {op}?", "Is the charge level of {R} {op}?",
               "Is {R} showing a battery level {op}?", "Going by the report, is {R}'s battery {op}?",
               "Is {R}'s charge {op}?", "Does {R} have a battery level {op}?"),
    "q_person": ("Is a person {op}?", "Is anyone {op}?", "Is the nearest person {op}?", "Is there a person {op}?",
                 "Has anyone been detected {op}?", "Is somebody {op}?", "Is the closest pedestrian {op}?",
                 "Is a human {op}?", "Per perception, is a person {op}?", "Is any pedestrian {op}?"),
    "q_obst_ego": ("Is the obstacle in {R}'s lane {op}?", "Is there an obstacle {op} in {R}'s lane?",
                   "Is anything in {R}'s lane {op}?", "Is the obstacle ahead of {R} {op}?",
                   "Does {R} have an obstacle {op} in its lane?", "Is an obstacle in the lane {R} is using {op}?",
                   "In {R}'s lane, is the obstacle {op}?", "Is the object in {R}'s lane {op}?",
                   "Is the nearest obstacle in {R}'s lane {op}?", "Is {R}'s lane obstacle {op}?"),
    "q_obst_lane": ("Is the obstacle in lane {l} {op}?", "Is there an obstacle {op} in lane {l}?",
                    "Lane {l}: is the obstacle {op}?", "Is the lane {l} obstacle {op}?", "Is the object in lane {l} {op}?",
                    "In lane {l}, is the obstacle {op}?"),
    "q_count": ("Is the headcount in zone {z} {op}?", "Is the person count in zone {z} {op}?",
                "Is occupancy in zone {z} {op}?", "Is the number of people in zone {z} {op}?",
                "Is zone {z}'s headcount {op}?", "Does the person count for zone {z} come to {op}?",
                "Going by the report, is occupancy of zone {z} {op}?"),
    "q_zone_any": ("Is anyone in zone {z}?", "Are there people in zone {z}?", "Is zone {z} occupied?",
                   "Is there a person in zone {z}?", "Has anyone been detected in zone {z}?", "Is zone {z} manned?",
                   "Are any persons in zone {z}?", "Is somebody in zone {z}?"),
    "q_zone_clear": ("Is zone {z} clear?", "Is zone {z} empty of people?", "Is zone {z} free of people?",
                     "Is nobody in zone {z}?", "Is zone {z} unoccupied?", "Is zone {z} clear of persons?"),
    "q_speed_over": ("Is {R} over the shared-aisle limit?", "Is {R} speeding for a shared aisle?",
                     "Does {R} exceed the shared-aisle speed limit?", "Is {R} going faster than the shared-aisle limit?",
                     "Is {R} above the speed limit for shared aisles?", "Is {R} too fast for a shared aisle?"),
    "q_speed_ok": ("Is {R} within the shared-aisle limit?", "Is {R} at or under the shared-aisle speed limit?",
                   "Is {R}'s speed OK for a shared aisle?", "Is {R} keeping to the shared-aisle limit?",
                   "Does {R} respect the shared-aisle speed cap?", "Is {R} inside the shared-aisle limit?"),
    "q_speed_cmp": ("Is {R} moving {op}?", "Is {R}'s speed {op}?", "Is {R} travelling {op}?", "Is {R} going {op}?",
                    "Is the speed of {R} {op}?", "Is {R} driving {op}?"),
    "q_fl_crossing": ("Is {F} crossing?", "Is {F} in the aisle right now?", "Is forklift {F} crossing the aisle?",
                      "Is {F} on the move across the aisle?", "Is there cross traffic from {F}?", "Is {F} cutting across?",
                      "Is {F} in the crossing?", "Is forklift {F} in the aisle?"),
    "q_fl_notcrossing": ("Is it true that {F} is not in the aisle?", "Is it true that forklift {F} is not crossing?",
                         "Is {F} clear of the aisle?", "Is {F} out of the aisle?", "Can we say {F} is not crossing?",
                         "Is it correct that {F} isn't crossing?"),
    "q_fl_parked": ("Is {F} parked?", "Is forklift {F} parked up?", "Is {F} stationary and parked?",
                    "Is {F} sitting parked?", "Is {F} at rest, parked?", "Is forklift {F} parked at the moment?"),
    "q_fl_state": ("What is {F} doing?", "What's the status of forklift {F}?", "Current activity of {F}?",
                   "What is forklift {F} up to?", "Which state is {F} in?", "What is {F} doing right now?"),
    "q_sens_bad": ("Is the {S} degraded?", "Is the {S} faulty?", "Is the {S} running degraded?",
                   "Does the {S} have a fault?", "Is the {S} impaired?", "Is the {S} reported degraded?",
                   "Is there a problem with the {S}?"),
    "q_sens_ok": ("Is the {S} healthy?", "Is the {S} OK?", "Is the {S} working normally?", "Is the {S} in good health?",
                  "Is the {S} fully functional?", "Is the {S} reported OK?"),
    "q_sens_notbad": ("Is it true that the {S} is not degraded?", "Is the {S} free of faults?",
                      "Can we say the {S} is not degraded?", "Is it correct that the {S} isn't degraded?",
                      "Is the {S} fault-free?"),
    "q_estop": ("Is the E-stop on {R} pressed?", "Is {R}'s emergency stop active?", "Is {R} E-stopped?",
                "Is the e-stop engaged on {R}?", "Is {R}'s E-stop still in?", "Is an emergency stop active on {R}?"),
    "q_lane": ("Which lane is {R} in?", "What lane is {R} using?", "{R} is in which lane?", "Lane of {R}?",
               "Which lane is {R} travelling in?", "In which lane is {R} driving?"),
    "q_sens_state": ("What is the status of the {S}?", "{S} status?", "How is the {S} doing?",
                     "What state is the {S} in?", "Current health of the {S}?", "What's the {S} reporting?"),
    "q_estop_state": ("What is the state of {R}'s E-stop?", "{R} E-stop status?", "Where does the E-stop on {R} stand?",
                      "E-stop on {R}: what state?", "What's the status of {R}'s emergency stop?"),
    "q_estop_rel": ("Has the E-stop on {R} been reset?", "Is {R}'s E-stop released?", "Is the e-stop on {R} cleared?",
                    "Is {R}'s emergency stop reset?", "Is {R}'s E-stop out?"),
    # ---------------------------------------------------------------- fleets: alike readings of several robots
    "s_fleet_head": ("Fleet status, {z}", "Fleet summary for {z}", "{z} fleet snapshot", "Robots in {z}",
                     "{z}: robot fleet report", "Fleet overview ({z})", "AGV fleet in {z}"),
    "s_fobst": ("{R}: obstacle at {d}", "{R} obstacle {d} ahead", "obstacle {d} ahead of {R}",
                "{R} sees an object at {d}", "{R} front obstacle range {d}", "{R}: nearest obstacle {d}",
                "{R} has an obstacle at {d}", "object {d} in front of {R}"),
    "s_fperson": ("{R}: nearest person {d}", "person {d} from {R}", "{R} sees a person at {d}",
                  "{R} pedestrian range {d}", "closest person to {R} at {d}", "{R}: human detected at {d}"),
    "f_obstacle": ("has an obstacle {x}", "has an object {x}", "sees an obstacle {x}", "has something in front {x}",
                   "detects an obstacle {x}"),
    "f_person": ("has a person {x}", "sees a person {x}", "has a pedestrian {x}", "detects someone {x}",
                 "has somebody {x}"),
    "f_battery": ("has a battery level {x}", "has its charge {x}", "has a state of charge {x}",
                  "reports a battery {x}", "shows a battery level {x}"),
    "f_speed": ("is driving {x}", "is moving {x}", "is travelling {x}", "is doing {x}", "is running {x}"),
    "fp_obstacle": ("have an obstacle {x}", "have an object {x}", "see an obstacle {x}",
                    "have something in front {x}", "detect an obstacle {x}"),
    "fp_person": ("have a person {x}", "see a person {x}", "have a pedestrian {x}", "detect someone {x}",
                  "have somebody {x}"),
    "fp_battery": ("have a battery level {x}", "have their charge {x}", "have a state of charge {x}",
                   "report a battery {x}", "show a battery level {x}"),
    "fp_speed": ("drive {x}", "move {x}", "travel {x}", "go {x}", "run {x}"),
    "fpl_speed": ("are driving {x}", "are moving {x}", "are travelling {x}", "are doing {x}", "are running {x}"),
    "q_fleet_count": ("How many of {rs} {pl}?", "How many robots {pl}?", "Of {rs}, how many {pl}?",
                      "How many of the robots {pl}?", "In total, how many of {rs} {pl}?",
                      "How many robots in the report {pl}?"),
    "q_fleet_which": ("Which robot {sg}?", "Which of {rs} {sg}?", "Which one of {rs} {sg}?",
                      "Which robot, if any, {sg}?", "Among {rs}, which one {sg}?", "Which of the robots {sg}?"),
    "q_fleet_any": ("Do any of {rs} {base}?", "Does any robot {base}?", "Does at least one of {rs} {base}?",
                    "Do any of the robots {base}?", "Is there a robot that {sg}?", "Does any of {rs} {base}?"),
    "q_fleet_none": ("Do none of {rs} {base}?", "Is it the case that no robot {sg}?", "Does no robot {base}?",
                     "Is there no robot that {sg}?", "Do none of the robots {base}?"),
    "q_fleet_all": ("Do all of {rs} {base}?", "Does every robot {base}?", "Do all the robots {base}?",
                    "Does each of {rs} {base}?", "Does every one of {rs} {base}?"),
    "q_fleet_least": ("Do at least {k} of {rs} {base}?", "Do {k} or more robots {base}?",
                      "Are there at least {k} robots that {pl}?", "Do at least {k} of the robots {base}?",
                      "Do {k} or more of {rs} {base}?"),
    "q_fobst": ("Is {R}'s obstacle {x}?", "Does {R} have an obstacle {x}?", "Is the obstacle ahead of {R} {x}?",
                "Is {R}'s nearest obstacle {x}?", "Is something {x} in front of {R}?"),
    "q_fperson": ("Does {R} have a person {x}?", "Is {R}'s nearest person {x}?", "Is the closest person to {R} {x}?",
                  "Has {R} detected someone {x}?", "Is the person nearest {R} {x}?"),
    # ---------------------------------------------------------------- comparison phrases
    # generic values (levels, pressures, battery, speed): {x} carries its unit
    "op_>": ("above {x}", "over {x}", "higher than {x}", "more than {x}", "greater than {x}", "in excess of {x}"),
    "op_>=": ("at least {x}", "{x} or more", "at or above {x}", "no less than {x}", "not below {x}", "{x} or higher"),
    "op_<": ("below {x}", "under {x}", "less than {x}", "lower than {x}", "beneath {x}", "short of {x}"),
    "op_<=": ("at most {x}", "{x} or less", "at or below {x}", "no more than {x}", "not above {x}", "{x} or lower"),
    # distances
    "opd_<": ("closer than {x}", "nearer than {x}", "less than {x} away", "under {x} away", "inside {x}"),
    "opd_<=": ("within {x}", "{x} or closer", "no more than {x} away", "at most {x} away", "no further than {x} away"),
    "opd_>": ("more than {x} away", "further than {x} away", "beyond {x}", "farther than {x} away", "over {x} away"),
    "opd_>=": ("at least {x} away", "{x} or more away", "no closer than {x}", "not closer than {x}",
               "{x} away or more"),
    # counts of persons
    "opc_>": ("more than {x}", "over {x}", "above {x}", "in excess of {x}", "greater than {x}"),
    "opc_>=": ("at least {x}", "{x} or more", "no fewer than {x}", "not less than {x}", "a minimum of {x}"),
    "opc_<": ("fewer than {x}", "less than {x}", "under {x}", "below {x}", "short of {x}"),
    "opc_<=": ("at most {x}", "no more than {x}", "{x} or fewer", "not more than {x}", "up to {x}"),
    # ---------------------------------------------------------------- wordings of values
    "w_HH": ("HH", "high-high", "hi-hi", "HH", "HIHI", "high high"),
    "w_H": ("H", "high", "hi", "H", "HI", "high"),
    "w_L": ("L", "low", "lo", "L", "LO", "low"),
    "w_LL": ("LL", "low-low", "lo-lo", "LL", "LOLO", "low low"),
    "w_cm_manual": ("manual", "MAN", "manual mode", "manual", "hand", "manual control"),
    "w_cm_auto": ("auto", "AUTO", "automatic", "auto mode", "automatic mode", "AUTO"),
    "w_cm_cascade": ("cascade", "CAS", "cascade mode", "cascade", "remote setpoint", "CAS mode"),
    "w_rm_autonomous": ("AUTO", "autonomous", "auto", "AUTONOMOUS", "self-driving", "autonomous"),
    "w_rm_manual": ("MANUAL", "manual", "manual", "MAN", "jog", "manual"),
    "w_rm_teach": ("TEACH", "teach", "teach", "teach-in", "TEACH-IN", "teach"),
    "w_rm_emergency stop": ("E-STOP", "emergency stop", "ESTOP", "E-stop", "EMERGENCY", "emergency stop"),
    "w_rm_charging": ("CHARGING", "charging", "charge", "CHRG", "charge mode", "charging"),
}
base.add_phrasings(T, phrasings.MORE)  # training sets only (Style.more)

SHIFTS = ("day", "night", "early", "late", "morning", "evening")

# ============================================================================ lexicon
# Each pool is a tuple; base.names draws from its first 75% (seen) or its last 25% (novel).


def _tags(prefixes: Sequence[str], numbers: Sequence[str]) -> tuple[str, ...]:
    return tuple(f"{p}-{n}" for p in prefixes for n in numbers)


_N3 = tuple(f"{a}{b:02d}" for a in (1, 2, 3) for b in range(1, 19))           # 101..118, 201..218, 301..318
_N3B = tuple(f"{a}{b:02d}" for a in (1, 2, 3, 4) for b in range(1, 13))       # 101..112 ... 401..412
_DERIVED_PLANT = (
    ("hot work in area {n}", ("suspended",)), ("truck loading at bay {n}", ("on hold", "suspended")),
    ("sampling at SP-{n}", ("on hold",)), ("transfer to T-{n}0{n}", ("blocked", "on hold")),
    ("access to area {n}", ("restricted",)), ("confined space entry at D-{n}0{n}", ("suspended",)),
    ("the feed to T-{n}0{n}", ("blocked", "cut")), ("the callout for area {n}", ("required",)),
    ("export via line {n}", ("paused", "blocked")), ("the cleaning job on E-{n}0{n}", ("on hold",)),
    ("draining to OWS-{n}", ("blocked",)), ("night work in area {n}", ("paused",)),
    ("the permit for E-{n}1{n}", ("suspended", "cancelled")), ("rundown to T-{n}1{n}", ("blocked",)),
    ("the turnaround scope for area {n}", ("frozen",)), ("blending into T-{n}2{n}", ("paused",)),
)
_DERIVED_ROBOT = (
    ("localisation on deck {n}", ("unreliable",)), ("the path to dock {n}", ("blocked", "unavailable")),
    ("service road {n}", ("closed", "blocked")), ("the crossing at aisle {n}", ("busy",)),
    ("the route via aisle {n}", ("unavailable",)), ("fleet traffic in aisle {n}", ("paused",)),
    ("the safety field of cell {n}", ("violated",)), ("charger C{n}", ("unavailable", "reserved")),
    ("the handover station S{n}", ("blocked",)), ("docking at D{n}", ("suspended",)),
    ("mission M-{n}0{n}", ("paused", "on hold")), ("the pick task at rack R{n}", ("on hold",)),
    ("the lift in bay {n}", ("locked",)), ("the shortcut through aisle {n}", ("closed",)),
    ("inbound traffic at gate {n}", ("held",)), ("the ramp to level {n}", ("restricted",)),
)


def _derived_pool(table) -> tuple[str, ...]:
    return tuple(f"{subject.format(n=n)}|{adj}" for subject, adjs in table for n in range(1, 10) for adj in adjs)


POOLS: dict[str, tuple[str, ...]] = {
    "pump": _tags(("P", "G", "PA", "PC", "PM", "GA", "PX", "GB"), _N3),
    "valve": _tags(("V", "XV", "HV", "MOV", "FV", "LV", "SDV", "BDV"), tuple(str(n) for n in range(10, 50))),
    "transmitter": _tags(("LT", "PT", "TT", "FT", "LI", "PI", "AT", "DPT"), _N3B),
    "controller": _tags(("FIC", "LIC", "PIC", "TIC", "FC", "LC", "AIC", "PDIC"), _N3),
    "equipment": _tags(("E", "D", "T", "TK", "F", "K", "C", "R"), _N3),
    "unit": ("Unit 100", "Unit 200", "Unit 300", "Unit 400", "Unit 500", "Unit 600", "the crude unit",
             "the hydrotreater", "the amine unit", "the sulphur plant", "the reformer", "the vacuum unit",
             "the isomerisation unit", "the polymer line", "the boiler house", "the water treatment plant",
             "the alkylation unit", "the coker", "Unit 700", "Unit 800", "the cracker", "the gas plant",
             "the visbreaker", "the merox unit"),
    "trip_reason": ("low suction pressure", "high vibration", "motor overload", "high bearing temperature",
                    "seal leak alarm", "low flow", "high discharge pressure", "loss of power", "earth fault",
                    "low lube oil pressure", "high motor current", "low level in the suction drum",
                    "overcurrent", "high winding temperature", "a spurious ESD signal", "low seal pot level",
                    "dry running", "a VFD fault", "cavitation", "thermal overload relay",
                    "phase imbalance", "a blown fuse", "low NPSH", "an MCC fault"),
    "oos_work": ("seal replacement", "bearing change", "alignment check", "strainer cleaning",
                 "coupling inspection", "motor rewind", "impeller change", "vibration survey", "oil change",
                 "PM routine", "gasket replacement", "motor megger test", "painting", "base plate repair",
                 "a mechanical seal flush", "guard modification"),
    "valve_purpose": ("draining", "flushing", "sampling", "venting", "steam-out", "line-up to the flare",
                      "water draw-off", "nitrogen purge", "pressure test", "tank transfer", "bypass warm-up",
                      "hydrotest fill", "dewatering", "filter changeover", "pigging", "depressuring"),
    "ctrl_reason": ("tuning", "a valve stroke test", "a transmitter check", "start-up", "a bump test",
                    "unstable flow", "a calibration", "operator request"),
    "robot": _tags(("AGV", "AMR", "LGV", "RB", "TUG", "MR", "ART", "CRT"), tuple(f"{n:02d}" for n in range(1, 61))),
    "forklift": _tags(("FL", "FLT", "RT", "RS", "CB", "VNA", "HFL", "OPL"), tuple(str(n) for n in range(1, 41))),
    "zone": tuple(f"{letter}{suffix}" for letter in "ABCDEFGHJKLM" for suffix in ("", "1", "2", "3", "4")),
    "sensor": ("front lidar", "rear lidar", "safety scanner", "3D camera", "front bumper", "ultrasonic array",
               "left scanner", "right scanner", "depth camera", "IMU", "wheel encoder", "nav camera",
               "ToF camera", "radar", "fisheye camera", "rear bumper"),
    "derived_plant": _derived_pool(_DERIVED_PLANT),
    "derived_robot": _derived_pool(_DERIVED_ROBOT),
}

PUMP_STATES = ("running", "on standby", "stopped", "tripped", "out of service")
VALVE_STATES = ("open", "closed")
CTRL_MODES = ("manual", "auto", "cascade")
ALARM_STATES = ("active, not acknowledged", "active, acknowledged", "returned to normal")
ALARM_LEVELS = ("HH", "H", "L", "LL")
UNIT_MODES = ("normal rate", "reduced rate", "hot standby", "shutdown")
ROBOT_MODES = ("autonomous", "manual", "teach", "emergency stop", "charging")
ACTIONS = ("stop", "wait", "slow down", "reroute", "return to dock", "continue")
FORKLIFT_STATES = ("crossing", "parked", "loading")
SENSOR_STATES = ("OK", "degraded")
ESTOP_STATES = ("pressed", "released")
LANES = tuple(str(i) for i in range(1, 13))
MEASURE = {"LT": ("level", "%"), "LI": ("level", "%"), "PT": ("pressure", " barg"), "PI": ("pressure", " barg"),
           "TT": ("temperature", " degC"), "FT": ("flow", " m3/h"), "AT": ("analyser reading", " ppm"),
           "DPT": ("differential pressure", " mbar")}
DECIMAL_PREFIXES = ("PT", "PI")  # readings in tenths (one decimal)
TENTHS = ("obstacle", "person", "speed")  # robot quantities in tenths (metres, m/s)


# ============================================================================ evaluation
# Exact, testable pieces first.

def compare(value: int, op: str, limit: int) -> bool:
    """`value op limit` on integers (tenths for decimals): "<" strict ("closer than"),
    "<=" inclusive ("within", "at most"), ">" strict ("above"), ">=" inclusive ("at least")."""
    if op == "<":
        return value < limit
    if op == "<=":
        return value <= limit
    if op == ">":
        return value > limit
    if op == ">=":
        return value >= limit
    raise ValueError(f"unknown comparison {op!r}")


def latest(entries: Sequence[tuple[int, str]]) -> str | None:
    """The value of the latest entry (highest order) about a thing; None if there is none."""
    best = None
    for order, value in entries:
        if best is None or order > best[0]:
            best = (order, value)
    return None if best is None else best[1]


def alarm_status(events: Sequence[str]) -> tuple[str | None, bool]:
    """(state, acknowledged) of one alarm from its events in time order ("ALM", "ACK", "RTN").
    A new ALM makes it active and unacknowledged; an ACK acknowledges the standing alarm but
    leaves it active; only an RTN clears it. State None: never raised."""
    state, acked = None, False
    for e in events:
        if e == "ALM":
            state, acked = "active", False
        elif e == "ACK":
            if state is not None:
                acked = True
        elif e == "RTN":
            if state is not None:
                state = "rtn"
        else:
            raise ValueError(f"unknown alarm event {e!r}")
    if state is None:
        return None, False
    if state == "rtn":
        return ALARM_STATES[2], acked
    return (ALARM_STATES[1] if acked else ALARM_STATES[0]), acked


def first_match(cases: Sequence[tuple[Sequence[bool], str]], otherwise: str | None) -> str | None:
    """Priority: the value of the first case whose conditions all hold, else `otherwise`."""
    for conds, value in cases:
        if all(conds):
            return value
    return otherwise


def tenths(v: int) -> str:
    return f"{v // 10}.{v % 10}"


@dataclass
class Rule:
    sentence: int
    conds: list
    concl: tuple


@dataclass
class CaseList:
    var: Hashable
    cases: list  # (sentence, conditions, value), in priority order
    otherwise: tuple[int, str] | None = None


@dataclass
class World:
    """The sentences of a report and what each one states, for exact evaluation.

    - sets: (sentence, order, var, value): a log entry or a stated state; the latest wins
    - alarms: (sentence, order, (tag, level), "ALM" | "ACK" | "RTN")
    - readings: (sentence, order, (measure, subject), int); the latest wins. A subject
      ("@", var) is resolved through var's value (the lane the robot is in).
    - limits: (sentence, name, int)
    - defaults, defs (Rule / CaseList): for base.Program
    - duties: (var, status var A, status var B, name A, name B): which pump of a pair runs
    - atoms: the computed atoms rules and questions use: ("is", var, value),
      ("any", kind, value), ("active" | "acked", tag, level), ("cmp", qty, op, threshold)
      where threshold is an int or ("limit", name); ("fleet", "any" | "all" | "least", qtys, op,
      threshold, k): how many of several alike readings pass one threshold
    - fleet: categorical variables over several alike readings: how many pass a threshold
      (words[count]), or which one does (words = (none, more than one))
    """

    sentences: list[str] = field(default_factory=list)
    sets: list = field(default_factory=list)
    alarms: list = field(default_factory=list)
    readings: list = field(default_factory=list)
    limits: list = field(default_factory=list)
    defaults: list = field(default_factory=list)
    defs: list = field(default_factory=list)
    duties: list = field(default_factory=list)
    atoms: dict = field(default_factory=dict)
    program_vars: dict = field(default_factory=dict)
    fleet: list = field(default_factory=list)  # (var, "count" | "which", qtys, op, threshold, words)
    clock: int = 0

    def say(self, text: str) -> int:
        self.sentences.append(text)
        return len(self.sentences) - 1

    def _tick(self) -> int:
        self.clock += 1
        return self.clock

    def set(self, s: int, var: Hashable, value: str) -> None:
        self.sets.append((s, self._tick(), var, value))

    def alarm(self, s: int, key: tuple, event: str) -> None:
        self.alarms.append((s, self._tick(), key, event))

    def reading(self, s: int, qty: tuple, value: int) -> None:
        self.readings.append((s, self._tick(), qty, value))

    def limit(self, s: int, name: str, value: int) -> None:
        self.limits.append((s, name, value))

    def default(self, s: int | None, var: Hashable, value: str) -> None:
        self.defaults.append((s, var, value))
        self.program_vars[var] = None

    def rule(self, s: int, conds: list, concl: tuple) -> None:
        self.defs.append(Rule(s, list(conds), concl))
        if not isinstance(concl[1], bool):
            self.program_vars[concl[0]] = None

    def cases(self, var: Hashable, cases: list, otherwise: tuple[int, str] | None) -> None:
        self.defs.append(CaseList(var, list(cases), otherwise))
        self.program_vars[var] = None

    def need(self, atom: tuple) -> tuple:
        self.atoms[atom] = None
        return atom


@dataclass
class Eval:
    solved: dict
    vals: dict        # var -> (value, sentences that state it)
    atom_sents: dict  # computed atom -> sentences it was computed from


def current_reading(w: World, vals: dict, qty: tuple, drop: frozenset[int] | set[int] = frozenset()
                    ) -> tuple[int, int, int] | None:
    """(order, value, sentence) of the latest reading of `qty` not in `drop`, a subject ("@", var)
    read through var's value in `vals` (Eval.vals); None when nothing reads it."""
    measure, subject = qty
    if isinstance(subject, tuple) and subject[:1] == ("@",):
        got = vals.get(subject[1])
        if got is None:
            return None
        subject = got[0]
    best = None
    for s, order, q, value in w.readings:
        if s not in drop and q == (measure, subject) and (best is None or order > best[0]):
            best = (order, value, s)
    return best


def evaluate(w: World, drop: frozenset[int] | set[int] = frozenset(), pins: dict | None = None) -> Eval:
    """Solve the world with the sentences in `drop` deleted and the answers in `pins`
    (atom -> bool, var -> value) imposed, as a revealed answer stands in for its sentence."""
    pins = pins or {}
    vals: dict = {}
    for s, order, var, value in w.sets:
        if s in drop:
            continue
        if var not in vals or order > vals[var][2]:
            vals[var] = (value, (s,), order)
    events: dict = {}
    for s, order, key, ev in w.alarms:
        if s not in drop:
            events.setdefault(key, []).append((order, ev, s))
    acked: dict = {}
    for key, evs in events.items():
        evs.sort()
        state, ack = alarm_status([e for _, e, _ in evs])
        if state is not None:
            vals[("alarm",) + key] = (state, (evs[-1][2],), evs[-1][0])
            acked[key] = ack
    duty_vars = {d[0] for d in w.duties}
    for var, v in pins.items():
        if not isinstance(v, bool) and var not in w.program_vars and var not in duty_vars:
            vals[var] = (v, (), 0)
    for dvar, va, vb, na, nb in w.duties:
        a, b = vals.get(va), vals.get(vb)
        run_a, run_b = a is not None and a[0] == "running", b is not None and b[0] == "running"
        value = na if run_a else nb if run_b else "neither"
        vals[dvar] = (value, tuple(x[1][0] for x in (a, b) if x is not None and x[1]), 0)
        if dvar in pins:
            vals[dvar] = (pins[dvar], (), 0)

    def reading(qty):
        return current_reading(w, vals, qty, drop)

    def limit(name):
        for s, n, value in w.limits:
            if s not in drop and n == name:
                return value, s
        return None

    p = base.Program()
    for var, (value, sents, _) in vals.items():
        p.value(var, value, sents[0] if sents else None)
    atom_sents: dict = {}
    for atom in w.atoms:
        kind = atom[0]
        truth, sents = False, ()
        if kind == "is":
            got = vals.get(atom[1])
            truth, sents = got is not None and got[0] == atom[2], (got[1] if got else ())
        elif kind == "any":
            hits = [got for var, got in vals.items() if isinstance(var, tuple) and var[:1] == (atom[1],)
                    and got[0] == atom[2]]
            truth, sents = bool(hits), tuple(s for got in hits for s in got[1])
        elif kind in ("active", "acked"):
            got = vals.get(("alarm",) + atom[1:])
            if got is not None:
                sents = got[1]
                if kind == "active":
                    truth = got[0] != ALARM_STATES[2]
                else:
                    truth = {ALARM_STATES[0]: False, ALARM_STATES[1]: True}.get(got[0], acked.get(atom[1:], False))
        elif kind == "fleet":
            _, how, qtys, op, thr, k = atom
            got = [reading(q) for q in qtys]
            hits = sum(x is not None and compare(x[1], op, thr) for x in got)
            truth = {"any": hits >= 1, "all": hits == len(qtys), "least": hits >= k}[how]
            sents = tuple(x[2] for x in got if x is not None)
        elif kind == "cmp":
            _, qty, op, thr = atom
            got = reading(qty)
            lim = (thr, None) if isinstance(thr, int) else limit(thr[1])
            if got is not None and lim is not None:
                truth = compare(got[1], op, lim[0])
                sents = (got[2],) + ((lim[1],) if lim[1] is not None else ())
        else:
            raise ValueError(f"unknown atom {atom!r}")
        p.fact(atom, truth, sents[0] if sents else None)
        atom_sents[atom] = sents
    for var, how, qtys, op, thr, words in w.fleet:
        got = [reading(q) for q in qtys]
        hits = [q[1] for q, x in zip(qtys, got) if x is not None and compare(x[1], op, thr)]
        value = words[len(hits)] if how == "count" else hits[0] if len(hits) == 1 else words[bool(hits)]
        sents = tuple(x[2] for x in got if x is not None)
        vals[var] = (pins.get(var, value), sents, 0)
        p.value(var, vals[var][0], sents[0] if sents else None)
    for s, var, value in w.defaults:
        if s is None or s not in drop:
            p.default(var, value, s)
    for d in w.defs:
        if isinstance(d, Rule):
            if d.sentence not in drop:
                p.rule(d.conds, d.concl, d.sentence)
        else:
            cases = [(conds, value, s) for s, conds, value in d.cases if s not in drop]
            other = d.otherwise if d.otherwise is not None and d.otherwise[0] not in drop else None
            p.cases(d.var, cases, other[1] if other else None, other[0] if other else None)
    for key, v in pins.items():
        if isinstance(v, bool):
            p.fact(key, v)
        elif key in w.program_vars:
            p.value(key, v)
    return Eval(p.solve(), vals, atom_sents)


def answer_of(target: tuple, ev: Eval) -> tuple[bool | str | None, int]:
    """(answer, depth) of a question target: ("atom", key, negated), ("eq", var, value,
    negated) or ("cat", var, domain)."""
    if target[0] == "atom":
        got = ev.solved.get(target[1])
        truth = got is not None and got.value is True
        return truth != target[2], (got.depth if got is not None else 0)
    got = ev.solved.get(target[1])
    if target[0] == "eq":
        truth = got is not None and got.value == target[2]
        return truth != target[3], (got.depth if got is not None else 0)
    return (got.value if got is not None else None), (got.depth if got is not None else 0)


def _pins(target: tuple, answer) -> dict:
    if target[0] == "atom":
        return {target[1]: answer != target[2]}
    if target[0] == "eq":
        return {target[1]: target[2]} if answer != target[3] else {}
    return {target[1]: answer}


def _establishing(target: tuple, ev: Eval) -> list[int]:
    """Sentences that state answer's fact: the latest entry, the reading (then the limit), the
    alarm's latest event, or the rule / case that concluded it."""
    key = target[1]
    if target[0] == "atom" and key in ev.atom_sents:
        return list(dict.fromkeys(ev.atom_sents[key]))
    if target[0] != "atom" and key in ev.vals:
        return list(dict.fromkeys(ev.vals[key][1]))
    got = ev.solved.get(key)
    return [got.support] if got is not None and got.support is not None else []


def support_of(w: World, targets: Sequence[tuple], answers: Sequence, i: int, ev: Eval) -> int | None:
    """The sentence answer i can stand in for: deleting it, with answer i revealed, leaves
    every other answer unchanged (so still determined). None if there is none."""
    for s in _establishing(targets[i], ev):
        ev2 = evaluate(w, frozenset((s,)), _pins(targets[i], answers[i]))
        if all(answer_of(targets[j], ev2)[0] == answers[j] for j in range(len(targets)) if j != i):
            return s
    return None


def _keys_of(key: Hashable) -> set:
    out = {key}
    if isinstance(key, tuple) and key[:1] == ("is",):
        out.add(key[1])
    if isinstance(key, tuple) and key[:1] in (("active",), ("acked",)):
        out.add(("alarm",) + key[1:])
    return out


def is_chained(w: World, targets: Sequence[tuple]) -> bool:
    """Some asked answer follows by a rule (or case list) from another asked answer."""
    asked = set()
    for t in targets:
        asked |= _keys_of(t[1])
    for d in w.defs:
        concl = d.concl[0] if isinstance(d, Rule) else d.var
        conds = d.conds if isinstance(d, Rule) else [c for _, cs, _ in d.cases for c in cs]
        if concl in asked and any(_keys_of(k) & asked for k, _ in conds):
            return True
    return False


# ============================================================================ lexicon draws

def _part(pool: Sequence[str], style: Style) -> Sequence[str]:
    """The part of a pool a style may use (the same cut as base.names)."""
    cut = max(1, int(len(pool) * 0.75))
    return pool[cut:] if style.novel and cut < len(pool) else pool[:cut]


def _choose(rng: random.Random, style: Style, pool: str, avoid: set[str] | frozenset[str] = frozenset()) -> str:
    """A name from POOLS[pool] (via base.names), avoiding names already used in the set."""
    name = base.names(rng, POOLS[pool], style)
    for _ in range(30):
        if name not in avoid:
            break
        name = base.names(rng, POOLS[pool], style)
    return name


def _similar(a: str, b: str) -> bool:
    """Tags that differ by one character, or by two adjacent characters swapped (P-101 / P-110)."""
    if a == b:
        return False
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        if len(diff) == 1:
            return True
        return len(diff) == 2 and diff[1] == diff[0] + 1 and a[diff[0]] == b[diff[1]] and a[diff[1]] == b[diff[0]]
    if abs(len(a) - len(b)) == 1:
        short, long_ = (a, b) if len(a) < len(b) else (b, a)
        return any(long_[:i] + long_[i + 1:] == short for i in range(len(long_)))
    return False


def _lookalike(rng: random.Random, style: Style, pool: str, like: str,
               avoid: set[str] | frozenset[str] = frozenset()) -> str:
    """A name of the same pool part that looks like `like` (FT-204 / FT-240), else any name."""
    part = _part(POOLS[pool], style)
    near = [t for t in part if _similar(t, like) and t not in avoid and t.split("-")[0] == like.split("-")[0]]
    if near:
        return rng.choice(near)
    return _choose(rng, style, pool, set(avoid) | {like})


# ============================================================================ generator

@dataclass
class Ask:
    text: str
    target: tuple
    group: Hashable
    domain: tuple = ()


@dataclass
class Lit:
    """A condition a rule can use: key (atom or variable), wanted value, how to phrase it,
    how to ask about it, its rule depth, and the actions a policy would sensibly tie to it."""

    key: Hashable
    want: bool | str | None
    phrase: Callable[[], str] | None
    ask: Callable[[], Ask] | None
    depth: int = 0
    acts: tuple[str, ...] = ()
    atom: bool = True

    def lit(self) -> tuple:
        return (self.key, self.want)


def _lit_holds(lit: Lit, ev: Eval) -> bool:
    got = ev.solved.get(lit.key)
    if isinstance(lit.want, bool):
        return (got is not None and got.value is True) == lit.want
    return got is not None and got.value == lit.want


class _Gen:
    def __init__(self, rng: random.Random, style: Style, n: int, max_links: int, size: int):
        self.rng, self.style, self.n, self.L, self.size = rng, style, n, max_links, size
        self.w = World()
        self.asks: list[Ask] = []
        self.lits: list[Lit] = []
        self.paths: list[list[Lit]] = []
        self.used: set[str] = set()
        self.keep = 0
        self.shuffle = "all"
        self.targets: list = []

    # phrasing and names
    def t(self, key: str, **kw) -> str:
        return base.pick(self.rng, T[key], self.style).format(**kw)

    def name(self, pool: str) -> str:
        x = _choose(self.rng, self.style, pool, self.used)
        self.used.add(x)
        return x

    def look(self, pool: str, like: str) -> str:
        x = _lookalike(self.rng, self.style, pool, like, self.used)
        self.used.add(x)
        return x

    def ask(self, text: str, target: tuple, group: Hashable, domain: tuple = ()) -> Ask:
        a = Ask(base.cap(text), target, group, domain)
        self.asks.append(a)
        return a

    def lit(self, key, want, phrase, ask, acts=(), depth=0, atom=True) -> Lit:
        lit = Lit(key, want, phrase, ask, depth, acts, atom)
        if depth == 0 and phrase is not None:
            self.lits.append(lit)
        return lit

    def op(self, family: str, op: str, x: str) -> str:
        return self.t(f"{family}_{op}", x=x)

    def rule_frame(self, conds: list[Lit], concl_text: str, prefix: str, unless: Lit | None = None) -> str:
        a = conds[0].phrase()
        for c in conds[1:]:
            a = self.t("r_and", A=a, B=c.phrase())
        if unless is not None:
            text = self.t("r_unless", A=a, C=concl_text, X=unless.phrase())
        else:
            text = self.t("r_if", A=a, C=concl_text)
        text = base.cap(text)
        if self.rng.random() < 0.5:
            text = base.cap(self.t(prefix) + text)
        return text + "."


def _clock(rng: random.Random, lines: int, start_hours: Sequence[int]) -> list[tuple[int, int, int]]:
    """Strictly increasing (hh, mm, ss) times for `lines` entries within one day."""
    start = rng.choice(start_hours) * 3600 + rng.randint(0, 40) * 60 + rng.randint(0, 59)
    room = 24 * 3600 - 1 - start
    step = max(2, min(40 * 60, room // (lines + 1)))
    out, t = [], start
    for _ in range(lines):
        t += rng.randint(max(1, step // 8), step)
        out.append((t // 3600, (t // 60) % 60, t % 60))
    return out


def _interleave(rng: random.Random, groups: list[list]) -> list:
    """Merge the groups' lines at random, keeping each group's own order."""
    groups = [list(g) for g in groups if g]
    out = []
    while groups:
        weights = [len(g) for g in groups]
        i = rng.choices(range(len(groups)), weights)[0]
        out.append(groups[i].pop(0))
        if not groups[i]:
            groups.pop(i)
    return out


def _options(rng: random.Random, domain: tuple, answer: str) -> tuple[str, ...]:
    k = rng.randint(2, min(8, len(domain)))
    shown = {answer, *rng.sample([v for v in domain if v != answer], k - 1)}
    return tuple(v for v in domain if v in shown)


_TOKEN = re.compile(r"[A-Za-z]+|\d+|[^\w\s]")


def approx_tokens(text: str) -> int:
    """A cautious estimate of WordPiece tokens (numbers and long or capitalised words split)."""
    n = 0
    for piece in _TOKEN.findall(text):
        if piece.isdigit():
            n += (len(piece) + 2) // 3
        elif piece[0].isalpha():
            n += 1 if (len(piece) <= 6 and piece.islower()) else 1 + (len(piece) + 3) // 5
        else:
            n += 1
    return n


def _question_tokens(text: str, options: Sequence[str]) -> int:
    return 1 + approx_tokens(text) + sum(3 + approx_tokens(o) for o in options)


# ============================================================================ plant shift logs
_RANGES = {"LT": (5, 98), "LI": (5, 98), "PT": (5, 150), "PI": (5, 150), "TT": (20, 380), "FT": (5, 480),
           "AT": (1, 400), "DPT": (5, 900)}


def _bare(unit: str) -> str:
    """'the crude unit' -> 'crude unit', for headings ("SOP crude unit: ...")."""
    return unit[4:] if unit.startswith("the ") else unit


def _prefix(tag: str) -> str:
    return tag.split("-")[0]


def _fmt_value(tag: str, v: int) -> str:
    p = _prefix(tag)
    return (tenths(v) if p in DECIMAL_PREFIXES else str(v)) + MEASURE[p][1]


def _value(rng: random.Random, tag: str, where: str = "mid") -> int:
    lo, hi = _RANGES[_prefix(tag)]
    span = hi - lo
    if where == "high":
        return rng.randint(lo + span * 3 // 4, hi)
    if where == "low":
        return rng.randint(lo, lo + span // 4)
    return rng.randint(lo + span // 4, lo + span * 3 // 4)


def _near(rng: random.Random, v: int, step: int, lo: int = 0) -> int:
    """A threshold at v (the edge case) or a few steps either side."""
    return max(lo, v + rng.choice((0, 0, 0, -1, 1, -2, 2, -3, 3)) * step)


def _step(tag: str) -> int:
    lo, hi = _RANGES[_prefix(tag)]
    return max(1, (hi - lo) // 40)


_PUMP_ACTS = ("reduced rate", "hot standby")


def _ask_pump(g: _Gen, P: str, kind: str) -> Ask:
    var = ("status", P)
    need = g.w.need
    if kind == "status":
        return Ask(base.cap(g.t("q_pstatus", P=P)), ("cat", var, PUMP_STATES), P, PUMP_STATES)
    key, neg, q = {"run": ("running", False, "q_run"), "down": ("running", True, "q_down"),
                   "tripped": ("tripped", False, "q_tripped"), "oos": ("out of service", False, "q_oos"),
                   "not_oos": ("out of service", True, "q_not_oos"),
                   "standby": ("on standby", False, "q_standby")}[kind]
    return Ask(base.cap(g.t(q, P=P)), ("atom", need(("is", var, key)), neg), P)


def _pump_lits(g: _Gen, P: str) -> None:
    var, need, rng = ("status", P), g.w.need, g.rng
    g.lit(need(("is", var, "running")), True, lambda: g.t("c_run", P=P),
          lambda: _ask_pump(g, P, rng.choice(("run", "down"))), ("reduced rate",))
    g.lit(need(("is", var, "running")), False, lambda: g.t("c_down", P=P),
          lambda: _ask_pump(g, P, rng.choice(("run", "down"))), _PUMP_ACTS)
    g.lit(need(("is", var, "tripped")), True, lambda: g.t("c_tripped", P=P),
          lambda: _ask_pump(g, P, "tripped"), _PUMP_ACTS)
    g.lit(need(("is", var, "out of service")), True, lambda: g.t("c_oos", P=P),
          lambda: _ask_pump(g, P, rng.choice(("oos", "not_oos"))), ("reduced rate",))
    g.lit(need(("is", var, "on standby")), True, lambda: g.t("c_standby", P=P),
          lambda: _ask_pump(g, P, "standby"), ("normal rate", "reduced rate"))


def _plant_pumps(g: _Gen) -> list:
    rng, w = g.rng, g.w
    tag = g.name("pump")
    A, B = tag + "A", tag + "B"
    g.used |= {A, B}
    st: dict = {A: None, B: None}
    lines: list = []

    def frag(P, value, key, **kw):
        st[P] = value
        return g.t(key, P=P, **kw), (lambda s, P=P, value=value: w.set(s, ("status", P), value))

    duty = rng.choice((A, B))
    other = B if duty == A else A
    if rng.random() < 0.6:
        line = [frag(duty, "running", "s_pump_duty")]
        if rng.random() < 0.6:
            line.append(frag(other, "on standby", "s_pump_standby"))
        lines.append(line)
    for _ in range(rng.randint(1, 3)):
        moves = []
        for P in (A, B):
            if st[P] in (None, "running"):
                moves.append(("trip", P))
            if st[P] in (None, "on standby", "stopped", "tripped"):
                moves.append(("start", P))
            if st[P] == "running":
                moves.append(("stop", P))
            if st[P] in ("stopped", "tripped", "on standby"):
                moves.append(("oos", P))
            if st[P] == "out of service":
                moves.append(("rts", P))
        move, P = rng.choice(moves)
        Q = B if P == A else A
        if move == "trip":
            line = [frag(P, "tripped", "s_pump_trip", why=g.name("trip_reason"))]
            if st[Q] not in ("running", "out of service") and rng.random() < 0.7:
                line.append(frag(Q, "running", "s_pump_start"))
        elif move == "start":
            line = [frag(P, "running", "s_pump_start")]
            if st[Q] == "running" and rng.random() < 0.7:
                line.append(frag(Q, "on standby", "s_pump_standby") if rng.random() < 0.5
                            else frag(Q, "stopped", "s_pump_stop"))
        elif move == "stop":
            line = [frag(P, "on standby", "s_pump_standby") if rng.random() < 0.3 else frag(P, "stopped", "s_pump_stop")]
        elif move == "oos":
            line = [frag(P, "out of service", "s_pump_oos", work=g.name("oos_work"))]
        else:
            line = [frag(P, "on standby", "s_pump_rts")]
        lines.append(line)
    if st[A] == st[B] == "running":
        P = rng.choice((A, B))
        lines.append([frag(P, "stopped", "s_pump_stop")])
    for P in (A, B):
        for kind in rng.sample(("run", "down", "tripped", "oos", "not_oos", "standby"), 2) + ["status"]:
            g.asks.append(_ask_pump(g, P, kind))
        _pump_lits(g, P)
    w.duties.append((("duty", tag), ("status", A), ("status", B), A, B))
    dom = (A, B, "neither")
    g.asks.append(Ask(base.cap(g.t("q_duty", B=tag, A=A, A2=B)), ("cat", ("duty", tag), dom), tag, dom))
    if rng.random() < 0.35:  # a pump of another unit with a similar tag
        L = g.look("pump", tag) + rng.choice("AB")
        g.used.add(L)
        if rng.random() < 0.5:
            lines.insert(rng.randint(0, len(lines)), [(g.t("s_pump_mention", P=L), None)])
        else:
            value, key = rng.choice((("running", "s_pump_start"), ("stopped", "s_pump_stop"), ("tripped", "s_pump_trip")))
            lines.insert(rng.randint(0, len(lines)), [(g.t(key, P=L, why=g.name("trip_reason")),
                                                       lambda s, L=L, value=value: w.set(s, ("status", L), value))])
        g.asks.append(_ask_pump(g, L, rng.choice(("run", "run", "down", "tripped"))))
    return lines


def _ask_valve(g: _Gen, V: str, kind: str) -> Ask:
    var = ("pos", V)
    if kind == "pos":
        return Ask(base.cap(g.t("q_vpos", V=V)), ("cat", var, VALVE_STATES), V, VALVE_STATES)
    key, neg, q = {"open": ("open", False, "q_vopen"), "shut": ("closed", False, "q_vshut"),
                   "notopen": ("open", True, "q_vnotopen"), "notshut": ("closed", True, "q_vnotshut")}[kind]
    return Ask(base.cap(g.t(q, V=V)), ("atom", g.w.need(("is", var, key)), neg), V)


def _plant_valve(g: _Gen) -> list:
    rng, w = g.rng, g.w
    V = g.name("valve")
    why = g.name("valve_purpose")
    seq = rng.choice((("open",), ("open", "closed"), ("closed",), ("open", "closed", "open"), ("closed", "open"),
                      ("open", "closed"), ("open", "open", "closed")))
    lines = []
    for value in seq:
        key = "s_valve_open" if value == "open" else "s_valve_close"
        lines.append([(g.t(key, V=V, why=why), lambda s, value=value: w.set(s, ("pos", V), value))])
    for kind in rng.sample(("open", "shut", "notopen", "notshut"), 2) + ["pos"]:
        g.asks.append(_ask_valve(g, V, kind))
    var = ("pos", V)
    g.lit(w.need(("is", var, "open")), True, lambda: g.t("c_vopen", V=V),
          lambda: _ask_valve(g, V, rng.choice(("open", "notopen"))), ("reduced rate", "hot standby"))
    g.lit(w.need(("is", var, "open")), False, lambda: g.t("c_vnotopen", V=V),
          lambda: _ask_valve(g, V, rng.choice(("open", "notopen", "shut"))), ("reduced rate",))
    g.lit(w.need(("is", var, "closed")), True, lambda: g.t("c_vshut", V=V),
          lambda: _ask_valve(g, V, rng.choice(("shut", "notshut"))), ("reduced rate", "hot standby"))
    if rng.random() < 0.3:  # a valve with a similar tag
        L = g.look("valve", V)
        value = rng.choice(VALVE_STATES)
        key = "s_valve_open" if value == "open" else "s_valve_close"
        lines.insert(rng.randint(0, len(lines)), [(g.t(key, V=L, why=g.name("valve_purpose")),
                                                   lambda s, L=L, value=value: w.set(s, ("pos", L), value))])
        g.asks.append(_ask_valve(g, L, rng.choice(("open", "shut"))))
    return lines


def _ask_ctrl(g: _Gen, C: str, kind: str, m: str) -> Ask:
    var = ("mode", C)
    if kind == "cat":
        return Ask(base.cap(g.t("q_cmode", C=C)), ("cat", var, CTRL_MODES), C, CTRL_MODES)
    word = g.t(f"w_cm_{m}")
    q = "q_cis" if kind == "is" else "q_cnot"
    return Ask(base.cap(g.t(q, C=C, m=word)), ("atom", g.w.need(("is", var, m)), kind != "is"), C)


def _plant_ctrl(g: _Gen) -> list:
    rng, w = g.rng, g.w
    C = g.name("controller")
    why = g.name("ctrl_reason")
    seq = [rng.choice(("manual", "manual", "auto", "cascade"))]
    for _ in range(rng.randint(0, 2)):
        seq.append(rng.choice([m for m in CTRL_MODES if m != seq[-1]]))
    lines = [[(g.t(f"s_ctrl_{m}", C=C, why=why), lambda s, m=m: w.set(s, ("mode", C), m))] for m in seq]
    for kind in ["cat"] + rng.sample(("is", "is", "not"), 2):
        g.asks.append(_ask_ctrl(g, C, kind, rng.choice(CTRL_MODES)))
    for m in ("manual", "auto"):
        g.lit(w.need(("is", ("mode", C), m)), True, lambda m=m: g.t("c_cis", C=C, m=g.t(f"w_cm_{m}")),
              lambda m=m: _ask_ctrl(g, C, rng.choice(("is", "not")), m), ("reduced rate",))
    return lines


def _ask_alarm(g: _Gen, tag: str, lvl: str, kind: str) -> Ask:
    lw = g.t(f"w_{lvl}")
    if kind == "state":
        return Ask(base.cap(g.t("q_astate", tag=tag, lvl=lw)), ("cat", ("alarm", tag, lvl), ALARM_STATES), tag,
                   ALARM_STATES)
    atom, neg, q = {"active": ("active", False, "q_aactive"), "rtn": ("active", True, "q_artn"),
                    "not": ("active", True, "q_anot"), "ack": ("acked", False, "q_aack"),
                    "unack": ("acked", True, "q_aunack")}[kind]
    return Ask(base.cap(g.t(q, tag=tag, lvl=lw)), ("atom", g.w.need((atom, tag, lvl)), neg), tag)


def _plant_alarm(g: _Gen) -> list:
    rng, w = g.rng, g.w
    tag = g.name("transmitter")
    lvl = rng.choice(ALARM_LEVELS)
    lw = g.t(f"w_{lvl}")
    seq = rng.choice((("ALM",), ("ALM", "ACK"), ("ALMACK",), ("ALM", "ACK", "RTN"), ("ALM", "RTN"), ("ALMACK", "RTN"),
                      ("ALM", "ACK", "RTN", "ALM"), ("ALM", "RTN", "ALM", "ACK"), ("ALM", "ACK")))
    key = (tag, lvl)
    where = "high" if lvl in ("HH", "H") else "low"
    lines = []
    for ev in seq:
        if ev == "ALM":
            lines.append([(g.t("s_alm", tag=tag, lvl=lw, val=_fmt_value(tag, _value(rng, tag, where))),
                           lambda s, key=key: w.alarm(s, key, "ALM"))])
        elif ev == "ALMACK":
            lines.append([(g.t("s_alm_ack", tag=tag, lvl=lw, val=_fmt_value(tag, _value(rng, tag, where))),
                           lambda s, key=key: (w.alarm(s, key, "ALM"), w.alarm(s, key, "ACK")))])
        elif ev == "ACK":
            lines.append([(g.t("s_ack", tag=tag, lvl=lw), lambda s, key=key: w.alarm(s, key, "ACK"))])
        else:
            lines.append([(g.t("s_rtn", tag=tag, lvl=lw, val=_fmt_value(tag, _value(rng, tag))),
                           lambda s, key=key: w.alarm(s, key, "RTN"))])
    state, _ = alarm_status([e for ev in seq for e in (("ALM", "ACK") if ev == "ALMACK" else (ev,))])
    kinds = ["active", "rtn", "not", "ack"] + (["unack"] if state != ALARM_STATES[2] else [])
    for kind in rng.sample(kinds, 2) + ["state"]:
        g.asks.append(_ask_alarm(g, tag, lvl, kind))
    if rng.random() < 0.4:  # closed world: another level of the same tag was never raised
        g.asks.append(_ask_alarm(g, tag, rng.choice([x for x in ALARM_LEVELS if x != lvl]), "active"))
    g.lit(w.need(("active", tag, lvl)), True, lambda: g.t("c_aactive", tag=tag, lvl=g.t(f"w_{lvl}")),
          lambda: _ask_alarm(g, tag, lvl, rng.choice(("active", "not", "rtn"))), ("shutdown", "hot standby"))
    g.lit(w.need(("active", tag, lvl)), False, lambda: g.t("c_anot", tag=tag, lvl=g.t(f"w_{lvl}")),
          lambda: _ask_alarm(g, tag, lvl, rng.choice(("active", "not"))), ("reduced rate",))
    if rng.random() < 0.3:  # a similar tag's reading: a number that belongs to another instrument
        L = g.look("transmitter", tag)
        v = _value(rng, L)
        lines.insert(rng.randint(0, len(lines)), [(g.t("s_read", tag=L, val=_fmt_value(L, v)),
                                                   lambda s, L=L, v=v: w.reading(s, ("read", L), v))])
        g.asks.append(_ask_alarm(g, L, lvl, "active"))
    return lines


def _ask_read(g: _Gen, tag: str, op: str, thr: int) -> Ask:
    atom = g.w.need(("cmp", ("read", tag), op, thr))
    text = g.t("q_read", tag=tag, op=g.op("op", op, _fmt_value(tag, thr)), what=MEASURE[_prefix(tag)][0])
    return Ask(base.cap(text), ("atom", atom, False), tag)


def _plant_reading(g: _Gen) -> list:
    rng, w = g.rng, g.w
    tag = g.name("transmitter")
    step = _step(tag)
    values = [_value(rng, tag) for _ in range(rng.choice((1, 2, 2)))]
    lines = [[(g.t("s_read", tag=tag, val=_fmt_value(tag, v)), lambda s, v=v: w.reading(s, ("read", tag), v))]
             for v in values]
    last = values[-1]
    for _ in range(2):
        op = rng.choice(("<", "<=", ">", ">="))
        if len(values) > 1 and values[0] != last and rng.random() < 0.5:
            thr = (values[0] + last) // 2  # the superseded reading gives the other answer
        else:
            thr = _near(rng, last, step, 1)
        g.asks.append(_ask_read(g, tag, op, thr))
    op = rng.choice((">", ">=", "<", "<="))
    thr = _near(rng, last, step, 1)
    g.lit(w.need(("cmp", ("read", tag), op, thr)), True,
          lambda: g.t("c_read", tag=tag, op=g.op("op", op, _fmt_value(tag, thr)), what=MEASURE[_prefix(tag)][0]),
          lambda: _ask_read(g, tag, op, thr), ("reduced rate", "hot standby", "shutdown"))
    if rng.random() < 0.35:  # the same measure on a similar tag
        L = g.look("transmitter", tag)
        v = _value(rng, L)
        lines.insert(rng.randint(0, len(lines)), [(g.t("s_read", tag=L, val=_fmt_value(L, v)),
                                                   lambda s, L=L, v=v: w.reading(s, ("read", L), v))])
        if rng.random() < 0.5:
            g.asks.append(_ask_read(g, L, rng.choice((">", "<")), _near(rng, v, _step(L), 1)))
    return lines


def _plant(g: _Gen) -> None:
    rng, w = g.rng, g.w
    unit = g.name("unit")
    makers = (_plant_pumps, _plant_valve, _plant_ctrl, _plant_alarm, _plant_reading)
    groups = [rng.choices(makers, (3, 3, 2, 3, 2))[0](g) for _ in range(g.size)]
    for _ in range(rng.choice((0, 0, 1, 1, 2))):
        groups.append([[(g.t("s_note", n=rng.randint(1, 40), k=rng.randint(1000, 9999), E=g.name("equipment")), None)]])
    lines = _interleave(rng, groups)
    times = _clock(rng, len(lines), (5, 6, 7, 13, 14, 17, 18))
    if rng.random() < 0.5:
        shift = rng.choice(SHIFTS[:3:2] + ("morning",) if times[0][0] < 12 else ("night", "late", "evening"))
        w.say(base.cap(g.t("s_header", U=_bare(unit), shift=shift)) + ".")
    fmt = base.pick(rng, T["ts"], g.style)
    for line, (hh, mm, _) in zip(lines, times):
        s = w.say(base.cap(fmt.format(hh=f"{hh:02d}", mm=f"{mm:02d}") + " " + "; ".join(t for t, _ in line)) + ".")
        for _, record in line:
            if record is not None:
                record(s)
    g.keep, g.shuffle = len(w.sentences), "none"
    if g.L >= 1 and rng.random() < 0.85:
        _orders(g, "plant", unit)
        if len(w.sentences) > g.keep:
            g.shuffle = "tail"


# ============================================================================ orders and policies
_DERIVED_ACTS = {"plant": ("reduced rate", "hot standby", "shutdown"), "robot": ("wait", "reroute", "slow down", "stop")}


def _pick(g: _Gen, lits: Sequence[Lit], ev: Eval, want: bool | None = None, exclude: set | frozenset = frozenset(),
          atoms_only: bool = False, max_depth: int = 99) -> Lit | None:
    cand = [l for l in lits if l.phrase is not None and l.key not in exclude and l.depth <= max_depth
            and (l.atom or not atoms_only)]
    if want is not None:
        pref = [l for l in cand if _lit_holds(l, ev) == want]
        cand = pref or cand
    return g.rng.choice(cand) if cand else None


def _ask_derived(g: _Gen, S: str, a: str, key: tuple) -> Ask:
    neg = g.rng.random() < 0.25
    return Ask(base.cap(g.t("q_derived_neg" if neg else "q_derived", S=S, a=a)), ("atom", key, neg), key)


def _derived_lit(g: _Gen, kind: str, depth: int) -> Lit:
    S, a = g.name(f"derived_{kind}").split("|")
    key = ("d", S, a)
    return Lit(key, True, lambda: g.t("d_cond", S=S, a=a), lambda: _ask_derived(g, S, a, key), depth,
               _DERIVED_ACTS[kind])


def _add_rule(g: _Gen, kind: str, conds: list[Lit], unless: Lit | None, concl: tuple, concl_text: str) -> int:
    lits = [c.lit() for c in conds] + ([(unless.key, not unless.want)] if unless is not None else [])
    s = g.w.say(g.rule_frame(conds, concl_text, f"r_prefix_{kind}", unless))
    g.w.rule(s, lits, concl)
    return s


def _policy_only(g: _Gen, kind: str) -> Lit:
    """A thing the orders mention that the report never does (closed world: it does not hold)."""
    rng, need = g.rng, g.w.need
    if kind == "plant":
        P = g.name("pump") + rng.choice("AB")
        g.used.add(P)
        lit = Lit(need(("is", ("status", P), "tripped")), True, lambda: g.t("c_tripped", P=P),
                  lambda: _ask_pump(g, P, "tripped"), 0, _PUMP_ACTS)
        g.asks.append(_ask_pump(g, P, rng.choice(("tripped", "run"))))
        return lit
    if rng.random() < 0.5:
        F = g.name("forklift")
        lit = Lit(need(("is", ("fl", F), "crossing")), True, lambda: g.t("c_fl", F=F),
                  lambda: _ask_fl(g, F, "crossing"), 0, ("slow down", "wait"))
        g.asks.append(_ask_fl(g, F, rng.choice(("crossing", "crossing", "notcrossing"))))
        return lit
    S = g.name("sensor")
    lit = Lit(need(("is", ("sens", S), "degraded")), True, lambda: g.t("c_sens", S=S),
              lambda: _ask_sens(g, S, "bad"), 0, ("slow down", "reroute"))
    g.asks.append(_ask_sens(g, S, rng.choice(("bad", "ok", "notbad"))))
    return lit


def _chains(g: _Gen, kind: str, avail: list[Lit], forced: Lit | None) -> set:
    """Rule chains: a base condition -> derived state -> ... Returns the keys the rules used."""
    rng, L = g.rng, g.L
    ev = evaluate(g.w)
    used: set = set()
    roll = rng.random()
    n_chains = 0 if roll < 0.12 else 1 if roll < 0.75 else 2
    base_lits = [l for l in avail if l.depth == 0]
    for c in range(n_chains):
        length = rng.randint(1, L) if c == 0 else 1
        start = forced if forced is not None and c == 0 and rng.random() < 0.5 else \
            _pick(g, base_lits, ev, want=rng.random() < 0.7)
        if start is None:
            break
        nodes = [start]
        used.add(start.key)
        for _ in range(length):
            conds, unless = [nodes[-1]], None
            r = rng.random()
            keys = {l.key for l in nodes}
            if r < 0.2:
                extra = _pick(g, base_lits, ev, want=rng.random() < 0.8, exclude=keys)
                if extra is not None:
                    conds.append(extra)
                    used.add(extra.key)
                    rng.shuffle(conds)
            elif r < 0.42:
                unless = _pick(g, base_lits, ev, want=rng.random() < 0.5, exclude=keys, atoms_only=True)
                if unless is not None:
                    used.add(unless.key)
            d = _derived_lit(g, kind, 1 + max(x.depth for x in conds))
            S, a = d.key[1], d.key[2]
            _add_rule(g, kind, conds, unless, (d.key, True), g.t("d_concl", S=S, a=a))
            g.asks.append(_ask_derived(g, S, a, d.key))
            nodes.append(d)
            avail.append(d)
        g.paths.append(nodes)
    if forced is not None and forced.key not in used:
        d = _derived_lit(g, kind, 1)
        _add_rule(g, kind, [forced], None, (d.key, True), g.t("d_concl", S=d.key[1], a=d.key[2]))
        g.asks.append(_ask_derived(g, d.key[1], d.key[2], d.key))
        g.paths.append([forced, d])
        avail.append(d)
        used.add(forced.key)
    return used


def _case_list(g: _Gen, kind: str, var: Hashable, ego: str, usable: list[Lit], ev: Eval, order: tuple[str, ...],
               otherwise: str | None, word: Callable[[str], str], prefer: Sequence[Lit] = ()) -> list[Lit]:
    """A priority list for `var`: the first case whose condition holds decides; 'or' joins two
    conditions of one case. One sentence, or numbered rules with a precedence sentence."""
    rng, w = g.rng, g.w
    k = rng.randint(1, min(4, len(usable)))
    picks: list[Lit] = [l for l in prefer if l in usable][:1]
    for l in rng.sample(usable, len(usable)):
        if len(picks) >= k:
            break
        if all(l.key != p.key for p in picks):
            picks.append(l)
    groups: dict[str, list[Lit]] = {}
    for l in picks:
        acts = [a for a in (l.acts or order) if a in order and a != otherwise]
        free = [a for a in acts if a not in groups] or [a for a in order if a not in groups and a != otherwise]
        joinable = [a for a in acts if a in groups and len(groups[a]) < 2]
        if joinable and rng.random() < 0.35:
            groups[rng.choice(joinable)].append(l)
        elif free:
            groups[rng.choice(free)] = [l]
    cases = sorted(groups.items(), key=lambda kv: order.index(kv[0]))

    def cond_text(ls):
        return ls[0].phrase() if len(ls) == 1 else g.t("k_or", A=ls[0].phrase(), B=ls[1].phrase())

    head = f"k_head_{kind}"
    records: list = []
    if rng.random() < 0.55:
        parts = [g.t("k_first" if i == 0 else "k_next", A=cond_text(ls), V=word(v)) for i, (v, ls) in enumerate(cases)]
        if otherwise is not None:
            parts.append(g.t("k_last", V=word(otherwise)))
        s = w.say(base.cap(g.t(head, R=ego, U=_bare(ego)) + base.cap("; ".join(parts))) + ".")
        records = [(s, [l.lit()], v) for v, ls in cases for l in ls]
        other = (s, otherwise) if otherwise is not None else None
    else:
        w.say(base.cap(g.t("k_intro")) + ".")
        frame = base.pick(rng, T["k_num"], g.style)  # one numbering style per list
        for i, (v, ls) in enumerate(cases):
            s = w.say(base.cap(frame.format(k=i + 1, A=cond_text(ls), V=word(v))) + ".")
            records += [(s, [l.lit()], v) for l in ls]
        other = None
        if otherwise is not None:
            last = T["k_num_last"][T["k_num"].index(frame)]
            other = (w.say(base.cap(last.format(k=len(cases) + 1, V=word(otherwise))) + "."), otherwise)
    w.cases(var, records, other)
    return [l for _, ls in cases for l in ls]


def _extend_paths(g: _Gen, used: list[Lit], node: Lit) -> None:
    """Questions linked by the rule just added: chains ending in a used condition grow by
    `node`; a used base condition starts a two-node path."""
    ends = {id(p[-1]): p for p in g.paths}
    for l in used:
        if id(l) in ends:
            ends[id(l)].append(node)
        elif l.depth == 0 and l.ask is not None:
            g.paths.append([l, node])


def _ask_unit(g: _Gen, U: str, kind: str, values: Sequence[str]) -> Ask:
    var = ("unitmode", U)
    if kind == "cat":
        return Ask(base.cap(g.t("q_unit_mode", U=U)), ("cat", var, UNIT_MODES), var, UNIT_MODES)
    v = g.rng.choice(values)
    return Ask(base.cap(g.t("q_unit_is" if kind == "is" else "q_unit_not", U=U, v=v)), ("eq", var, v, kind != "is"), var)


def _orders(g: _Gen, kind: str, ego: str) -> None:
    """Standing orders (plant) or a safety policy (robot) after the report."""
    rng, w, L = g.rng, g.w, g.L
    avail = list(g.lits)
    forced = None
    if rng.random() < 0.35:
        forced = _policy_only(g, kind)
        avail.append(forced)
    _chains(g, kind, avail, forced)
    ev = evaluate(w)
    if kind == "robot":
        _robot_policy(g, ego, avail, ev)
        return
    usable = [l for l in avail if l.depth <= L - 1 and l.phrase is not None]
    if not usable or rng.random() < 0.2:
        return
    var = ("unitmode", ego)
    ends = [p[-1] for p in g.paths if p[-1].depth <= L - 1 and p[-1].phrase is not None]
    word = lambda v: g.t(f"w_unit_{v}", U=ego)  # noqa: E731
    values: list[str] = []
    if rng.random() < 0.6:
        otherwise = "normal rate" if rng.random() < 0.7 else None
        if otherwise is None:
            s = w.say(base.cap(g.t("s_unit_default", U=ego, v="normal rate")) + ".")
            w.default(s, var, "normal rate")
        used = _case_list(g, "plant", var, ego, usable, ev, ("shutdown", "hot standby", "reduced rate", "normal rate"),
                          otherwise, word, prefer=ends if rng.random() < 0.7 else ())
        values = sorted({c[2] for d in w.defs if isinstance(d, CaseList) and d.var == var for c in d.cases}
                        | {"normal rate"}, key=UNIT_MODES.index)
        depth = 1 + max(l.depth for l in used) if used else 0
    else:
        default = "normal rate" if rng.random() < 0.85 else "reduced rate"
        s = w.say(base.cap(g.t("s_unit_default", U=ego, v=default)) + ".")
        w.default(s, var, default)
        lit = rng.choice(ends) if ends and rng.random() < 0.7 else _pick(g, usable, ev)
        value = rng.choice([a for a in (lit.acts or UNIT_MODES) if a in UNIT_MODES and a != default] or ["shutdown"])
        _add_rule(g, "plant", [lit], None, (var, value), word(value))
        used, depth, values = [lit], lit.depth + 1, [default, value]
    node = Lit(var, None, None, lambda: _ask_unit(g, ego, rng.choice(("cat", "is", "not")), values), depth)
    _extend_paths(g, used, node)
    for kind_ in rng.sample(("cat", "cat", "is", "not"), 2):
        g.asks.append(_ask_unit(g, ego, kind_, values))


# ============================================================================ robot summaries

def _m(d: int) -> str:
    return f"{tenths(d)} m"


def _ask_obst(g: _Gen, R: str, lane: int | None, op: str, thr: int) -> Ask:
    if lane is None:
        atom = g.w.need(("cmp", ("obstacle", ("@", ("lane", R))), op, thr))
        text = g.t("q_obst_ego", R=R, op=g.op("opd", op, _m(thr)))
    else:
        atom = g.w.need(("cmp", ("obstacle", str(lane)), op, thr))
        text = g.t("q_obst_lane", l=lane, op=g.op("opd", op, _m(thr)))
    return Ask(base.cap(text), ("atom", atom, False), ("obstacle", lane))


def _ask_person(g: _Gen, R: str, op: str, thr: int) -> Ask:
    atom = g.w.need(("cmp", ("person", R), op, thr))
    return Ask(base.cap(g.t("q_person", R=R, op=g.op("opd", op, _m(thr)))), ("atom", atom, False), "person")


def _ask_batt(g: _Gen, R: str, op: str, thr: int) -> Ask:
    atom = g.w.need(("cmp", ("battery", R), op, thr))
    return Ask(base.cap(g.t("q_batt", R=R, op=g.op("op", op, f"{thr}%"))), ("atom", atom, False), ("battery", R))


def _ask_count(g: _Gen, z: str, kind: str, op: str = ">=", thr: int = 1) -> Ask:
    if kind == "any":
        return Ask(base.cap(g.t("q_zone_any", z=z)), ("atom", g.w.need(("cmp", ("count", z), ">=", 1)), False), z)
    if kind == "clear":
        return Ask(base.cap(g.t("q_zone_clear", z=z)), ("atom", g.w.need(("cmp", ("count", z), "<=", 0)), False), z)
    atom = g.w.need(("cmp", ("count", z), op, thr))
    return Ask(base.cap(g.t("q_count", z=z, op=g.op("opc", op, str(thr)))), ("atom", atom, False), z)


def _ask_speed(g: _Gen, R: str, kind: str, op: str = ">", thr: int = 10) -> Ask:
    if kind == "over":
        atom = g.w.need(("cmp", ("speed", R), ">", ("limit", "shared")))
        return Ask(base.cap(g.t("q_speed_over", R=R)), ("atom", atom, False), "speed")
    if kind == "ok":
        atom = g.w.need(("cmp", ("speed", R), "<=", ("limit", "shared")))
        return Ask(base.cap(g.t("q_speed_ok", R=R)), ("atom", atom, False), "speed")
    atom = g.w.need(("cmp", ("speed", R), op, thr))
    return Ask(base.cap(g.t("q_speed_cmp", R=R, op=g.op("op", op, f"{tenths(thr)} m/s"))), ("atom", atom, False),
               "speed")


def _ask_fl(g: _Gen, F: str, kind: str) -> Ask:
    var = ("fl", F)
    if kind == "state":
        return Ask(base.cap(g.t("q_fl_state", F=F)), ("cat", var, FORKLIFT_STATES), F, FORKLIFT_STATES)
    value, neg, q = {"crossing": ("crossing", False, "q_fl_crossing"), "notcrossing": ("crossing", True, "q_fl_notcrossing"),
                     "parked": ("parked", False, "q_fl_parked")}[kind]
    return Ask(base.cap(g.t(q, F=F)), ("atom", g.w.need(("is", var, value)), neg), F)


def _ask_sens(g: _Gen, S: str, kind: str) -> Ask:
    if kind == "state":
        return Ask(base.cap(g.t("q_sens_state", S=S)), ("cat", ("sens", S), SENSOR_STATES), S, SENSOR_STATES)
    value, neg, q = {"bad": ("degraded", False, "q_sens_bad"), "ok": ("OK", False, "q_sens_ok"),
                     "notbad": ("degraded", True, "q_sens_notbad")}[kind]
    return Ask(base.cap(g.t(q, S=S)), ("atom", g.w.need(("is", ("sens", S), value)), neg), S)


def _ask_estop(g: _Gen, R: str, kind: str) -> Ask:
    if kind == "state":
        return Ask(base.cap(g.t("q_estop_state", R=R)), ("cat", ("estop", R), ESTOP_STATES), "estop", ESTOP_STATES)
    value, q = ("pressed", "q_estop") if kind == "pressed" else ("released", "q_estop_rel")
    return Ask(base.cap(g.t(q, R=R)), ("atom", g.w.need(("is", ("estop", R), value)), False), "estop")


_MODE_ACTS = {"emergency stop": ("stop",), "manual": ("wait", "stop"), "teach": ("wait",), "charging": ("wait",),
              "autonomous": ()}


def _ask_mode(g: _Gen, R: str, kind: str, m: str, logged: bool) -> Ask:
    var = ("rmode", R)
    if kind == "cat":
        return Ask(base.cap(g.t("q_rmode", R=R)), ("cat", var, ROBOT_MODES), var, ROBOT_MODES)
    text = base.cap(g.t("q_rmode_is" if kind == "is" else "q_rmode_not", R=R, m=m))
    target = ("atom", g.w.need(("is", var, m)), kind != "is") if logged else ("eq", var, m, kind != "is")
    return Ask(text, target, var)


def _ask_action(g: _Gen, R: str, kind: str, values: Sequence[str]) -> Ask:
    var = ("action", R)
    if kind == "cat":
        return Ask(base.cap(g.t("q_action", R=R)), ("cat", var, ACTIONS), var, ACTIONS)
    v = g.rng.choice(values)
    if kind == "is":
        return Ask(base.cap(g.t(f"q_act_{v}", R=R)), ("eq", var, v, False), var)
    return Ask(base.cap(g.t("q_act_not", R=R, v=v)), ("eq", var, v, True), var)


def _robot_policy(g: _Gen, R: str, avail: list[Lit], ev: Eval) -> None:
    rng, w, L = g.rng, g.w, g.L
    var_m = ("rmode", R)
    logged = any(v == var_m for _, _, v, _ in w.sets)
    if not logged and rng.random() < 0.7:
        default = "autonomous" if rng.random() < 0.85 else "manual"
        s = w.say(base.cap(g.t("s_rmode_default", R=R, m=default)) + ".")
        w.default(s, var_m, default)
        modes = [default]
        usable = [l for l in avail if l.depth <= L - 1 and l.phrase is not None]
        if usable and rng.random() < 0.7:
            estops = [l for l in usable if isinstance(l.key, tuple) and l.key[:2] == ("is", ("estop", R))]
            ends = [p[-1] for p in g.paths if p[-1] in usable]
            lit = rng.choice(estops or ends or usable) if rng.random() < 0.7 else rng.choice(usable)
            m = "emergency stop" if lit in estops else "charging" if "return to dock" in lit.acts else \
                rng.choice(("manual", "teach", "emergency stop"))
            if m == default:
                m = "emergency stop"
            _add_rule(g, "robot", [lit], None, (var_m, m), g.t("c_rmode_to", R=R, m=m))
            node = Lit(var_m, m, lambda m=m: g.t("c_rmode_is", R=R, m=m),
                       lambda m=m: _ask_mode(g, R, rng.choice(("cat", "is", "not")), m, False), lit.depth + 1,
                       _MODE_ACTS[m], atom=False)
            _extend_paths(g, [lit], node)
            avail.append(node)
            modes.append(m)
        for kind in rng.sample(("cat", "cat", "is", "not"), 2):
            g.asks.append(_ask_mode(g, R, kind, rng.choice(modes), False))
    usable = [l for l in avail if l.depth <= L - 1 and l.phrase is not None and (l.acts or not l.atom)]
    usable = [l for l in usable if l.acts]
    if not usable or rng.random() < 0.1:
        return
    ends = [p[-1] for p in g.paths if p[-1] in usable]
    used = _case_list(g, "robot", ("action", R), R, usable, ev, ACTIONS, "continue",
                      lambda v: g.t(f"w_act_{v}"), prefer=ends if rng.random() < 0.7 else ())
    values = sorted({c[2] for d in w.defs if isinstance(d, CaseList) and d.var == ("action", R) for c in d.cases}
                    | {"continue"}, key=ACTIONS.index)
    node = Lit(("action", R), None, None, lambda: _ask_action(g, R, rng.choice(("cat", "cat", "is", "not")), values),
               1 + max(l.depth for l in used))
    _extend_paths(g, used, node)
    for kind in rng.sample(("cat", "cat", "is", "is", "not"), 2):
        g.asks.append(_ask_action(g, R, kind, values))


def _robot(g: _Gen) -> None:
    rng, w = g.rng, g.w
    R = g.name("robot")
    need = w.need
    p = min(0.9, 0.35 + 0.1 * g.size)
    head: list[str] = []
    if rng.random() < 0.35:
        head.append(base.cap(g.t("s_rheader", R=R)) + ".")
    for text in head:
        w.say(text)
    # -- an event log (latest entry wins), kept in order
    logged = rng.random() < 0.35
    if logged:
        events: list = []
        modes = [rng.choice(("autonomous", "autonomous", "manual", "charging"))]
        for _ in range(rng.randint(0, 2)):
            modes.append(rng.choice([m for m in ROBOT_MODES if m != modes[-1]]))
        events += [(g.t("s_rmode", R=R, m=g.t(f"w_rm_{m}")), ("rmode", R), m) for m in modes]
        S = None
        if rng.random() < 0.5:
            S = g.name("sensor")
            states = rng.choice((("degraded",), ("degraded", "OK"), ("OK", "degraded"), ("degraded", "OK", "degraded")))
            sens = [(g.t("s_sens_degraded" if v == "degraded" else "s_sens_ok", S=S), ("sens", S), v) for v in states]
            events = _interleave(rng, [events, sens])
        fmt = base.pick(rng, T["ts_r"], g.style)
        for (text, var, value), (hh, mm, ss) in zip(events, _clock(rng, len(events), (6, 8, 10, 13, 15, 19))):
            s = w.say(base.cap(fmt.format(hh=f"{hh:02d}", mm=f"{mm:02d}", ss=f"{ss:02d}") + " " + text) + ".")
            w.set(s, var, value)
        for kind in rng.sample(("cat", "cat", "is", "not"), 2):
            g.asks.append(_ask_mode(g, R, kind, rng.choice(modes + [rng.choice(ROBOT_MODES)]), True))
        for m in ("emergency stop", "manual", "teach", "charging"):
            g.lit(need(("is", ("rmode", R), m)), True, lambda m=m: g.t("c_rmode_is", R=R, m=m),
                  lambda m=m: _ask_mode(g, R, rng.choice(("is", "not")), m, True), _MODE_ACTS[m])
        if S is not None:
            g.asks.append(_ask_sens(g, S, rng.choice(("bad", "ok", "notbad", "state"))))
            g.lit(need(("is", ("sens", S), "degraded")), True, lambda S=S: g.t("c_sens", S=S),
                  lambda S=S: _ask_sens(g, S, "bad"), ("slow down", "reroute", "wait"))
    g.keep = len(w.sentences)
    g.shuffle = "tail" if g.keep else "all"
    items: list = []  # (fragment, record)
    lane = rng.randint(1, 12)
    if rng.random() < 0.85:
        items.append((g.t("s_lane", R=R, l=lane), lambda s, lane=lane: w.set(s, ("lane", R), str(lane))))
        if rng.random() < 0.5:
            g.asks.append(Ask(base.cap(g.t("q_lane", R=R)), ("cat", ("lane", R), LANES), ("obstacle", None), LANES))
    # obstacles: in the robot's lane and in another lane
    obst_thr = rng.choice((10, 15, 20, 25, 30))
    if rng.random() < p:
        d = _near(rng, obst_thr, rng.choice((1, 2, 5)), 1)
        items.append((g.t("s_obst", d=_m(d), l=lane), lambda s, d=d, lane=lane: w.reading(s, ("obstacle", str(lane)), d)))
        for _ in range(2):
            op = rng.choice(("<", "<=", ">", ">="))
            g.asks.append(_ask_obst(g, R, None if rng.random() < 0.7 else lane, op, _near(rng, d, 1, 1)))
    if rng.random() < p * 0.6:
        other = rng.choice([x for x in range(1, 13) if x != lane])
        d2 = rng.randint(3, obst_thr)
        items.append((g.t("s_obst", d=_m(d2), l=other),
                      lambda s, d2=d2, other=other: w.reading(s, ("obstacle", str(other)), d2)))
        op = rng.choice(("<", "<="))
        g.asks.append(_ask_obst(g, R, other if rng.random() < 0.5 else None, op, obst_thr))
    op = rng.choice(("<", "<="))
    g.lit(need(("cmp", ("obstacle", ("@", ("lane", R))), op, obst_thr)), True,
          lambda: g.t("c_obst_ego", R=R, op=g.op("opd", op, _m(obst_thr))), lambda: _ask_obst(g, R, None, op, obst_thr),
          ("slow down", "stop", "reroute"))
    # the nearest person
    person_thr = rng.choice((5, 8, 10, 12, 15, 20))
    if rng.random() < p:
        d = _near(rng, person_thr, rng.choice((1, 2, 5)), 1)
        items.append((g.t("s_person", d=_m(d), R=R), lambda s, d=d: w.reading(s, ("person", R), d)))
        for _ in range(2):
            g.asks.append(_ask_person(g, R, rng.choice(("<", "<=", ">", ">=")), _near(rng, d, 1, 1)))
    pop = rng.choice(("<", "<="))
    g.lit(need(("cmp", ("person", R), pop, person_thr)), True,
          lambda: g.t("c_person", op=g.op("opd", pop, _m(person_thr))), lambda: _ask_person(g, R, pop, person_thr),
          ("stop",))
    # persons per zone (a count of zero is common)
    z = g.name("zone")
    if rng.random() < p:
        k = 0 if rng.random() < 0.4 else rng.randint(1, 4)
        items.append((g.t("s_count", z=z, k=k, kp=f"{k} person" if k == 1 else f"{k} persons"),
                      lambda s, z=z, k=k: w.reading(s, ("count", z), k)))
        for kind in rng.sample(("any", "clear", "cmp"), 2):
            g.asks.append(_ask_count(g, z, kind, rng.choice(("<", "<=", ">", ">=")), _near(rng, k, 1, 1)))
    g.lit(need(("cmp", ("count", z), ">=", 1)), True, lambda: g.t("c_count_any", z=z),
          lambda: _ask_count(g, z, rng.choice(("any", "clear"))), ("wait", "stop", "slow down"))
    cthr = rng.choice((2, 3))
    g.lit(need(("cmp", ("count", z), ">=", cthr)), True, lambda: g.t("c_count", z=z, op=g.op("opc", ">=", str(cthr))),
          lambda: _ask_count(g, z, "cmp", ">=", cthr), ("wait", "reroute"))
    if rng.random() < p * 0.4:
        z2 = g.look("zone", z)
        k2 = 0 if rng.random() < 0.3 else rng.randint(1, 5)
        items.append((g.t("s_count", z=z2, k=k2, kp=f"{k2} person" if k2 == 1 else f"{k2} persons"),
                      lambda s, z2=z2, k2=k2: w.reading(s, ("count", z2), k2)))
        g.asks.append(_ask_count(g, z2, rng.choice(("any", "clear"))))
    # battery, and another robot's battery
    batt_thr = rng.choice((10, 15, 20, 25, 30))
    if rng.random() < p:
        b = _near(rng, batt_thr, rng.choice((1, 2, 5)), 1)
        items.append((g.t("s_batt", R=R, p=f"{b}%"), lambda s, b=b: w.reading(s, ("battery", R), b)))
        g.asks.append(_ask_batt(g, R, rng.choice(("<", "<=", ">", ">=")), _near(rng, b, 1, 1)))
        if rng.random() < 0.5:
            R2 = g.look("robot", R)
            b2 = rng.randint(5, 95)
            items.append((g.t("s_batt", R=R2, p=f"{b2}%"), lambda s, R2=R2, b2=b2: w.reading(s, ("battery", R2), b2)))
            g.asks.append(_ask_batt(g, R2 if rng.random() < 0.5 else R, rng.choice(("<", ">=")), batt_thr))
    bop = rng.choice(("<", "<="))
    g.lit(need(("cmp", ("battery", R), bop, batt_thr)), True,
          lambda: g.t("c_batt", R=R, op=g.op("op", bop, f"{batt_thr}%")), lambda: _ask_batt(g, R, bop, batt_thr),
          ("return to dock",))
    # speed against the shared-aisle limit
    if rng.random() < p * 0.6:
        lim = rng.choice((8, 10, 12, 15, 20))
        v = _near(rng, lim, 1, 2)
        items.append((g.t("s_speed", R=R, v=f"{tenths(v)} m/s"), lambda s, v=v: w.reading(s, ("speed", R), v)))
        items.append((g.t("s_speed_limit", v=f"{tenths(lim)} m/s"), lambda s, lim=lim: w.limit(s, "shared", lim)))
        for kind in rng.sample(("over", "ok", "cmp"), 2):
            g.asks.append(_ask_speed(g, R, kind, rng.choice(("<", "<=", ">", ">=")), _near(rng, v, 1, 1)))
        g.lit(need(("cmp", ("speed", R), ">", ("limit", "shared"))), True, lambda: g.t("c_speed_over", R=R),
              lambda: _ask_speed(g, R, rng.choice(("over", "ok"))), ("slow down",))
    # forklifts (a similar tag is another truck)
    if rng.random() < p:
        F = g.name("forklift")
        fl = [(F, rng.choice(FORKLIFT_STATES))]
        if rng.random() < 0.35:
            fl.append((g.look("forklift", F), rng.choice(FORKLIFT_STATES)))
        for name, state in fl:
            b = rng.randint(1, 9)
            items.append((g.t(f"s_fl_{state}", F=name, l=lane, b=b),
                          lambda s, name=name, state=state: w.set(s, ("fl", name), state)))
            for kind in rng.sample(("crossing", "notcrossing", "parked"), 2) + ["state"]:
                g.asks.append(_ask_fl(g, name, kind))
        g.lit(need(("is", ("fl", F), "crossing")), True, lambda: g.t("c_fl", F=F), lambda: _ask_fl(g, F, "crossing"),
              ("slow down", "wait"))
    g.lit(need(("any", "fl", "crossing")), True, lambda: g.t("c_fl_any", R=R), None, ("slow down", "wait", "stop"))
    # sensors
    if rng.random() < p * 0.8:
        for _ in range(rng.choice((1, 1, 2))):
            S = g.name("sensor")
            state = "degraded" if rng.random() < 0.55 else "OK"
            items.append((g.t("s_sens_degraded" if state == "degraded" else "s_sens_ok", S=S),
                          lambda s, S=S, state=state: w.set(s, ("sens", S), state)))
            for kind in rng.sample(("bad", "ok", "notbad"), 2) + ["state"]:
                g.asks.append(_ask_sens(g, S, kind))
            g.lit(need(("is", ("sens", S), "degraded")), True, lambda S=S: g.t("c_sens", S=S),
                  lambda S=S: _ask_sens(g, S, "bad"), ("slow down", "reroute", "wait"))
            g.lit(need(("is", ("sens", S), "OK")), True, lambda S=S: g.t("c_sens_ok", S=S),
                  lambda S=S: _ask_sens(g, S, "ok"), ())
    # the E-stop (an event a mode rule can react to)
    if not logged and rng.random() < p * 0.5:
        state = "pressed" if rng.random() < 0.5 else "released"
        items.append((g.t(f"s_estop_{state}", R=R), lambda s, state=state: w.set(s, ("estop", R), state)))
        for kind in ("pressed", "released", "state"):
            g.asks.append(_ask_estop(g, R, kind))
        g.lit(need(("is", ("estop", R), "pressed")), True, lambda: g.t("c_estop", R=R),
              lambda: _ask_estop(g, R, "pressed"), ("stop",))
    for _ in range(rng.choice((0, 0, 1, 1, 2))):
        items.append((g.t("s_rnoise", b=rng.randint(1, 9), k=rng.randint(100, 999), n=rng.randint(10, 90)), None))
    rng.shuffle(items)
    i = 0
    while i < len(items):
        k = rng.choices((1, 2, 3), (6, 3, 1))[0]
        chunk = items[i:i + k]
        i += k
        s = w.say(base.cap("; ".join(t for t, _ in chunk)) + ".")
        for _, record in chunk:
            if record is not None:
                record(s)
    if g.L >= 1 and rng.random() < 0.85:
        _orders(g, "robot", R)


# ============================================================================ fleets
# measure: (reading fragment, the comparison phrases it takes, lowest and highest value, how a value is written)
FLEET = {"obstacle": ("s_fobst", "opd", 2, 60, _m), "person": ("s_fperson", "opd", 2, 80, _m),
         "battery": ("s_batt", "op", 3, 99, lambda v: f"{v}%"), "speed": ("s_speed", "op", 1, 25,
                                                                          lambda v: f"{tenths(v)} m/s")}


def _on_side(rng: random.Random, op: str, thr: int, want: bool, lo: int, hi: int) -> int:
    """A value in [lo, hi] with compare(value, op, thr) == want: the threshold itself a quarter
    of the times it may be, else half the time within three steps of it."""
    ok = [v for v in range(lo, hi + 1) if compare(v, op, thr) == want]
    if thr in ok and rng.random() < 0.25:
        return thr
    near = [v for v in ok if abs(v - thr) <= 3]
    return rng.choice(near if near and rng.random() < 0.5 else ok)


def _fleet(g: _Gen) -> None:
    """Two to four robots, each with the same one or two readings (an obstacle ahead, the
    nearest person, battery, speed), asked over the fleet against a number the question writes:
    how many pass it, which one does (or none / both / more than one), whether any, none, all or
    at least k do, and one robot alone."""
    rng, w = g.rng, g.w
    n = rng.choice((2, 2, 3, 3, 4))
    robots = [g.name("robot")]
    while len(robots) < n:
        robots.append(g.look("robot", robots[-1]) if rng.random() < 0.3 else g.name("robot"))
    measures = rng.sample(sorted(FLEET), rng.choice((1, 1, 2)))
    fragments: dict[str, list] = {r: [] for r in robots}
    if rng.random() < 0.5:
        w.say(base.cap(g.t("s_fleet_head", z=g.name("zone"))) + ".")
        g.keep, g.shuffle = 1, "tail"  # the heading stays first
    for m in measures:
        frag, phrases, lo, hi, write = FLEET[m]
        op = rng.choice(("<", "<=", ">", ">="))
        thr = rng.randint(lo + 3, hi - 3)
        past = set(rng.sample(robots, rng.randint(0, n)))
        qtys = tuple((m, r) for r in robots)
        for r in robots:
            v = _on_side(rng, op, thr, r in past, lo, hi)
            fragments[r].append((g.t(frag, R=r, d=write(v), p=write(v), v=write(v)),
                                 lambda s, q=(m, r), v=v: w.reading(s, q, v)))
        x = g.op(phrases, op, write(thr))
        sg = lambda m=m, x=x: g.t(f"f_{m}", x=x)  # noqa: E731
        base_form = lambda m=m, x=x: g.t(f"fp_{m}", x=x)  # noqa: E731
        pl = lambda m=m, x=x: g.t("fpl_speed" if m == "speed" else f"fp_{m}", x=x)  # noqa: E731
        rs = lambda: base.listed(robots) if rng.random() < 0.7 else "/".join(robots)  # noqa: E731
        counts, which = rng.choice(base.COUNTS)[:n + 1], base.none_or_more(rng, n)
        count_var, which_var = ("fleet_count", qtys, op, thr), ("fleet_which", qtys, op, thr)
        w.fleet += [(count_var, "count", qtys, op, thr, counts), (which_var, "which", qtys, op, thr, which)]
        g.ask(g.t("q_fleet_count", rs=rs(), pl=pl()), ("cat", count_var, counts), ("fleet", m), counts)
        g.ask(g.t("q_fleet_which", rs=rs(), sg=sg()), ("cat", which_var, tuple(robots) + which), ("fleet", m),
              tuple(robots) + which)
        some = w.need(("fleet", "any", qtys, op, thr, 1))
        g.ask(g.t("q_fleet_any", rs=rs(), base=base_form(), sg=sg()), ("atom", some, False), ("fleet", m))
        g.ask(g.t("q_fleet_none", rs=rs(), base=base_form(), sg=sg()), ("atom", some, True), ("fleet", m))
        g.ask(g.t("q_fleet_all", rs=rs(), base=base_form()), ("atom", w.need(("fleet", "all", qtys, op, thr, n)), False),
              ("fleet", m))
        if n > 2:
            k = rng.randint(2, n - 1)
            g.ask(g.t("q_fleet_least", rs=rs(), base=base_form(), pl=pl(), k=rng.choice((str(k), counts[k]))),
                  ("atom", w.need(("fleet", "least", qtys, op, thr, k)), False), ("fleet", m))
        for r in rng.sample(robots, min(2, n)):
            if m == "obstacle":
                g.ask(g.t("q_fobst", R=r, x=x), ("atom", w.need(("cmp", (m, r), op, thr)), False), ("fleet", r))
            elif m == "person":  # the robot named: another robot has a nearest person of its own
                g.ask(g.t("q_fperson", R=r, x=x), ("atom", w.need(("cmp", (m, r), op, thr)), False), ("fleet", r))
            elif m == "battery":
                g.asks.append(_ask_batt(g, r, op, thr))
            else:
                g.asks.append(_ask_speed(g, r, "cmp", op, thr))
    for r in robots:
        if rng.random() < 0.3:
            fragments[r].append((g.t("s_lane", R=r, l=rng.randint(1, 12)), None))
        items = fragments[r]
        rng.shuffle(items)
        sentence = w.say(base.cap("; ".join(t for t, _ in items)) + ".")
        for _, record in items:
            if record is not None:
                record(sentence)


# ============================================================================ the set
PREFIX_BUDGET = 400
_ESTIMATE_BUDGET = 372  # approx_tokens over-counts a little; the tests check the real tokenizer


@dataclass
class _Chosen:
    ask: Ask
    answer: bool | str
    depth: int


def _finish(g: _Gen) -> tuple[DecisionSet | None, str]:
    rng, w = g.rng, g.w
    linked: list[Ask] = []  # questions along one rule path (their atoms are registered before solving)
    if g.L >= 1 and g.n >= 2 and rng.random() < 0.65:
        segments = []
        for path in g.paths:
            run: list[Lit] = []
            for node in path + [None]:
                if node is not None and node.ask is not None:
                    run.append(node)
                else:
                    if len(run) >= 2:
                        segments.append(run)
                    run = []
        if segments:
            seg = rng.choice(segments)
            k = rng.randint(2, min(g.n, len(seg)))
            start = rng.randint(0, len(seg) - k)
            linked = [node.ask() for node in seg[start:start + k]]
    ev = evaluate(w)

    def resolve(a: Ask | None) -> _Chosen | None:
        if a is None:
            return None
        ans, depth = answer_of(a.target, ev)
        if depth > g.L or (a.target[0] == "cat" and (ans is None or ans not in a.domain)):
            return None
        return _Chosen(a, ans, depth)

    chosen: list[_Chosen] = []
    targets: set = set()
    texts: set = set()

    def take(c: _Chosen | None) -> bool:
        if c is None or c.ask.target in targets or c.ask.text in texts or len(chosen) >= g.n:
            return False
        chosen.append(c)
        targets.add(c.ask.target)
        texts.add(c.ask.text)
        return True

    for a in linked:
        take(resolve(a))
    pool = [c for c in (resolve(a) for a in g.asks) if c is not None]
    rng.shuffle(pool)
    n_cat = sum(rng.random() < 0.4 for _ in range(g.n))
    while len(chosen) < g.n:
        free = [c for c in pool if c.ask.target not in targets and c.ask.text not in texts]
        if not free:
            return None, "few"
        cats = sum(c.ask.target[0] == "cat" for c in chosen)
        yes = sum(c.answer is True for c in chosen)
        no = sum(c.answer is False for c in chosen)
        want_cat = cats < n_cat
        want_yes = yes < no or (yes == no and rng.random() < 0.5)
        groups: dict = {}
        for c in chosen:
            groups[c.ask.group] = groups.get(c.ask.group, 0) + 1

        def penalty(c: _Chosen) -> int:
            is_cat = c.ask.target[0] == "cat"
            ruled = c.ask.target[1] in w.program_vars or c.ask.target[1][:1] == ("d",)
            return (6 * (is_cat != want_cat) + (0 if is_cat else 3 * (c.answer is not want_yes))
                    + 2 * groups.get(c.ask.group, 0) - (2 if ruled and g.L >= 1 else 0))

        take(min(free, key=penalty))
    options = [(_options(rng, c.ask.domain, c.answer) if c.ask.target[0] == "cat" else ()) for c in chosen]
    tokens = approx_tokens(" ".join(w.sentences)) + 2 + sum(_question_tokens(c.ask.text, o)
                                                            for c, o in zip(chosen, options))
    if tokens > _ESTIMATE_BUDGET:
        return None, "long"
    tlist = [c.ask.target for c in chosen]
    answers = [c.answer for c in chosen]
    b = base.SetBuilder(DOMAIN)
    for s in w.sentences:
        b.say(s)
    for i, (c, o) in enumerate(zip(chosen, options)):
        sup = support_of(w, tlist, answers, i, ev)
        if c.ask.target[0] == "cat":
            b.ask_choice(c.ask.text, o, c.answer, c.depth, sup)
        else:
            b.ask_boolean(c.ask.text, c.answer, c.depth, sup)
    b.chained = is_chained(w, tlist)
    b.number_labels = label_numbers(w, ev)
    b.question_labels = label_question_numbers(w, ev, tlist, [q.text for q in b.questions])
    g.targets = [(c.ask.text, c.ask.target) for c in chosen]
    ds = b.build(rng, shuffle=g.shuffle, keep=g.keep)
    rules = [(d.conds, d.concl) if isinstance(d, Rule) else (d.cases[0][1], (d.var, d.cases[0][2]))
             for d in w.defs if isinstance(d, Rule) or d.cases]
    ds.links = base.answer_links(ds, rules, _asked_keys(b.questions, tlist))
    return ds, ""


def shown(qty: tuple, v: int) -> Decimal:
    """The number a sentence writes for value `v` of `qty` (tenths where the family writes
    decimals: distances, speeds, PT/PI pressures)."""
    measure, subject = qty
    if measure in TENTHS or measure == "read" and _prefix(subject) in DECIMAL_PREFIXES:
        return Decimal(v) / 10
    return Decimal(v)


def label_numbers(w: World, ev: Eval) -> list[tuple[int, Decimal, int]]:
    """DecisionSet.number_labels: every reading (the latest of its quantity 1, an earlier one by
    how the latest compares with it), every limit and every threshold a rule or a case writes,
    by how the current reading of its quantity compares with it (base.compared_with)."""
    said: dict[tuple[int, Decimal], set[int]] = {}

    def add(sentence: int | None, qty: tuple, v: int) -> None:
        got = current_reading(w, ev.vals, qty)
        if got is not None and sentence is not None:
            said.setdefault((sentence, shown(qty, v)), set()).add(base.compared_with(got[1], v))

    for s, _, qty, v in w.readings:
        add(s, qty, v)
    limited = {atom[3][1]: atom[1] for atom in w.atoms if atom[0] == "cmp" and isinstance(atom[3], tuple)}
    for s, name, v in w.limits:
        if name in limited:
            add(s, limited[name], v)
    for d in w.defs:
        for sentence, conds in [(d.sentence, d.conds)] if isinstance(d, Rule) else [(s, c) for s, c, _ in d.cases]:
            for key, _ in conds:
                if isinstance(key, tuple) and key[0] == "cmp" and isinstance(key[3], int):
                    add(sentence, key[1], key[3])
    return base.written_labels(said, w.sentences)


def label_question_numbers(w: World, ev: Eval, targets: Sequence[tuple], texts: Sequence[str]
                           ) -> list[tuple[int, Decimal, int]]:
    """DecisionSet.question_labels: the threshold a question writes itself ("Is the obstacle
    closer than 0.8 m?"), by how the current reading compares with it."""
    out = []
    for k, (t, text) in enumerate(zip(targets, texts)):
        key = t[1]
        if t[0] != "atom" or key[0] != "cmp" or not isinstance(key[3], int):
            continue
        got, v = current_reading(w, ev.vals, key[1]), shown(key[1], key[3])
        if got is not None and v in base.written_numbers(text):
            out.append((k, v, base.compared_with(got[1], key[3])))
    return out


def _asked_keys(questions: Sequence, targets: Sequence[tuple]) -> dict:
    """What each question reads, for the consistency links: targets ("atom", key, negated),
    ("eq", var, value, negated), ("cat", var, domain); a categorical question about a state
    also stands for the atoms ("is", var, value) that rules test."""
    out: dict = {}
    for q, t in zip(questions, targets):
        if t[0] == "cat":
            out[t[1]] = base.Asked(q.text)
            for v in q.options:
                out.setdefault(("is", t[1], v), base.Asked(q.text, equals=v))
    for q, t in zip(questions, targets):
        if t[0] == "atom":
            out[t[1]] = base.Asked(q.text, negated=t[2])
        elif t[0] == "eq":
            out[t[1]] = base.Asked(q.text, equals=t[2], negated=t[3])
    return out


def generate_world(rng: random.Random, style: Style, n_questions: int,
                   max_links: int, fleets: float = 0.0) -> tuple[DecisionSet, World, list]:
    """`generate`, also returning the world (sentences in their unshuffled order) and each
    question's (text, target); for tests that re-check answers and supports."""
    if not 1 <= n_questions <= 8:
        raise ValueError(f"n_questions must be 1..8, got {n_questions}")
    if not 0 <= max_links <= 5:
        raise ValueError(f"max_links must be 0..5, got {max_links}")
    if not 0.0 <= fleets <= 1.0:
        raise ValueError(f"fleets is a share of sets, 0..1; got {fleets}")
    size = 1 + (n_questions + 1) // 3
    for _ in range(60):
        g = _Gen(rng, style, n_questions, max_links, size)
        if fleets and rng.random() < fleets:  # draws nothing at fleets = 0: the sets stay as they were
            _fleet(g)
        else:
            (_plant if rng.random() < 0.5 else _robot)(g)
        out, why = _finish(g)
        if out is not None:
            return out, g.w, g.targets
        size = min(6, size + 1) if why == "few" else max(1, size - 1)
    raise RuntimeError("reports: could not build a set within the token budget")


def generate(rng: random.Random, style: Style, n_questions: int, max_links: int, fleets: float = 0.0) -> DecisionSet:
    """One set of the reports family: a shift log / alarm list or a robot summary, with
    standing orders or a safety policy when max_links >= 1, and n_questions questions. With
    `fleets` > 0, that share of the sets is a fleet: several robots' alike readings, asked how
    many pass a number, which one does, whether any, none, all or at least k do (`_fleet`)."""
    return generate_world(rng, style, n_questions, max_links, fleets)[0]
