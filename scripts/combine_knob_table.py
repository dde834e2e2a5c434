#!/usr/bin/env python3
"""The streaming combine's knobs one at a time, against phased (issue 13's table).

For the built-in default scenario (2 servers x 8 cards, 128 tokens per rank) and for
4 servers x 512 tokens, runs `moe-sim run` in payload "none" (the timing is the same as
with full payload) and prints a Markdown table of combine time, total time, combine RDMA
posts and MiB on RDMA.

Usage: scripts/combine_knob_table.py [path/to/moe-sim]   (default build/dev/app/moe-sim)
"""
import copy
import json
import os
import re
import subprocess
import sys
import tempfile

MOE_SIM = sys.argv[1] if len(sys.argv) > 1 else "build/dev/app/moe-sim"

# Each variant changes one knob of the default scenario.
VARIANTS = [
    ("default knobs", lambda s: None),
    ("forwarder_cores 4", lambda s: s["rings"].update(forwarder_cores=4)),
    ("rdma_batch_bytes 0 (one post per partial)", lambda s: s["combine"].update(rdma_batch_bytes=0)),
    ("partial_dtype bf16", lambda s: s["combine"].update(partial_dtype="bf16")),
    ("ub_window_rows 1 (spill to GM)", lambda s: s["combine"].update(ub_window_rows=1)),
    ("sum_local_experts (one row per token and card)",
     lambda s: s["combine"].update(sum_local_experts=True)),
]


def run(scenario, impl):
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(scenario, f)
    try:
        out = subprocess.run([MOE_SIM, "run", "--impl", impl, f.name], capture_output=True,
                             text=True, check=True).stdout
    finally:
        os.unlink(f.name)
    combine = re.search(r"^combine\s+\|\s+([\d.]+)", out, re.M).group(1)
    total = re.search(r"^total\s+\|\s+([\d.]+)", out, re.M).group(1)
    posts = re.search(impl + r" combine: (\d+) RDMA posts \(\d+ data posts, mean \d+ B; ([\d.]+) MiB",
                      out)
    return combine, total, posts.group(1), posts.group(2)


def main():
    default = json.loads(subprocess.run([MOE_SIM, "scenario", "--default"], capture_output=True,
                                        text=True, check=True).stdout)
    for servers, tokens in [(2, 128), (4, 512)]:
        base = copy.deepcopy(default)
        base["cluster"]["servers"] = servers
        base["model"]["tokens_per_rank"] = tokens
        base["payload"] = "none"
        print(f"\n{servers} servers x 8 cards, {tokens} tokens/rank (payload none)")
        print("| variant | combine us | total us | combine posts | MiB on RDMA |")
        print("|---|---|---|---|---|")
        print("| phased | %s | %s | %s | %s |" % run(base, "phased"))
        for name, change in VARIANTS:
            s = copy.deepcopy(base)
            change(s)
            print(f"| streaming, {name} | %s | %s | %s | %s |" % run(s, "streaming"))


if __name__ == "__main__":
    main()
