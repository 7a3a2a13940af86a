"""The Lichess API token: where it comes from, and how it stays secret.

The token is wrapped in `Token`, whose repr/str are redacted, so it cannot leak
through logging, exception messages or tracebacks by accident.  Only
`Token.reveal()` (used once, to build the Authorization header) sees the text.
"""

from __future__ import annotations

import argparse
import logging
import os
import re
import stat
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import NoReturn

from bot.errors import UserError, read_user_file

log = logging.getLogger(__name__)

ENV_VAR = "LICHESS_BOT_TOKEN"
CREDENTIAL_NAME = "lichess-token"
# Lichess tokens are lip_/lio_ + alphanumerics; be lenient but refuse whitespace
# and control characters, which would corrupt the HTTP header.
_TOKEN_RE = re.compile(r"^[A-Za-z0-9_\-.]{8,256}$")
# What a pasted token looks like (a path never does: no slash, no dot).
_PASTED_RE = re.compile(r"^\s*li[po]_[A-Za-z0-9]{8,}\s*$")


class Token:
    __slots__ = ("_secret", "source")

    def __init__(self, secret: str, source: str) -> None:
        self._secret = secret
        self.source = source

    def reveal(self) -> str:
        return self._secret

    def __repr__(self) -> str:
        return f"Token(<redacted>, source={self.source!r})"

    __str__ = __repr__

    def __reduce__(self) -> NoReturn:  # never pickle the secret into a file
        raise TypeError("Token cannot be pickled")


def _validate(text: str, source: str) -> Token:
    secret = text.strip()
    if not secret:
        raise UserError(f"the Lichess token from {source} is empty; put the token "
                        f"(from https://lichess.org/account/oauth/token) there")
    if not _TOKEN_RE.match(secret):
        # Never echo the value: it might be a real token with a stray character.
        raise UserError(f"the Lichess token from {source} contains unexpected characters "
                        f"(spaces, quotes or line breaks?); store only the token itself")
    return Token(secret, source)


def permission_warning(path: Path) -> str | None:
    """A warning if users other than the owner may read the token file."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return None  # reading it reports the real problem
    if mode & (stat.S_IRGRP | stat.S_IROTH):
        who = "everyone" if mode & stat.S_IROTH else "its group"
        return (f"token_file {path} is readable by {who} (mode {stat.S_IMODE(mode):03o}); "
                f"anyone who reads it can play as the bot: run chmod 600 {path}")
    return None


def _from_file(path: Path, what: str) -> Token:
    # utf-8-sig: Notepad and some editors start the file with a byte-order mark.
    text = read_user_file(path, what, "create it with the token or fix the path",
                          "check its permissions", encoding="utf-8-sig")
    return _validate(text, f"{what} {path}")


def load_token_file(token_file: str, warn: Callable[[str], None] = log.warning,
                    what: str = "token_file") -> Token:
    """The token in one named file (config key `token_file`, or `--token-file` on the
    command line: a path there keeps the token itself out of argv)."""
    path = Path(token_file).expanduser()
    if _PASTED_RE.match(token_file) and not path.exists():
        # Echoing the "path" would print the secret into logs and terminals.
        name = "config key 'token_file'" if what == "token_file" else what
        raise UserError(f"{name} must be a path; it looks like you pasted the token itself: "
                        f"put the token in a file (chmod 600) and give its path, or set "
                        f"${ENV_VAR}")
    token = _from_file(path, what)
    problem = permission_warning(path)
    if problem:
        warn(problem.replace("token_file", what, 1))
    return token


def load_token(token_file: str | None = None,
               warn: Callable[[str], None] = log.warning) -> Token:
    """Resolve the token: $LICHESS_BOT_TOKEN, then token_file, then systemd credential.

    `warn` receives advice that does not stop the bot (a token file others can read)."""
    env = os.environ.get(ENV_VAR)
    if env is not None and env.strip():
        return _validate(env, f"${ENV_VAR}")
    if token_file:
        return load_token_file(token_file, warn)
    cred_dir = os.environ.get("CREDENTIALS_DIRECTORY")
    if cred_dir:
        cred = Path(cred_dir) / CREDENTIAL_NAME
        try:
            present = cred.exists()
        except OSError as exc:  # e.g. a credentials directory another user owns
            raise UserError(f"cannot read the systemd credentials directory {cred_dir}: "
                            f"{exc.strerror}; run pibot as the service user") from None
        if present:
            return _from_file(cred, "systemd credential")
    raise UserError(f"no Lichess token: set ${ENV_VAR}=<token>, or set 'token_file: PATH' "
                    f"in config.yml (systemd: LoadCredential={CREDENTIAL_NAME}:PATH)")


# What pibot needs a token to carry (lila PlayApi: every /api/bot/* route is
# Scoped(_.Bot.Play)); where a Lichess user creates one.
NEEDED_SCOPE = "bot:play"
CREATE_URL = "/account/oauth/token/create?scopes[]=bot:play"


def scope_problem(info: Mapping[str, object] | None, url: str) -> str | None:
    """One line naming what is wrong with a token, from Lichess's token test
    (POST /api/token/test: `{token: {"scopes": "a,b", "userId": ...} | null}`,
    app/controllers/OAuth.scala testTokens), or None when it can play."""
    if info is None:
        return (f"Lichess does not accept the token (revoked, expired or mistyped): create a new "
                f"one with the {NEEDED_SCOPE} scope at {url}{CREATE_URL}")
    scopes = [s for s in str(info.get("scopes") or "").split(",") if s]
    if NEEDED_SCOPE in scopes:
        return None
    return (f"the token lacks the {NEEDED_SCOPE} scope (it has: {', '.join(scopes) or 'none'}); "
            f"create a new one with {NEEDED_SCOPE} at {url}{CREATE_URL}")


def add_token_file_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--token-file", metavar="PATH", default=None,
                        help="read the token from PATH (e.g. the installed "
                             "/etc/pibot/lichess-token, as root); overrides the config "
                             "and $LICHESS_BOT_TOKEN. The token itself is never an argument")


def command_token(token_file: str | None, config_token_file: str | None,
                  warn: Callable[[str], None] = log.warning) -> Token:
    """`--token-file` when given (the credential the service uses, named by path so
    the token stays out of argv), else the environment/config/credential chain."""
    if token_file:
        return load_token_file(token_file, warn, what="--token-file")
    return load_token(config_token_file, warn)
