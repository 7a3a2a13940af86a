"""Train pibot's NNUE (768 -> Hx2 -> 1 of B output buckets, SCReLU; H 384 unless
--hidden) with PyTorch and export a .pbnn; or a variant's net, from records of that
variant (datagen --variant): a crazyhouse net has 60 pocket inputs more (828), and
exports as format v3 naming its variant (docs/nnue.md).

Data: the binary records of engine_c/tools/datagen.c (tools/nnue/posdata.py), one or
more files (e.g. the chunks of tools/nnue/datastore.py), read streaming from memmaps, a
chunk of 1M positions (32 MB) at a time, so the data may be far larger than RAM; chunks
are visited in random order and shuffled within; validation = the games whose number is
9 mod 10 (mod 256: ~10%). Score in cp and result from White's view.

Model (float; the quantisation of tools/nnue/reference.py and the net contract):
    acc_p = ft_b + sum ft_w[idx(p, piece)]     (shared weights, both perspectives)
    out   = screlu(acc_stm) . w_k[:H] + screlu(acc_other) . w_k[H:] + b_k,
    screlu(x) = clamp(x, 0, 1)^2, eval_cp = out * SCALE (side to move's view),
    k = the position's output bucket of B (`--buckets`, default 1): by its piece count
    on the board, the number of its active board features of one perspective
    (reference.bucket, docs/nnue.md).
B = 1 exports a v1 net, exactly as before buckets; B > 1 a v2 net. `--init` from a
one-bucket net (.pbnn or .pt) with B > 1 copies its output layer into every bucket,
so epoch 0 is the old net's eval.
`--mirror king` trains mirrored inputs (docs/nnue.md): each perspective's board
features are mirrored a<->h when its own king stands on files e..h (`king_mirror`, on
the indices as batches are decoded), and the net is exported as v3 with the mirrored
flag; the a-h augmentation (`--mirror 1`, the default) is then moot and off.
Loss: mean (sigmoid(out * SCALE / K) - (lambda * sigmoid(score / K) + (1 - lambda) * result))^2
with score and result from the side to move's view, K = 400. After every optimiser
step the weights are clipped to [-1.98, 1.98] (int16 accumulators cannot overflow,
|out weight| * 64 <= 127). The loss of every epoch (train and validation) is
logged; the epoch with the best validation loss is exported. `--device auto`
(default) trains on a CUDA GPU when torch sees one, else on the CPU.

A run outlives the process: after every epoch the whole state (weights, optimiser,
random generators, best epoch) is written to OUT.state.pt, and `--resume` goes on
from it -- to the same weights as a run never stopped -- when the data and the
settings are the run's own.  `--stop-after N` ends a run after N epochs of this
process (e.g. what fits a working session), leaving the state to resume.

    nice -n 19 .venv/bin/python tools/nnue/train.py /tmp/nnue/data.bin \\
        --out engine_c/nets/candidate.pbnn --epochs 60 --seed 1
"""

from __future__ import annotations

import argparse
import logging
import math
import pickle
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import torch
from torch import nn

sys.path.insert(0, str(Path(__file__).resolve().parent))

import posdata  # noqa: E402
from pbnn import NO_MIRROR, POCKET_INPUTS, VARIANTS, max_men, variant_inputs  # noqa: E402
from reference import (  # noqa: E402
    HIDDEN,
    INPUTS,
    MAX_BUCKETS,
    QA,
    QB,
    SCALE,
    NetError,
    bucket,
    quantise,
    read_pbnn,
    valid_hidden,
    write_pbnn,
)

log = logging.getLogger("nnue-train")

K = 400.0
CLIP = 1.98  # rint(1.98 * QA) = 505: 52 men x 505 + 505 < 32767, the horde's too
MAX_PIECES = 64  # the bucket table's range (a horde board holds up to 52)
PAD = INPUTS  # EmbeddingBag padding row: empty piece slots add nothing (a crazyhouse
#               net's is its input count, 828: posdata.variant_pad)
VAL_EVERY = 10
CHUNK = 1 << 20   # binary records read at a time (32 MB)
DECODE = 1 << 16  # records decoded to features at a time


# ---------------------------------------------------------------- data

def _black_feature(f: int) -> int:
    """A White-perspective feature -> Black's: swap colours, mirror ranks (s ^ 56); a
    pocket feature swaps colours; the padding stays."""
    if f >= INPUTS + POCKET_INPUTS:
        return f
    if f >= INPUTS:
        colour, rest = divmod(f - INPUTS, POCKET_INPUTS // 2)
        return INPUTS + (1 - colour) * (POCKET_INPUTS // 2) + rest
    colour, rest = divmod(f, 384)
    return (1 - colour) * 384 + (rest // 64) * 64 + ((rest % 64) ^ 56)


def black_table(variant: int = 0) -> torch.Tensor:
    """_black_feature over a net's inputs and its padding feature."""
    pad = posdata.variant_pad(variant)
    return torch.tensor([_black_feature(f) if f < pad else pad for f in range(pad + 1)])


BLACK_FEATURE = black_table(0)


def black_view(fw: torch.Tensor, table: torch.Tensor = BLACK_FEATURE) -> torch.Tensor:
    """White-perspective features -> Black's (a table look-up: a tenth of the time of
    the arithmetic over the whole batch)."""
    return table[fw]


def targets(score: torch.Tensor, result: torch.Tensor, stm: torch.Tensor, lam: float
            ) -> tuple[torch.Tensor, torch.Tensor]:
    """White-view score (cp) and result (0..1) -> (training target, score) from the
    side to move's view."""
    score = score * torch.where(stm, -1.0, 1.0)
    result = torch.where(stm, 1.0 - result, result)
    return lam * torch.sigmoid(score / K) + (1.0 - lam) * result, score


OWN_KING = 5 * 64  # a perspective's own king: board feature OWN_KING + its square


def king_mirror(f: torch.Tensor) -> torch.Tensor:
    """Mirrored inputs: the board features of each row (one perspective's) XOR 7, a<->h,
    when that perspective's own king stands on files e..h (pbnn.mirror_xor); pocket
    features and padding stay. The Black view's squares are rank-mirrored, not
    file-mirrored: its king's file is the board's."""
    king = (f >= OWN_KING) & (f < OWN_KING + 64)
    ksq = torch.where(king, f - OWN_KING, 0).amax(dim=1, keepdim=True)
    m = (ksq & 4) // 4 * 7
    return torch.where(f < INPUTS, f ^ m, f)


def mirror(fw: torch.Tensor, fb: torch.Tensor, gen: torch.Generator
           ) -> tuple[torch.Tensor, torch.Tensor]:
    """Half the positions (at random) mirrored a-h <-> h-a: the features hold no
    castling rights, so the eval is the same (pockets and padding stay)."""
    flip = (torch.rand(len(fw), 1, generator=gen) < 0.5) & (fw < INPUTS)
    # 384 and 64 * t are multiples of 8: XOR 7 flips only the file.
    return torch.where(flip, fw ^ 7, fw), torch.where(flip, fb ^ 7, fb)


Batch = tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]  # fw, fb, stm, target


class RecordData:
    """Binary records (engine_c/tools/datagen.c) from one or more files (the chunks of
    tools/nnue/datastore.py), streamed from memmaps: at most one slice of CHUNK
    records and its decoded tensors are in RAM at a time."""

    def __init__(self, paths: list[Path], lam: float, mirrored: bool = False) -> None:
        opened = [posdata.open_records(p) for p in paths]
        self.files = [recs for _header, recs in opened]
        variants = {header.variant for header, _recs in opened}
        if len(variants) > 1:
            names = ", ".join(VARIANTS[v] for v in sorted(variants))
            raise posdata.DataError(f"records of several variants ({names}): a net is "
                                    "trained on one variant's data")
        self.variant = variants.pop() if variants else 0
        if mirrored and VARIANTS[self.variant] in NO_MIRROR:
            raise posdata.DataError(f"{VARIANTS[self.variant]} records: a mirrored net follows "
                                    "each side's one king, which this variant does not keep")
        self.mirrored = mirrored
        self.black = black_table(self.variant)
        self.lam = lam
        self.chunks = [(f, s, min(s + CHUNK, len(recs)))
                       for f, recs in enumerate(self.files) for s in range(0, len(recs), CHUNK)]
        self.n_val = sum(int(np.count_nonzero(self._is_val(self.files[f]["game"][s:e])))
                         for f, s, e in self.chunks)
        self.n_train = sum(len(recs) for recs in self.files) - self.n_val
        total, count = 0.0, 0
        for _fw, _fb, _stm, target, score in self._stream(val=True, batch=DECODE):
            total += float(((torch.sigmoid(score / K) - target) ** 2).sum())
            count += len(target)
        self.score_loss = total / max(count, 1)

    @staticmethod
    def _is_val(game: np.ndarray) -> np.ndarray:
        # Whole games: the positions of one game share a result and are too alike
        # to tell fitting from overfitting.
        val: np.ndarray = game % VAL_EVERY == VAL_EVERY - 1
        return val

    def _decode(self, recs: np.ndarray) -> tuple[torch.Tensor, ...]:
        feats, stm_np = posdata.features(recs)
        fw = torch.from_numpy(feats.astype(np.int64))
        stm = torch.from_numpy(stm_np.astype(np.bool_))
        score = torch.from_numpy(recs["score"].astype(np.float32))
        result = torch.from_numpy(recs["result"].astype(np.float32) / 2)
        target, score = targets(score, result, stm, self.lam)
        fb = black_view(fw, self.black)
        if self.mirrored:
            fw, fb = king_mirror(fw), king_mirror(fb)
        return fw, fb, stm, target, score

    def _stream(self, val: bool, batch: int, gen: torch.Generator | None = None
                ) -> Iterator[tuple[torch.Tensor, ...]]:
        order = (torch.randperm(len(self.chunks), generator=gen).tolist() if gen is not None
                 else range(len(self.chunks)))
        for c in order:
            f, s, e = self.chunks[c]
            recs = np.asarray(self.files[f][s:e])
            mask = self._is_val(recs["game"])
            recs = recs[mask] if val else recs[~mask]
            if gen is not None:
                recs = recs[torch.randperm(len(recs), generator=gen).numpy()]
            for d in range(0, len(recs), DECODE):
                tensors = self._decode(recs[d:d + DECODE])
                for i in range(0, len(tensors[0]), batch):
                    yield tuple(t[i:i + batch] for t in tensors)

    def train_batches(self, batch: int, gen: torch.Generator) -> Iterator[Batch]:
        for fw, fb, stm, target, _score in self._stream(False, batch, gen):
            yield fw, fb, stm, target

    def val_batches(self, batch: int) -> Iterator[Batch]:
        for fw, fb, stm, target, _score in self._stream(True, batch):
            yield fw, fb, stm, target


# ---------------------------------------------------------------- model

def bucket_table(buckets: int) -> torch.Tensor:
    """Output bucket by piece count 0..MAX_PIECES (reference.bucket, the contract's rule)."""
    return torch.tensor([bucket(n, buckets) for n in range(MAX_PIECES + 1)])


class SCReLU(torch.autograd.Function):
    """clamp(x, 0, 1)^2 with its derivative (2 clamp(x, 0, 1) where x <= 1, else 0)
    made in the forward pass: the same numbers as autograd's clamp-then-square, but
    its backward (compares and a where over every accumulator) took 15% of a CPU step."""

    @staticmethod
    def forward(ctx: torch.autograd.function.FunctionCtx, x: torch.Tensor) -> torch.Tensor:
        c = x.clamp(0, 1)
        if ctx.needs_input_grad[0]:  # type: ignore[attr-defined]
            ctx.save_for_backward(c.mul(2).masked_fill_(x > 1, 0))
        return c * c

    @staticmethod
    def backward(ctx: torch.autograd.function.FunctionCtx, grad: torch.Tensor) -> torch.Tensor:
        slope: torch.Tensor = ctx.saved_tensors[0]  # type: ignore[attr-defined]
        return grad * slope


def screlu(x: torch.Tensor) -> torch.Tensor:
    return SCReLU.apply(x)  # type: ignore[no-untyped-call, no-any-return]


class Net(nn.Module):
    def __init__(self, buckets: int = 1, hidden: int = HIDDEN, variant: int = 0,
                 mirrored: bool = False) -> None:
        super().__init__()
        self.buckets = buckets
        self.variant = variant
        self.mirrored = mirrored  # fed king_mirror'd features; exported with the flag
        self.inputs = variant_inputs(variant)  # the padding row follows them
        self.ft = nn.EmbeddingBag(self.inputs + 1, hidden, mode="sum", padding_idx=self.inputs)
        self.ft_bias = nn.Parameter(torch.zeros(hidden))
        self.out = nn.Linear(2 * hidden, buckets)  # one output per bucket
        self.register_buffer("bucket_of", bucket_table(buckets), persistent=False)
        with torch.no_grad():
            # ~30 pieces: accumulators start with spread ~0.3, inside SCReLU's [0, 1].
            nn.init.normal_(self.ft.weight, 0.0, 0.05)
            self.ft.weight[self.inputs].zero_()

    def forward(self, fw: torch.Tensor, fb: torch.Tensor, stm: torch.Tensor) -> torch.Tensor:
        """Raw output; eval_cp = out * SCALE, side to move's view."""
        # Perspectives are picked on the feature indices, before the bags: selecting
        # the float accumulators instead costs a quarter of a CPU step in where().
        s = stm.unsqueeze(1)
        us = self.ft(torch.where(s, fb, fw)) + self.ft_bias
        them = self.ft(torch.where(s, fw, fb)) + self.ft_bias
        a = torch.cat([screlu(us), screlu(them)], dim=1)
        out = self.out(a)
        if self.buckets == 1:
            return out.squeeze(1)
        k = self.bucket_of[(fw < INPUTS).sum(dim=1)]  # pieces on the board, kings included
        return out.gather(1, k.unsqueeze(1)).squeeze(1)

    @torch.no_grad()
    def clip(self) -> None:
        for p in (self.ft.weight, self.ft_bias, self.out.weight):
            p.clamp_(-CLIP, CLIP)
        # The output bias is stored as int32 (x QA x QB): no clip needed.

    def float_weights(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """ft_w [inputs, H], ft_b [H], out_w [B, 2H], out_b [B]."""
        return (self.ft.weight[:self.inputs].detach().cpu().double().numpy(),
                self.ft_bias.detach().cpu().double().numpy(),
                self.out.weight.detach().cpu().double().numpy(),
                self.out.bias.detach().cpu().double().numpy())


def _spread(w: torch.Tensor, buckets: int, what: str) -> torch.Tensor:
    """Output weights or biases of 1 or `buckets` buckets -> `buckets` (one bucket is
    copied into all, so the model evaluates as the one-bucket net did)."""
    if len(w) == buckets:
        return w
    if len(w) == 1:
        return w.expand(buckets, *w.shape[1:]).clone()
    raise NetError(f"{what} has {len(w)} output buckets; --buckets must be {len(w)} or "
                   "it must have one bucket")


@torch.no_grad()
def load_pbnn(model: Net, path: Path) -> None:
    """Float weights from a quantised net (when its .pt is gone): the integers
    divided by their scales, so exporting the model again gives the same file."""
    net = read_pbnn(path)
    if net.hidden != model.ft_bias.numel():
        raise NetError(f"{path} is {net.hidden} wide, --hidden is {model.ft_bias.numel()}")
    if net.variant != model.variant:
        raise NetError(f"{path} is a net for {VARIANTS[net.variant]}, the data is "
                       f"{VARIANTS[model.variant]}'s")
    if net.mirrored != model.mirrored:
        # A fair start: chess is nearly symmetric a<->h, so a net of the other kind
        # evaluates the other half's king positions about as it should.
        log.info("--init: %s has %s inputs, this run %s ones", path,
                 *("mirrored" if m else "plain" for m in (net.mirrored, model.mirrored)))
    model.ft.weight[:model.inputs] = torch.from_numpy(net.ft_weight.astype(np.float32) / QA)
    model.ft.weight[model.inputs].zero_()
    model.ft_bias.copy_(torch.from_numpy(net.ft_bias.astype(np.float32) / QA))
    out_w = torch.from_numpy(net.out_weight.astype(np.float32) / QB)
    out_b = torch.tensor(net.out_bias, dtype=torch.float64) / (QA * QB)
    model.out.weight.copy_(_spread(out_w, model.buckets, str(path)))
    model.out.bias.copy_(_spread(out_b, model.buckets, str(path)).float())


def load_checkpoint(model: Net, path: Path) -> None:
    """A .pt of this trainer; a one-bucket one's output layer goes into every bucket."""
    state = torch.load(path, map_location="cpu")
    width = state["ft_bias"].numel() if "ft_bias" in state else -1
    if width != model.ft_bias.numel():
        raise NetError(f"{path} is {width} wide, --hidden is {model.ft_bias.numel()}")
    rows = state["ft.weight"].shape[0] if "ft.weight" in state else -1
    if rows != model.inputs + 1:
        raise NetError(f"{path} has {rows - 1} inputs, a {VARIANTS[model.variant]} net "
                       f"{model.inputs}")
    for key in ("out.weight", "out.bias"):
        if key in state:
            state[key] = _spread(state[key], model.buckets, str(path))
    model.load_state_dict(state)


def export(model: Net, path: Path) -> str:
    """Quantise per the contract and write a .pbnn; returns the net's name."""
    net = quantise(*model.float_weights(), variant=model.variant, mirrored=model.mirrored)
    write_pbnn(path, net)
    return net.name


def loss_fn(out: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    return ((torch.sigmoid(out * SCALE / K) - target) ** 2).mean()


@torch.no_grad()
def evaluate_loss(model: Net, data: RecordData, device: torch.device) -> float:
    total = 0.0
    for fw, fb, stm, target in data.val_batches(16384):
        out = model(fw.to(device), fb.to(device), stm.to(device))
        total += float(loss_fn(out, target.to(device))) * len(target)
    return total / max(data.n_val, 1)


def pick_device(name: str) -> torch.device | None:
    """cpu, cuda, or auto (cuda when torch sees a GPU); None if cuda is asked for
    and there is none."""
    if name == "auto":
        name = "cuda" if torch.cuda.is_available() else "cpu"
    if name == "cuda" and not torch.cuda.is_available():
        return None
    return torch.device(name)


# ---------------------------------------------------------------- resuming

def run_key(args: argparse.Namespace) -> dict[str, object]:
    """What makes a run the same run: its data (files by name and size) and every
    setting that shapes the weights."""
    return {"data": [(p.name, p.stat().st_size) for p in args.data],
            **{k: str(getattr(args, k)) for k in (
                "init", "epochs", "batch", "lr", "lr_drop", "wd", "lam", "mirror", "buckets",
                "hidden", "seed")}}


def save_state(path: Path, state: dict[str, object]) -> None:
    """Written to a temporary name and renamed: a stop mid-write leaves the last one."""
    tmp = path.with_name(path.name + ".tmp")
    torch.save(state, tmp)
    tmp.replace(path)


def load_state(path: Path, run: dict[str, object], model: Net, opt: torch.optim.Optimizer,
               gen: torch.Generator, device: torch.device) -> tuple[int, float, int, float]:
    """Restore a saved run: (its last epoch, best val loss, best epoch, seconds spent)."""
    state = torch.load(path, map_location=device, weights_only=False)
    if state["run"] != run:
        differ = sorted(k for k in run if state["run"].get(k) != run[k])
        raise ValueError(f"another run's state (it differs in {', '.join(differ)}); delete it "
                         f"or give that run's data and settings")
    model.load_state_dict(state["model"])
    opt.load_state_dict(state["opt"])
    gen.set_state(state["gen"].cpu())
    torch.set_rng_state(state["torch_rng"].cpu())
    return (int(state["epoch"]), float(state["best"]), int(state["best_epoch"]),
            float(state["spent"]))


# ---------------------------------------------------------------- main

def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("data", type=Path, nargs="+",
                    help="binary records of engine_c/tools/datagen.c (several files, e.g. "
                         "`tools/nnue/datastore.py paths ...`)")
    ap.add_argument("--out", type=Path, required=True, help=".pbnn to write (best epoch)")
    ap.add_argument("--checkpoint", type=Path, help="float weights (.pt) to save; default OUT.pt")
    ap.add_argument("--init", type=Path,
                    help="start from this .pt checkpoint or .pbnn net (retraining)")
    ap.add_argument("--epochs", type=int, default=40)
    ap.add_argument("--batch", type=int, default=4096)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--lr-drop", type=float, default=0.3,
                    help="multiply the learning rate by this at 60%% and 85%% of the epochs")
    ap.add_argument("--wd", type=float, default=0.0, help="AdamW weight decay")
    ap.add_argument("--lam", type=float, default=0.75,
                    help="weight of the search score in the target (the rest: game result)")
    ap.add_argument("--mirror", choices=("0", "1", "king"), default="1",
                    help="1 (default): mirror half of each batch a-h <-> h-a (augmentation); "
                         "0: off; king: mirrored inputs, each perspective's board mirrored "
                         "when its king is on files e..h (a v3 net with the mirrored flag)")
    ap.add_argument("--buckets", type=int, default=1,
                    help=f"output buckets by piece count, 1..{MAX_BUCKETS} (default 1: a v1 "
                         "net as before; more: a v2 net)")
    ap.add_argument("--hidden", type=int, default=HIDDEN,
                    help=f"hidden width, a multiple of 64 in 64..1024 (default {HIDDEN}); the "
                         "engine is built for the width of the net it embeds")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--threads", type=int, default=1, help="CPU threads of torch")
    ap.add_argument("--device", choices=("auto", "cpu", "cuda"), default="auto",
                    help="auto (default): cuda when torch sees a GPU, else cpu")
    ap.add_argument("--resume", action="store_true",
                    help="go on from OUT.state.pt (written after every epoch) if it is there")
    ap.add_argument("--stop-after", type=int, metavar="N",
                    help="end after N epochs of this process; --resume goes on later")
    args = ap.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    for path in args.data:
        if not path.is_file():
            ap.error(f"data file {path} not found; make it with engine_c/tools/datagen.c")
    if not 1 <= args.buckets <= MAX_BUCKETS:
        ap.error(f"--buckets {args.buckets}: use 1..{MAX_BUCKETS}")
    if not valid_hidden(args.hidden):
        ap.error(f"--hidden {args.hidden}: use a multiple of 64 in 64..1024")
    if args.stop_after is not None and args.stop_after < 1:
        ap.error(f"--stop-after {args.stop_after}: use 1 or more epochs")
    if args.init and not args.init.is_file():  # before the data: parsing takes a while
        ap.error(f"--init: {args.init} not found (a .pt checkpoint or a .pbnn net)")
    device = pick_device(args.device)
    if device is None:
        ap.error("--device cuda: torch sees no CUDA GPU (is this the CPU build of torch?); "
                 "use --device cpu or auto")
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    gen = torch.Generator().manual_seed(args.seed)  # on the CPU: batches are made there

    try:
        data = RecordData(args.data, args.lam, args.mirror == "king")
    except posdata.DataError as exc:
        ap.error(str(exc))
    if data.n_train == 0 or data.n_val == 0:
        ap.error(f"{' '.join(map(str, args.data))}: {data.n_train} training and "
                 f"{data.n_val} validation positions; generate more games")
    log.info("positions: %d train, %d validation (%d file(s)); lambda %.2f; val loss of the "
             "search score itself %.6f; device %s; %d output bucket(s)%s", data.n_train,
             data.n_val, len(args.data), args.lam, data.score_loss, device, args.buckets,
             (f"; {VARIANTS[data.variant]} ({variant_inputs(data.variant)} inputs, "
              f"at most {max_men(data.variant)} active)" if data.variant else "")
             + ("; mirrored inputs" if data.mirrored else ""))

    model = Net(args.buckets, args.hidden, data.variant, data.mirrored)
    try:
        if args.init and args.init.suffix == ".pbnn":
            load_pbnn(model, args.init)
        elif args.init:
            load_checkpoint(model, args.init)
    except (OSError, NetError) as e:
        ap.error(f"--init: {e}")
    model.to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=args.wd)
    drops = {math.ceil(args.epochs * 0.6), math.ceil(args.epochs * 0.85)}
    ckpt = args.checkpoint or args.out.with_suffix(".pt")
    state_path = args.out.with_name(args.out.name + ".state.pt")
    run = run_key(args)
    first, best_epoch, spent = 1, 0, 0.0
    if args.resume and state_path.is_file():
        try:
            done, best, best_epoch, spent = load_state(state_path, run, model, opt, gen,
                                                       device)
        except (OSError, RuntimeError, KeyError, ValueError, pickle.UnpicklingError) as exc:
            ap.error(f"--resume: {state_path}: {exc}")
        first = done + 1
        log.info("resumed after epoch %d of %d (best: epoch %d, val %.6f)", first - 1,
                 args.epochs, best_epoch, best)
    else:
        best = evaluate_loss(model, data, device)
        log.info("epoch 0 val %.6f", best)
    t0 = time.monotonic() - spent
    last = args.epochs if args.stop_after is None else min(args.epochs,
                                                           first - 1 + args.stop_after)
    for epoch in range(first, last + 1):
        if epoch in drops:
            for g in opt.param_groups:
                g["lr"] *= args.lr_drop
        total = torch.zeros((), device=device)  # summed on the device: no sync per step
        for fw, fb, stm, target in data.train_batches(args.batch, gen):
            if args.mirror == "1":
                fw, fb = mirror(fw, fb, gen)
            loss = loss_fn(model(fw.to(device), fb.to(device), stm.to(device)),
                           target.to(device))
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            model.clip()
            total += loss.detach() * len(target)
        vl = evaluate_loss(model, data, device)
        mark = ""
        if vl < best:
            best, best_epoch, mark = vl, epoch, " *"
            torch.save(model.state_dict(), ckpt)
        log.info("epoch %d train %.6f val %.6f lr %.2g %.0f s%s", epoch,
                 float(total) / data.n_train, vl,
                 opt.param_groups[0]["lr"], time.monotonic() - t0, mark)
        save_state(state_path, {"run": run, "epoch": epoch, "best": best,
                                "best_epoch": best_epoch, "spent": time.monotonic() - t0,
                                "model": model.state_dict(), "opt": opt.state_dict(),
                                "gen": gen.get_state(), "torch_rng": torch.get_rng_state()})
    if last < args.epochs:
        log.info("stopped after epoch %d of %d; go on with the same command and --resume "
                 "(state: %s)", last, args.epochs, state_path)
        return 0
    if best_epoch:
        model.load_state_dict(torch.load(ckpt, map_location=device))
    name = export(model, args.out)
    log.info("best epoch %d val %.6f -> %s (%s), float weights %s", best_epoch, best, args.out,
             name, ckpt)
    return 0


if __name__ == "__main__":
    sys.exit(main())
