"""Contract race — ``contract_race_v0``: a toy game used only by the tests.

It is built exactly like a real game module (numba kernels + a declared
:class:`Game` subclass) and registered the same way (``register`` in the
tests, one line), to exercise every part of the engine contract that the
other games need and Quess does not: 2..6 seats, a non-uniform chance node
every turn, a turn of two decisions by the same seat, eliminations, teams,
forced passes, observation entries that are counts, and ``max_turns``
truncation.

Rules
-----
* **CR-1 Seats.** ``num_players`` 2..6, turns in seat order.  Option
  ``teams``: 0 (everyone for itself) or ``k >= 2`` teams, ``k`` dividing
  ``num_players`` with at least two seats per team; seat ``s`` is on team
  ``s % k`` (so the turn order alternates between teams).
* **CR-2 Track.** Squares ``0`` (start) .. ``goal`` (option, default 9).  Every
  pawn starts on square 0 with 3 hit points.  Squares that are multiples of
  4 (the start, 4, 8, ...) are *safe*; the safe squares and the goal hold any
  number of pawns, every other square at most one.
* **CR-3 Turn.** The seat whose turn it is rolls a die with faces 0, 1, 2, 3 of
  probability 1/8, 3/8, 1/4, 1/4 (a chance node, ``roll 2``), then takes two
  decisions, one after the other.  ``roll 0``: the mud swallows every
  opponent of the roller (not a teammate) whose pawn waits on the start square
  with 1 hit point: they are all eliminated at once (CR-4).
* **CR-4 Decisions.** ``advance``: the own pawn moves ahead, on the turn's
  first decision as many squares as the roll if that square may take it,
  else (and on the second decision) one square; a square may take it if it
  is the goal (reaching or passing it), safe, or empty.  ``hit player_k``:
  seat ``k``'s pawn stands on the square directly ahead of or directly behind
  the own pawn, that square is not safe, and ``k`` is not a teammate: ``k``
  loses one hit point and goes back to the start; at zero hit points ``k``
  is **eliminated** (its pawn leaves the track, its return is -1 for good,
  the others play on; eliminated seats are skipped in the turn order).
* **CR-5 Forced pass.** A seat with no legal decision, right after its roll or
  in the middle of its turn, passes the rest of its turn automatically (only
  a teammate can block a pawn that way: an opponent in the way can be hit).
* **CR-6 End.** A pawn reaching the goal wins: that seat (team play: its whole
  team) +1, every other seat -1.  When only one seat (team play: one team) is
  left in the game, it wins the same way.  An eliminated seat keeps its -1
  even if its team wins later.
* **CR-7** ``max_turns`` (default 200, turns = rolls) truncates (C-3): 0 for the
  seats still in the game.

Actions ``Discrete(1 + num_players)``: 0 ``advance``, ``1 + k`` ``hit
player_k``; at a chance node the actions are the die faces ``0..3`` (``roll
0`` .. ``roll 3``).  A whole turn is written ``advance, hit player_1``.
Observation ``int8 (num_players, goal + 7)``, one row per seat starting with
the observer: pawn square one-hot (``goal + 1`` columns), alive, hit points
(a count, 0..3), teammate (self included), to act, decisions left (0..2), the
roll (0..3).
"""

from __future__ import annotations

import re

import numpy as np
from numba import njit

from boardenvs import engine as E
from boardenvs.errors import IllegalMoveError, NotationError, OptionError
from boardenvs.game import Game
from boardenvs.spec import Config, Option, first_player_option, max_turns_option, num_players_option

# the state row after the generic header
LAYOUT = E.HEADER_LAYOUT.extend("contract_race_v0")
T_ROLLER = LAYOUT.add("roller", 1, "the seat whose turn it is (rolls, then decides)")
T_LEFT = LAYOUT.add("left", 1, "decisions left in this turn")
T_ROLL = LAYOUT.add("roll", 1, "this turn's roll")
T_POS = LAYOUT.add("pawns", E.MAX_PLAYERS, "pawn squares, -1 once eliminated")
T_HP = LAYOUT.add("hit_points", E.MAX_PLAYERS)

# game options after the generic ones
P_TEAMS = E.P_GAME
P_GOAL = E.P_GAME + 1

REASON_GOAL = E.REASON_GAME
REASON_LAST = E.REASON_GAME + 1

DIE_PROBS = np.array([0.125, 0.375, 0.25, 0.25])
NUM_FACES = 4
HIT_POINTS = 3
DECISIONS_PER_TURN = 2
ADVANCE = 0


# --- kernels -----------------------------------------------------------------


@njit(cache=True)
def _team(params, seat):
    k = params[P_TEAMS]
    return seat % k if k > 0 else seat


@njit(cache=True)
def _team_mask(params, seat):
    m = 0
    for s in range(params[E.P_NUM_PLAYERS]):
        if _team(params, s) == _team(params, seat):
            m |= 1 << s
    return m


@njit(cache=True)
def _occupant(state, params, sq):
    """The seat whose pawn is on square ``sq`` (1..goal-1), or -1."""
    for s in range(params[E.P_NUM_PLAYERS]):
        if state[T_POS + s] == sq:
            return s
    return -1


@njit(cache=True)
def _takes(state, params, sq):
    """CR-2: may square ``sq`` (ahead of a pawn) take one more pawn?"""
    return sq >= params[P_GOAL] or sq % 4 == 0 or _occupant(state, params, sq) < 0


@njit(cache=True)
def _advance_to(state, params, seat):
    """CR-4: where ``advance`` takes ``seat``'s pawn, or -1 if it cannot."""
    pos = state[T_POS + seat]
    if state[T_LEFT] == DECISIONS_PER_TURN and state[T_ROLL] > 1 and _takes(state, params, pos + state[T_ROLL]):
        return min(pos + state[T_ROLL], params[P_GOAL])
    if _takes(state, params, pos + 1):
        return pos + 1
    return -1


@njit(cache=True)
def _decisions(state, params, seat, mask):
    """Count (and, if ``mask`` is non-empty, mark) the legal decisions of ``seat``."""
    write = mask.shape[0] > 0
    goal = params[P_GOAL]
    pos = state[T_POS + seat]
    count = 0
    if _advance_to(state, params, seat) >= 0:
        count += 1
        if write:
            mask[ADVANCE] = 1
    for sq in (pos + 1, pos - 1):
        if 1 <= sq < goal and sq % 4 != 0:
            k = _occupant(state, params, sq)
            if k >= 0 and _team(params, k) != _team(params, seat):
                count += 1
                if write:
                    mask[1 + k] = 1
    return count


@njit(cache=True)
def _win(state, params, seat, reason):
    if params[P_TEAMS] > 0:
        E.win_team(state, _team_mask(params, seat), reason)
    else:
        E.win_seat(state, seat, reason)


@njit(cache=True)
def _teams_left(state, params):
    seen = 0
    count = 0
    for s in range(params[E.P_NUM_PLAYERS]):
        if E.is_alive(state, s):
            bit = 1 << _team(params, s)
            if seen & bit == 0:
                seen |= bit
                count += 1
    return count


@njit(cache=True)
def _knock_out(state, params, k):
    """CR-4: seat ``k`` leaves the game (its return is -1 for good)."""
    state[T_HP + k] = 0
    state[T_POS + k] = -1
    E.eliminate(state, k)


@njit(cache=True)
def init(state, params, first_seat):
    E.new_game(state, params, first_seat)
    for s in range(E.MAX_PLAYERS):
        on = s < params[E.P_NUM_PLAYERS]
        state[T_POS + s] = 0 if on else -1
        state[T_HP + s] = HIT_POINTS if on else 0
    state[T_ROLLER] = first_seat
    state[E.H_CURRENT] = E.CHANCE  # CR-3: every turn starts with a roll


@njit(cache=True)
def legal(state, params, mask):
    mask[:] = 0
    if state[E.H_CURRENT] == E.CHANCE:
        for face in range(NUM_FACES):
            mask[face] = 1
        return NUM_FACES
    return _decisions(state, params, state[E.H_CURRENT], mask)


@njit(cache=True)
def apply(state, params, action):
    if state[E.H_CURRENT] == E.CHANCE:  # CR-3: the roll, then two decisions
        seat = state[T_ROLLER]
        E.record_action(state, E.CHANCE, action)
        state[T_ROLL] = action
        state[T_LEFT] = DECISIONS_PER_TURN
        state[E.H_CURRENT] = seat
        if action == 0:  # CR-3: the mud swallows the wounded opponents on the start
            for k in range(params[E.P_NUM_PLAYERS]):
                if (
                    E.is_alive(state, k)
                    and _team(params, k) != _team(params, seat)
                    and state[T_POS + k] == 0
                    and state[T_HP + k] == 1
                ):
                    _knock_out(state, params, k)
            if _teams_left(state, params) == 1:
                _win(state, params, seat, REASON_LAST)
    else:
        seat = state[E.H_CURRENT]
        E.record_action(state, seat, action)
        if action == ADVANCE:
            state[T_POS + seat] = _advance_to(state, params, seat)
            state[T_LEFT] -= 1
            if state[T_POS + seat] == params[P_GOAL]:
                _win(state, params, seat, REASON_GOAL)
        else:  # CR-4 hit
            state[T_LEFT] -= 1
            k = action - 1
            state[T_HP + k] -= 1
            state[T_POS + k] = 0
            if state[T_HP + k] == 0:
                _knock_out(state, params, k)
                if _teams_left(state, params) == 1:
                    _win(state, params, seat, REASON_LAST)
    # the same seat decides again, unless the game is over, both decisions
    # are taken, or it has no legal decision left (CR-5 forced pass)
    if state[E.H_STATUS] == E.PLAYING and state[T_LEFT] > 0 and _decisions(state, params, seat, state[0:0]) > 0:
        return
    state[T_LEFT] = 0
    state[T_ROLLER] = E.next_alive_seat(state, seat)
    E.end_turn(state, params, E.CHANCE)


@njit(cache=True)
def observe(state, params, seat, obs):
    obs[:] = 0
    n = params[E.P_NUM_PLAYERS]
    goal = params[P_GOAL]
    width = goal + 7
    acting = state[E.H_CURRENT]
    for r in range(n):
        s = (seat + r) % n
        base = r * width
        if state[T_POS + s] >= 0:
            obs[base + state[T_POS + s]] = 1
        obs[base + goal + 1] = 1 if E.is_alive(state, s) else 0
        obs[base + goal + 2] = state[T_HP + s]
        obs[base + goal + 3] = 1 if _team(params, s) == _team(params, seat) else 0
        if s == acting:
            obs[base + goal + 4] = 1
            obs[base + goal + 5] = state[T_LEFT]
            obs[base + goal + 6] = state[T_ROLL]


@njit(cache=True)
def chance_probs(state, params, probs):
    probs[:] = 0.0
    for face in range(NUM_FACES):
        probs[face] = DIE_PROBS[face]


KERNELS = E.Kernels(init, legal, apply, observe, chance_probs)

_ROLL_RE = re.compile(r"^roll ([0-9])$")
_HIT_RE = re.compile(r"^hit player_([0-9])$")


class ContractRaceGame(Game):
    env_id = "contract_race_v0"
    title = "Contract race"
    rule_prefix = "CR"
    rules_file = "contract_race.md"  # beside this module
    gym_name = "ContractRace"
    kernels = KERNELS
    layout = LAYOUT
    option_specs = (
        num_players_option(2, range(2, E.MAX_PLAYERS + 1)),
        Option("teams", 0, "0: everyone for itself; k >= 2: k teams (CR-1)", low=0, high=3),
        Option("goal", 9, "the goal square (CR-2)", low=2, high=20),
        first_player_option(0),
        max_turns_option(200),
    )
    reason_names = {REASON_GOAL: "goal", REASON_LAST: "last_standing"}
    reason_docs = {
        "goal": "a pawn reached the goal: its seat (or team) wins (CR-6)",
        "last_standing": "one seat (or team) is left in the game: it wins (CR-6)",
    }
    multi_decision_turns = True
    eliminations = True
    forced_passes = True  # CR-5: a seat with no legal decision passes without being asked
    seat_labels = ("A", "B", "C", "D", "E", "F")
    variants = (
        {"num_players": 2},
        {"num_players": 3},
        {"num_players": 4},
        {"num_players": 6},
        {"num_players": 4, "teams": 2},
        {"num_players": 6, "teams": 3},
    )

    def configure(self, o):
        n, teams, goal = o["num_players"], o["teams"], o["goal"]
        if teams == 1 or (teams and (n % teams or n // teams < 2)):
            raise OptionError(
                f"{self.env_id}: option teams={teams} does not fit num_players={n}; expected 0 or k >= 2 "
                "dividing num_players into teams of 2 or more"
            )
        high = [1] * (goal + 1) + [1, HIT_POINTS, 1, 1, DECISIONS_PER_TURN, NUM_FACES - 1]
        return Config(
            num_players=n,
            num_actions=1 + n,
            num_chance_outcomes=NUM_FACES,
            obs_shape=(n, goal + 7),
            obs_high_per_plane=high,
            params=(teams, goal),
            teams=[s % teams if teams else s for s in range(n)],
        )

    # -- notation ---------------------------------------------------------
    def action_to_move(self, state, action: int) -> str:
        if state[E.H_CURRENT] == E.CHANCE:
            if not 0 <= action < NUM_FACES:
                raise ValueError(f"chance outcome {action} is outside 0..{NUM_FACES - 1}")
            return f"roll {action}"
        if not 0 <= action < self.num_actions:
            raise ValueError(f"action {action} is outside 0..{self.num_actions - 1}")
        return "advance" if action == ADVANCE else f"hit player_{action - 1}"

    def move_to_action(self, state, move: str) -> int:
        text = " ".join(move.split()) if isinstance(move, str) else None
        roll = _ROLL_RE.match(text) if text is not None else None
        hit = _HIT_RE.match(text) if text is not None else None
        if text != "advance" and not roll and not hit:
            raise NotationError(
                f"{self.env_id}: malformed move {move!r}; expected 'roll 2', 'advance' or 'hit player_1'"
            )
        at_chance = state[E.H_CURRENT] == E.CHANCE and state[E.H_STATUS] == E.PLAYING
        # chance outcomes and decisions share the action ids: refuse the wrong kind
        if bool(roll) != bool(at_chance):
            who = "chance" if at_chance else f"player_{int(state[E.H_CURRENT])}"
            raise IllegalMoveError(f"{self.env_id}: {move!r} is not a move for {who}")
        if roll:
            return int(roll.group(1))
        return ADVANCE if hit is None else 1 + int(hit.group(1))

    # -- text form ---------------------------------------------------------
    def body_to_text(self, state) -> list[str]:
        n = self.num_players
        pawns = " ".join("x" if state[T_POS + s] < 0 else str(int(state[T_POS + s])) for s in range(n))
        return [
            f"roller: {self.seat_name(int(state[T_ROLLER]))}",
            f"left: {int(state[T_LEFT])}",
            f"roll: {int(state[T_ROLL])}",
            f"pawns: {pawns}",
            "hp: " + " ".join(str(int(state[T_HP + s])) for s in range(n)),
        ]

    def body_from_text(self, lines: list[str], state) -> None:
        n, goal = self.num_players, int(self.params[P_GOAL])
        keys = ("roller", "left", "roll", "pawns", "hp")
        fields = {}
        for line in lines:
            key, sep, value = line.partition(":")
            if not sep or key not in keys or key in fields:
                raise NotationError(f"{self.env_id}: unexpected line {line!r}")
            fields[key] = value.split()
        if len(fields) != len(keys):
            raise NotationError(f"{self.env_id}: the body needs the lines {', '.join(keys)}")
        roller = fields["roller"][0] if len(fields["roller"]) == 1 else ""
        if not re.fullmatch(f"player_[0-{n - 1}]", roller):
            raise NotationError(f"{self.env_id}: roller must be player_0..player_{n - 1}")
        left = fields["left"][0] if len(fields["left"]) == 1 else ""
        roll = fields["roll"][0] if len(fields["roll"]) == 1 else ""
        if left not in ("0", "1", "2") or roll not in ("0", "1", "2", "3"):
            raise NotationError(f"{self.env_id}: left must be 0..2 and roll 0..3")
        pawns, hps = fields["pawns"], fields["hp"]
        if len(pawns) != n or len(hps) != n:
            raise NotationError(f"{self.env_id}: pawns and hp need {n} values each")
        state[T_ROLLER] = int(roller[7:])
        state[T_LEFT] = int(left)
        state[T_ROLL] = int(roll)
        for s in range(E.MAX_PLAYERS):
            state[T_POS + s], state[T_HP + s] = -1, 0
        taken = set()
        for s, (p, h) in enumerate(zip(pawns, hps)):
            alive = (int(state[E.H_ALIVE]) >> s) & 1
            if p == "x" and h == "0" and not alive:
                continue
            if not (re.fullmatch("[0-9]{1,2}", p) and int(p) <= goal and h in ("1", "2", "3") and alive):
                raise NotationError(f"{self.env_id}: player_{s}: pawn {p!r} hp {h!r} do not fit its alive flag")
            if 0 < int(p) < goal and int(p) % 4:
                if int(p) in taken:
                    raise NotationError(f"{self.env_id}: two pawns on square {p}, which is not safe (CR-2)")
                taken.add(int(p))
            state[T_POS + s], state[T_HP + s] = int(p), int(h)

    def check_state(self, state) -> None:
        n, goal = self.num_players, int(self.params[P_GOAL])
        cur, status = int(state[E.H_CURRENT]), int(state[E.H_STATUS])
        at_goal = [s for s in range(n) if state[T_POS + s] == goal]
        if status == E.PLAYING:
            if at_goal:
                raise NotationError(f"{self.env_id}: player_{at_goal[0]} is on the goal, so the game is over (CR-6)")
            if _teams_left(state, self.params) < 2:
                raise NotationError(f"{self.env_id}: one side is left, so the game is over (CR-6)")
            if (cur == E.CHANCE) != (state[T_LEFT] == 0) or (cur != E.CHANCE and cur != state[T_ROLLER]):
                raise NotationError(f"{self.env_id}: to_move must be chance with left 0, or the roller with left 1..2")
            if not E.is_alive(state, int(state[T_ROLLER])):
                raise NotationError(f"{self.env_id}: the roller must still be in the game")
        elif status == E.TERMINATED and state[E.H_REASON] in (REASON_GOAL, REASON_LAST):
            winner = at_goal[0] if at_goal else next((s for s in range(n) if E.is_alive(state, s)), 0)
            won = [self.team_of(s) == self.team_of(winner) and E.is_alive(state, s) for s in range(n)]
            rets = [int(state[E.H_RET + s]) for s in range(n)]
            ok = (
                (len(at_goal) == 1)
                if state[E.H_REASON] == REASON_GOAL
                else (not at_goal and _teams_left(state, self.params) == 1)
            )
            if not ok or rets != [1 if w else -1 for w in won]:
                raise NotationError(
                    f"{self.env_id}: reason {self.end_reason(state)} does not hold with these pawns and returns"
                )

    # -- pictures (the board; boardenvs/render.py adds legend, turn, result) ----
    def render_ansi(self, state) -> str:
        goal = int(self.params[P_GOAL])
        cells = []
        for sq in range(goal + 1):
            here = [s for s in range(self.num_players) if state[T_POS + s] == sq]
            if sq in (0, goal):
                cells.append("S" if sq == 0 else "G")
            elif here:
                cells.append("ABCDEF"[here[0]])
            else:
                cells.append("*" if sq % 4 == 0 else ".")
        lines = ["track: " + " ".join(cells)]
        for s in range(self.num_players):
            pos = int(state[T_POS + s])
            where = "out" if pos < 0 else f"square {pos}, hp {int(state[T_HP + s])}"
            lines.append(f"{'ABCDEF'[s]} {self.seat_name(s)} (team {self.team_of(s)}): {where}")
        return "\n".join(lines)

    def turn_notes(self, state) -> list[str]:
        if state[E.H_CURRENT] == E.CHANCE:
            return [f"{self.seat_name(int(state[T_ROLLER]))} to roll"]
        return [f"roll {int(state[T_ROLL])}, {int(state[T_LEFT])} decision(s) left"]

    def render_rgb(self, state) -> np.ndarray:
        """The track as one row of squares 0..goal (safe squares tinted),
        each pawn a disc in its seat colour with its hit points."""
        from boardenvs.render import GridPicture, seat_colour

        goal = int(self.params[P_GOAL])
        labels = [str(sq) for sq in range(goal + 1)]
        pic = GridPicture(rows=1, cols=goal + 1, col_labels=labels, cell=48)
        for sq in range(0, goal + 1, 4):
            pic.tint(0, sq, "zone_1")
        if state[E.H_LAST_SEAT] >= 0 and state[T_POS + state[E.H_LAST_SEAT]] >= 0:
            pic.outline(0, int(state[T_POS + state[E.H_LAST_SEAT]]))
        for sq in range(goal + 1):
            here = [s for s in range(self.num_players) if state[T_POS + s] == sq]
            for k, s in enumerate(here):
                x, y = self.pawn_centre(pic, sq, k, len(here))
                r = 9 if len(here) > 1 else 14
                pic.draw.ellipse((x - r, y - r, x + r, y + r), fill=seat_colour(s), outline=(20, 20, 20), width=2)
        return pic.to_array()

    @staticmethod
    def pawn_centre(pic, sq, k, count):
        """Where the k-th of ``count`` pawns on square ``sq`` is drawn."""
        x, y = pic.centre(0, sq)
        if count == 1:
            return x, y
        dx, dy = [(-10, -10), (10, -10), (-10, 10), (10, 10), (0, 0), (0, -16)][k]
        return x + dx, y + dy

    def eliminate_seat(self, state, seat, reason) -> bool:
        """A flag fall (the chess clock) takes ``seat`` out like a fourth hit
        (CR-4): the others play on, the next seat rolls."""
        if super().eliminate_seat(state, seat, reason):
            return True
        _knock_out(state, self.params, seat)
        state[T_LEFT] = 0
        state[T_ROLLER] = E.next_alive_seat(state, seat)
        E.end_turn(state, self.params, E.CHANCE)
        return True
