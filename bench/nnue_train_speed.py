"""How fast tools/nnue/train.py's model trains on the CPU, against the plain autograd
formulation of the same net, on the same batches of real records.

    python bench/nnue_train_speed.py DATA.bin [DATA.bin ...] [--widths 256 384]
        [--steps 30] [--rounds 5] [--threads 1]

The plain formulation (`Plain` below) is the one the trainer used until 2026-11-27:
both perspectives' accumulators made from the White and Black feature bags, then the
side to move's picked with torch.where over the float accumulators, and SCReLU as
clamp(0, 1) ** 2 left to autograd. The trainer's `Net` picks the perspectives on the
integer feature indices before the bags and has a hand-written SCReLU backward; the
arithmetic is the same, so the bench also prints the largest difference of the two
gradients on one batch (float rounding only: the weight gradient of each bag sums
other rows first); tests/test_nnue_reference.py holds the trainer's gradients to
Plain's.

For each width, both models (same initial weights, AdamW, 8 output buckets) take
--steps optimiser steps over the same pre-decoded batches of 4096 positions in each of
--rounds rounds, alternating, so that a machine getting busier affects both alike;
medians of the rounds, in ms per step, and the ratio plain / Net.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools" / "nnue"))

try:
    import torch
except ImportError:
    sys.exit("nnue_train_speed: needs torch (pip install torch --index-url "
             "https://download.pytorch.org/whl/cpu)")

import posdata  # noqa: E402
import reference  # noqa: E402
import train  # noqa: E402

BATCH = 4096
BUCKETS = 8


class Plain(train.Net):
    def forward(self, fw: torch.Tensor, fb: torch.Tensor, stm: torch.Tensor) -> torch.Tensor:
        aw = self.ft(fw) + self.ft_bias
        ab = self.ft(fb) + self.ft_bias
        s = stm.unsqueeze(1)
        us, them = torch.where(s, ab, aw), torch.where(s, aw, ab)
        a = torch.cat([us.clamp(0, 1) ** 2, them.clamp(0, 1) ** 2], dim=1)
        out = self.out(a)
        k = self.bucket_of[(fw != train.PAD).sum(dim=1)]
        return out.gather(1, k.unsqueeze(1)).squeeze(1)


def step(model: train.Net, opt: torch.optim.Optimizer, batch: train.Batch) -> None:
    fw, fb, stm, target = batch
    loss = train.loss_fn(model(fw, fb, stm), target)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    model.clip()


def grad_difference(hidden: int, batch: train.Batch) -> float:
    grads = []
    for cls in (Plain, train.Net):
        torch.manual_seed(1)
        model = cls(BUCKETS, hidden)
        fw, fb, stm, target = batch
        train.loss_fn(model(fw, fb, stm), target).backward()
        grads.append([p.grad for p in model.parameters()])
    return max(float((a - b).abs().max()) for a, b in zip(*grads, strict=True)
               if a is not None and b is not None)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("data", type=Path, nargs="+", help="datagen records (store chunks)")
    ap.add_argument("--widths", type=int, nargs="+", default=[256, 384])
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    for path in args.data:
        if not path.is_file():
            ap.error(f"{path} not found (a datagen file, e.g. a chunk of the data store)")
    try:
        data = train.RecordData(args.data, lam=1.0)
    except posdata.DataError as exc:
        ap.error(str(exc))
    gen = torch.Generator().manual_seed(1)
    batches = []
    for fw, fb, stm, target in data.train_batches(BATCH, gen):
        if len(fw) == BATCH:
            batches.append((*train.mirror(fw, fb, gen), stm, target))
        if len(batches) == args.steps:
            break
    if len(batches) < args.steps:
        ap.error(f"the data holds {len(batches)} full batches; give more records or "
                 f"fewer --steps")
    print(f"{len(batches)} steps of {BATCH} positions, {args.rounds} rounds, "
          f"{args.threads} thread(s), torch {torch.__version__}")
    print(f"{'width':>5} {'plain ms/step':>14} {'Net ms/step':>12} {'ratio':>6} "
          f"{'max grad diff':>14}")
    for hidden in args.widths:
        if not reference.valid_hidden(hidden):
            ap.error(f"--widths {hidden}: use multiples of 64 in 64..1024")
        models: dict[str, train.Net] = {}
        for cls in (Plain, train.Net):
            torch.manual_seed(1)
            models[cls.__name__] = cls(BUCKETS, hidden)
        opts = {k: torch.optim.AdamW(m.parameters(), lr=1e-3) for k, m in models.items()}
        times: dict[str, list[float]] = {k: [] for k in models}
        for _ in range(args.rounds):
            for name, model in models.items():
                t0 = time.perf_counter()
                for batch in batches:
                    step(model, opts[name], batch)
                times[name].append((time.perf_counter() - t0) / len(batches) * 1000)
        plain, net = statistics.median(times["Plain"]), statistics.median(times["Net"])
        print(f"{hidden:>5} {plain:>14.1f} {net:>12.1f} {plain / net:>5.2f}x "
              f"{grad_difference(hidden, batches[0]):>14.2e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
