"""Lichess teams, as far as a bot joins them: `POST /team/{teamId}/join`.

Modelled on lila's Team controller (app/controllers/Team.scala `join`) and team
module (modules/team/src/main/TeamApi.scala `join`, TeamForm.scala `apiRequest`,
Team.scala `maxJoin`), in lila's order:

* scope `team:write` (the route's; a token without it: 403 "Missing scope");
* an unknown or closed team: 404;
* more teams joined than lila's `maxJoin` (50; 150 for a verified account):
  400 "You have joined too many teams";
* the form: `message` 30..2000 characters, required when the team reviews
  requests ("Request message required"), and `password` matching the team's
  entry code ("Incorrect entry code."): 400 with lila's form-error body, the
  errors by field both at the top and under "error";
* a leader's block list: 400 "You cannot join this team.";
* else joined, or, for a team that reviews requests, a request sent: `{"ok": true}`.

The lichess-org/api spec (doc/specs/tags/teams/team-teamId-join.yaml) says 403
for the wrong password and the missing message; lila's code answers 400: the
emulator answers as the code does, and the bot reads either.
Reached as `emu.teams` (create, members, requests, joined_elsewhere).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

from bot.emulator.errors import ApiError, EmulatorUsageError, bad_request, not_found
from bot.emulator.server import Reply, Request, Route

TEAM_WRITE = ("team:write",)
MAX_JOIN = 50  # lila Team.maxJoin (an unverified account joins at most 50 teams)
MESSAGE_MIN, MESSAGE_MAX = 30, 2000  # TeamForm.Fields.requestMessage


@dataclass
class Team:
    id: str
    open: bool = True  # False: the leaders review join requests (a message is needed)
    password: str | None = None  # the entry code, if any
    blocked: set[str] = field(default_factory=set)  # user ids on the leaders' block list
    members: set[str] = field(default_factory=set)
    requests: dict[str, str] = field(default_factory=dict)  # user id -> message


def _form_error(fieldname: str, message: str) -> ApiError:
    """lila's jsonFormError: the errors by field, at the top and under "error"."""
    errors = {fieldname: [message]}
    return ApiError(400, errors, **errors)


class TeamData:
    """The teams the emulator knows; thread-safe (handlers run in threads)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._teams: dict[str, Team] = {}
        self._elsewhere: dict[str, int] = {}  # user id -> teams joined outside these

    # -- the tests' side -------------------------------------------------------------
    def create(self, team_id: str, open: bool = True, password: str | None = None,
               blocked: tuple[str, ...] = ()) -> None:
        """A team the bot may join (`open` False: its leaders review requests)."""
        if not team_id or "/" in team_id:
            raise EmulatorUsageError(f"team id {team_id!r}: use letters, digits and -")
        with self._lock:
            self._teams[team_id.lower()] = Team(team_id.lower(), open, password,
                                                {b.lower() for b in blocked})

    def members(self, team_id: str) -> set[str]:
        with self._lock:
            return set(self._team(team_id).members)

    def requests(self, team_id: str) -> dict[str, str]:
        with self._lock:
            return dict(self._team(team_id).requests)

    def joined_elsewhere(self, username: str, count: int) -> None:
        """`username` is in `count` other teams (lila's maxJoin counts them all)."""
        with self._lock:
            self._elsewhere[username.lower()] = count

    def _team(self, team_id: str) -> Team:
        team = self._teams.get(team_id.lower())
        if team is None:
            raise EmulatorUsageError(f"no team {team_id!r}; create it first")
        return team

    # -- the route -------------------------------------------------------------------
    def join(self, username: str, team_id: str, form: dict[str, Any]) -> None:
        me = username.lower()
        with self._lock:
            team = self._teams.get(team_id.lower())
            if team is None:
                raise not_found()
            joined = self._elsewhere.get(me, 0) + sum(me in t.members for t in self._teams.values())
            if joined > MAX_JOIN:
                raise bad_request("You have joined too many teams")
            message = str(form.get("message") or "").strip() or None
            if message is not None and not MESSAGE_MIN <= len(message) <= MESSAGE_MAX:
                raise _form_error("message", f"Minimum length is {MESSAGE_MIN}"
                                  if len(message) < MESSAGE_MIN
                                  else f"Maximum length is {MESSAGE_MAX}")
            if message is None and not team.open:
                raise _form_error("message", "Request message required")
            password = str(form.get("password") or "").strip()
            if team.password is not None and password != team.password:
                raise _form_error("password", "Incorrect entry code.")
            if me in team.blocked:
                raise bad_request("You cannot join this team.")
            if team.open:
                team.members.add(me)
            elif me not in team.members:
                team.requests[me] = message or ""


def build_team_routes(data: TeamData) -> list[Route]:
    def join(req: Request) -> Reply:
        assert req.account is not None
        data.join(req.account.username, req.params["teamId"], req.body)
        return Reply(body={"ok": True})

    return [Route("POST", "/team/{teamId}/join", join, auth=True, scopes=TEAM_WRITE)]
