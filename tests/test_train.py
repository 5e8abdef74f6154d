import copy
import json

import pytest
import torch

from decider.engine.checkpoint import load_checkpoint
from decider.engine.training.train import Stage, TrainConfig, lr_at, batch_loss, batches, make_example, train


V2 = {"v1": 0.2, "readings": 0.2, "contracts": 0.2, "reports": 0.2, "quantified": 0.2}


@pytest.mark.parametrize("mix", [{"v1": 1.0}, V2], ids=["v1", "v2"])
def test_a_tiny_training_run_lowers_the_loss(tiny, tmp_path, mix):
    """A tiny random model fits a few fixed batches: the loss must fall well below its start."""
    cfg = TrainConfig(out=tmp_path / "run", batch_size=8, seed=1,
                      stages=[Stage(max_links=1, examples=8 * 4, max_questions=3, max_extra=0, mix=mix)])
    fixed = list(batches(cfg, tiny.tokenizer, tiny.model.cfg.n_answers))
    assert len(fixed) == 4
    model = tiny.model.train()
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
    losses = []
    for step in range(60):
        loss, _, _ = batch_loss(model, fixed[step % 4], bf16=False)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    first, last = sum(losses[:4]) / 4, sum(losses[-4:]) / 4
    assert last < 0.5 * first, (first, last)


def test_reveal_patterns_read_their_shared_prefix_as_copies_of_it_would(tiny):
    """The step's K reveal patterns read one prefix pass in place (PrefixKV.shared): the same
    logits and gradients as giving every pattern its own copy of the prefix (select)."""
    from decider.engine.model import PrefixKV

    cfg = TrainConfig(batch_size=4, block_samples=3, seed=2,
                      stages=[Stage(max_links=2, examples=4, max_questions=5, mix=V2)])
    tb = next(iter(batches(cfg, tiny.tokenizer, tiny.model.cfg.n_answers)))
    batch = tb.batch
    assert len(set(batch.slot_valid.sum(1).tolist())) > 1  # blocks of different sizes: slot masks matter
    model = copy.deepcopy(tiny.model).train()
    with torch.no_grad():  # sharper attention than at random init, so every key's mask shows
        for layer in model.layers:
            layer.query.weight.mul_(8)
    K, B, S = tb.labels.shape
    answers = torch.where(tb.masked.view(K * B, S), model.mask_token, tb.labels.view(K * B, S))
    rows = torch.arange(B).repeat(K)
    runs = []
    for read in (lambda p: p.select(rows), lambda p: p.shared(K)):
        model.zero_grad()
        prefix: PrefixKV = read(batch.prefix_forward(model))
        logits = model.block_forward(answers, batch.positions[rows], batch.slot_valid[rows], prefix,
                                     batch.answer_vectors(model)[rows])
        (logits.masked_fill(~batch.allowed[rows], 0) ** 2).sum().backward()
        runs.append((logits.detach(), {n: p.grad.clone() for n, p in model.named_parameters() if p.grad is not None}))
    (copied, grads_copied), (shared, grads_shared) = runs
    assert torch.allclose(shared, copied, atol=1e-6, rtol=1e-6)
    assert grads_copied.keys() == grads_shared.keys() and len(grads_copied) > 10
    for name, g in grads_copied.items():
        assert torch.allclose(grads_shared[name], g, atol=1e-4, rtol=1e-4), name


def test_train_saves_and_resumes(tiny, tmp_path):
    from decider.engine.checkpoint import save_checkpoint
    init = save_checkpoint(tiny, tmp_path / "init")
    cfg = TrainConfig(out=tmp_path / "run", init=str(init), batch_size=8, warmup_steps=1, save_every=2,
                      stages=[Stage(max_links=1, examples=32, max_questions=3, max_extra=0)],
                      freeze_word_embeddings=True)
    train(cfg, progress=False, log=lambda m: None)
    state = (tmp_path / "run" / "train_state.json").read_text()
    assert '"examples": 32' in state
    loaded = load_checkpoint(tmp_path / "run")
    assert loaded.meta["trained"]["examples"] == 32
    # growing the schedule resumes from example 32, not from zero
    cfg2 = cfg.model_copy(update={"stages": [Stage(max_links=1, examples=48, max_questions=3, max_extra=0)]})
    logs = []
    train(cfg2, progress=False, log=logs.append)
    assert logs[0].startswith("resuming")
    state = json.loads((tmp_path / "run" / "train_state.json").read_text())
    assert state["examples"] == 48 and state["step"] == 6
    assert state["adam_step"] == 6  # the optimiser's count went on from 4, not stuck at the first run's


def test_dropped_support_only_when_the_answer_is_revealed(tiny):
    import random

    from decider.engine.training.corpus import CorpusSpec, make_sets
    rng = random.Random(0)
    for s in make_sets(CorpusSpec(split="train"), 40):
        ex = make_example(s, tiny.tokenizer, rng, drop_support=1.0, samples=3)
        full = tiny.tokenizer.encode(s.context, s.questions)
        supported = [r and sup is not None for r, sup in zip(ex.revealed[0], s.support)]
        assert (len(ex.enc.prefix_ids) < len(full.prefix_ids)) == any(supported)
        for pattern in ex.revealed:
            assert any(not r for r in pattern)  # always something to predict
            # a slot whose support left the context is revealed in every pattern
            assert all(r for r, sup in zip(pattern, supported) if sup)


def test_reveal_noise_shows_a_share_of_revealed_answers_wrong(tiny):
    import random

    from decider.engine.request import answer_classes
    from decider.engine.training.corpus import CorpusSpec, make_sets
    rng, shown_wrong, could = random.Random(0), 0, 0
    for s in make_sets(CorpusSpec(split="train", mix=(("v1", 1.0), ("readings", 1.0))), 60):
        ex = make_example(s, tiny.tokenizer, rng, drop_support=1.0, samples=3, reveal_noise=0.3)
        dropped = len(ex.enc.prefix_ids) < len(tiny.tokenizer.encode(s.context, s.questions).prefix_ids)
        kept = {i for i, sup in enumerate(s.support) if dropped and ex.revealed[0][i] and sup is not None}
        for pattern, shown in zip(ex.revealed, ex.shown):
            for i, (revealed, cls) in enumerate(zip(pattern, shown)):
                assert cls in answer_classes(s.questions[i])  # always one of the question's own answers
                if not revealed or i in kept:
                    assert cls == ex.labels[i]  # what is predicted, or what lost its support, shows the truth
                else:
                    could += 1
                    shown_wrong += cls != ex.labels[i]
    assert 0.2 < shown_wrong / could < 0.4
    assert make_example(s, tiny.tokenizer, rng, 0.5, 3).shown is None  # off: the truth, as before


def test_a_step_with_reveal_noise_reads_the_shown_answers(tiny):
    import random

    from decider.engine.training.corpus import CorpusSpec, make_sets
    from decider.engine.training.train import TrainBatch
    sets = make_sets(CorpusSpec(split="train"), 8)
    clean = TrainBatch.collate([make_example(s, tiny.tokenizer, random.Random(i), 0.0, 2) for i, s in enumerate(sets)],
                               tiny.tokenizer.pad, tiny.model.cfg.n_answers)
    noisy = TrainBatch.collate([make_example(s, tiny.tokenizer, random.Random(i), 0.0, 2, reveal_noise=0.9)
                                for i, s in enumerate(sets)], tiny.tokenizer.pad, tiny.model.cfg.n_answers)
    assert torch.equal(clean.masked, noisy.masked) and clean.shown is None
    assert ((noisy.shown != noisy.labels) & ~noisy.masked).any()
    with torch.no_grad():
        a, _, _ = batch_loss(tiny.model, clean, bf16=False)
        b, _, _ = batch_loss(tiny.model, noisy, bf16=False)
    assert torch.isfinite(b) and a != b  # the same slots predicted, other answers shown


def test_trains_on_team_data_alone_and_stops_where_told(tiny, tmp_path):
    from pathlib import Path

    from decider.engine.checkpoint import save_checkpoint
    init = save_checkpoint(tiny, tmp_path / "init")
    data = Path(__file__).parents[1] / "docs" / "examples" / "decisions.jsonl"
    cfg = TrainConfig(out=tmp_path / "run", init=str(init), batch_size=4, warmup_steps=1, save_every=100,
                      data=[data], use_corpus=False, stop_after=8,
                      stages=[Stage(max_links=1, examples=40)])
    logs = []
    train(cfg, progress=False, log=logs.append)
    assert load_checkpoint(tmp_path / "run").meta["trained"]["examples"] == 8
    assert any("stopped at 8 sets" in m for m in logs)
    # the save line says how much of the run waited on the data (a GPU run's first question)
    share = [int(m.split("% waiting for data")[0].rsplit(" ", 1)[1]) for m in logs if "% waiting for data" in m]
    assert share and all(0 <= x <= 100 for x in share), logs


def test_team_sets_come_round_as_variants_with_every_answer_still_its_questions():
    import random
    from pathlib import Path

    from decider.engine.training.dataset import load_jsonl
    from decider.engine.training.train import sets_at, team_variant

    team = load_jsonl(Path(__file__).parents[1] / "docs" / "examples" / "decisions.jsonl")
    s = max(team, key=lambda t: len(t.questions))
    n = len(s.questions)
    assert n >= 3
    truth = {q.text: a for q, a in zip(s.questions, s.answers)}
    seen = set()
    for k in range(200):
        v = team_variant(s, random.Random(k))
        assert n - n // 3 <= len(v.questions) <= n
        assert {q.text: a for q, a in zip(v.questions, v.answers)}.items() <= truth.items()
        assert len(v.depth) == len(v.support) == len(v.questions)
        seen.add(tuple(q.text for q in v.questions))
    assert len(seen) > 20  # orders and subsets differ from one draw to the next
    assert s.questions == team[team.index(s)].questions  # the file's set itself is untouched
    # only a run that asks for them draws variants
    plain = TrainConfig(data=[], use_corpus=False, stages=[Stage(max_links=1, examples=100)])
    varied = plain.model_copy(update={"data_variants": True})
    drawn = [sets_at(plain, [s], i)[0] for i in range(20)]
    assert all(d is s for d in drawn)
    assert any(sets_at(varied, [s], i)[0].questions != s.questions for i in range(20))


def test_shuffled_options_keep_each_answer_and_each_link_on_its_option():
    import random

    from decider.engine.request import Question
    from decider.engine.training.corpus import DecisionSet
    from decider.engine.training.train import team_variant

    mode = Question("q1", "Which mode is line 4 in?", "categorical", ("AUTO", "MANUAL", "CASCADE", "LOCAL"))
    trip = Question("q2", "Has the pump tripped?", "boolean")
    grade = Question("q3", "Which grade applies?", "categorical", ("A", "B", "C"))
    s = DecisionSet(sentences=["..."], questions=[mode, trip, grade], answers=[2, 0, 1], depth=[0, 0, 1],
                    support=[None, None, None], chained=True,
                    links=[(((1, 0),), (0, 2)), (((0, 2),), (2, 1))])  # tripped -> CASCADE -> B

    def said(v, q, a):
        return v.questions[q].choices[a]

    orders = set()
    for k in range(100):
        v = team_variant(s, random.Random(k), shuffle_options=True)
        for q, a in zip(v.questions, v.answers):
            original = next(o for o in s.questions if o.text == q.text)
            assert sorted(q.choices) == sorted(original.choices)
            assert q.choices[a] == original.choices[s.answers[s.questions.index(original)]]
        for cond, then in v.links:
            assert all(said(v, q, a) in ("yes", "CASCADE") for q, a in cond)
            assert said(v, *then) in ("CASCADE", "B")
        orders |= {q.options for q in v.questions if q.text == mode.text}  # unless it was left out
    assert len(orders) > 10  # CASCADE is no longer always the third option
    assert all(team_variant(s, random.Random(k)).questions[0].options in (mode.options, trip.options, grade.options)
               for k in range(20))  # without the knob the options keep their written order
    with pytest.raises(ValueError, match="data_variants"):  # the knob alone would do nothing
        TrainConfig(shuffle_options=True)


def test_a_team_set_comes_with_its_contrast_twin(tmp_path):
    """data_twins: a twin is matched to its set by `twin_of` (the set's line in the data file of
    the same name), comes in the same draw as its set and only with it, and a file of twins
    whose sets are not listed, or a twin naming a line with no set, is refused with the fix."""
    from decider.engine.training.train import load_team, sets_at

    def record(context, answer):
        return {"context": context, "questions": [{"id": "q1", "text": "Has P-101 tripped?", "type": "boolean"}],
                "answers": {"q1": answer}}

    data, twins = tmp_path / "plant.jsonl", tmp_path / "twins" / "plant.jsonl"
    twins.parent.mkdir()
    data.write_text("\n".join(json.dumps(record(f"P-{n} reads {n} bar; trip at 5 bar.", "no")) for n in (1, 2, 3))
                    + "\n\n" + json.dumps(record("P-101 reads 4.0 bar; trip at 3.5 bar.", "yes")) + "\n")
    twins.write_text(json.dumps({**record("P-101 reads 3.0 bar; trip at 3.5 bar.", "no"), "twin_of": 5}) + "\n")
    cfg = TrainConfig(data=[data], data_twins=[twins], use_corpus=False, stages=[Stage(max_links=1, examples=100)])
    team, twins_of = load_team(cfg)
    assert len(team) == 4 and list(twins_of) == [3]  # line 5, after a blank line, holds the fourth set
    assert twins_of[3].context == "P-101 reads 3.0 bar; trip at 3.5 bar." and twins_of[3].answers == [1]
    draws = [sets_at(cfg, team, i, team_twins=twins_of) for i in range(200)]
    paired = [d for d in draws if d[0] is team[3]]
    assert paired and all(len(d) == 2 and d[1] is twins_of[3] for d in paired)
    assert all(len(d) == 1 for d in draws if d[0] is not team[3])
    assert [d[0] for d in draws] == [sets_at(cfg, team, i)[0] for i in range(200)]  # the same schedule of sets

    with pytest.raises(ValueError, match="no data file has that name"):
        TrainConfig(data=[tmp_path / "other.jsonl"], data_twins=[twins])
    twins.write_text(json.dumps({**record("P-101 reads 3.0 bar.", "no"), "twin_of": 4}) + "\n")
    with pytest.raises(ValueError, match=r"plant.jsonl:1: twin_of: .* no set on line 4"):
        load_team(cfg)


def test_a_set_and_its_twin_ask_alike_share_a_batch_and_the_contrast_term_reads_only_the_edit(tiny, tmp_path):
    """With data_variants and shuffle_options, a twin asks what its set's variant asks, in the
    same order and with the same options in the same order; the two land in one batch, whose
    `pairs` name the rows and slots of each question they share; and the contrast term is log 2
    for a model that answers both texts alike, lower where each text's own answer is likelier on
    it, and absent where no masked answer differs."""
    import math

    from decider.engine.training.train import contrast_loss, load_team, sets_at

    questions = [{"id": "q1", "text": "Has P-101 tripped?", "type": "boolean"},
                 {"id": "q2", "text": "Which mode is the line in?", "type": "categorical",
                  "options": ["AUTO", "MANUAL", "LOCAL"]},
                 {"id": "q3", "text": "Is P-102 running?", "type": "boolean"}]

    def record(context, tripped, mode, **extra):
        return {"context": context, "questions": questions, **extra,
                "answers": {"q1": tripped, "q2": mode, "q3": "yes"}}

    data, twins = tmp_path / "plant.jsonl", tmp_path / "twins" / "plant.jsonl"
    twins.parent.mkdir()
    data.write_text(json.dumps(record("P-101 reads 4.0 bar; trip at 3.5 bar. A trip puts the line in MANUAL.",
                                      "yes", "MANUAL")) + "\n")
    twins.write_text(json.dumps(record("P-101 reads 3.0 bar; trip at 3.5 bar. A trip puts the line in MANUAL.",
                                       "no", "AUTO", twin_of=1)) + "\n")
    cfg = TrainConfig(data=[data], data_twins=[twins], use_corpus=False, data_variants=True, shuffle_options=True,
                      batch_size=4, stages=[Stage(max_links=1, examples=64)], block_samples=2)
    team, twins_of = load_team(cfg)
    for i in range(30):
        variant, twin = sets_at(cfg, team, i, team_twins=twins_of)
        assert [q.id for q in twin.questions] == [q.id for q in variant.questions]
        assert [q.options for q in twin.questions] == [q.options for q in variant.questions]
        answer = {q.id: q.choices[a] for q, a in zip(twin.questions, twin.answers)}
        assert answer == {k: v for k, v in {"q1": "no", "q2": "AUTO", "q3": "yes"}.items() if k in answer}

    seen = 0
    for tb in batches(cfg, tiny.tokenizer, tiny.model.cfg.n_answers):
        assert tb.pairs is not None and len(tb) % 2 == 0  # every set came with its twin, in the same batch
        for set_row, set_slot, twin_row, twin_slot in tb.pairs.tolist():
            texts = [tiny.tokenizer.tok.decode(tb.batch.ids[r].tolist()) for r in (set_row, twin_row)]
            assert "4. 0 bar" in texts[0] and "3. 0 bar" in texts[1]
            # a paired slot asks the same question: the same allowed classes, the true one moved by the edit
            # on q1 and q2 only (q3's answer is yes in both)
            assert torch.equal(tb.batch.allowed[set_row, set_slot], tb.batch.allowed[twin_row, twin_slot])
            seen += 1
    assert seen

    # 2 patterns x 2 rows (set, twin) x 1 slot, 3 classes; the set's answer is 0, the twin's 1
    labels = torch.tensor([[0], [1], [0], [1]])
    masked = torch.tensor([[True], [True], [True], [False]])  # the second pattern reveals the twin's answer
    pairs = torch.tensor([[0, 0, 1, 0]])
    alike = torch.zeros(4, 1, 3)
    term, apart = contrast_loss(alike, labels, masked, pairs, B=2)
    assert term.item() == pytest.approx(math.log(2)) and apart == 0.0
    reading = torch.tensor([[[2.0, 0.0, 0.0]], [[0.0, 2.0, 0.0]], [[9.0, 0.0, 0.0]], [[9.0, 0.0, 0.0]]])
    term, apart = contrast_loss(reading, labels, masked, pairs, B=2)  # only the first pattern counts
    assert term.item() < 0.05 and apart == 1.0
    assert contrast_loss(reading, torch.zeros(4, 1, dtype=torch.long), masked, pairs, B=2) is None


def test_background_workers_build_the_same_batches(tiny):
    """Workers shard the schedule by pool: together they yield exactly the sets that one
    process would, whatever their number."""
    cfg = TrainConfig(batch_size=4, seed=3, stages=[Stage(max_links=2, examples=4 * 16 * 3 + 6)])

    def contents(workers, start=0):
        out = []
        for tb in batches(cfg, tiny.tokenizer, tiny.model.cfg.n_answers, start, workers):
            ids = tb.batch.ids.masked_fill(~tb.batch.valid, -1)
            out += [tuple(row[row >= 0].tolist()) for row in ids]
        return sorted(out)

    alone = contents(0)
    assert len(alone) == 4 * 16 * 3 + 6
    assert contents(2) == alone
    assert len(contents(0, start=100)) == len(alone) - 100


def test_learning_rate_can_end_at_the_time_limit():
    cfg = TrainConfig(lr=1e-3, warmup_steps=10, min_lr_ratio=0.1, time_limit_min=10, anneal_to_time_limit=True)
    assert lr_at(cfg, 5, 10_000, seconds=0) == 1e-3 * 6 / 10            # warm-up
    assert abs(lr_at(cfg, 20, 10_000, seconds=300) - 1e-3 * 0.55) < 1e-6  # half the time: half-way down
    assert abs(lr_at(cfg, 20, 10_000, seconds=600) - 1e-4) < 1e-9         # time is up: the floor
    fixed = cfg.model_copy(update={"anneal_to_time_limit": False})
    assert lr_at(fixed, 20, 10_000, seconds=600) > 9e-4                   # the step schedule alone


def test_fine_tuning_adds_number_ranks_that_learn_and_resume(tiny, tmp_path):
    """A model without number ranks gets them (zeros) when the config asks, with the comparison
    term, names and the question comparison; they train, at their own learning-rate multiple,
    and a resumed run keeps them."""
    from decider.engine.checkpoint import save_checkpoint
    init = save_checkpoint(tiny, tmp_path / "init")
    mix = {"readings": 1.0}
    cfg = TrainConfig(out=tmp_path / "run", init=str(init), batch_size=4, warmup_steps=1, save_every=2,
                      number_ranks=16, number_relative=4, name_links=4, question_compare=2, number_links=True,
                      stages=[Stage(max_links=1, examples=8, max_questions=3, mix=mix)])
    logs = []
    ckpt = train(cfg, progress=False, log=logs.append)
    assert any("number ranks 1..16" in m for m in logs) and any("comparison term (4" in m for m in logs)
    assert ckpt.model.cfg.number_ranks == 16 and ckpt.model.number_proj.weight.abs().sum() > 0
    assert all(layer.rank_out.weight.abs().sum() > 0 for layer in ckpt.model.layers[:-1])
    assert any("linked comparison" in m for m in logs) and ckpt.model.link_proj.weight.abs().sum() > 0
    assert any("question comparison (2" in m for m in logs) and ckpt.model.cfg.question_compare == 2
    assert all(layer.compare_out.weight.abs().sum() > 0 for layer in ckpt.model.layers[:-1])
    assert any("number tokens' link biases" in m for m in logs) and ckpt.model.cfg.number_links
    assert all(layer.number_link_bias.abs().sum() > 0 for layer in ckpt.model.layers[:-1])
    resumed = load_checkpoint(tmp_path / "run")
    assert torch.equal(resumed.model.layers[0].compare_out.weight, ckpt.model.layers[0].compare_out.weight.float())
    assert torch.equal(resumed.model.layers[0].number_link_bias, ckpt.model.layers[0].number_link_bias.float())
    assert torch.equal(resumed.model.number_proj.weight, ckpt.model.number_proj.weight.float())
    assert torch.equal(resumed.model.layers[0].rank_out.weight, ckpt.model.layers[0].rank_out.weight.float())
    more = cfg.model_copy(update={"stages": [Stage(max_links=1, examples=16, max_questions=3, mix=mix)]})
    logs.clear()
    train(more, progress=False, log=logs.append)
    assert not any("number ranks 1..16" in m or "comparison term" in m or "question comparison" in m for m in logs)
    assert load_checkpoint(tmp_path / "run").model.cfg.number_ranks == 16
    spread = cfg.model_copy(update={"out": tmp_path / "spread", "init": str(tmp_path / "run"), "number_spread": True})
    logs.clear()
    ckpt = train(spread, progress=False, log=logs.append)  # the other code: a fresh projection, trained
    assert any("number ranks 1..16 (spread)" in m for m in logs) and ckpt.model.cfg.number_spread


def test_a_fine_tune_can_start_past_the_sets_earlier_runs_drew():
    from decider.engine.training.corpus import CorpusSpec, make_set
    from decider.engine.training.train import set_at

    stages = [Stage(max_links=2, examples=100, max_questions=4, mix={"v1": 0.5, "readings": 0.5})]
    first, later = TrainConfig(stages=stages), TrainConfig(stages=stages, corpus_start=5_000)
    spec = CorpusSpec(split="train", max_links=2, max_questions=4, max_extra=3, mix=(("v1", 0.5), ("readings", 0.5)))
    assert set_at(first, [], 7).context == make_set(spec, 7).context
    assert set_at(later, [], 7).context == make_set(spec, 5_007).context
    assert {set_at(first, [], i).context for i in range(20)}.isdisjoint(set_at(later, [], i).context for i in range(20))


def test_a_smaller_student_learns_its_teachers_answers(tiny, tmp_path):
    """keep_layers cuts the init checkpoint to a student of its own layers; with a teacher and
    distill_weight 1 the student's answer distributions move toward the teacher's."""
    from decider.engine.checkpoint import save_checkpoint

    with torch.no_grad():  # a teacher with opinions: far from uniform answers
        tiny.model.head_out.weight.normal_(std=2.0)
    teacher = save_checkpoint(tiny, tmp_path / "teacher")
    with torch.no_grad():  # the student's own head disagrees with the teacher's
        torch.manual_seed(1)
        tiny.model.head_out.weight.normal_(std=2.0)
    init = save_checkpoint(tiny, tmp_path / "init")
    mix = {"v1": 0.5, "readings": 0.5}
    cfg = TrainConfig(out=tmp_path / "edge", init=str(init), name="decider-edge", keep_layers=[1],
                      teacher=str(teacher), distill_weight=1.0, lr=3e-3, batch_size=8, warmup_steps=1,
                      save_every=100, block_samples=1, stages=[Stage(max_links=1, examples=240, max_questions=4, mix=mix)])
    teacher_model = load_checkpoint(teacher).model.eval()
    student = load_checkpoint(init).model
    student.keep_layers([1])
    tb = next(batches(cfg.model_copy(update={"corpus_start": 10_000}), tiny.tokenizer, tiny.model.cfg.n_answers))

    def kl(model):
        with torch.no_grad():
            return batch_loss(model.eval(), tb, False, teacher_model, 1.0)[0].item()

    before = kl(student)
    logs = []
    ckpt = train(cfg, progress=False, log=logs.append)
    assert any("kept layers [1]" in m for m in logs) and any("distilling" in m for m in logs)
    loaded = load_checkpoint(tmp_path / "edge")
    assert loaded.name == "decider-edge" and loaded.model.cfg.n_layers == 1 and len(loaded.model.layers) == 1
    after = kl(ckpt.model)
    assert after < 0.5 * before


def test_a_stage_with_twins_trains_on_them_and_resumes_from_its_schedule_position(tiny, tmp_path):
    """Stage.twins: a readings set comes with its twin in the same pool; the twin rides along,
    so the run counts sets trained on (`examples`) apart from the schedule position it goes on
    from (`drawn`), and a resumed run neither re-reads nor skips the schedule's sets."""
    from decider.engine.checkpoint import save_checkpoint
    from decider.engine.training.corpus import CorpusSpec, make_twins
    from decider.engine.training.train import TrainingSets, sets_at

    stage = Stage(max_links=1, examples=32, max_questions=3, max_extra=0, mix={"readings": 1.0}, twins=True)
    cfg = TrainConfig(out=tmp_path / "run", batch_size=8, warmup_steps=1, save_every=2, stages=[stage])
    spec = CorpusSpec(split="train", max_links=1, max_questions=3, max_extra=0, mix=(("readings", 1.0),))
    assert [s.context for s in sets_at(cfg, [], 3)] == [s.context for s in make_twins(spec, 3)]
    pool = list(TrainingSets(cfg, tiny.tokenizer, tiny.model.cfg.n_answers, 0))
    sets, drawn = sum(len(tb) for tb in pool), sum(tb.drawn for tb in pool)
    assert drawn == 32 and sets > 40  # most readings sets have a twin

    init = save_checkpoint(tiny, tmp_path / "init")
    cfg = cfg.model_copy(update={"init": str(init), "stages": [stage.model_copy(update={"examples": 16})]})
    train(cfg, progress=False, log=lambda m: None)
    state = json.loads((tmp_path / "run" / "train_state.json").read_text())
    assert state["drawn"] == 16 and state["examples"] > 16
    train(cfg.model_copy(update={"stages": [stage]}), progress=False, log=lambda m: None)
    state = json.loads((tmp_path / "run" / "train_state.json").read_text())
    assert state["drawn"] == 32 and state["examples"] == sets


def test_a_stage_with_stated_outcomes_draws_its_readings_sets_with_them():
    """Stage.stated reaches the corpus: the schedule's readings sets are the corpus's sets with
    that share of outcomes said in words, and its other families' sets are unchanged."""
    from dataclasses import replace

    from decider.engine.training.corpus import CorpusSpec, family_of, make_set
    from decider.engine.training.train import sets_at

    mix = {"readings": 0.5, "contracts": 0.5}
    stage = Stage(max_links=1, examples=32, max_questions=3, max_extra=0, mix=mix, stated=0.8)
    cfg = TrainConfig(stages=[stage], corpus_start=0)
    plain = CorpusSpec(split="train", max_links=1, max_questions=3, max_extra=0, mix=tuple(mix.items()))
    drawn = [sets_at(cfg, [], i)[0] for i in range(16)]
    said = [make_set(replace(plain, stated=0.8), i) for i in range(16)]
    assert [s.context for s in drawn] == [s.context for s in said]
    families = [family_of(s) for s in drawn]
    assert "readings" in families and "contracts" in families
    for s, p, f in zip(drawn, (make_set(plain, i) for i in range(16)), families):
        assert (s.context == p.context) == (f == "contracts")
    with pytest.raises(ValueError):
        Stage(max_links=1, examples=8, stated=1.5)


def test_a_set_the_generator_fails_on_is_skipped_and_said_but_many_stop_the_run(tiny, tmp_path, monkeypatch, capsys):
    """A run of hours must not end on one set a family's generator cannot draw (an assertion in
    its ground truth): the set is skipped and named on stderr. More than 0.1% of them (and over
    ten) is a broken generator, and the run stops with that. Its schedule position still
    counts (`drawn`), so that a resumed run goes on from the set after the last one trained."""
    from decider.engine.training import train as T

    stage = Stage(max_links=1, examples=32, max_questions=3, max_extra=0, mix={"v1": 1.0})
    cfg = TrainConfig(out=tmp_path / "run", batch_size=8, warmup_steps=1, stages=[stage])
    real = T.sets_at

    def broken_at_5(cfg, team, index, twins=True, team_twins=None):
        if index == 5:
            raise AssertionError("injected: no reading fits")
        return real(cfg, team, index, twins, team_twins)

    monkeypatch.setattr(T, "sets_at", broken_at_5)
    pool = list(T.TrainingSets(cfg, tiny.tokenizer, tiny.model.cfg.n_answers, 0))
    assert sum(tb.drawn for tb in pool) == 32
    assert "training set 5 (corpus index 5) could not be drawn and is skipped: AssertionError" in capsys.readouterr().err

    def broken(cfg, team, index, twins=True, team_twins=None):
        raise AssertionError("injected")

    monkeypatch.setattr(T, "sets_at", broken)
    with pytest.raises(RuntimeError, match="11 training sets could not be drawn"):
        list(T.TrainingSets(cfg, tiny.tokenizer, tiny.model.cfg.n_answers, 0))


def _anchor_batch(tiny):
    cfg = TrainConfig(batch_size=4, seed=3, stages=[Stage(max_links=2, examples=4, max_questions=4, mix=V2)])
    return next(iter(batches(cfg, tiny.tokenizer, tiny.model.cfg.n_answers)))


def test_the_anchor_measures_how_far_the_prefix_states_are_from_the_encoders(tiny, tiny_bert):
    """A model whose prefix pass is the encoder's own (its weights, no question embeddings) is
    at distance 0 from it; another encoder's states are not."""
    from decider.engine.reader import SentenceReader, reader_from_pretrained
    from decider.engine.training.train import anchor_distance

    tb = _anchor_batch(tiny)
    model = copy.deepcopy(tiny.model)
    with torch.no_grad():
        model.question_embeddings.weight.zero_()
    own = SentenceReader(model.cfg, model.cfg.n_layers)
    missing, _ = own.load_state_dict(model.state_dict(), strict=False)
    assert not missing
    hidden: list = []
    with torch.no_grad():
        tb.batch.prefix_forward(model, hidden)
    assert len(hidden) == model.cfg.n_layers - 1
    assert anchor_distance(hidden, own, tb.batch, bf16=False).item() < 1e-5
    other = reader_from_pretrained(model.cfg, tiny_bert(5).state_dict())
    assert anchor_distance(hidden, other, tb.batch, bf16=False).item() > 0.1


def test_a_run_held_to_the_encoder_ends_nearer_it_than_one_without(tiny, tiny_bert, tmp_path):
    """train() with `anchor` loads the encoder from `anchor_encoder`, logs its distance, and the
    run ends with prefix states nearer the encoder's than the same run without it."""
    from safetensors.torch import save_file

    from decider.engine.checkpoint import save_checkpoint
    from decider.engine.reader import reader_from_pretrained
    from decider.engine.training.train import anchor_distance

    encoder = tiny_bert(7)
    (tmp_path / "encoder").mkdir()
    save_file({k: v.contiguous() for k, v in encoder.state_dict().items()}, str(tmp_path / "encoder" / "model.safetensors"))
    init = save_checkpoint(tiny, tmp_path / "init")
    held = reader_from_pretrained(tiny.model.cfg, encoder.state_dict())
    tb = _anchor_batch(tiny)
    distances, logs = {}, []
    for weight in (0.0, 2.0):
        cfg = TrainConfig(out=tmp_path / f"run{weight}", init=str(init), batch_size=8, warmup_steps=1, lr=3e-3,
                          save_every=3, anchor=weight, anchor_encoder=tmp_path / "encoder", seed=4,
                          stages=[Stage(max_links=1, examples=8 * 12, max_questions=3, max_extra=0, mix=V2)])
        model = train(cfg, progress=False, log=logs.append).model
        hidden: list = []
        with torch.no_grad():
            tb.batch.prefix_forward(model, hidden)
        distances[weight] = anchor_distance(hidden, held, tb.batch, bf16=False).item()
    assert distances[2.0] < 0.7 * distances[0.0], distances
    assert any("anchor distance" in line for line in logs) and any(str(tmp_path / "encoder") in line for line in logs)


def test_number_targets_mark_the_numbers_the_generator_knows(tiny):
    """make_example(numbers=True): the tokens of each labelled number of the context as the step
    reads it (shorthand; support dropped or not) and of the questions carry the set's label, found
    back through the rank the tokenizer gave the number; no other token carries one."""
    import random

    from decider.engine.numbers import dense_ranks, number_spans
    from decider.engine.training.corpus import CorpusSpec, make_set
    from decider.engine.training.train import IGNORE

    rng, tok, covered = random.Random(0), tiny.tokenizer, 0
    spec = CorpusSpec(split="train", mix=(("readings", 1.0),), shorthand=0.5, more_phrasings=True)
    for i in range(80):
        s = make_set(spec, i)
        drop = 0.5 if i % 2 else 0.0
        e = make_example(s, tok, rng, drop, 1, numbers=True)
        assert len(e.numbers) == len(e.enc.prefix_ids)
        values = [v for t in [s.context] + [x for q in s.questions for x in (q.text, *q.options)]
                  for _, _, v in number_spans(t)]
        rank = dict(zip(values, dense_ranks(values, 255)))
        targets = {(r, t) for r, t in zip(e.enc.numbers, e.numbers) if t != IGNORE}
        assert all(r > 0 for r, _ in targets)
        assert {t for _, t in targets} <= {x for _, _, x in s.number_labels + s.question_labels}
        if not drop:  # the ranks are the whole context's: each labelled number and nothing else
            labels = s.number_labels + s.question_labels
            assert targets == {(rank[v], label) for _, v, label in labels}, (targets, labels)
            covered += len(labels)
    assert covered >= 100, covered


def test_number_targets_train_a_number_head_that_learns_and_resumes(tiny, tmp_path):
    """number_targets adds the number head to a model without it; the head and the model learn
    the targets of fixed batches; a run saves the head and resumes with it."""
    import random

    from decider.engine.checkpoint import save_checkpoint
    from decider.engine.training.corpus import CorpusSpec, make_set
    from decider.engine.training.train import TrainBatch

    init = save_checkpoint(tiny, tmp_path / "init")
    mix = {"readings": 1.0}
    cfg = TrainConfig(out=tmp_path / "run", init=str(init), batch_size=4, warmup_steps=1, save_every=2,
                      number_targets=1.0, stages=[Stage(max_links=1, examples=8, max_questions=3, mix=mix)])
    logs = []
    ckpt = train(cfg, progress=False, log=logs.append)
    assert any("number targets at weight 1.0" in m for m in logs)
    assert any(" number targets 0." in m or " number targets 1.0" in m for m in logs), logs
    assert ckpt.model.cfg.number_head
    resumed = load_checkpoint(tmp_path / "run")
    assert torch.equal(resumed.model.number_head.weight, ckpt.model.number_head.weight.float())

    model, rng = copy.deepcopy(tiny.model).train(), random.Random(0)
    model.add_number_head()
    spec = CorpusSpec(split="train", max_links=1, max_questions=3, mix=(("readings", 1.0),))
    fixed = [TrainBatch.collate([make_example(make_set(spec, 4 * b + i), tiny.tokenizer, rng, 0.0, 1, numbers=True)
                                 for i in range(4)], tiny.tokenizer.pad, model.cfg.n_answers) for b in range(3)]
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
    right = []
    for step in range(60):
        parts = {}
        loss, _, _ = batch_loss(model, fixed[step % 3], bf16=False, parts=parts, number_weight=1.0)
        opt.zero_grad()
        loss.backward()
        opt.step()
        right.append(parts["numbers"])
    assert sum(right[-3:]) / 3 > sum(right[:3]) / 3 + 0.2, right
