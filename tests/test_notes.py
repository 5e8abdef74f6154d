"""Reading notes: which quantities are limits, which limits a reading is compared with, what the
note says, and the tokenizer that writes them (and leaves them out where they would not fit)."""

import re
from pathlib import Path

from decider.engine.checkpoint import load_checkpoint, save_checkpoint
from decider.engine.notes import annotate, quantities
from decider.engine.request import Question

ROOT = Path(__file__).parents[1]


def notes(text: str) -> list[str]:
    return re.findall(r" \(((?:above|below|equal to|within|outside) [^)]*)\)", text)


def test_a_reading_is_compared_with_the_limit_that_names_its_tag():
    context = ("Interlock I-301: K-101 trips on high discharge temperature (TT-1104 > 128 °C). "
               "02:40 TT-1104 131.5 °C, TT-1105 (interstage) 96.2 °C.")
    out = annotate(context)
    assert "TT-1104 131.5 °C (above 128 °C)," in out
    assert "96.2 °C (below 128 °C)" in out  # its sentence names TT-1104 before it
    assert out.replace(" (above 128 °C)", "").replace(" (below 128 °C)", "") == context


def test_equal_to_a_limit_is_said_as_equal_and_decimals_compare_by_value():
    out = annotate("P-101A trips at or above 44 A. P-101A amps 44.0 A. Vibration 7.15 mm/s, H alarm 7.2 mm/s.")
    assert "44.0 A (equal to 44 A)" in out
    assert "7.15 mm/s (below 7.2 mm/s)" in out


def test_a_band_says_within_or_outside():
    assert notes(annotate("Suction PT-1101 2.4 barg, normal window 2.0 to 3.5 barg.")) == ["within 2.0 to 3.5 barg"]
    assert notes(annotate("Suction PT-1101 3.6 barg, normal window 2.0 to 3.5 barg.")) == ["outside 2.0 to 3.5 barg"]
    # a trend is not a band: no limit word before it
    assert notes(annotate("TT-7 rose from 80 to 95 °C.")) == []


def test_another_tag_s_limit_is_not_this_reading_s_and_units_must_match():
    out = annotate("P-101A trips on motor current at or above 44 A. P-102A on the glycol loop drawing 46.0 A.")
    assert notes(out) == []
    assert notes(annotate("The high-level alarm is 90 %. LT-12 reads 2.5 m.")) == []


def test_a_limit_said_after_its_number_and_unit_words_in_full():
    out = annotate("90.0 degrees Celsius is the hi-hi alarm for TT-345. TT-345 is showing 93 degrees Celsius.")
    assert notes(out) == ["above 90.0 degrees Celsius"]
    out = annotate("When TUG-15's state of charge is 20% or less, reserve C4. TUG-15 battery 22%.")
    assert notes(out) == ["above 20%"]


def test_spelled_numbers_with_figures_are_limits_where_a_limit_word_precedes_them():
    found = quantities("Notice of at least ninety (90) days is needed. Notice was given 60 days before the end.")
    assert [(q.value, q.unit, q.limit) for q in found] == [(90, "day", True), (60, "day", False)]
    assert notes(annotate("Notice of at least ninety (90) days is needed. Notice was given 60 days before."))[0] == \
        "below 90 days"


def test_a_question_s_number_is_a_limit_for_the_readings_it_asks_about():
    context = "TT-1105 (interstage) 96.2 °C. Obstacle at 0.8 m ahead."
    out = annotate(context, ["Is TT-1105 above 128 °C?", "Is the obstacle closer than 1.0 m?"])
    assert "96.2 °C (below 128 °C)" in out
    assert "0.8 m (below 1.0 m)" in out  # a reading after no tag takes every question's limits
    assert notes(annotate(context, ["Is TT-9 above 128 °C?"])) == []  # another tag's


def test_the_nearest_limits_only_and_currencies_before_their_number():
    out = annotate("Alarm L 15 %, H 90 %, HH 95 %. LT-12 92.0 %.")
    assert notes(out) == ["below 95 %; above 90 %"]
    out = annotate("Liability is capped at $250,000. The claim is for $310,000.")
    assert notes(out) == ["above $250,000"]


def test_text_without_quantities_comes_back_as_it_was():
    for text in ("The pump is running. If the pump stops, the valve closes.", "Clause 9.2 applies.", ""):
        assert annotate(text, ["Is the pump running?"]) == text


def test_the_tokenizer_writes_the_notes_and_leaves_them_out_where_they_would_not_fit(tiny):
    tok = tiny.tokenizer
    context = "TT-1 trip at 128 °C. TT-1 reads 131.5 °C."
    questions = [Question("q", "Has TT-1 tripped?", "boolean")]
    plain = tok.encode(context, questions)
    tok.reading_notes = True
    noted = tok.encode(context, questions)
    assert tok.tok.decode(noted.prefix_ids).count("above 128") == 1
    assert len(noted.prefix_ids) > len(plain.prefix_ids)
    # a context that fits the window only as written: encoded as written, not refused
    def tokens(text):
        return len(tok.tok.encode(text, add_special_tokens=False).ids)
    room = tok.max_length - (len(plain.prefix_ids) - tokens(context))
    long = "ok " * (room - tokens(context)) + context
    assert tokens(long) <= room < tokens(annotate(long))
    enc = tok.encode(long, questions)
    assert len(enc.prefix_ids) <= tok.max_length and "above" not in tok.tok.decode(enc.prefix_ids)


def test_a_checkpoint_keeps_its_reading_notes(tiny, tmp_path):
    from decider.engine.model import ModelConfig

    tiny.model.cfg = ModelConfig.model_validate({**tiny.model.cfg.model_dump(), "reading_notes": True})
    save_checkpoint(tiny, tmp_path / "ck")
    loaded = load_checkpoint(tmp_path / "ck")
    assert loaded.model.cfg.reading_notes and loaded.tokenizer.reading_notes


def test_a_share_of_a_rating_is_a_limit_in_the_rating_s_unit():
    out = annotate("M-675 trips below 80% of rated (8500 r/min). SE-891 on M-675 reads 6,250 RPM.")
    assert notes(out) == ["below 6800 r/min"]


def test_a_reading_s_tag_reaches_past_a_semicolon_and_after_the_number():
    out = annotate("The shutdown limit for the exhaust pressure at DR-186 sits at 115 mbar. "
                   "PT-700 is at 90 mbar; that is the exhaust pressure at DR-186.")
    assert notes(out) == ["below 115 mbar"]


def test_a_range_reading_is_not_a_limit_but_an_operating_range_is_a_band():
    assert [q.limit for q in quantities("Lane 4 obstacle, range 2.0 m.")] == [False]
    assert notes(annotate("The DP on HX-772 has to remain in the 130 to 133.0 kPa range. HX-772 DP 134 kPa.")) == [
        "outside 130 to 133.0 kPa"]


def test_the_notes_agree_with_the_generator_s_labels():
    from notes_check import check

    seen = check(100, "validation", "readings")
    assert seen["labelled"] > 150
    assert seen["agree"] / seen["labelled"] >= 0.95
    assert seen["named"] / seen["limits"] >= 0.6


def test_rules_2_let_words_choose_among_limits_in_a_unit_that_measures_many_things():
    context = ("AGV-03: battery 18%, idle. Service credits shall not exceed 25%. "
               "Return to dock when battery is below 20%.")
    assert notes(annotate(context, rules=1)) == ["below 25%; below 20%"]
    assert notes(annotate(context, rules=2)) == ["below 20%"]
    # a lone limit of the unit is still the reading's, whatever its words
    assert notes(annotate("Liability is capped at $250,000. The claim is for $310,000.", rules=2)) == [
        "above $250,000"]


def test_rules_2_read_a_rule_s_quantities_and_a_limit_list_s_as_limits():
    rebate = "If the share is at least 65%, the rebate is 3%. Pell's share was 70%."
    assert notes(annotate(rebate, rules=1)) == ["below 65%", "above 65%"]
    assert notes(annotate(rebate, rules=2)) == ["above 65%"]
    wind = "Wind limits: mean 10 m/s, gust 12 m/s. Anemometer at the pad: 11 m/s."
    assert notes(annotate(wind, rules=1)) == ["above 10 m/s", "above 10 m/s"]
    assert notes(annotate(wind, rules=2)) == ["below 12 m/s; above 10 m/s"]
    # a condition in the next clause is that clause's: the reading before the ";" stays a reading
    agitator = "Agitator M-201 62 rpm, minimum 55 rpm; feed stops if agitator speed falls below 55 rpm."
    assert notes(annotate(agitator, rules=2)) == ["above 55 rpm"]


def test_a_model_reads_the_notes_by_the_rules_it_was_trained_with(tiny):
    from decider.engine.model import ModelConfig

    context = "AGV-03: battery 18%. Service credits shall not exceed 25%. Return to dock when battery is below 20%."
    questions = [Question("q", "Should AGV-03 return to dock?", "boolean")]
    decoded = {}
    for rules in (True, 2):  # true: version 39's config.json, rules 1
        cfg = ModelConfig.model_validate({**tiny.model.cfg.model_dump(), "reading_notes": rules})
        tiny.tokenizer.reading_notes = cfg.reading_notes
        decoded[rules] = tiny.tokenizer.tok.decode(tiny.tokenizer.encode(context, questions).prefix_ids)
    assert "below 25" in decoded[True] and "below 25" not in decoded[2] and "below 20" in decoded[2]
    night = "Night speed applies after sunset. Today: sunset 17:02. 17:30 OC-3 on yard road north."
    for rules in (2, 3):
        cfg = ModelConfig.model_validate({**tiny.model.cfg.model_dump(), "reading_notes": rules})
        tiny.tokenizer.reading_notes = cfg.reading_notes
        decoded[rules] = tiny.tokenizer.tok.decode(tiny.tokenizer.encode(night, questions).prefix_ids)
    assert "after 17" not in decoded[2] and "after 17" in decoded[3]


def test_notes_by_rules_2_name_what_a_reader_judged_meaningful_more_often():
    from notes_check import judged

    path = ROOT / "bench" / "notes_pairs.jsonl"
    for sample in ("first", "second"):  # rules 2 were worked out on the first; the second was judged after
        one, two = judged(path, 1, sample), judged(path, 2, sample)
        assert two["right"] / two["notes"] > one["right"] / one["notes"] + 0.05  # 0.447 -> 0.523; 0.326 -> 0.390
        assert two["right"] >= one["right"]  # as many meaningful pairs named


def test_time_notes_by_rules_3_are_meaningful_more_often_than_the_draft_they_were_tightened_from():
    from notes_check import judged_times

    path = ROOT / "bench" / "time_notes_judged.jsonl"
    first, second = judged_times(path, "first"), judged_times(path, "second")
    assert first["judged"] >= 40 and first["meaningful"] / first["judged"] > 0.45  # the draft's notes: 0.143
    assert second["judged"] == second["notes"] and second["meaningful"] / second["judged"] > 0.35  # 0.391
    assert second["correct"] / second["judged"] > 0.95


def test_rules_1_write_the_notes_decider_small_39_was_trained_on():
    # the shipped model reads rules 1: whatever later rules change, its notes on the written sets it
    # trained on and on bench/realistic stay what they were when it was trained (the digest is of
    # engine/notes.py at c0e0a28; a change to one of those files changes it too)
    import hashlib

    import yaml

    from decider.engine.training.dataset import load_jsonl

    trained_on = yaml.safe_load((ROOT / "engine" / "configs" / "decider-small-v39.yaml").read_text())["data"]
    h = hashlib.sha256()
    for path in [ROOT / p for p in trained_on] + sorted((ROOT / "bench" / "realistic").glob("*.jsonl")):
        for s in load_jsonl(path):
            h.update(annotate(s.context, [q.text for q in s.questions], rules=1).encode())
    assert h.hexdigest() == "46b0306e4ae7a2d1f5958eb70cac6c0f0baa522946c2d22c324e85f3227b7351"


def test_rules_3_compare_times_and_dates_with_the_deadlines_and_windows_that_name_them():
    out = annotate("Deadline: Friday 14 March, 17:00. Ada - Fri 14 March 16:59. Eero - Fri 14 March 17:40.", rules=3)
    assert "Fri 14 March 16:59 (before Friday 14 March, 17:00)" in out
    assert "Fri 14 March 17:40 (after Friday 14 March, 17:00)" in out
    out = annotate("From 02:00 to 05:00, export must be 60 MW or less. Readings: 01:50 96 MW; 02:05 58 MW.", rules=3)
    assert "01:50 (outside 02:00 to 05:00) 96 MW (above 60 MW)" in out
    assert "02:05 (within 02:00 to 05:00) 58 MW (below 60 MW)" in out
    out = annotate("Night runs between 22:00 and 06:00. Started 23:10. Stopped 06:30.", rules=3)
    assert "23:10 (within 22:00 and 06:00)" in out and "06:30 (outside 22:00 and 06:00)" in out
    # a span no limit word introduces is two points, and a time with no limit stays as it was
    plain = "Flushing 15:10-15:50. Valves reopened 16:05."
    assert annotate(plain, rules=3) == plain


def test_rules_3_pick_the_deadline_by_words_and_leave_rules_2_as_they_were():
    context = ("The Initial Term expires on 28 February 2025, so the last day for a non-renewal notice is "
               "30 November 2024. The Customer e-mailed a non-renewal notice on 15 November 2024 and sent a signed "
               "letter by courier on 10 December 2024.")
    out = annotate(context, rules=3)
    assert "15 November 2024 (before 30 November 2024)" in out  # the notice's deadline, not the term's
    assert "10 December 2024 (after" in out  # "by courier" makes no limit
    assert annotate(context, rules=2) == context


def test_rules_3_time_what_a_duration_limit_binds_from_the_point_it_names():
    context = ("Rules: customers off supply for more than 12 hours are owed compensation. Sensitive customers must "
               "receive bottled water within 4 hours of losing supply. Timeline: supply lost 05:30. Care home "
               "received bottled water 09:15. Dialysis patient received bottled water 10:00.")
    out = annotate(context, rules=3)
    assert "09:15 (3.75 h after 05:30: below 4 hours)" in out
    assert "10:00 (4.5 h after 05:30: above 4 hours)" in out  # from the supply loss, not the 09:15 before it
    out = annotate("If its path is blocked for more than 45 seconds, it sends a help request. If no operator accepts "
                   "within 90 seconds of the request, it stays stopped. 14:03:10 path blocked. 14:04:02 help request "
                   "sent. 14:05:20 operator accepts.", rules=3)
    assert "14:05:20 (78 s after 14:04:02: below 90 seconds)" in out  # "of the request": the request's time
    out = annotate("Invoices are payable within 30 days of the invoice date. Invoice dated 1 March 2025 was paid on "
                   "15 April 2025.", rules=3)
    assert "15 April 2025 (45 days after 1 March 2025: above 30 days)" in out
    out = annotate("Defects must be notified within 5 Working Days after delivery. Delivered Fri 7 Mar 2025; "
                   "defect notice sent Mon 10 Mar 2025.", rules=3)
    assert "Mon 10 Mar 2025 (1 days after Fri 7 Mar 2025: below 5 Working Days)" in out  # weekdays only


def test_rules_3_a_night_log_runs_past_midnight_and_clock_digits_are_no_quantity():
    out = annotate("Curfew from 23:00. 22:30 robot parked. 23:50 robot moved. 00:30 robot moved.", rules=3)
    assert "00:30 (after 23:00)" in out  # the next day's, after the 23:50 before it
    assert not [q for q in quantities("Restart at 06:00 hrs.", rules=3) if q.unit == "h"]
    assert [q.unit for q in quantities("Restart at 06:00 hrs.", rules=2)] == ["h"]  # as version 40 reads it
