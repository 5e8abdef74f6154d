"""Block attention: the Triton kernel (interpreted on CPU, native on CUDA) against the fp32
torch reference, over odd sizes, ragged batches, grouped-query heads, splits and dtypes."""

import pytest
import torch

from decider.kernels.block_attention.naive import block_attention as padded_reference
from decider.kernels.block_attention.naive import pad_prefix
from decider.kernels.block_attention.triton import block_attention, default_splits

DEVICE = "cuda" if torch.cuda.is_available() else "cpu"
# relative RMS error and max-abs bound against the fp32 reference, per input dtype
TOLERANCE = {torch.float32: (1e-5, 1e-4), torch.bfloat16: (2e-2, 6e-2), torch.float16: (3e-3, 1e-2)}


def inputs(lengths, S, H=4, Hkv=4, D=32, dtype=torch.float32, seed=0):
    g = torch.Generator().manual_seed(seed)
    B, N = len(lengths), sum(lengths)

    def r(*shape):
        return torch.randn(*shape, generator=g).to(DEVICE, dtype)
    q, k, v = r(B, S, H, D), r(B, S, Hkv, D), r(B, S, Hkv, D)
    prefix_k, prefix_v = r(N, Hkv, D), r(N, Hkv, D)
    cu = torch.tensor([0] + lengths, device=DEVICE).cumsum(0).to(torch.int32)
    slot_valid = torch.ones(B, S, dtype=torch.bool, device=DEVICE)
    for b in range(B):  # ragged blocks too: request b uses its first S - (b % S) slots
        slot_valid[b, S - (b % S):] = False
    return q, k, v, slot_valid, prefix_k, prefix_v, cu


def reference(q, k, v, slot_valid, prefix_k, prefix_v, cu):
    """The torch path, given the packed kernel's inputs."""
    (pk, valid), (pv, _) = pad_prefix(prefix_k, cu), pad_prefix(prefix_v, cu)
    return padded_reference(q, k, v, slot_valid, pk, pv, valid)


def close(out, ref, dtype):
    rel_rms, max_abs = TOLERANCE[dtype]
    err = (out.float() - ref.float())
    assert (err.pow(2).mean().sqrt() / ref.float().pow(2).mean().sqrt()).item() < rel_rms
    assert err.abs().max().item() < max_abs


@pytest.mark.parametrize("lengths", [[1], [7], [63], [257], [5, 1, 63, 20]])
@pytest.mark.parametrize("S", [1, 3, 8])
def test_matches_the_reference_fp32(lengths, S):
    x = inputs(lengths, S)
    close(block_attention(*x), reference(*x), torch.float32)


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
def test_matches_the_reference_in_half_precision(dtype):
    x = inputs([7, 63, 2], 8, dtype=dtype)
    close(block_attention(*x), reference(*x), dtype)


@pytest.mark.parametrize("n_splits", [1, 2, 5])
def test_splits_over_long_prefixes_combine_exactly(n_splits):
    x = inputs([257, 3], 4)
    close(block_attention(*x, n_splits=n_splits), reference(*x), torch.float32)


def test_grouped_query_heads_and_an_odd_head_dim():
    x = inputs([33, 9], 5, H=6, Hkv=2, D=24)
    close(block_attention(*x), reference(*x), torch.float32)


def test_a_diffusion_lms_answer_template_block_with_grouped_heads():
    """engine/lm.py's blocks: 8 answers in a template of ~4 tokens each, GQA (16 heads, 4 kv)."""
    x = inputs([40, 3, 120], 37, H=16, Hkv=4, D=16)
    close(block_attention(*x), reference(*x), torch.float32)
    with pytest.raises(ValueError, match="block of 1..64 queries"):
        block_attention(*inputs([4], 65))


def test_splits_fill_a_gpu_when_the_batch_is_small():
    assert default_splits(batch_heads=12, max_len=512) > 1
    assert default_splits(batch_heads=256 * 12, max_len=512) == 1


@pytest.mark.parametrize("bad, match", [
    (lambda x: (x[0][..., :7], *x[1:]), "k and v must be"),
    (lambda x: (*x[:3], x[3][:, :1], *x[4:]), "slot_valid must be"),
    (lambda x: (*x[:6], x[6].float()), "cu_seqlens must be"),
    (lambda x: (x[0].double(), *x[1:]), "dtype must be"),
])
def test_bad_arguments_are_named(bad, match):
    with pytest.raises(ValueError, match=match):
        block_attention(*bad(inputs([4], 2)))


@pytest.mark.parametrize("group", [1, 3])
def test_a_block_attending_in_its_prefixs_tail_has_the_bits_of_joined_keys(group):
    """The CPU engine's per-request block pass writes the block's K/V into room after the prefix's
    (PrefixKV.tail) instead of joining copies: the same SDPA over the same values, so the same bits;
    the rows past the block stay as they were."""
    torch.manual_seed(0)
    H, D, L, S = 6, 16, 37, 5
    q = torch.randn(1, S, H, D).bfloat16()
    k, v = (torch.randn(1, S, H // group, D).bfloat16() for _ in range(2))
    pk, pv = (torch.randn(1, H // group, L, D) for _ in range(2))
    joined = padded_reference(q, k, v, torch.ones(1, S, dtype=torch.bool), pk, pv, torch.ones(1, L, dtype=torch.bool),
                              lengths=([L], [S]))
    room_k, room_v = (torch.cat([t, torch.full((1, H // group, S + 3, D), 7.0)], 2) for t in (pk, pv))
    got = padded_reference(q, k, v, None, room_k, room_v, None, lengths=([L], [S]), tail=True)
    assert torch.equal(got, joined)
    assert torch.equal(room_k[:, :, L:L + S], k.float().transpose(1, 2)) and (room_k[:, :, L + S:] == 7).all()
    with pytest.raises(ValueError, match="free rows"):
        padded_reference(q, k, v, None, pk, pv, None, lengths=([L], [S]), tail=True)
