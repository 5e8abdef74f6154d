"""A diffusion LM in Hugging Face's layout, built here from transformers' own classes (tiny,
random) with a small tokenizer made with `tokenizers`: loading, decisions through the engine
and the server, and the loader's errors."""

import json
import shutil

import pytest
import torch
from tokenizers import Tokenizer, models, pre_tokenizers
from transformers import LlamaConfig, LlamaForCausalLM, Qwen2Config, Qwen2ForCausalLM, Qwen3Config, Qwen3ForCausalLM

from decider.engine.checkpoint import CheckpointError, load_checkpoint
from decider.engine.core import build_engine
from decider.engine.lm_loader import LETTERS, MASK_TOKENS
from decider.engine.request import as_request
from decider.engine.training.corpus import V2_MIX, CorpusSpec, make_sets

MODELS = {"qwen3": (Qwen3Config, Qwen3ForCausalLM), "qwen2": (Qwen2Config, Qwen2ForCausalLM),
          "llama": (LlamaConfig, LlamaForCausalLM)}


def _tokenizer(path):
    """Word-level: every word of the prompts this test sends, the template, the answers, specials."""
    words = {"[UNK]", "<|MASK|>", "yes", "no", ":", *LETTERS, *(str(i) for i in range(1, 9))}
    split = pre_tokenizers.Whitespace().pre_tokenize_str
    for s in make_sets(CorpusSpec(split="test", mix=V2_MIX), 12):
        for text in [s.context] + [q.text for q in s.questions] + [o for q in s.questions for o in q.options]:
            words |= {w for w, _ in split(text)}
    vocab = {w: i for i, w in enumerate(sorted(words))}
    tok = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.save(str(path))
    return len(vocab)


def hf_folder(tmp_path, model_type="qwen3", name="m"):
    folder = tmp_path / name
    folder.mkdir()
    n_vocab = _tokenizer(folder / "tokenizer.json")
    config_cls, model_cls = MODELS[model_type]
    torch.manual_seed(0)
    cfg = config_cls(vocab_size=n_vocab + 8, hidden_size=64, intermediate_size=96, num_hidden_layers=2,
                     num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=2048,
                     tie_word_embeddings=False)
    model_cls(cfg).save_pretrained(folder)  # config.json + model.safetensors
    return folder


@pytest.mark.parametrize("model_type", list(MODELS))
def test_a_hugging_face_folder_loads_and_decides_through_the_engine(tmp_path, model_type):
    ckpt = load_checkpoint(hf_folder(tmp_path, model_type))
    assert ckpt.meta["family"].startswith({"qwen3": "qwen3", "qwen2": "qwen2", "llama": "llama"}[model_type])
    sets = make_sets(CorpusSpec(split="test", mix=V2_MIX), 6)
    requests = [as_request(s.context, s.questions).model_dump() for s in sets]
    b, (i, j) = next((b, [q.id for q in s.questions if q.kind == "boolean"][:2]) for b, s in enumerate(sets)
                     if sum(q.kind == "boolean" for q in s.questions) >= 2)
    requests[b]["constraints"] = [{"kind": "implies", "literals": [{"question": i, "option": "yes"},
                                                                   {"question": j, "option": "no"}]}]
    together = build_engine(ckpt, precision="fp32").decide(requests)
    alone = [build_engine(ckpt, precision="fp32").decide([r])[0] for r in requests]
    for r, s, a in zip(together, sets, alone):
        assert len(r.answers) == len(s.questions)
        for ans, q in zip(r.answers, s.questions):
            assert ans.answer in q.choices and 0.0 <= ans.confidence <= 1.0
        assert [x.index for x in r.answers] == [x.index for x in a.answers]
        assert max(abs(x.confidence - y.confidence) for x, y in zip(r.answers, a.answers)) < 1e-4
    got = {a.question: a.answer for a in together[b].answers}
    assert not (got[i] == "yes" and got[j] == "yes")


def test_the_server_serves_a_hugging_face_folder(tmp_path):
    from decider_client import DeciderClient, pb
    from server_util import ServerThread

    folder = hf_folder(tmp_path)
    with ServerThread(checkpoint=str(folder), self_test=False, precision="fp32") as srv, \
            DeciderClient(srv.target) as c:
        info = c.model_info()
        assert info.precision == "fp32" and info.version == "hf" and info.family == "qwen3-block-diffusion"
        assert info.parameters == sum(p.numel() for p in load_checkpoint(folder).model.parameters())
        s = make_sets(CorpusSpec(split="test", mix=V2_MIX), 1)[0]
        req = pb.DecideRequest(context=s.context, questions=[
            pb.Question(id=q.id, text=q.text, type=pb.Question.BOOLEAN if q.kind == "boolean" else pb.Question.CATEGORICAL,
                        options=list(q.options)) for q in s.questions])
        reply = c.decide_request(req)
        assert len(reply.answers) == len(s.questions)


def test_loader_errors_name_the_file_and_the_field(tmp_path):
    good = hf_folder(tmp_path)

    def broken(name, edit):
        folder = tmp_path / name
        shutil.copytree(good, folder)
        edit(folder)
        with pytest.raises(CheckpointError) as e:
            load_checkpoint(folder)
        return str(e.value)

    def config(folder, **changes):
        raw = json.loads((folder / "config.json").read_text())
        raw.update(changes)
        (folder / "config.json").write_text(json.dumps(raw))

    message = broken("arch", lambda f: config(f, model_type="mamba"))
    assert "config.json" in message and "model_type" in message and "mamba" in message

    def shards(f):  # an index naming a shard that is not there
        (f / "model.safetensors").rename(f / "model-00001-of-00002.safetensors")
        (f / "model.safetensors.index.json").write_text(json.dumps({"weight_map": {
            "a": "model-00001-of-00002.safetensors", "b": "model-00002-of-00002.safetensors"}}))
    assert "model-00002-of-00002.safetensors" in broken("shard", shards)

    def fp64(f):
        from safetensors.torch import load_file, save_file
        t = load_file(str(f / "model.safetensors"))
        save_file({k: v.double() for k, v in t.items()}, str(f / "model.safetensors"))
    assert "float64" in broken("dtype", fp64)

    def no_mask(f):
        vocab = json.loads((f / "tokenizer.json").read_text())
        for name in MASK_TOKENS:
            vocab["model"]["vocab"].pop(name, None)
        (f / "tokenizer.json").write_text(json.dumps(vocab))
    assert "mask_token_id" in broken("mask", no_mask)

    def pickle_only(f):
        (f / "model.safetensors").rename(f / "pytorch_model.bin")
    assert "pickle" in broken("pickle", pickle_only)


def test_calibrate_writes_the_temperature_beside_the_weights_and_the_loader_reads_it(tmp_path):
    import subprocess
    import sys

    from decider.engine.training.dataset import to_record

    folder = hf_folder(tmp_path)
    data = tmp_path / "labelled.jsonl"
    data.write_text("".join(json.dumps(to_record(s)) + "\n" for s in make_sets(CorpusSpec(split="validation",
                                                                                          mix=V2_MIX), 16)))
    before = sorted(p.name for p in folder.iterdir())
    out = subprocess.run([sys.executable, "-m", "decider.cli", "calibrate", "--model", str(folder), "--data",
                          str(data)], capture_output=True, text=True, check=True)
    t = json.loads(out.stdout)["temperature"]
    assert sorted(p.name for p in folder.iterdir()) == sorted(before + ["decider-calibration.json"])
    ckpt = load_checkpoint(folder)
    assert ckpt.temperature == pytest.approx(t) and "labelled.jsonl:16" in ckpt.meta["calibrated_on"]
    # the same sets split over two files (a calibration folder) fit the same temperature
    lines = data.read_text().splitlines(keepends=True)
    (tmp_path / "parts").mkdir()
    halves = [tmp_path / "parts" / "a.jsonl", tmp_path / "parts" / "b.jsonl"]
    halves[0].write_text("".join(lines[:10]))
    halves[1].write_text("".join(lines[10:]))
    out = subprocess.run([sys.executable, "-m", "decider.cli", "calibrate", "--model", str(folder), "--data",
                          *map(str, halves)], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout)["temperature"] == pytest.approx(t)
    assert "2 files in parts/:16" in load_checkpoint(folder).meta["calibrated_on"]
    # fitted under the other rule for the rest of a parallel pass, it says so
    subprocess.run([sys.executable, "-m", "decider.cli", "calibrate", "--model", str(folder), "--data", str(data),
                    "--parallel-rest", "all"], capture_output=True, text=True, check=True)
    assert load_checkpoint(folder).meta["calibrated_on"].endswith("labelled.jsonl:16; parallel rest all")
    # every set of the files by default, however many (a calibration folder plus a validation
    # file passes a thousand), and the first N with --sets
    (tmp_path / "many").mkdir()
    many = tmp_path / "many" / "labelled.jsonl"
    many.write_text("".join(lines * 63))  # 1,008 sets
    for extra, used in (([], 1008), (["--sets", "10"], 10)):
        subprocess.run([sys.executable, "-m", "decider.cli", "calibrate", "--model", str(folder), "--data",
                        str(many), *extra], capture_output=True, text=True, check=True)
        assert f"labelled.jsonl:{used}" in load_checkpoint(folder).meta["calibrated_on"]


def test_serve_and_batch_take_the_model_folder_as_model_or_checkpoint():
    from decider.cli import build_parser

    p = build_parser()
    for argv in (["serve", "--model", "/models/sdar"], ["serve", "--checkpoint", "/models/sdar"],
                 ["batch", "in.jsonl", "out.jsonl", "--model", "/models/sdar"]):
        assert p.parse_args(argv).checkpoint == "/models/sdar"


def test_the_checkpoints_own_chat_template_makes_the_prompt_in_a_sandbox(tmp_path):
    folder = hf_folder(tmp_path)
    chatml = ("{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n{% endfor %}"
              "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}")
    (folder / "tokenizer_config.json").write_text(json.dumps({"chat_template": chatml, "eos_token": "<|im_end|>"}))
    tok = load_checkpoint(folder).tokenizer
    from decider.engine.request import Question

    prompt = tok.prompt("Pump 3 is running.", [Question("q1", "Is pump 3 running?", "boolean")])
    assert prompt.startswith("<|im_start|>system\n") and prompt.endswith("<|im_start|>assistant\n")
    assert "Context: Pump 3 is running." in prompt and "1. Is pump 3 running? (yes or no)" in prompt
    # a template that tries to reach Python is refused by the sandbox, at load or when rendered
    (folder / "tokenizer_config.json").write_text(json.dumps(
        {"chat_template": "{{ messages.__class__.__mro__[1].__subclasses__() }}"}))
    with pytest.raises(Exception, match="unsafe|not safely|access"):
        load_checkpoint(folder).tokenizer.prompt("x", [Question("q1", "y?", "boolean")])


@pytest.mark.parametrize("model_type", ["qwen3", "llama"])
def test_the_triton_block_attention_decides_as_the_torch_path(tmp_path, monkeypatch, model_type):
    """On CUDA the engine hands these families the Triton kernel's packed prefix layout (grouped
    query heads, an answer-template block); here the kernel runs in Triton's interpreter."""
    ckpt = load_checkpoint(hf_folder(tmp_path, model_type))
    sets = make_sets(CorpusSpec(split="test", mix=V2_MIX), 3)
    requests = [as_request(s.context, s.questions) for s in sets]
    monkeypatch.setenv("DECIDER_KERNELS", "torch")
    plain = build_engine(ckpt, precision="fp32").decide(requests)
    monkeypatch.setenv("DECIDER_KERNELS", "triton")  # interpreted here (tests/conftest.py)
    core = build_engine(ckpt, precision="fp32")
    assert core.backend == "triton"
    kernel = core.decide(requests)
    for a, b in zip(plain, kernel):
        assert [(x.index, x.step) for x in a.answers] == [(x.index, x.step) for x in b.answers]
        assert max(abs(x.confidence - y.confidence) for x, y in zip(a.answers, b.answers)) < 1e-4


@pytest.mark.parametrize("precision", ["fp32", "bf16"])
def test_a_diffusion_lm_engine_warms_up_with_one_request(tmp_path, precision):
    """The server's warm-up (EngineCore.warm_up) on a diffusion LM: its window (2,048 tokens here)
    is too long for a request per padded length, so one request runs, and the engine still serves."""
    ckpt = load_checkpoint(hf_folder(tmp_path))
    core = build_engine(ckpt, precision=precision)
    assert core.warm_up() == 1
    (s,) = make_sets(CorpusSpec(split="test", mix=V2_MIX), 1)
    assert core.decide([as_request(s.context, s.questions)])[0].answers
