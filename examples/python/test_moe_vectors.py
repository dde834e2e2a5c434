"""Golden-vector tests in the style of Ascend op-plugin's kernel tests.

A device test loads the exported inputs, runs the real kernel (torch_npu) and compares with
the exported goldens. Here the "kernel" is a fresh numpy implementation written in this file,
not the tool: if it reproduces the goldens bit for bit, the goldens mean what the manifest
says. To check a real kernel, replace `golden_*` by the torch_npu call.

The vectors must also catch a wrong kernel: `test_injected_bug_is_caught` breaks the numpy
MoeUpdateExpert in one way at a time (the mistakes a kernel author is likely to make) and
expects a mismatch against the goldens.

Vectors come from $MOE_VECTORS (a directory written by `moe-sim export-vectors`) when set,
otherwise from the default export (`moe-sim export-vectors` without a scenario: the built-in
vectors scenario), exported here through the `moe_workbench` module.
Run: PYTHONPATH=build/dev/app/python /usr/bin/python3 -m pytest examples/python
"""

import json
import os
import warnings

import numpy as np
import pytest

import moe_workbench

# ---- numpy goldens, written from the operators' documented semantics ----------------------


# The kernel mistakes test_injected_bug_is_caught injects, one at a time.
BUGS = {
    "mode0_floor": "balance mode 0 divides by floor(world_size / count), not ceil",
    "mode1_place_from_0": "balance mode 1 takes column t % count, forgetting the +1",
    "mode1_next_token": "balance mode 1 starts the round robin one token late",
    "mode1_slot_index": "balance mode 1 counts slots (t * K + k), not tokens",
    "active_mask_ignored": "active_mask is not applied to balanced_active_mask",
    "pruning_keeps_above_only": "pruning keeps scale > bound (prunes scale == bound)",
}


def golden_moe_update_expert(expert_ids, eplb_table, local_rank_id, world_size, balance_mode,
                             expert_scales=None, pruning_threshold=None, active_mask=None,
                             bug=None):
    """aclnnMoeUpdateExpert: logical -> physical expert, plus pruning. `bug` names one of
    BUGS to compute it wrongly on purpose."""
    bs, k = expert_ids.shape
    counts = eplb_table[expert_ids, 0]
    if balance_mode == 0:
        # ceil(world_size / count) ranks share one instance.
        ranks_per_instance = (world_size + counts - 1) // counts
        if bug == "mode0_floor":
            ranks_per_instance = world_size // counts
        place = local_rank_id // ranks_per_instance + 1
    else:
        # round-robin over instances by token index
        token = np.arange(bs)[:, None]
        if bug == "mode1_slot_index":
            token = np.arange(bs * k).reshape(bs, k)
        if bug == "mode1_next_token":
            token = token + 1
        place = token % counts + (0 if bug == "mode1_place_from_0" else 1)
    place = np.where(counts == 1, 1, place)
    balanced = eplb_table[expert_ids, place].astype(expert_ids.dtype)
    if expert_scales is None:
        return balanced, None
    scales = expert_scales.astype(np.float32)
    total = np.zeros(bs, dtype=np.float32)
    for j in range(k):  # fp32, in k order
        total = total + scales[:, j]
    threshold = pruning_threshold.reshape(1, k).astype(np.float32)
    bound = threshold * total[:, None]
    keep = scales > bound if bug == "pruning_keeps_above_only" else scales >= bound
    if active_mask is not None and bug != "active_mask_ignored":
        keep &= active_mask[:, None]
    return balanced, keep


def golden_get_dispatch_layout(topk_idx, num_ranks, num_experts, ranks_per_server):
    """DeepEP Buffer.get_dispatch_layout; negative ids are skipped."""
    tokens, _ = topk_idx.shape
    valid = topk_idx >= 0
    per_expert = np.bincount(topk_idx[valid], minlength=num_experts).astype(np.int32)
    in_rank = np.zeros((tokens, num_ranks), dtype=bool)
    rows, cols = np.nonzero(valid)
    in_rank[rows, topk_idx[rows, cols] // (num_experts // num_ranks)] = True
    servers = max(1, num_ranks // ranks_per_server)
    in_server = in_rank.reshape(tokens, servers, -1).any(axis=2)
    return {
        "num_tokens_per_rank": in_rank.sum(axis=0).astype(np.int32),
        "num_tokens_per_rdma_rank": in_server.sum(axis=0).astype(np.int32),
        "num_tokens_per_expert": per_expert,
        "is_token_in_rank": in_rank,
    }


def bf16_to_float32(bits):
    """The manifest's bf16 encoding: uint16 bit patterns, the high half of an fp32."""
    return (bits.astype(np.uint32) << 16).view(np.float32)


# ---- fixtures ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def vectors(tmp_path_factory):
    root = os.environ.get("MOE_VECTORS")
    if not root:
        root = str(tmp_path_factory.mktemp("vectors"))
        moe_workbench.export_vectors(None, root)
    with open(os.path.join(root, "manifest.json")) as f:
        manifest = json.load(f)
    return root, manifest


def operator_cases(vectors, op):
    """Yields (attrs, inputs, goldens) per rank of `op`, arrays loaded by argument name."""
    root, manifest = vectors
    for entry in manifest["operators"]:
        if entry["op"] != op:
            continue
        files = [f for f in manifest["files"] if f["op"] == op and f["rank"] == entry["rank"]]
        load = lambda role: {f["argument"]: np.load(os.path.join(root, f["file"]))
                             for f in files if f["role"] == role}
        yield entry["attrs"], load("input"), load("golden")


def update_expert_cases(vectors):
    """Every MoeUpdateExpert call: the layer's, its slices and the other balance mode's."""
    _, manifest = vectors
    ops = sorted({e["op"] for e in manifest["operators"]
                  if e["op"].startswith("moe_update_expert")})
    return [case for op in ops for case in operator_cases(vectors, op)]


def update_expert_mismatches(vectors, bug=None):
    """How many calls the numpy MoeUpdateExpert (with `bug`) gets wrong."""
    wrong = 0
    for attrs, x, want in update_expert_cases(vectors):
        ids, mask = golden_moe_update_expert(
            x["expert_ids"], x["eplb_table"], attrs["local_rank_id"], attrs["world_size"],
            attrs["balance_mode"], x.get("expert_scales"), x.get("pruning_threshold"),
            x.get("active_mask"), bug=bug)
        same = np.array_equal(ids, want["balanced_expert_ids"])
        if "balanced_active_mask" in want:
            same = same and np.array_equal(mask, want["balanced_active_mask"])
        wrong += not same
    return wrong


FNV_PRIME = 0x100000001B3
MASK64 = (1 << 64) - 1


def fnv1a_words(h, data):
    """The manifest's vectors_digest step: 8-byte little-endian words, then the tail bytes."""
    whole = len(data) // 8 * 8
    for w in np.frombuffer(data[:whole], dtype="<u8").tolist():
        h = ((h ^ w) * FNV_PRIME) & MASK64
    for b in data[whole:]:
        h = ((h ^ b) * FNV_PRIME) & MASK64
    return h


# ---- tests -------------------------------------------------------------------------------


def test_manifest_matches_the_files(vectors):
    root, manifest = vectors
    assert manifest["files"], "the export wrote no files"
    assert len(manifest["digest"]) == 16
    for f in manifest["files"]:
        a = np.load(os.path.join(root, f["file"]))
        assert a.dtype.str == f["dtype"], f["file"]
        assert list(a.shape) == f["shape"], f["file"]
        assert f["role"] in ("input", "golden")
    assert manifest["encodings"]["counts"] in ("counts", "prefix-sums")


def test_digest_is_the_runs_digest(vectors):
    # The manifest carries the scenario it was exported from: running it gives the digest.
    _, manifest = vectors
    if manifest["scenario_json"]["routing"].get("trace_file"):
        pytest.skip("a trace file is not carried by the manifest")
    _, digest = moe_workbench.run(manifest["scenario_json"])
    assert manifest["digest"] == digest


def test_vectors_digest_covers_every_array(vectors):
    root, manifest = vectors
    h = 0xCBF29CE484222325
    for f in manifest["files"]:
        h = fnv1a_words(h, f["file"].encode())
        h = fnv1a_words(h, np.ascontiguousarray(np.load(os.path.join(root, f["file"]))).tobytes())
    assert manifest["vectors_digest"] == "%016x" % h


def test_moe_update_expert_golden_bit_exact(vectors):
    cases = update_expert_cases(vectors)
    assert cases
    for attrs, x, want in cases:
        ids, mask = golden_moe_update_expert(
            x["expert_ids"], x["eplb_table"], attrs["local_rank_id"], attrs["world_size"],
            attrs["balance_mode"], x.get("expert_scales"), x.get("pruning_threshold"),
            x.get("active_mask"))
        np.testing.assert_array_equal(ids, want["balanced_expert_ids"])
        assert ids.dtype == want["balanced_expert_ids"].dtype
        if "balanced_active_mask" in want:
            np.testing.assert_array_equal(mask, want["balanced_active_mask"])


@pytest.mark.parametrize("bug", sorted(BUGS))
def test_injected_bug_is_caught(vectors, bug):
    assert update_expert_mismatches(vectors) == 0, "the unmodified reference must match"
    assert update_expert_mismatches(vectors, bug) > 0, \
        "the vectors do not catch: " + BUGS[bug]


def test_default_export_exercises_every_rule(vectors):
    """What makes the bugs above visible, checked on the default export's inputs."""
    if os.environ.get("MOE_VECTORS"):
        pytest.skip("external vectors: not the default export")
    root, manifest = vectors
    modes = {attrs["balance_mode"] for attrs, _, _ in update_expert_cases(vectors)}
    assert modes == {0, 1}
    attrs, x, want = next(operator_cases(vectors, "moe_update_expert"))
    counts = x["eplb_table"][:, 0]
    assert (counts > 1).any()  # replicas
    assert any(attrs["world_size"] % c for c in counts)  # where floor and ceil differ
    assert x["active_mask"].any() and not x["active_mask"].all()
    boundary = [s for e in manifest["operators"] if e["op"] == "moe_update_expert"
                for s in e["pruning_boundary_slots"]]
    assert boundary, "no scale lies exactly on its pruning bound"
    pruned = 0
    for _, x, want in operator_cases(vectors, "moe_update_expert"):
        pruned += int((x["active_mask"][:, None] & ~want["balanced_active_mask"]).sum())
    assert pruned > 0, "the threshold prunes no active slot"


def test_layout_and_dispatch_take_update_expert_outputs(vectors):
    """The manifest's semantics: layout's topk_idx is the balanced ids with -1 where masked;
    dispatch takes the balanced ids unmasked and the per-slot mask as x_active_mask."""
    _, manifest = vectors
    update = list(operator_cases(vectors, "moe_update_expert"))
    if any(e["op"].startswith("moe_update_expert_slice") for e in manifest["operators"]):
        pytest.skip("sliced MoeUpdateExpert: the layer's arrays span several calls")
    layout = list(operator_cases(vectors, "get_dispatch_layout"))
    dispatch = list(operator_cases(vectors, "moe_distribute_dispatch"))
    for (_, _, u), (_, lx, _), (_, dx, _) in zip(update, layout, dispatch):
        ids = u["balanced_expert_ids"]
        mask = u.get("balanced_active_mask", np.ones(ids.shape, dtype=bool))
        np.testing.assert_array_equal(lx["topk_idx"], np.where(mask, ids, -1))
        np.testing.assert_array_equal(dx["expert_ids"], ids)
        np.testing.assert_array_equal(dx["x_active_mask"], mask)


def test_dispatch_layout_golden_bit_exact(vectors):
    cases = list(operator_cases(vectors, "get_dispatch_layout"))
    assert cases
    for attrs, x, want in cases:
        got = golden_get_dispatch_layout(x["topk_idx"], attrs["num_ranks"], attrs["num_experts"],
                                         attrs["ranks_per_server"])
        for name, value in got.items():
            np.testing.assert_array_equal(value, want[name], err_msg=name)
            assert value.dtype == want[name].dtype, name


def test_dispatch_rows_are_the_source_rows(vectors):
    root, manifest = vectors
    if manifest["encodings"]["expand_idx"] != "rows":
        pytest.skip("needs the rows expand-index layout")
    cases = list(operator_cases(vectors, "moe_distribute_dispatch"))
    xs = [x["x"] for _, x, _ in cases]
    for _, _, want in cases:
        idx = want["expand_idx"]
        np.testing.assert_array_equal(want["expand_x"], np.stack([xs[r][t] for r, t, _ in idx])
                                      if len(idx) else want["expand_x"])
        assert int(want["ep_recv_counts"].sum()) == len(idx)


def test_op_accepts_what_the_real_operator_accepts():
    # op-plugin's golden generator fills the table with rank ids, repeated: the real operator
    # copies them, the pipeline could not place them, so it warns.
    table = np.array([[2, 0, 0], [2, 1, 1], [1, 1, 0], [1, 0, 0]], dtype=np.int32)
    ids = np.array([[0, 1], [1, 2], [3, 0]], dtype=np.int64)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = moe_workbench.op("update-expert", expert_ids=ids, eplb_table=table,
                               local_rank_id=0, world_size=1, balance_mode=1)
    assert any("eplb_table" in str(w.message) for w in caught)
    want, _ = golden_moe_update_expert(ids, table, 0, 1, 1)
    np.testing.assert_array_equal(out["balanced_expert_ids"], want)
    assert out["balanced_expert_ids"].dtype == np.int64
    with pytest.raises(ValueError, match="eplb_table"):
        moe_workbench.op("update-expert", strict=True, expert_ids=ids, eplb_table=table,
                         local_rank_id=0, world_size=1, balance_mode=1)


def test_op_bf16_scales_and_unordered_mask():
    ids = np.array([[0, 1], [1, 0], [0, 1]], dtype=np.int32)
    table = np.array([[1, 0, 0], [1, 1, 0]], dtype=np.int32)
    scales = np.array([[0.7, 0.3], [0.55, 0.45], [0.9, 0.1]], dtype=np.float32)
    bits = (scales.view(np.uint32) >> 16).astype(np.uint16)  # truncated to bf16
    threshold = np.array([[0.2, 0.35]], dtype=np.float32)  # the (1, K) form
    active = np.array([True, False, True])  # not a prefix: accepted, warned
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = moe_workbench.op("update-expert", expert_ids=ids, eplb_table=table,
                               local_rank_id=0, world_size=2, balance_mode=0,
                               expert_scales=bits, pruning_threshold=threshold,
                               active_mask=active)
    assert any("active_mask" in str(w.message) for w in caught)
    _, keep = golden_moe_update_expert(ids, table, 0, 2, 0, bf16_to_float32(bits), threshold,
                                       active)
    np.testing.assert_array_equal(out["balanced_active_mask"], keep)


def test_bad_input_is_a_value_error_naming_the_field():
    with pytest.raises(ValueError, match="161002"):
        moe_workbench.op("update-expert", expert_ids=np.zeros((2, 2), np.float64),
                         eplb_table=np.array([[1, 0, 0]] * 2, np.int32), local_rank_id=0,
                         world_size=2, balance_mode=0)


def test_op_dispatch_then_combine_with_identity_experts_gives_x_back():
    rng = np.random.default_rng(3)
    ranks, tokens, hidden, topk, local = 2, 4, 8, 2, 2
    x = [bf16_to_float32((rng.standard_normal((tokens, hidden), dtype=np.float32)
                          .view(np.uint32) >> 16).astype(np.uint16)) for _ in range(ranks)]
    ids = [np.stack([rng.choice(ranks * local, topk, replace=False) for _ in range(tokens)])
           for _ in range(ranks)]
    scales = [np.full((tokens, topk), 0.5, dtype=np.float32) for _ in range(ranks)]
    out = moe_workbench.op("dispatch", local_expert_num=local, ranks=[
        {"x": x[r], "expert_ids": ids[r], "expert_scales": scales[r]} for r in range(ranks)])
    for d, rank in enumerate(out["ranks"]):
        for row, (s, t, k) in enumerate(rank["expand_idx"]):
            assert ids[s][t, k] // local == d  # the row is on the rank holding its expert
            np.testing.assert_array_equal(rank["expand_x"][row], x[s][t])
    back = moe_workbench.op("combine", ranks=[
        {"expand_x": o["expand_x"], "expand_idx": o["expand_idx"], "expert_scales": scales[r]}
        for r, o in enumerate(out["ranks"])])
    for r in range(ranks):
        np.testing.assert_array_equal(back["ranks"][r]["x"], x[r])


def float32_to_bf16_bits(values):
    """Round to nearest even, as the tool and the device do."""
    bits = values.astype(np.float32).view(np.uint32)
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)


def test_combine_golden_from_its_own_inputs(vectors):
    """x = bf16(sum over k, in k order, in fp32, of expert_scales * expert output row).

    A device combine sums in another order, so a device test compares within the manifest's
    stated tolerance; this numpy sum uses the reference's order and must match exactly.
    """
    root, manifest = vectors
    if manifest["encodings"]["expand_idx"] != "rows":
        pytest.skip("needs the rows expand-index layout")
    cases = list(operator_cases(vectors, "moe_distribute_combine"))
    if not cases or "shared_expert_x" in cases[0][1]:
        pytest.skip("plain combine only")
    rows = {}  # (source rank, token, k) -> expert output row
    for _, x, _ in cases:
        for row, (s, t, k) in enumerate(x["expand_idx"]):
            rows[(s, t, k)] = bf16_to_float32(x["expand_x"][row])
    for rank, (_, x, want) in enumerate(cases):
        tokens, topk = x["expert_scales"].shape
        acc = np.zeros((tokens, want["x"].shape[1]), dtype=np.float32)
        for t in range(tokens):
            for k in range(topk):
                if (rank, t, k) in rows:
                    acc[t] += x["expert_scales"][t, k] * rows[(rank, t, k)]
        np.testing.assert_array_equal(float32_to_bf16_bits(acc), want["x"])
