"""hex_quoridor_v1 through its faces: eliminations in the AEC env (HQ-9),
the make_vec soak test with invariants, pictures, and bad position texts."""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit
from test_hex_quoridor_rules import hq

import boardenvs
from boardenvs import engine as E
from boardenvs.errors import NotationError
from boardenvs.games import hex_quoridor as H
from boardenvs.games.hex_quoridor import rules as HR
from boardenvs.position import Position
from boardenvs.render import PALETTE, rgb_frame, seat_colour

ENV = "hex_quoridor_v1"


def test_registered_with_gymnasium_id_and_dice_classes():
    import gymnasium

    assert ENV in boardenvs.ENV_IDS and "boardenvs/HexQuoridor-v1" in gymnasium.registry
    game = boardenvs.make_game(ENV)
    classes = game.action_classes(game.new_state(0))
    assert game.action_class_names == ("move", "fence")
    assert (classes[: game.num_cells] == 0).all() and (classes[game.num_cells : game.pass_action] == 1).all()
    assert classes[game.pass_action] == -1 and len(classes) == game.num_actions  # pass: no class (HQ-13)
    # hex_quoridor_v0 (no pass action) is gone: gymnasium names the version that replaced it
    with pytest.raises(gymnasium.error.DeprecatedEnv, match="HexQuoridor-v1"):
        gymnasium.make("boardenvs/HexQuoridor-v0")
    with pytest.raises(ValueError, match="'hex_quoridor_v0' is another version of 'hex_quoridor_v1'"):
        boardenvs.make("hex_quoridor_v0")


def test_hq9_an_eliminated_agent_terminates_with_minus_one_and_leaves_the_agents():
    """Random AEC games on a small board with many fences until a fence
    eliminates someone; the others play on."""
    seen = 0
    for seed in range(60):
        env = boardenvs.make(ENV, num_players=3, radius=2, fences_per_player=10)
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        for _agent in env.agent_iter(2000):
            obs, reward, term, trunc, info = env.last()
            if term or trunc:
                env.step(None)
                continue
            before = list(env.agents)
            mask = obs["action_mask"]
            fences = np.flatnonzero(mask[env.unwrapped.game.num_cells :]) + env.unwrapped.game.num_cells
            action = (
                int(rng.choice(fences)) if len(fences) and rng.random() < 0.7 else int(rng.choice(np.flatnonzero(mask)))
            )
            env.step(action)
            out = [a for a in before if env.terminations[a]]
            state = env.unwrapped._state
            if state[E.H_STATUS] == E.PLAYING and out:
                (gone,) = out
                assert env.rewards[gone] == -1 and env._cumulative_rewards[gone] == -1
                assert env.agent_selection == gone  # its dead step comes first
                env.step(None)
                assert gone not in env.agents and len(env.agents) == 2
                assert not any(env.terminations[a] for a in env.agents)
                seen += 1
                break
        if seen:
            break
    assert seen


@njit(cache=True)
def _paths_ok(states, params):
    """Rows where some live pawn has no path to its goal side (HQ-8/9)."""
    n1 = params[HR.P_N] + 1
    stamp = np.zeros(n1, np.int64)
    stack = np.zeros(n1, np.int64)
    bad = 0
    gen = 0
    for i in range(states.shape[0]):
        s = states[i]
        for p in range(params[E.P_NUM_PLAYERS]):
            if (s[E.H_ALIVE] >> p) & 1:
                gen += 1
                if not HR._reaches_goal(s, params, p, stamp, gen, stack):
                    bad += 1
    return bad


@pytest.mark.parametrize("num_players", [2, 3, 4, 6])
def test_soak_2000_random_games_through_make_vec(num_players):
    """2 000 random games per player count, checked every step: fences
    conserved (placed + unplayed = the allowance), every live pawn keeps a
    path, pawns on distinct cells, returns -1/0/+1 at the end only."""
    vec = boardenvs.make_vec(ENV, num_envs=512, num_players=num_players)
    game = vec.game
    vec.reset(seed=num_players)
    total = num_players * game.fences_per_player
    fen = slice(game.fence_offset, game.fence_offset + game.num_fences)
    games = steps = 0
    while games < 2000:
        obs, rewards, term, trunc, infos = vec.step(vec.random_actions())
        steps += 1
        st = vec.states
        assert (st[:, fen].sum(1) + st[:, H.Q_LEFT : H.Q_LEFT + num_players].sum(1) == total).all()
        assert (st[:, E.H_STATUS] == E.PLAYING).all()  # auto-reset
        pawns = st[:, H.Q_PAWNS : H.Q_PAWNS + num_players]
        live = pawns >= 0
        assert (live.sum(1) >= 2).all()
        occupied = (st[:, H.Q_OCC : H.Q_OCC + game.num_cells] > 0).sum(1)
        assert (occupied == live.sum(1)).all()
        ended = term | trunc
        assert (rewards[~ended] == 0).all() and np.isin(rewards[ended], (-1, 0, 1)).all()
        goal = term & (infos["end_reason"] == H.REASON_GOAL)
        assert (rewards[goal].max(1) == 1).all() and (rewards[goal] == 1).sum() == goal.sum()  # one winner (HQ-14)
        assert (rewards[trunc] <= 0).all()
        if steps % 4 == 0:
            assert _paths_ok(st, game.params) == 0
        games += int(ended.sum())
    assert games >= 2000


@pytest.mark.parametrize("options", [{}, {"num_players": 6}, {"num_players": 4, "teams": "2v2"}])
def test_render_ansi_and_rgb(options):
    env = boardenvs.make(ENV, render_mode="ansi", **options)
    env.reset(seed=1)
    for _ in range(6):
        mask = env.last()[0]["action_mask"]
        env.step(int(np.flatnonzero(mask)[-1]))  # fences (the last actions) first
    text = env.render()
    assert "fences left" in text and ("|" in text or "-" in text.split("\n", 1)[1])
    env = boardenvs.make(ENV, render_mode="rgb_array", **options)
    env.reset(seed=1)
    plain = env.render()
    for _ in range(4):
        env.step(int(np.flatnonzero(env.last()[0]["action_mask"])[-1]))
    picture = env.render()
    assert picture.ndim == 3 and picture.shape[2] == 3 and picture.dtype == np.uint8
    assert (picture != plain).any()


# --- the picture: goal sides, fences left clear of the row labels -----------------------

PICTURE_CASES = [
    {"num_players": 2},
    {"num_players": 3},
    {"num_players": 4},
    {"num_players": 6},
    {"num_players": 4, "teams": "2v2"},
    {"num_players": 6, "radius": 2},
]


def _random_position(seed, **options):
    rng = np.random.default_rng(seed)
    pos = boardenvs.position(ENV, first_player=0, **options)
    for _ in range(30):
        if pos.is_terminal:
            break
        pos = pos.play(int(rng.choice(pos.legal_actions())))
    return pos


def _overlap(a, b) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


@pytest.mark.parametrize("options", PICTURE_CASES)
def test_picture_fences_left_stay_clear_of_the_row_labels(options):
    """The fences each seat has left (HQ-5) are drawn in a strip of their own:
    the pixels that change with the count lie above the board and touch no
    row label; no goal band or count covers a label either."""
    pos = _random_position(1, **options)
    n = pos.game.num_players
    fpp = H.FENCES[n]
    more = boardenvs.position(ENV, first_player=0, fences_per_player=fpp, **options)
    fewer = boardenvs.position(ENV, first_player=0, fences_per_player=fpp - 1, **options)
    image, pic, top = more.game.board_picture(more.state)
    a, b = np.asarray(image), np.asarray(fewer.game.board_picture(fewer.state)[0])
    assert a.shape == b.shape
    ys, xs = np.nonzero((a != b).any(axis=2))
    assert len(ys) > 0 and ys.max() < top  # only the strip changes
    counts = (xs.min(), ys.min(), xs.max() + 1, ys.max() + 1)
    labels = [
        (int(np.floor(x0)), int(np.floor(y0)) + top, int(np.ceil(x1)), int(np.ceil(y1)) + top)
        for _, (x0, y0, x1, y1) in pic.label_boxes
    ]
    assert len(labels) == 2 * (2 * pos.game.board.radius + 1)
    assert not any(_overlap(counts, box) for box in labels)
    marks = {PALETTE["edge"]} | {tuple(seat_colour(s)) for s in range(n)}
    for img in (a, np.asarray(pos.game.board_picture(pos.state)[0])):
        for x0, y0, x1, y1 in labels:  # nothing but the letter and the background
            colours = {tuple(int(v) for v in c) for c in img[y0:y1, x0:x1].reshape(-1, 3)}
            assert not colours & marks, (options, (x0, y0, x1, y1))


@pytest.mark.parametrize("options", PICTURE_CASES)
def test_hq2_hq14_picture_draws_each_goal_side_in_its_seats_colour(options):
    """HQ-2 / HQ-14: just outside the rim of every cell of a seat's goal side
    (the side opposite its start) lies a band in that seat's colour; sides
    that are nobody's goal (or the goal of a seat that is out) have none."""
    pos = _random_position(2, **options)
    game = pos.game
    image, pic, top = game.board_picture(pos.state)
    img = np.asarray(image)
    for k in range(6):
        owners = [s for s in range(game.num_players) if (game.sides[s] + 3) % 6 == k and game.pawns(pos.state)[s] >= 0]
        want = tuple(seat_colour(owners[0])) if owners else PALETTE["board"]
        angle = np.radians(90 + 60 * k)  # the outward direction of side k (0 bottom, clockwise)
        cells = np.flatnonzero(game.geo.on_side[k, : game.num_cells])
        assert len(cells) == game.board.radius + 1
        for i in cells:
            x, y = pic.centre(int(i))
            px, py = x + (pic.size + 4) * np.cos(angle), y + (pic.size + 4) * np.sin(angle) + top
            assert tuple(int(v) for v in img[int(round(py)), int(round(px))]) == want, (
                options,
                k,
                game.board.name(int(i)),
            )


def test_hq9_an_eliminated_seat_has_no_goal_band_and_its_count_says_out():
    from test_hex_quoridor_rules import pos_of

    pos = pos_of(["i3", "x", "c7"], num_players=3, alive=[1, 0, 1], left=[12, 0, 6], turn=5)
    full = boardenvs.position(ENV, num_players=3, first_player=0)
    image, pic, top = pos.game.board_picture(pos.state)
    img, before = np.asarray(image), np.asarray(full.game.board_picture(full.state)[0])
    k = (pos.game.sides[1] + 3) % 6
    angle = np.radians(90 + 60 * k)
    for i in np.flatnonzero(pos.game.geo.on_side[k, : pos.game.num_cells]):
        x, y = pic.centre(int(i))
        px, py = (int(round(v)) for v in (x + (pic.size + 4) * np.cos(angle), y + (pic.size + 4) * np.sin(angle) + top))
        assert tuple(before[py, px]) == seat_colour(1) and tuple(img[py, px]) == PALETTE["board"]


def test_human_window_shows_the_goal_sides(monkeypatch):
    """render_mode="human" shows the same frame, goal bands and all."""
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    import pygame

    env = boardenvs.make(ENV, render_mode="human", num_players=4, first_player=0)
    env.reset(seed=0)
    raw = env.unwrapped
    raw._window.fps = 0
    env.step(int(np.flatnonzero(env.last()[0]["action_mask"])[0]))
    shown = pygame.surfarray.array3d(raw._window.screen).swapaxes(0, 1)
    frame = rgb_frame(raw.game, raw.state_snapshot())
    np.testing.assert_array_equal(shown, frame)
    _, pic, top = raw.game.board_picture(raw.state_snapshot())
    x, y = pic.centre(pic.board.cell("a3"))  # the top side: player_0's goal
    off = (frame.shape[1] - pic.image.size[0]) // 2
    assert tuple(int(v) for v in shown[int(y - pic.size - 4 + top), int(x + off)]) == seat_colour(0)
    env.close()


def _two_fences_sharing_an_edge():
    from hq_reference import Board

    fences = Board(4).fences()
    f = "e4e5/f4f5"
    return f, next(g for g, e in sorted(fences.items()) if g != f and e & fences[f])


SHARING = _two_fences_sharing_an_edge()


@pytest.mark.parametrize(
    "text, words",
    [
        (hq(["e5e6", "a3"]), "cell"),  # a pawn given as an edge, not a cell
        (hq(["e5", "e5"]), "two pawns"),
        (hq(["i3", "a3"], fences=["e4e5/f4f5", "e4e5/f4f5"], turn=2), "twice"),
        (hq(["i3", "a3"], fences=list(SHARING), turn=2), "share an edge"),
        (hq(["i3", "a3"], left=[10, 9]), "fences"),  # above the allowance
        (hq(["i3", "a3"], left=[8, 9]), "fences"),  # one went missing
        (hq(["a3", "i3"]), "goal side"),  # on its goal side, still playing
        (hq(["i3", "x"]), "alive 1"),
        (hq(["i3", "a3"], turn=0, fences=["e4e5/f4f5"]), "turns"),
    ],
)
def test_bad_position_texts_are_refused(text, words):
    with pytest.raises(NotationError, match=words):
        Position.from_text(text)


def test_a_position_where_a_live_pawn_has_no_path_is_refused():
    # the 2-player texts of the rule tests: the fence that would close player_1 in, placed anyway
    fences = "a1b1/a2b2 b1b2/c1c2 a3b3/b4c4 d1e1/d2e2 c4d3/d4e3 a2a3/b2b3".split()
    text = hq(["e2", "a2"], fences=fences, left=[6, 6], num_players=2, radius=2, fpp=9, turn=6, to_move=0)
    with pytest.raises(NotationError, match="no path"):
        Position.from_text(text)


def test_observation_is_egocentric_and_fences_left_are_counts():
    pos = boardenvs.position(ENV, num_players=2, first_player=0).play("e4e5/f4f5")
    game = pos.game
    o0, o1 = pos.observation(0), pos.observation(1)
    n = 2
    # blocked edges turned half a turn: player_1 sees player_0's view rotated 180 degrees
    blocked0, blocked1 = o0[:, :, n + 1 : n + 7], o1[:, :, n + 1 : n + 7]
    assert (blocked0[::-1, ::-1][:, :, [3, 4, 5, 0, 1, 2]] == blocked1).all()
    assert o0[4, 4, n + 8] == 8 and o0[4, 4, n + 9] == 9  # own fences first
    assert o1[4, 4, n + 8] == 9 and o1[4, 4, n + 9] == 8
    assert game.info.obs_high[4, 4, n + 8] == 18 and o0[0, 0].sum() == 0  # grid corners are off the board


@pytest.mark.parametrize(
    "options, words",
    [
        ({"num_players": 5}, "num_players"),
        ({"teams": "2v2"}, "teams"),  # 2v2 needs 4 players (HQ-15)
        ({"num_players": 4, "teams": "3x2"}, "teams"),
        ({"teams": "1v1"}, "teams"),
        ({"radius": 3}, "radius"),
        ({"fences_per_player": 21}, "fences_per_player"),
        ({"fences_per_player": True}, "fences_per_player"),
        ({"first_player": 2}, "first_player"),
    ],
)
def test_bad_options_are_option_errors(options, words):
    from boardenvs.errors import OptionError

    with pytest.raises(OptionError, match=words):
        boardenvs.make(ENV, **options)
    with pytest.raises(OptionError, match=words):
        boardenvs.make_vec(ENV, num_envs=2, **options)


HQ_VARIANTS = [
    {"num_players": 2},
    {"num_players": 3},
    {"num_players": 4},
    {"num_players": 6},
    {"num_players": 4, "teams": "2v2"},
    {"num_players": 6, "teams": "3x2"},
    {"num_players": 6, "teams": "2x3"},
    {"num_players": 3, "radius": 2},
]


@pytest.mark.parametrize("options", HQ_VARIANTS, ids=lambda o: "-".join(f"{k}={v}" for k, v in o.items()))
def test_every_seat_sees_each_pawns_goal_side_and_team(options):
    """Shared rules, "Observation" (HQ-2, HQ-14, HQ-15): from every seat's
    observation each pawn's goal side and team can be read.  The goal plane
    of seat ``s`` in the observer's view is ``s``'s own goal plane as ``s``
    sees it, cell by cell (each in its own frame, HQ-6's turned board), and
    the teammate planes say which seats share the observer's team."""
    game = boardenvs.make_game(ENV, **options)
    n, cells = game.num_players, game.num_cells
    pos = Position(game, game.new_state(0, rng_seed=1))
    rng = np.random.default_rng(0)
    for _ in range(12):  # a few decisions in, fences included
        pos = pos.play(int(rng.choice(pos.legal_actions())))
    grid = lambda seat, i: int(game.params[game.params[HR.P_TGRID] + HR._frame(game.params, seat) * cells + i])  # noqa: E731
    side = game.info.obs_shape[0]
    views = {s: pos.observation(s).reshape(side * side, -1) for s in range(n)}
    assert game.info.obs_shape[2] == 5 * n + 7
    for seat in range(n):
        view = views[seat]
        for r in range(n):
            s = (seat + r) % n
            goal = n + 7 if r == 0 else 3 * n + 7 + r
            for i in range(cells):
                assert view[grid(seat, i), goal] == views[s][grid(s, i), n + 7], (seat, s, i)
                assert view[grid(seat, i), 4 * n + 7 + r] == int(game.team_of(s) == game.team_of(seat))
            assert view[:, goal].sum() == game.board.radius + 1  # one side of the hexagon


@pytest.mark.parametrize("teams", ["3x2", "2x3"])
def test_the_next_pawn_teammate_or_opponent_gives_different_observations(teams):
    """The audit's case: seat 0 of a game that player_0 starts, and seat 1 of
    one that player_1 starts, see the same board; with teams 3x2 the next
    pawn is a teammate for one of them and an opponent for the other, so
    their observations must differ (they did not before the teammate planes)."""
    a = boardenvs.position(ENV, num_players=6, teams=teams, first_player=0).observation(0)
    b = boardenvs.position(ENV, num_players=6, teams=teams, first_player=1).observation(1)
    mates = [int(boardenvs.make_game(ENV, num_players=6, teams=teams).team_of(s) == 0) for s in range(6)]
    assert not np.array_equal(a, b)
    n = 6
    assert a[4, 4, 4 * n + 7 : 5 * n + 7].tolist() == mates  # observer first


def _plain_observation(game, state, seat):
    """The observation as the card in ``boardenvs.games.hex_quoridor`` lists
    it, written plane by plane from the state's cells and edges."""
    n, cells = game.num_players, game.num_cells
    k = game.frame(seat)
    side = game.board.side
    obs = np.zeros((side * side, 5 * n + 7), np.int8)
    blocked = state[game.blk_offset : game.blk_offset + 6 * cells].reshape(cells, 6)
    goal = lambda s, i: game.geo.on_side[(game.frame(s) + 3) % 6, i]  # noqa: E731
    for i in range(cells):
        g = obs[game.geo.grid[k, i]]
        g[0] = 1
        o = state[H.Q_OCC + i]
        if o:
            g[1 + (o - 1 - seat) % n] = 1
        for d in range(6):
            g[n + 1 + (d + k) % 6] = blocked[i, d]
        g[n + 7] = goal(seat, i)
        for r in range(n):
            s = (seat + r) % n
            g[n + 8 + r] = state[H.Q_LEFT + s]
            g[2 * n + 8 + r] = E.is_alive(state, s)
            if r:
                g[3 * n + 7 + r] = goal(s, i)
            g[4 * n + 7 + r] = int(game.team_of(s) == game.team_of(seat))
    return obs.ravel()


@pytest.mark.parametrize(
    "options",
    HQ_VARIANTS + [{"num_players": 6, "radius": 2, "fences_per_player": 6}],
    ids=lambda o: "-".join(f"{k}={v}" for k, v in o.items()),
)
def test_observation_equals_the_card_plane_by_plane(options):
    """The observation kernel starts from each seat's fixed planes (rim,
    goals, teams, everyone in) and writes the pawns, the fences' edges (from
    the state's fence bits), the fences left and who is out over them: for
    every seat of a batch of random games (eliminations included, on the
    small board) it equals the card's planes written from the state's cells
    and blocked edges."""
    vec = boardenvs.make_vec(ENV, num_envs=32, num_threads=1, **options)
    game = vec.game
    vec.reset(seed=5)
    out = 0
    for _ in range(40):
        vec.step(vec.random_actions())
        for state in np.array(vec.states):
            pos = Position(game, state)
            for seat in range(game.num_players):
                assert np.array_equal(pos.observation(seat).ravel(), _plain_observation(game, state, seat)), (
                    seat,
                    pos.to_text(),
                )
            out += int(state[E.H_ALIVE]) != (1 << game.num_players) - 1
    if game.params[HR.P_ELIM] and game.board.radius == 2:
        assert out > 0  # some seat was out, and seen so
