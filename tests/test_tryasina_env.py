"""Tryasina through its faces: seeded dice, replays, the chance agent, make_vec
soak invariants, pictures (TR-16, TR-17)."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test.render_test import collect_render_results
from test_tryasina_rules import HOME, SHORTCUTS, SWAMPS, circle_xy, key, tpos

import boardenvs
from boardenvs import engine as E
from boardenvs.games.tryasina import NUM_CELLS, T_PAWNS
from boardenvs.games.tryasina import picture as TP
from boardenvs.games.tryasina import rules as TR
from boardenvs.games.tryasina.rules import LOC2CELL, LOC_O, LOC_Q, LOC_S, T_CELLS
from boardenvs.position import Position
from boardenvs.render import PALETTE, seat_colour


def _play_aec(env, seed, steps=300):
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    trace = []
    for agent in env.agent_iter(max_iter=steps):
        obs, reward, term, trunc, _ = env.last()
        action = None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"])))
        trace.append((agent, action, reward, obs["observation"].tobytes()))
        env.step(action)
    return trace


@pytest.mark.parametrize("n", [2, 4])
def test_tr17_a_seeded_env_rolls_the_same_dice(n):
    a = _play_aec(boardenvs.make("tryasina_v0", num_players=n), seed=7)
    b = _play_aec(boardenvs.make("tryasina_v0", num_players=n), seed=7)
    c = _play_aec(boardenvs.make("tryasina_v0", num_players=n), seed=8)
    assert a == b and a != c


def test_tr17_a_seeded_dice_replay_is_reproducible_through_position():
    """Record a game from the raw env's chance agent (rolled by a seeded die),
    replay every roll and move in Position: the same game, move for move."""
    env = boardenvs.tryasina_v0.raw_env(chance_agent=True, num_players=3)
    env.reset(seed=3)
    die = np.random.default_rng(3)
    record, texts = [], []
    for agent in env.agent_iter(max_iter=400):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        if agent == "chance":
            assert obs["observation"] == pytest.approx([1 / 6] * 6) and obs["action_mask"].tolist() == [1] * 6
            action = int(die.integers(6))
        else:
            action = int(die.choice(np.flatnonzero(obs["action_mask"])))
        record.append(action)
        env.step(action)
        texts.append(env.unwrapped.position().to_text())
    assert any(a >= 6 for a in record)  # pawn moves, not only rolls
    pos = boardenvs.position("tryasina_v0", num_players=3)
    for action, text in zip(record, texts):
        pos = pos.play(action)
        assert pos.to_text() == text


def test_tr17_chance_agent_mode_needs_outcomes_and_refuses_a_wrong_roll():
    from boardenvs.errors import IllegalActionError

    env = boardenvs.tryasina_v0.raw_env(chance_agent=True)
    env.reset(seed=0)
    assert env.agent_selection == "chance" and env.possible_agents[-1] == "chance"
    before = env.position().to_text()
    with pytest.raises(IllegalActionError):
        env.step(6)  # outcomes are 0..5
    assert env.position().to_text() == before
    assert "chance" not in boardenvs.quess_v0.raw_env(chance_agent=True).possible_agents


def test_make_vec_seeded_dice_are_reproducible():
    runs = []
    for _ in range(2):
        vec = boardenvs.make_vec("tryasina_v0", num_envs=16, num_players=4)
        vec.reset(seed=5)
        for _ in range(50):
            vec.step(vec.random_actions())
        runs.append(vec.states.copy())
    np.testing.assert_array_equal(runs[0], runs[1])


@pytest.mark.parametrize("n", [2, 3, 4])
def test_make_vec_soak_keeps_pawns_and_cells_consistent(n):
    """Random games through make_vec: four pawns per player, every pawn on the
    board on its own cell and no cell marked without a pawn, no pawn in
    another's home, every game ending by TR-15 with one winner."""
    vec = boardenvs.make_vec("tryasina_v0", num_envs=256, num_players=n)
    sides = vec.game.params[E.P_GAME : E.P_GAME + n]
    vec.reset(seed=n)
    wins = 0
    for step in range(1500):
        _, rewards, term, trunc, infos = vec.step(vec.random_actions())
        assert not trunc.any()
        if term.any():
            r = rewards[term]
            assert ((r == 1).sum(axis=1) == 1).all() and ((r == -1).sum(axis=1) == n - 1).all()
            wins += int(term.sum())
        if step % 100 == 0:
            states = vec.states
            pawns = states[:, T_PAWNS : T_PAWNS + 4 * n].reshape(-1, n, 4)
            cells = states[:, T_CELLS : T_CELLS + NUM_CELLS]
            expect = np.zeros_like(cells)
            for s in range(n):
                where = LOC2CELL[sides[s]][pawns[:, s, :]]
                rows = np.repeat(np.arange(len(states)), 4).reshape(-1, 4)
                on = where >= 0
                assert (expect[rows[on], where[on]] == 0).all()
                expect[rows[on], where[on]] = s + 1
                assert ((pawns[:, s, :] >= LOC_O) & (pawns[:, s, :] < LOC_S + 12)).all()
            np.testing.assert_array_equal(cells, expect)
            assert ((pawns == LOC_Q) | (pawns == LOC_O) | (pawns >= 2)).all()
            assert (np.sort(pawns, axis=2) == pawns).all()
    assert wins > 0


def test_pictures():
    env = boardenvs.make("tryasina_v0", num_players=4, render_mode="ansi")
    # PettingZoo's render_test wants a 'human' mode; its collection loop, per mode we have
    results = collect_render_results(boardenvs.make("tryasina_v0", num_players=4, render_mode="ansi"))
    assert all(isinstance(r, str) and r.count("\n") >= 18 for r in results)  # 13 board rows, pools, 4 seats, turn
    env.reset(seed=1)
    text = env.render()
    lines = text.splitlines()
    assert len(lines[0].split()) == 13 and "A: origin" in lines[13]
    assert "player_0 = A, bottom" in text and "player_3 = D, right" in text
    pos = env.unwrapped.position()
    roller = (
        f"{pos.game.seat_name(pos.to_move)} ({'ABCD'[pos.to_move]}, {('bottom', 'left', 'top', 'right')[pos.to_move]})"
    )
    assert (
        f"{roller} rolled {pos.state[boardenvs.games.tryasina.rules.T_ROLL]}" in text
        and f"turn {pos.turn}: {roller} to move" in text
    )
    rgb = boardenvs.make("tryasina_v0", num_players=3, render_mode="rgb_array")
    rgb.reset(seed=1)
    img = rgb.render()
    board = TP.PIC_SIZE  # 13 squares and their margins
    assert (
        img.dtype == np.uint8 and img.shape[0] > board + TP.PIC_KEY and img.shape[1] >= board and img.shape[2] == 3
    )  # board, key, legend
    assert len(np.unique(img.reshape(-1, 3), axis=0)) > 5


# --- the picture: the board as the original's map draws it (TR-1..TR-5) --------------------


def _board(pos) -> np.ndarray:
    return np.asarray(pos.game.render_rgb(pos.state))


def _px(img, xy) -> tuple:
    x, y = xy
    return tuple(int(v) for v in img[int(round(y)), int(round(x))])


def _at(x, y, dx=0.0, dy=0.0) -> tuple:
    """The pixel ``(dx, dy)`` squares from the centre of square ``(x, y)`` (``dy`` up)."""
    return TP.pic_xy(x + dx, y + dy)


def _crop(img, centre, r) -> np.ndarray:
    cx, cy = (int(round(v)) for v in centre)
    return img[cy - r : cy + r + 1, cx - r : cx + r + 1]


def _components(mask) -> int:
    """Connected areas (4-neighbours) of True in ``mask``."""
    seen = np.zeros_like(mask, dtype=bool)
    count = 0
    for y0, x0 in zip(*np.nonzero(mask)):
        if seen[y0, x0]:
            continue
        count += 1
        stack = [(y0, x0)]
        seen[y0, x0] = True
        while stack:
            y, x = stack.pop()
            for v, u in ((y + 1, x), (y - 1, x), (y, x + 1), (y, x - 1)):
                if 0 <= v < mask.shape[0] and 0 <= u < mask.shape[1] and mask[v, u] and not seen[v, u]:
                    seen[v, u] = True
                    stack.append((v, u))
    return count


def test_picture_geometry_is_the_13_by_13_board():
    img = _board(boardenvs.position("tryasina_v0"))
    assert TP.pic_xy(0, 0) == ((TP.PIC_SIZE) / 2, (TP.PIC_SIZE) / 2)  # the centre square in the middle
    assert img.shape == (TP.PIC_SIZE + TP.PIC_KEY, TP.PIC_SIZE, 3)
    for x, y in [(-6, -6), (6, 6), (0, -6)]:  # circle squares: tiles
        assert _px(img, _at(x, y)) == TP.PIC_COLOURS["tile"]


@pytest.mark.parametrize("n, seed", [(2, 0), (4, 1), (4, 2)])
def test_picture_draws_each_pawn_as_a_disc_where_the_text_form_says(n, seed):
    """Pawns are discs in their seat's colour on their squares (the text form
    says where), origins and quagmires show a disc while they hold pawns;
    empty squares show their tile."""
    rng = np.random.default_rng(seed)
    pos = boardenvs.position("tryasina_v0", num_players=n)
    while pos.decisions < 160 and not pos.is_terminal:
        pos = pos.play(
            int(rng.choice(len(pos.game.chance_probs(pos.state))))
            if pos.is_chance
            else int(rng.choice(pos.legal_actions()))
        )
    lines = pos.to_text().split("board:\n")[1].splitlines()
    img = _board(pos)
    pawns = 0
    for r, row in enumerate(lines[:13]):
        for c, tok in enumerate(row.split()):
            x, y = c - 6, 6 - r
            if tok.upper() in "ABCD":
                assert _px(img, _at(x, y)) == seat_colour("ABCD".index(tok.upper())), (x, y, tok)
                pawns += 1
            elif tok == ".":
                assert _px(img, _at(x, y)) == TP.PIC_COLOURS["tile"], (x, y)
    assert pawns >= 3
    for key_, loc in (("origin:", TR.LOC_O), ("quagmire:", TR.LOC_Q)):
        counts = [int(v) for v in next(line for line in lines if line.startswith(key_)).split()[1:]]
        for s, count in enumerate(counts):
            cx, cy = TP.pic_xy(*pos.game.spot(s, loc))
            assert (_px(img, (cx - 10, cy)) == seat_colour(s)) == (count > 0), (key_, s, count)


def test_picture_counts_the_pawns_standing_together():
    """Several pawns in an origin or a quagmire: one disc with their number on
    it; a single pawn: a plain disc."""
    game = tpos({}).game

    def crop(origin, quagmire, seat, loc):
        rest = ["C5", "C9", "C13"][: 4 - origin - quagmire]
        pos = tpos({seat: ["O"] * origin + ["Q"] * quagmire + rest}, roll=None)
        return _crop(_board(pos), TP.pic_xy(*game.spot(seat, loc)), 9)[disc]

    yy, xx = np.mgrid[-9:10, -9:10]
    disc = xx**2 + yy**2 <= 81  # the middle of a disc (radius 14)

    for seat in (0, 1):  # a white disc (dark figures) and a black one (light figures)
        for loc in (TR.LOC_O, TR.LOC_Q):
            crops = {k: crop(k if loc == TR.LOC_O else 0, k if loc == TR.LOC_Q else 0, seat, loc) for k in (1, 2, 3)}
            assert (crops[1] == seat_colour(seat)).all()  # no figure on a single pawn
            for k in (2, 3):
                other = (crops[k] != seat_colour(seat)).any(axis=1)
                assert other.sum() > 10, (seat, loc, k)  # a figure
            assert (crops[2] != crops[3]).any()


@pytest.mark.parametrize("roll", [1, 2, 3, 4, 5, 6])
def test_picture_draws_the_die_with_the_rolls_pips(roll):
    """TR-7 / TR-17: the die shows the roll as pips (one dark spot per point)."""
    pos = tpos({0: ["C20", "O", "O", "O"]}, roll=roll, mover=0)
    img = _board(pos)
    face = _crop(img, TP.pic_xy(*pos.game.die_spot(0)), 11)  # inside its rim
    assert (face.reshape(-1, 3) == TP.PIC_COLOURS["die"]).all(axis=1).mean() > 0.5  # the die's face
    assert _components((face != TP.PIC_COLOURS["die"]).any(axis=2)) == roll


def test_picture_puts_the_die_on_the_rollers_side():
    """Before the roll the die lies blank (``?``) on the roller's side."""
    for mover, side_y in ((0, -5), (1, 5)):  # 2 players: bottom, top (TR-6)
        pos = tpos({}, roll=None, mover=mover)
        img = _board(pos)
        x, y = pos.game.die_spot(mover)
        assert y == side_y
        assert _px(img, TP.pic_xy(x + 0.3, y + 0.3)) == TP.PIC_COLOURS["die"]
        assert _px(img, TP.pic_xy(-x + 0.3, -y + 0.3)) == TP.PIC_COLOURS["grass"]  # the other seat's die spot: empty
    faces = {
        r: _crop(_board(tpos({0: ["C20", "O", "O", "O"]}, roll=r)), TP.pic_xy(*pos.game.die_spot(0)), 12).tobytes()
        for r in (None, 1, 2, 3, 4, 5, 6)
    }
    assert len(set(faces.values())) == 7


@pytest.mark.parametrize("a, b", [(8, 16), (20, 28), (32, 40), (44, 4)])
def test_tr4_picture_draws_each_shortcut_as_one_continuous_band(a, b):
    """TR-4: the diagonal between a shortcut's two ends is no square: the
    picture draws one band from the square next to one end to the square
    next to the other, unbroken, with grass on both sides."""
    assert (a, b) in SHORTCUTS
    img = _board(boardenvs.position("tryasina_v0"))
    ends = [np.array(circle_xy(k)) for k in (a, b)]
    inner = [e - np.sign(e) * (np.abs(e) == 6) for e in ends]  # the square inside each end
    mid = (inner[0] + inner[1]) / 2
    towards_centre = -np.sign(mid) * 0.25
    for u in np.linspace(0, 1, 60):
        p = inner[0] + u * (inner[1] - inner[0]) + towards_centre
        assert _px(img, TP.pic_xy(*p)) == TP.PIC_COLOURS["channel"], (a, b, u)
    for off in (3, -1):  # beyond both sides of the band: grass
        assert _px(img, TP.pic_xy(*(mid + off * towards_centre))) == TP.PIC_COLOURS["grass"]


def test_tr5_picture_frames_the_swamp_levels_and_tr2_the_homes():
    """TR-5: the three levels of each swamp are framed in grey (the circle's
    squares are not); TR-2: the homes carry a gold frame inside; the centre
    is the grey quagmire."""
    img = _board(boardenvs.position("tryasina_v0", num_players=4))
    for entrance, levels, exit_ in SWAMPS:
        for x, y in levels:
            left, _, _, _ = TP.pic_box(x, y)
            assert _px(img, (left + 1, TP.pic_xy(x, y)[1])) == TP.PIC_COLOURS["swamp"], (x, y)
            assert _px(img, _at(x, y)) == TP.PIC_COLOURS["tile"]
        for k in (entrance, exit_):
            x, y = circle_xy(k)
            left, _, _, _ = TP.pic_box(x, y)
            assert _px(img, (left + 1, TP.pic_xy(x, y)[1])) == TP.PIC_COLOURS["channel"], k
    for side, squares in HOME.items():
        for x, y in squares:
            left, _, _, _ = TP.pic_box(x, y)
            assert _px(img, (left + 9, TP.pic_xy(x, y)[1])) == TP.PIC_COLOURS["home"], (side, x, y)
    x, y = circle_xy(6)
    assert _px(img, (TP.pic_box(x, y)[0] + 9, TP.pic_xy(x, y)[1])) == TP.PIC_COLOURS["tile"]  # an entry: no frame
    for x in (-1, 0, 1):
        for y in (-1, 0, 1):
            assert _px(img, _at(x, y, 0.4, 0.4)) == TP.PIC_COLOURS["quagmire"]


def test_picture_outlines_the_last_pawn_move_and_says_it_once():
    """One last-move line (the last pawn move, in the mover's track terms);
    the roll is a turn note that names the roller; no 'chance to play'."""
    pos = tpos({0: ["C5", "O", "O", "O"]}, roll=4, mover=0)
    text = str(pos)
    assert "player_0 (A, bottom) rolled 4" in text and "player_0 (A, bottom) to move" in text
    moved = pos.play("C5")
    text = str(moved)
    assert "turn 41: player_1 (B, top) to roll; last move player_0 (A) C5->C9" in text
    assert text.count("last move") == 1 and "last pawn move" not in text and "chance to play" not in text
    frame = moved.render("rgb_array")
    img = _board(moved)
    for name in ("C5", "C9"):
        x, y = key(0, name)
        left, top, _, _ = TP.pic_box(x, y)
        assert _px(img, (left + 2, TP.pic_xy(x, y)[1])) == PALETTE["last"]
    untouched = TP.pic_box(*key(0, "C7"))
    assert _px(img, (untouched[0] + 2, TP.pic_xy(*key(0, "C7"))[1])) != PALETTE["last"]
    assert frame.shape[0] > img.shape[0]
    rolled = tpos({}, roll=None, mover=1).play("roll 3")  # no pawn of player_1 can leave its origin
    assert "player_1 (B, top) rolled 3: no pawn can move, it passes" in str(rolled)
    text = str(rolled.play("pass"))  # TR-7: its one legal action
    assert "player_1 (B, top) passed: its roll moved no pawn" in text
    assert "player_0 (A, bottom) to roll; last move -" in text


def test_gymnasium_id_and_card():
    import gymnasium

    env = gymnasium.make("boardenvs/Tryasina-v0", opponent="random", num_players=3)
    obs, info = env.reset(seed=0)
    assert obs.shape == (3 * 91,) and info["action_mask"].any()  # flat by default
    assert env.unwrapped.plane_shape == (3, 91)
    assert gymnasium.make("boardenvs/Tryasina-v0", num_players=3, flatten=False).reset(seed=0)[0].shape == (3, 91)
    obs, reward, term, trunc, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
    assert "Tryasina" in boardenvs.tryasina_v0.__doc__


def test_home_counts_and_roll_in_observation_bounds():
    game = boardenvs.make_game("tryasina_v0", num_players=2)
    pos = Position(game, game.new_state(0, rng_seed=1)).play("roll 6").play("O")
    obs = pos.observation(1)
    assert obs.shape == (2, 91)
    assert obs[1, 76] == 3 and obs[0, 76] == 4  # the observer (player_1) first, then player_0
    assert (obs <= game.info.obs_high).all()
    from test_tryasina_rules import tpos

    home = tpos({0: ["H4", "H2", "C5", "Q"], 1: ["S1.1", "O", "O", "O"]}, roll=1)
    obs = home.observation(0)
    assert obs[0, 76:79].tolist() == [0, 1, 2] and obs[1, 76:79].tolist() == [3, 0, 0]
    assert obs[0, 48 + 3] == 1 and obs[0, 48 + 1] == 1  # own H4 and H2, homes of the observer's side first
    assert obs[1, 64 + 2 * 3] == 1  # player_1's first swamp is the top-right one: the observer's third
