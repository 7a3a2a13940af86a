"""Config validation and token loading: clear one-line errors, never the token."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from bot.config import Config, load_config, parse_config
from bot.errors import EXIT_CONFIG, UserError
from bot.lichess.token import ENV_VAR, Token, load_token

pytestmark = pytest.mark.arm64  # scripts/arm64-check.sh runs these on arm64

REPO = Path(__file__).resolve().parents[1]


def test_repo_config_equals_defaults() -> None:
    cfg = load_config(REPO / "config.yml")
    assert parse_config({}) == cfg == Config()


def test_values_are_parsed() -> None:
    cfg = parse_config({"engine": {"hash_mb": 16, "ponder": True},
                        "challenge": {"variants": "chess960", "min_base": 60},
                        "network": {"stream_read_timeout_s": 2}})
    assert cfg.engine.hash_mb == 16 and cfg.engine.ponder is True
    assert cfg.challenge.variants == ["chess960"]
    assert cfg.network.stream_read_timeout_s == 2.0


@pytest.mark.parametrize("data, fragment", [
    ({"engine": {"hash": 16}}, "unknown config key 'engine.hash': did you mean 'engine.hash_mb'"),
    ({"chalenge": {}}, "did you mean 'challenge'"),
    ({"engine": {"hash_mb": "big"}}, "'engine.hash_mb' must be an integer"),
    ({"engine": {"hash_mb": True}}, "'engine.hash_mb' must be an integer"),
    ({"engine": {"threads": 0}}, "'engine.threads' is 0, below the minimum 1"),
    ({"challenge": {"variants": ["giveaway"]}}, "'challenge.variants': 'giveaway' is not allowed"),
    # python-chess's and UCI_Variant's spellings point at Lichess's key.
    ({"challenge": {"variants": ["3check"]}}, "did you mean 'threeCheck'"),
    ({"challenge": {"variants": ["kingofthehill"]}}, "did you mean 'kingOfTheHill'"),
    ({"challenge": {"time_controls": ["blits"]}}, "did you mean 'blitz'"),
    ({"challenge": {"min_base": 600, "max_base": 60}}, "greater than 'challenge.max_base'"),
    ({"challenge": "yes"}, "section 'challenge' must be a mapping"),
    ({"url": "lichess.org"}, "must start with http"),
    ({"engine": {"ponder": "yes"}}, "'engine.ponder' must be true or false"),
    ([1, 2], "must be a mapping"),
])
def test_bad_values(data: object, fragment: str) -> None:
    with pytest.raises(UserError) as err:
        parse_config(data)
    assert fragment in str(err.value)


def test_yaml_syntax_error(tmp_path: Path) -> None:
    p = tmp_path / "c.yml"
    p.write_text("engine:\n  hash_mb: [1,\n")
    with pytest.raises(UserError, match="not valid YAML at line"):
        load_config(p)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="does not exist"):
        load_config(tmp_path / "nope.yml")


def _no_token_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENV_VAR, raising=False)
    monkeypatch.delenv("CREDENTIALS_DIRECTORY", raising=False)


def test_token_sources(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _no_token_env(monkeypatch)
    with pytest.raises(UserError) as err:
        load_token(None)
    assert ENV_VAR in str(err.value) and "token_file" in str(err.value)
    f = tmp_path / "tok"
    f.write_text("lip_secretsecret\n")
    tok = load_token(str(f))
    assert tok.reveal() == "lip_secretsecret"
    assert "secret" not in repr(tok) and "secret" not in str(tok)
    cred = tmp_path / "creds"
    cred.mkdir()
    (cred / "lichess-token").write_text("lip_fromcredential")
    monkeypatch.setenv("CREDENTIALS_DIRECTORY", str(cred))
    assert load_token(None).reveal() == "lip_fromcredential"
    monkeypatch.setenv(ENV_VAR, "lip_fromenvironment")
    assert load_token(str(f)).reveal() == "lip_fromenvironment"


def test_bad_token_not_echoed(monkeypatch: pytest.MonkeyPatch) -> None:
    _no_token_env(monkeypatch)
    monkeypatch.setenv(ENV_VAR, "lip_abc def")
    with pytest.raises(UserError) as err:
        load_token(None)
    assert "lip_abc" not in str(err.value)


def test_token_not_picklable() -> None:
    import pickle

    with pytest.raises(TypeError):
        pickle.dumps(Token("lip_secretsecret", "test"))


def _pibot(*args: str, env_extra: dict[str, str] | None = None,
           cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in (ENV_VAR, "CREDENTIALS_DIRECTORY")}
    env.update(env_extra or {})
    return subprocess.run([sys.executable, "-m", "bot.cli", *args], capture_output=True,
                          text=True, env=env, timeout=60, cwd=cwd)


def test_cli_bad_config_is_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yml"
    bad.write_text("engine:\n  hash_mbb: 64\n")
    r = _pibot("run", "--config", str(bad))
    assert r.returncode == EXIT_CONFIG
    assert "Traceback" not in r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert "engine.hash_mbb" in lines[0] and "did you mean 'engine.hash_mb'" in lines[0]


def test_cli_missing_token_is_one_line(tmp_path: Path) -> None:
    good = tmp_path / "ok.yml"
    good.write_text("log_level: info\n")
    r = _pibot("run", "--config", str(good), cwd=tmp_path)
    assert r.returncode == EXIT_CONFIG and "Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
    assert ENV_VAR in r.stderr and "token_file" in r.stderr


@pytest.mark.parametrize("data, fragment", [
    # NaN passes every < and > test: the old loader took it (a NaN grace exits at once).
    ({"shutdown_grace_s": float("nan")}, "'shutdown_grace_s' is nan, not a finite number"),
    ({"network": {"request_timeout_s": float("nan")}}, "'network.request_timeout_s' is nan"),
    ({"matchmaking": {"challenge_timeout_s": float("inf")}}, "is inf, not a finite number"),
    ({"game": {"abort_if_no_first_move_s": float("-inf")}}, "not a finite number"),
    ({"challenge": {"time_controls": ["ultraBullet", "bullet"]}},
     "Lichess does not let BOT accounts play UltraBullet"),
    ({"matchmaking": {"challenge_initial_time": [20]}}, "does not accept 20 s as a clock"),
    ({"matchmaking": {"challenge_initial_time": [100]}}, "does not accept 100 s"),
    ({"matchmaking": {"challenge_initial_time": [15, 60], "challenge_increment": [0, 1]}},
     "pair 15 s with +0 s, an UltraBullet clock"),
    ({"matchmaking": {"challenge_increment": [61]}}, "above the maximum 60"),
])
def test_bad_values_robustness(data: object, fragment: str) -> None:
    with pytest.raises(UserError) as err:
        parse_config(data)
    assert fragment in str(err.value)


def test_yaml_nan_and_api_clocks(tmp_path: Path) -> None:
    p = tmp_path / "c.yml"
    p.write_text("shutdown_grace_s: .nan\n")
    with pytest.raises(UserError, match="shutdown_grace_s' is nan"):
        load_config(p)
    p.write_text("matchmaking:\n  challenge_initial_time: [15, 30, 90, 120, 10800]\n"
                 "  challenge_increment: [1, 60]\n")
    assert load_config(p).matchmaking.challenge_initial_time == [15, 30, 90, 120, 10800]


def test_non_utf8_config_is_a_user_error(tmp_path: Path) -> None:
    p = tmp_path / "c.yml"
    p.write_bytes(b"log_level: info\nurl: \xff\xfe\n")
    with pytest.raises(UserError, match="is not UTF-8 text .*offset 21.*save it as UTF-8"):
        load_config(p)


@pytest.mark.parametrize("data", [
    {"url": "lip_AbCdEf0123456789xy"},
    {"token_file": ["lip_AbCdEf0123456789xy"]},
    {"log_level": "lip_AbCdEf0123456789xy"},
    {"challenge": {"allow_list": {"lip_AbCdEf0123456789xy": 1}}},
    {"engine": "lip_AbCdEf0123456789xy"},
    {"lip_AbCdEf0123456789xy": None},
])
def test_token_pasted_into_config_is_never_echoed(data: object) -> None:
    with pytest.raises(UserError) as err:
        parse_config(data)
    assert "AbCdEf0123456789xy" not in str(err.value)
    assert "looks like a Lichess token" in str(err.value)


def test_token_pasted_as_token_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _no_token_env(monkeypatch)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(UserError) as err:
        load_token("lip_AbCdEf0123456789xy")
    assert "AbCdEf0123456789xy" not in str(err.value)
    assert "token_file must be a path; it looks like you pasted the token itself" \
        in str(err.value).replace("'", "")


def test_readable_token_file_warns_chmod_600(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    _no_token_env(monkeypatch)
    f = tmp_path / "tok"
    f.write_text("lip_secretsecret\n")
    warnings: list[str] = []
    for mode, expect in ((0o644, "readable by everyone"), (0o640, "readable by its group"),
                         (0o600, None), (0o400, None)):
        f.chmod(mode)
        warnings.clear()
        assert load_token(str(f), warn=warnings.append).reveal() == "lip_secretsecret"
        if expect is None:
            assert warnings == []
        else:
            assert len(warnings) == 1 and expect in warnings[0]
            assert f"chmod 600 {f}" in warnings[0] and "secret" not in warnings[0]
    f.write_bytes(b"lip_\xff\xfe")
    with pytest.raises(UserError, match="not UTF-8"):
        load_token(str(f))


# -- issue 23: bad input --------------------------------------------------------

PASTED = "lip_AbCdEf0123456789xy"


@pytest.mark.parametrize("data", [
    {"engine": {"hash_mb": PASTED}},
    {"engine": {"threads": PASTED}},
    {"engine": {"online_moves": {"explorer_url": PASTED}}},
    {"engine": {"online_moves": {"tablebase_url": PASTED}}},
    {"engine": {"online_moves": {"cloud_url": f"https://x.test/?t={PASTED}"}}},
    {"pgn_directory": PASTED},
    {"pgn_directory": f"/srv/{PASTED}/games"},
    {"url": f"https://lichess.org/?token={PASTED}"},
    {"challenge": {"allow_list": [f"x{PASTED}"]}},
])
def test_a_token_in_any_key_is_never_repeated(data: object) -> None:
    # Old code echoed it with repr() (hash_mb, threads, online URLs) or took it
    # (pgn_directory), to be printed later by `check` and the log.
    with pytest.raises(UserError) as err:
        parse_config(data)
    assert "AbCdEf0123456789xy" not in str(err.value)
    assert "looks like a Lichess token" in str(err.value)


@pytest.mark.parametrize("text, fragment", [
    ("url: &a [*a]\n", "recursive anchor"),
    ("a: &a {b: *a}\n", "recursive anchor"),
    ("a: &a [x, {y: [*a]}]\n", "recursive anchor"),
    ("a0: &a0 [x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]\n" for i in range(1, 9)),
     "expands to more than"),
    ("url: https://a.test\nlog_level: info\nurl: https://b.test\n",
     "key 'url' appears twice (first at line 1)"),
    ("engine:\n  hash_mb: 16\n  hash_mb: 32\n", "key 'hash_mb' appears twice"),
    ("url: *nope\n", "undefined alias"),
])
def test_yaml_shapes_are_one_line_errors(tmp_path: Path, text: str, fragment: str) -> None:
    p = tmp_path / "c.yml"
    p.write_text(text)
    with pytest.raises(UserError) as err:
        load_config(p)
    assert fragment in str(err.value) and "\n" not in str(err.value)


def test_yaml_merge_keys_are_not_duplicates(tmp_path: Path) -> None:
    p = tmp_path / "c.yml"
    p.write_text("challenge:\n  <<: {min_base: 30, max_base: 90}\n  min_base: 40\n")
    c = load_config(p).challenge
    assert (c.min_base, c.max_base) == (40, 90)


def test_cli_check_on_an_alias_bomb_and_a_pasted_token(tmp_path: Path) -> None:
    p = tmp_path / "c.yml"
    p.write_text("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]\n" for i in range(1, 9)))
    r = _pibot("check", "--config", str(p), cwd=tmp_path)
    assert r.returncode == 1 and r.stdout.splitlines()[0].startswith("PROBLEM")
    assert "expands to more than" in r.stdout and "Traceback" not in r.stderr
    p.write_text(f"engine:\n  threads: {PASTED}\n")
    r = _pibot("check", "--config", str(p), cwd=tmp_path)
    assert r.returncode == 1 and PASTED[4:] not in r.stdout + r.stderr


def _fifo(tmp_path: Path) -> Path:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    return fifo


@pytest.mark.parametrize("kind", ["fifo", "/dev/zero"])
def test_config_and_token_file_must_be_regular_files(tmp_path: Path, kind: str) -> None:
    # Old code: a FIFO blocked forever; /dev/zero was read until memory ran out.
    special = str(_fifo(tmp_path)) if kind == "fifo" else kind
    r = subprocess.run([sys.executable, "-m", "bot.cli", "check", "--config", special],
                       capture_output=True, text=True, timeout=20, cwd=tmp_path,
                       stdin=subprocess.DEVNULL)
    assert r.returncode == 1 and "not a regular file" in r.stdout, r.stdout
    cfg = tmp_path / "c.yml"
    cfg.write_text(f"url: http://127.0.0.1:9\ntoken_file: {special}\n")
    r = _pibot("run", "--config", str(cfg), cwd=tmp_path)
    assert r.returncode == 6 and "not a regular file" in r.stderr  # EXIT_CONFIG
    assert len(r.stderr.strip().splitlines()) == 1


def test_oversized_config_is_refused(tmp_path: Path) -> None:
    p = tmp_path / "c.yml"
    p.write_text("# padding\n" * 200_000)
    with pytest.raises(UserError, match="bytes, more than"):
        load_config(p)


def test_token_file_with_a_utf8_bom_is_accepted(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    _no_token_env(monkeypatch)
    f = tmp_path / "tok"
    f.write_bytes("\ufefflip_secretsecret\r\n".encode())
    f.chmod(0o600)
    assert load_token(str(f)).reveal() == "lip_secretsecret"


def test_check_warns_about_empty_lists_and_plain_http(tmp_path: Path) -> None:
    p = tmp_path / "c.yml"
    p.write_text("url: http://lichess.example:9\npgn_directory: null\n"
                 "challenge:\n  time_controls: []\n  variants: []\n")
    r = _pibot("check", "--config", str(p), cwd=tmp_path)
    warnings = [ln for ln in r.stdout.splitlines() if ln.startswith("warning")]
    assert any("'challenge.time_controls' is empty" in w for w in warnings), r.stdout
    assert any("'challenge.variants' is empty" in w for w in warnings)
    assert any("plain http:// to lichess.example" in w for w in warnings)
    p.write_text("url: http://127.0.0.1:9\npgn_directory: null\n")
    r = _pibot("check", "--config", str(p), cwd=tmp_path)
    assert not [ln for ln in r.stdout.splitlines() if ln.startswith("warning") and "http" in ln]
