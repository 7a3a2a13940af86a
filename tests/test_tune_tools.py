"""The tuning tools: the Texel tuner (engine_c/tools/tune.c) on the records of the one data
generator (engine_c/tools/datagen.c), the variant builder that A/B matches (docs/strength.md)
rely on, and the paired score of two gauntlets."""

from __future__ import annotations

import fcntl
import os
import re
import subprocess
import sys
from pathlib import Path

import chess
import pytest
from conftest import DATA, ROOT

from tests.test_nnue_datagen import OPENINGS, datagen, run  # noqa: F401  (datagen: a fixture)

sys.path.insert(0, str(ROOT / "tools" / "nnue"))

import posdata  # noqa: E402

from bot.engine.engine import Engine  # noqa: E402

ENGINE = ROOT / "engine_c"


@pytest.fixture(scope="module")
def tuner(datagen: Path) -> Path:  # noqa: F811  (datagen checked make and cc)
    out = ENGINE / "out"
    # The lock of tests/test_c_builds.py: one make at a time in engine_c/out.
    with (out / ".build.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        subprocess.run(["make", "-s", "VARIANT=auto", "out/auto/tune"], cwd=ENGINE, check=True,
                       timeout=600)
    return out / "auto" / "tune"


def _mse(stderr: str, line: str) -> float:
    match = re.search(line + r".*?train mse ([0-9.]+)", stderr)
    assert match, stderr
    return float(match.group(1))


def test_build_script_builds_the_tuner_from_core_and_eval_only(tuner: Path) -> None:
    # tools/tune/build.sh compiles tune.c with attacks/board/movegen/eval only (no
    # search), so the tuner builds while search files change; `tuner` took make and cc.
    with (ENGINE / "out" / ".build.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        subprocess.run(["sh", str(ROOT / "tools" / "tune" / "build.sh")], check=True,
                       capture_output=True, timeout=600)
    proc = run(ENGINE / "out" / "tune" / "tune", "--help")
    assert proc.stdout.startswith("usage: tune DATA... --out HEADER")


def test_tuner_tunes_from_datagen_records(datagen: Path, tuner: Path,  # noqa: F811
                                          tmp_path: Path) -> None:
    # HCE self-play, as the committed weights' data was; 20 games, so games 9 and 19
    # are the held-out ones. Two files: the tuner reads them as one data set.
    a, b = tmp_path / "a.bin", tmp_path / "b.bin"
    common = ("--openings", OPENINGS, "--eval", "hce", "--nodes", 200, "--games", 10)
    run(datagen, a, *common)
    run(datagen, b, *common, "--first", 10)
    n = len(posdata.open_records(a)[1]) + len(posdata.open_records(b)[1])
    header = tmp_path / "evalparams.h"
    proc = run(tuner, a, b, "--out", header, "--epochs", 40)
    assert f"positions {n}," in proc.stderr
    model_error = re.search(r"model error ([0-9.]+) cp", proc.stderr)
    assert model_error and float(model_error.group(1)) < 1.0, proc.stderr  # eval is linear
    # Gradient descent lowers the training error from the starting weights' (K line).
    assert _mse(proc.stderr, "epoch 40 ") < _mse(proc.stderr, r"K = [0-9.]+ ")
    text = header.read_text()
    assert f"Tuned on {n} positions (a.bin and 1 more file(s))" in text
    start = (ENGINE / "evalparams.h").read_text()
    fields = re.findall(r"^    \.(\w+) =", start, re.M)
    assert fields and re.findall(r"^    \.(\w+) =", text, re.M) == fields


@pytest.mark.parametrize("variant,symbol", [("horde", "HordeEvalParams"),
                                            ("atomic", "AtomicEvalParams")])
def test_tuner_fits_a_variants_own_set_of_chess_weights(datagen: Path, tuner: Path,  # noqa: F811
                                                        tmp_path: Path, variant: str,
                                                        symbol: str) -> None:
    """The horde and atomic stand on chess's hand-crafted eval with weights of
    their own: `--hce 1` fits that set on the variant's games by the gradient
    of the first form, with the variant's own terms a fixed offset, so the
    linear model reproduces the engine's whole eval of each position; it
    writes the set under the variant's name and rescales nothing (the fixed
    terms anchor the scale)."""
    data = tmp_path / f"{variant}.bin"
    run(datagen, data, "--variant", variant, "--nodes", 200, "--games", 10,
        "--random-plies", 6, "--threads", 1)
    n = len(posdata.open_records(data)[1])
    header = tmp_path / f"evalparams_{variant}.h"
    # A rate for 400 positions: at the default 10,000 the horde's fit overshoots
    # since its balance and pawn terms grew (its start is worth +800 to White).
    proc = run(tuner, "--variant", variant, "--hce", 1, data, "--out", header,
               "--epochs", 30, "--lr", 2000)
    assert f"positions {n}," in proc.stderr
    model_error = re.search(r"model error ([0-9.]+) cp", proc.stderr)
    assert model_error and float(model_error.group(1)) < 1.0, proc.stderr
    assert _mse(proc.stderr, "epoch 30 ") < _mse(proc.stderr, r"K = [0-9.]+ ")
    assert "normalised by 1.000" in proc.stderr
    text = header.read_text()
    assert f"const EvalParams {symbol} = {{" in text and f"Tuned on {n} positions" in text
    start = (ENGINE / f"evalparams_{variant}.h").read_text()
    fields = re.findall(r"^    \.(\w+) =", start, re.M)
    assert fields and re.findall(r"^    \.(\w+) =", text, re.M) == fields
    # only the horde and atomic have such a set; --hce is not the local search
    for args in (("--variant", "kingofthehill", "--hce", 1), ("--variant", variant, "--hce", 1,
                                                               "--step", 2), ("--hce", 1)):
        bad = run(tuner, *args, data, "--out", tmp_path / "x.h", ok=False)
        assert bad.returncode == 2 and bad.stderr.count("\n") == 1, bad.stderr
        assert "--hce" in bad.stderr, bad.stderr


def test_tuner_reads_each_record_as_the_python_reader_does(datagen: Path, tuner: Path,  # noqa: F811
                                                           tmp_path: Path) -> None:
    fens = [line.split(";")[0].strip() for line in (DATA / "standard.epd").read_text()
            .splitlines() if line.strip() and not line.startswith("#")]
    fens += ["r3k2r/8/8/8/3pP3/8/8/R3K2R b Kq e3 0 17",   # en passant, partial rights
             "4k3/8/8/8/8/8/8/4K2R w K - 99 80"]
    src = tmp_path / "fens.epd"
    src.write_text("\n".join(fens) + "\n")
    packed = tmp_path / "p.bin"
    run(datagen, "--pack", src, packed)  # result of line i: (i + 1) % 3
    lines = run(tuner, "--fens", packed).stdout.splitlines()
    _, recs = posdata.open_records(packed)
    assert len(lines) == len(recs) == len(fens)
    for i, (line, rec) in enumerate(zip(lines, recs, strict=True)):
        fen, result = line.split(" | ")
        assert chess.Board(fen).fen() == chess.Board(posdata.record_fen(rec)).fen() \
            == chess.Board(fens[i]).fen()
        assert result == ("0.0", "0.5", "1.0")[(i + 1) % 3]


def test_tuner_bad_input_is_one_line(datagen: Path, tuner: Path,  # noqa: F811
                                     tmp_path: Path) -> None:
    data = tmp_path / "d.bin"
    run(datagen, data, "--openings", OPENINGS, "--games", 2, "--nodes", 200)
    text = tmp_path / "old.txt"   # the retired generators' text lines
    text.write_text("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 | 0.5\n")
    corrupt = tmp_path / "corrupt.bin"
    raw = bytearray(data.read_bytes()[:32 + 64])
    raw[32 + 8] |= 7   # piece code 7 does not exist
    corrupt.write_bytes(bytes(raw))
    out = tmp_path / "o.h"
    cases = [
        ((text, "--out", out), 1, f"tune: {text} is not a datagen record file"),
        ((tmp_path / "missing.bin", "--out", out), 1, "missing.bin: No such file"),
        ((corrupt, "--out", out), 1, f"tune: {corrupt}: record 0 is not a datagen position"),
        ((data, "--out", data), 2, "holds datagen records: not overwriting it"),
        ((data,), 2, "--out HEADER is required"),
        ((data, "--out", out, "--epochs"), 2, "--epochs needs a value"),
        ((data, "--out", out, "--frobnicate", "1"), 2, "unknown option --frobnicate"),
        ((data, "--out", out), 1, "generate more games first"),   # 2 games: none held out
    ]
    for args, code, msg in cases:
        proc = run(tuner, *args, ok=False)
        assert proc.returncode == code and msg in proc.stderr, (args, proc.stderr)
        assert proc.stderr.count("\n") == 1, proc.stderr
    assert not out.exists() and data.stat().st_size > 32 + 64
    # A torn last record (a generator killed mid-write) is left out with a warning.
    torn = tmp_path / "torn.bin"
    torn.write_bytes(data.read_bytes()[:32 + 64 + 5])
    proc = run(tuner, "--fens", torn)
    assert len(proc.stdout.splitlines()) == 2 and "ignoring a torn last record" in proc.stderr


def _groups(header: str) -> dict[str, str]:
    """A variant_params.h's lines by variant group ("    /* NAME: note */" starts one)."""
    groups: dict[str, str] = {}
    name = ""
    for line in header.splitlines():
        start = re.match(r"^    /\* (\w+): ", line)
        if start:
            name = start.group(1)
        if name and line.startswith("    "):
            groups[name] = groups.get(name, "") + line + "\n"
    return groups


def test_tuner_tunes_one_variants_weights(datagen: Path, tuner: Path,  # noqa: F811
                                          tmp_path: Path) -> None:
    # Crazyhouse self-play with its hand-crafted eval, one thread, 10 games (game 9 held
    # out): a few hundred positions. Two passes of the local search, the last kept.
    data = tmp_path / "zh.bin"
    run(datagen, data, "--variant", "crazyhouse", "--eval", "hce", "--nodes", 200,
        "--games", 10, "--random-plies", 8, "--threads", 1)
    header = tmp_path / "variant_params.h"
    start = (ENGINE / "variant_params.h").read_text()
    header.write_text(start)
    proc = run(tuner, "--variant", "crazyhouse", data, "--out", header, "--epochs", 2,
               "--keep-last", 1)
    n = len(posdata.open_records(data)[1])
    assert f"variant crazyhouse, on chess's net: positions {n} " in proc.stderr, proc.stderr
    assert _mse(proc.stderr, "epoch 2 ") < _mse(proc.stderr, r"K = [0-9.]+ ")
    text = header.read_text()
    before, after = _groups(start), _groups(text)
    # the same fields, in the same layout; only crazyhouse's group differs
    assert re.findall(r"^    \.(\w+) =", text, re.M) == re.findall(r"^    \.(\w+) =", start, re.M)
    assert set(before) == set(after) == {"kingofthehill", "3check", "crazyhouse", "atomic",
                                         "antichess", "racingkings", "horde"}
    assert [v for v in before if before[v] != after[v]] == ["crazyhouse"]
    assert f"crazyhouse: tuned on {n} positions (zh.bin)" in text
    assert text.splitlines()[:5] == start.splitlines()[:5]


@pytest.mark.parametrize("variant", ["kingofthehill", "3check", "crazyhouse"])
def test_variant_tuner_evaluates_as_the_engine_plays(datagen: Path, tuner: Path,  # noqa: F811
                                                     tmp_path: Path, variant: str) -> None:
    """The variants on chess's net are tuned on the base they play on: each
    position's eval in the tuner (--evals 1) is the engine's static eval with
    the net (the default) and with the HCE (--base hce), so a tuned weight moves
    what the engine plays, not a sum it never computes."""
    data = tmp_path / f"{variant}.bin"
    run(datagen, data, "--variant", variant, "--nodes", 200, "--games", 4,
        "--random-plies", 8, "--threads", 1)
    checked = 0
    with Engine(hash_mb=16) as eng:
        for base, ev_name in (("net", "nnue"), ("hce", "hce")):
            lines = run(tuner, "--variant", variant, data, "--evals", 1, "--base", base
                        ).stdout.splitlines()
            assert len(lines) == len(posdata.open_records(data)[1])
            eng.set_eval(ev_name)
            for line in lines[:: max(1, len(lines) // 25)]:
                fen, ev = line.rsplit(" | ", 1)
                eng.set_position(fen, [], variant=variant)
                stm = eng.evaluate()
                assert int(ev) == (stm if " w " in fen else -stm), (base, fen)
                checked += 1
        net_evals = run(tuner, "--variant", variant, data, "--evals", 1).stdout
        hce_evals = run(tuner, "--variant", variant, data, "--evals", 1, "--base", "hce").stdout
    assert checked >= 20
    assert net_evals != hce_evals


def test_variant_tuner_writes_which_base_it_tuned_on(datagen: Path, tuner: Path,  # noqa: F811
                                                    tmp_path: Path) -> None:
    data = tmp_path / "koth.bin"
    run(datagen, data, "--variant", "kingofthehill", "--nodes", 200, "--games", 10,
        "--random-plies", 8, "--threads", 1)
    start = (ENGINE / "variant_params.h").read_text()
    for base, words in (("net", "on chess's net"), ("hce", "on the HCE")):
        header = tmp_path / f"{base}.h"
        header.write_text(start)
        proc = run(tuner, "--variant", "kingofthehill", data, "--out", header, "--epochs", 1,
                   "--base", base)
        assert f"variant kingofthehill, {words}: positions" in proc.stderr, proc.stderr
        assert "kingofthehill: tuned on " in header.read_text()
        assert f"(koth.bin), {words}, K=" in header.read_text()
    only_variant = "--base, --evals and --hce are for --variant"
    bad = [
        (("--variant", "horde", data, "--evals", "1", "--base", "net"),
         "--base is for kingofthehill"),
        (("--variant", "kingofthehill", data, "--evals", "1", "--base", "nets"),
         "--base nets: expected"),
        ((data, "--evals", "1"), only_variant),
        ((data, "--out", tmp_path / "x.h", "--base", "hce"), only_variant),
    ]
    for args, words in bad:
        proc = run(tuner, *args, ok=False)
        assert proc.returncode == 2, (args, proc.stderr)
        assert words in proc.stderr and proc.stderr.count("\n") == 1, (args, proc.stderr)


def test_tuner_reads_variant_records_and_refuses_others_in_one_line(
        datagen: Path, tuner: Path, tmp_path: Path) -> None:  # noqa: F811
    # The decoding of version-2 records: pockets, promoted marks, checks left, the horde.
    cases = {
        "crazyhouse": ["r1bqk2r/ppp2ppp/2n2n2/3p4/1b6/2N2N2/PPP2PPP/R1BQKB1R[Pp] w KQkq - 0 6",
                       "r1bQ~k2r/ppp2ppp/2n2n2/3p4/1b2P3/2N2N2/PPP2PPP/R1B1KB1R[p] b KQq - 0 9"],
        "3check": ["r1bqkb1r/ppp2ppp/2np1n2/4p3/2B1P3/2N2N2/PPPP1PPP/R1BQK2R w KQkq - 3+2 0 5"],
        "horde": ["rnbqkbnr/pppppppp/8/1PP2PP1/PPPPPPPP/PPPPPPPP/PPPPPPPP/PPPPPPPP w kq - 0 1"],
    }
    for variant, fens in cases.items():
        src, packed = tmp_path / f"{variant}.fens", tmp_path / f"{variant}.bin"
        src.write_text("\n".join(fens) + "\n")
        run(datagen, "--pack", src, packed, "--variant", variant)
        lines = run(tuner, "--fens", packed).stdout.splitlines()
        assert [line.split(" | ")[0] for line in lines] == fens
    std, zh = tmp_path / "std.bin", tmp_path / "crazyhouse.bin"
    run(datagen, std, "--openings", OPENINGS, "--games", 2, "--nodes", 200, "--threads", 1)
    mixed = tmp_path / "mixed.bin"
    raw = bytearray(zh.read_bytes())
    raw[64 + 64 + 48] = 6   # the second record says atomic
    mixed.write_bytes(bytes(raw))
    out = tmp_path / "o.h"
    bad = [
        (("--variant", "crazyhouse", std), 1, "standard-chess records; --variant crazyhouse"),
        (("--variant", "chess", zh), 2, "--variant chess: not a variant"),
        (("--variant", "nosuch", zh), 2, "--variant nosuch: not a variant"),
        (("--variant", "atomic", zh), 1, "records of crazyhouse, not atomic"),
        ((zh,), 1, "tune them with --variant crazyhouse"),
        (("--variant", "crazyhouse", mixed), 1, "record 1 is of atomic, not crazyhouse"),
        (("--variant", "crazyhouse", zh, "--freeze", "horde_pawn"), 2, "unknown weight"),
        ((std, "--step", 2), 2, "--step is for --variant"),
    ]
    for args, code, msg in bad:
        proc = run(tuner, *args, "--out", out, ok=False)
        assert proc.returncode == code and msg in proc.stderr, (args, proc.stderr)
        assert proc.stderr.count("\n") == 1, proc.stderr
    assert not out.exists()


def test_build_variant_makes_a_working_uci_engine(tmp_path: Path) -> None:
    # The engine embeds the NNUE net (engine_c/nnue_embed.c), so a copy of
    # the sources without engine_c/nets/ cannot build: the script must copy it.
    # NET= embeds another net, here a 512-wide one: the build is made for its
    # width, so the shipped 384-wide net no longer loads into it.
    sys.path.insert(0, str(ROOT / "tools" / "nnue"))
    from make_random_net import make
    from reference import write_pbnn

    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    script = str(ROOT / "tools/tune/build_variant.sh")
    params = str(ROOT / "engine_c/evalparams.h")
    out = tmp_path / "variant"
    missing = subprocess.run(["sh", script, str(out), params], env={**env, "NET": "nope.pbnn"},
                             capture_output=True, text=True, timeout=60)
    assert missing.returncode == 2 and "NET=nope.pbnn: no such file" in missing.stderr
    assert missing.stderr.count("\n") == 1 and not out.exists()
    # A Python without setuptools (as every venv of 3.12 and later) cannot compile with
    # cffi: one line that says how to install it, before anything is copied.
    bare = tmp_path / "bare"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(bare)], check=True,
                   timeout=120)
    no_setuptools = subprocess.run(
        ["sh", script, str(out), params], capture_output=True, text=True, timeout=60,
        env={**env, "PATH": f"{bare / 'bin'}{os.pathsep}{os.environ['PATH']}"})
    assert no_setuptools.returncode == 2, no_setuptools.stderr
    assert "has no setuptools" in no_setuptools.stderr and "pip install" in no_setuptools.stderr
    assert no_setuptools.stderr.count("\n") == 1 and not out.exists()
    wide = tmp_path / "wide.pbnn"
    write_pbnn(wide, make(5, buckets=8, hidden=512))
    build = subprocess.run(["sh", script, str(out), params], env={**env, "NET": str(wide)},
                           timeout=900, capture_output=True, text=True)
    assert build.returncode == 0, build.stderr
    shipped = ROOT / "engine_c/nets/default.pbnn"
    proc = subprocess.run([str(out / "pibot-uci")], env=env,
                          input=f"uci\nsetoption name EvalFile value {shipped}\nisready\n"
                                f"setoption name EvalFile value {wide}\nisready\nquit\n",
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "uciok" in proc.stdout and proc.stdout.count("readyok") == 2, proc.stdout
    strings = [ln for ln in proc.stdout.splitlines() if ln.startswith("info string")]
    assert len(strings) == 2 and "384 wide, this engine was built for 512" in strings[0], strings
    assert f"{wide} loaded" in strings[1], strings


def _pgn(games: list[tuple[str, str, str, str]]) -> str:
    """games: (white, black, result, movetext) -> a PGN in fastchess's layout."""
    return "\n\n".join(
        f'[Event "t"]\n[White "{w}"]\n[Black "{b}"]\n[Result "{r}"]\n\n'
        f"1. e4 {{book}} e5 {{book}} {moves} {r}" for w, b, r, moves in games) + "\n"


def test_paired_score_pairs_games_by_opening_and_colour(tmp_path: Path) -> None:
    sys.path.insert(0, str(ROOT / "tools" / "tune"))
    import paired_score

    # Same two openings, both colours. The candidate wins where the baseline
    # drew and draws where it lost: +0.5 a pair on each of the four pairs,
    # however the files order them. An extra game of the new file without a
    # twin in the old one, and an unfinished one, are left out.
    new = _pgn([("pibot", "eth", "1-0", "2. Nf3 {+0.3/9} Nc6"),
                ("eth", "pibot", "1/2-1/2", "2. Nf3 Nc6"),
                ("pibot", "eth", "1/2-1/2", "2. Bc4 Bc5"),
                ("eth", "pibot", "0-1", "2. Bc4 Bc5"),
                ("pibot", "eth", "1-0", "2. d4 exd4"),
                ("pibot", "eth", "*", "2. Nc3 Nf6")])
    old = _pgn([("eth", "pibot", "1-0", "2. Bc4 Bc5"),
                ("pibot", "eth", "1/2-1/2", "2. Nf3 Nc6"),
                ("eth", "pibot", "1-0", "2. Nf3 Nc6"),
                ("pibot", "eth", "0-1", "2. Bc4 Bc5")])
    (tmp_path / "new.pgn").write_text(new)
    (tmp_path / "old.pgn").write_text(old)
    c = paired_score.compare(paired_score.load(tmp_path / "new.pgn", "pibot"),
                             paired_score.load(tmp_path / "old.pgn", "pibot"))
    assert c.pairs == 4
    assert (c.score_new, c.score_old) == (0.75, 0.125)
    assert c.diff == 0.625 and c.half_width > 0
    d, h = c.elo_diff()
    assert d == paired_score.elo(0.75) - paired_score.elo(0.125) and h > 0

    # A PGN of other engines' games, or of no games, is one line naming it.
    (tmp_path / "other.pgn").write_text(_pgn([("a", "b", "1-0", "2. Nf3 Nc6")]))
    for bad, why in (("other.pgn", "pass --name"), ("missing.pgn", "cannot read")):
        proc = subprocess.run([sys.executable, str(ROOT / "tools/tune/paired_score.py"),
                               str(tmp_path / bad), str(tmp_path / "old.pgn")],
                              capture_output=True, text=True, timeout=60)
        assert proc.returncode == 2 and why in proc.stderr, proc.stderr
        assert "Traceback" not in proc.stderr and len(proc.stderr.splitlines()) == 1


def test_paired_score_says_when_a_file_has_unpaired_games(tmp_path: Path) -> None:
    """A 400-game run against a 200-game one: the scores printed are the paired games'."""
    long = [("pibot", "eth", "1-0", "2. Nf3 Nc6"), ("eth", "pibot", "1/2-1/2", "2. Nf3 Nc6"),
            ("pibot", "eth", "0-1", "2. Bc4 Bc5"), ("eth", "pibot", "0-1", "2. Bc4 Bc5")]
    (tmp_path / "new.pgn").write_text(_pgn(long))
    (tmp_path / "old.pgn").write_text(_pgn(long[:2]))
    proc = subprocess.run([sys.executable, str(ROOT / "tools/tune/paired_score.py"),
                           str(tmp_path / "new.pgn"), str(tmp_path / "old.pgn")],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert "75.0% on its 2 paired games of 4 " in lines[0], lines
    assert "paired games of" not in lines[1] and "75.0% (" in lines[1], lines
    assert "paired games 2: difference +0.00" in lines[2], lines


def test_paired_score_pairs_variant_games_by_their_random_plies(tmp_path: Path) -> None:
    """bench/variant_match.py's games share only their random plies (2 here) and then
    part: --plies 2 pairs them, by variant and, within one opening, in file order."""
    def pgn(games: list[tuple[str, str, str, str, str]]) -> str:
        return "\n\n".join(
            f'[Event "variant match {v}"]\n[Variant "{v}"]\n[White "{w}"]\n[Black "{b}"]\n'
            f'[Result "{r}"]\n\n1. e4 e5 {moves} {r}' for v, w, b, r, moves in games) + "\n"

    # The same opening in two variants: a King of the Hill game and a Horde one must
    # not pair with each other (each file has one of them), the antichess ones pair.
    new = pgn([("Antichess", "pibot", "fsf", "1-0", "2. Nf3 Nc6"),
               ("King of the Hill", "pibot", "fsf", "0-1", "2. d4 d5"),
               ("Antichess", "pibot", "fsf", "1/2-1/2", "2. Bc4 b5")])
    old = pgn([("Antichess", "pibot", "fsf", "0-1", "2. Qh5 g6"),
               ("Horde", "pibot", "fsf", "1-0", "2. Kd2 Kd7"),
               ("Antichess", "pibot", "fsf", "1/2-1/2", "2. a3 a6")])
    (tmp_path / "new.pgn").write_text(new)
    (tmp_path / "old.pgn").write_text(old)
    script = [sys.executable, str(ROOT / "tools/tune/paired_score.py"),
              str(tmp_path / "new.pgn"), str(tmp_path / "old.pgn")]
    proc = subprocess.run([*script, "--plies", "2"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    # two antichess pairs: 1 - 0 and 1/2 - 1/2
    assert "paired games 2: difference +50.00" in proc.stdout, proc.stdout
    proc = subprocess.run(script, capture_output=True, text=True, timeout=60)   # 16 plies
    assert proc.returncode == 2 and "only 0 game(s) share an opening" in proc.stderr
    proc = subprocess.run([*script, "--plies", "0"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "--plies 0" in proc.stderr
    assert len(proc.stderr.splitlines()) == 1


def test_paired_score_reads_gzipped_pgns(tmp_path: Path) -> None:
    """docs/matches/ keeps its PGNs gzipped: they pair as they are; a damaged one is
    one line."""
    import gzip

    games = [("pibot", "eth", "1-0", "2. Nf3 Nc6"), ("eth", "pibot", "1/2-1/2", "2. Nf3 Nc6")]
    (tmp_path / "new.pgn.gz").write_bytes(gzip.compress(_pgn(games).encode()))
    (tmp_path / "old.pgn").write_text(_pgn(games))
    script = [sys.executable, str(ROOT / "tools/tune/paired_score.py")]
    proc = subprocess.run([*script, str(tmp_path / "new.pgn.gz"), str(tmp_path / "old.pgn")],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "paired games 2: difference +0.00" in proc.stdout, proc.stdout
    (tmp_path / "bad.pgn.gz").write_bytes(gzip.compress(_pgn(games).encode())[:30])
    proc = subprocess.run([*script, str(tmp_path / "bad.pgn.gz"), str(tmp_path / "old.pgn")],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "a damaged gzip file" in proc.stderr, proc.stderr
    assert len(proc.stderr.splitlines()) == 1


def test_net_gauntlet_refuses_bad_input_in_one_line(tmp_path: Path) -> None:
    """tools/tune/net_gauntlet.sh names what is missing before fastchess starts anything.

    Every tool is named by its variable, so no Ethereal, fastchess or shared/ is needed."""
    script = str(ROOT / "tools/tune/net_gauntlet.sh")
    fake = tmp_path / "pibot-uci"
    fake.write_text("#!/bin/sh\n")
    fake.chmod(0o755)
    net = tmp_path / "net.pbnn"
    net.write_bytes(b"")
    book = tmp_path / "openings.pgn"
    book.write_text("")
    tools = {"ETHEREAL": str(fake), "FASTCHESS": str(fake), "OPENINGS": str(book)}
    cases = (
        ([], {}, "usage:"),
        ([str(tmp_path / "none"), str(net), "o.pgn"], {}, "is not an executable"),
        ([str(fake), str(tmp_path / "none.pbnn"), "o.pgn"], {}, "no net at"),
        # A missing Ethereal is named with the package to install.
        ([str(fake), str(net), "o.pgn"], {"ETHEREAL": str(tmp_path / "no-ethereal")},
         "apt-get install ethereal-chess"),
        ([str(fake), str(net), "o.pgn"], {"FASTCHESS": str(tmp_path / "no-fastchess")},
         "no fastchess at"),
        ([str(fake), str(net), "o.pgn"], {"OPENINGS": str(tmp_path / "none.pgn")},
         "no openings at"),
    )
    for args, env, why in cases:
        proc = subprocess.run(["sh", script, *args], capture_output=True, text=True, timeout=60,
                              cwd=tmp_path, env={**os.environ, **tools, **env})
        assert proc.returncode == 2 and why in proc.stderr, proc.stderr
        assert len(proc.stderr.splitlines()) == 1
    assert not (tmp_path / "o.pgn").exists()


def test_sprt_refuses_bad_input_in_one_line(tmp_path: Path) -> None:
    """tools/tune/sprt.sh names what is wrong before it builds or plays anything."""
    script = str(ROOT / "tools/tune/sprt.sh")
    fake = tmp_path / "fastchess"
    fake.write_text("#!/bin/sh\n")
    fake.chmod(0o755)
    book = tmp_path / "openings.pgn"
    book.write_text("")
    tools = {"FASTCHESS": str(fake), "BOOK": str(book), "SPRT_WORK": str(tmp_path / "work")}
    cases = (
        (["only-a-name"], {}, "usage:"),
        (["bad/name", "HEAD", "HEAD"], {}, "NAME must be"),
        (["run", "HEAD", "HEAD"], {"FASTCHESS": str(tmp_path / "none")}, "not found"),
        (["run", "no-such-commit", "HEAD"], {}, "no-such-commit: not a commit"),
        (["run", "HEAD", "no-such-commit"], {}, "no-such-commit: not a commit"),
    )
    for args, env, why in cases:
        proc = subprocess.run(["bash", script, *args], capture_output=True, text=True,
                              timeout=60, cwd=tmp_path, env={**os.environ, **tools, **env})
        assert proc.returncode == 2 and why in proc.stderr, proc.stderr
        assert len(proc.stderr.splitlines()) == 1
    assert not (tmp_path / "work").exists()  # nothing built
    build = str(ROOT / "tools/tune/build_commit.sh")
    for args, why in (([], "usage:"), (["no-such-commit"], "no-such-commit: not a commit")):
        proc = subprocess.run(["bash", build, *args], capture_output=True, text=True,
                              timeout=60, cwd=tmp_path, env={**os.environ, **tools})
        assert proc.returncode == 2 and why in proc.stderr, proc.stderr
        assert len(proc.stderr.splitlines()) == 1
    assert not (tmp_path / "work").exists()


def _variant_game(variant: str, white: str, black: str, result: str, why: str) -> str:
    return (f'[Event "variant match {variant}"]\n[White "{white}"]\n[Black "{black}"]\n'
            f'[Result "{result}"]\n[Termination "{why}"]\n\n{result}\n\n')


def test_variant_pool_scores_pibot_per_variant(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    runs.mkdir()
    (runs / "atomic-1.pgn").write_text(
        _variant_game("atomic", "pibot", "fsf", "1-0", "checkmate")
        + _variant_game("atomic", "fsf", "pibot", "1-0", "pibot lost on time")
        + _variant_game("atomic", "pibot", "fsf", "1/2-1/2", "max plies"))
    (runs / "horde-1.pgn").write_text(
        _variant_game("horde", "fsf", "pibot", "0-1", "fsf illegal e2e4")
        + _variant_game("horde", "pibot", "fsf", "0-1", "fsf lost on time"))
    (runs / "notes.txt").write_text("not a PGN")
    script = [sys.executable, str(ROOT / "tools/tune/variant_pool.py")]
    proc = subprocess.run([*script, str(runs)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    rows = {ln.split("|")[1].strip(): ln for ln in proc.stdout.splitlines()[2:]}
    # pibot: a win, a time loss, a draw in atomic; a win as black and a loss in horde
    assert "| 3 | +1 =1 -1 | 50.0% | +0 " in rows["atomic"] and rows["atomic"].endswith(
        "| 1 / 0 / 0 |")
    assert "| 2 | +1 =0 -1 | 50.0% |" in rows["horde"] and rows["horde"].endswith("| 0 / 0 / 0 |")
    bad = tmp_path / "bad.pgn"
    bad.write_text(_variant_game("horde", "a", "b", "1-0", "checkmate"))
    (tmp_path / "empty").mkdir()
    for args, why in (([str(bad)], "without a player named 'pibot'"),
                      ([str(tmp_path / "none")], "no such directory or file"),
                      ([str(tmp_path / "runs" / "notes.txt")], "not a PGN of games"),
                      ([str(tmp_path / "empty")], "no games in")):
        proc = subprocess.run([*script, *args], capture_output=True, text=True, timeout=60)
        assert proc.returncode == 2 and why in proc.stderr, proc.stderr
        assert len(proc.stderr.splitlines()) == 1


def test_variant_pass_refuses_bad_input_in_one_line(tmp_path: Path) -> None:
    script = str(ROOT / "tools/tune/variant_pass.sh")
    fake = tmp_path / "engine"
    fake.write_text("#!/bin/sh\n")
    fake.chmod(0o755)
    ok = [str(tmp_path / "out"), str(fake), str(fake), "fsf", "10+0.1", "20", "1"]
    cases = (
        (ok[:5], "usage:"),
        ([ok[0], str(tmp_path / "none"), *ok[2:], "atomic:1"], "is not an executable"),
        ([*ok[:5], "x", ok[6], "atomic:1"], "GAMES must be"),
        ([*ok[:6], "soon", "atomic:1"], "DEADLINE_EPOCH must be"),
        ([*ok, "atomic"], "is not VARIANT:SEED"),
    )
    for args, why in cases:
        proc = subprocess.run(["bash", script, *args], capture_output=True, text=True,
                              timeout=60, cwd=tmp_path)
        assert proc.returncode == 2 and why in proc.stderr, proc.stderr
        assert len(proc.stderr.splitlines()) == 1
    # past the deadline (epoch 1): nothing starts, nothing is written but the directory
    proc = subprocess.run(["bash", script, *ok, "atomic:1", "horde:2"], capture_output=True,
                          text=True, timeout=60, cwd=tmp_path)
    assert proc.returncode == 0 and proc.stdout.count("deadline, not started") == 2, proc.stdout
    assert list((tmp_path / "out").iterdir()) == []
