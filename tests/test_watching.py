"""Watching and playing: pictures checked against the position,
the human render mode headless, recordings, the interactive CLI driven
through stdin, game records that replay exactly, and the chess clock on a
fake clock for two- and four-player games."""

from __future__ import annotations

import io
import json
import re
import sys

import imageio.v3 as iio
import numpy as np
import pytest
from boardenvs.wrappers import ChessClock, Recorder, record_game
from boardenvs.wrappers.recording import record_vec_row

import boardenvs
from boardenvs import engine as E
from boardenvs.render import LINE, PALETTE, GridPicture, HexPicture, rgb_frame, seat_colour


def random_position(env_id, moves, seed=0, **options):
    rng = np.random.default_rng(seed)
    pos = boardenvs.position(env_id, **options)
    for _ in range(moves):
        if pos.is_terminal:
            break
        if pos.is_chance:
            probs = pos.game.chance_probs(pos.state)
            pos = pos.play(int(rng.choice(len(probs), p=probs)))
        else:
            pos = pos.play(int(rng.choice(pos.legal_actions())))
    return pos


def pixel(frame, xy):
    x, y = xy
    return tuple(int(v) for v in frame[y, x])


def legend_checks(frame, game, state, board_height):
    """The legend under the board: a swatch in each seat's colour, the red
    marker only beside the seat to act."""
    current = int(state[E.H_CURRENT]) if state[E.H_STATUS] == E.PLAYING else -9
    for s in range(game.num_players):
        y = board_height + 4 + LINE * (s + 1)
        assert pixel(frame, (23, y + 8)) == seat_colour(s)
        assert (pixel(frame, (6, y + 8)) == PALETTE["to_act"]) == (s == current)


# --- pictures checked against the position ---------------------------------------------------


@pytest.mark.parametrize("seed", [0, 1])
def test_quess_picture_draws_the_pieces_where_the_position_says(seed):
    pos = random_position("quess_v0", 25, seed=seed, first_player=0)
    rows = pos.to_text().split("board:\n")[1].splitlines()[1:7]  # the text form, not the picture code
    frame = pos.render("rgb_array")
    grid = GridPicture(rows=6, cols=6)  # the same geometry as the game's picture
    board_h = grid.image.size[1]
    for r, line in enumerate(rows):
        for c, ch in enumerate(line.split()[1:]):
            colour = pixel(frame, grid.centre(r, c))
            if ch == ".":
                assert colour not in (seat_colour(0), seat_colour(1)), (r, c)
            else:
                assert colour == seat_colour(0 if ch.isupper() else 1), (r, c, ch)
    # the last move's squares outlined in red
    last = pos.game.last_move(pos.state)
    for sq in last.split("-"):
        r, c = "ABCDEF".index(sq[0]), int(sq[1]) - 1
        x0, y0, _, _ = grid._box(r, c, 2)
        assert pixel(frame, (x0 + 1, y0 + 10)) == PALETTE["last"]
    legend_checks(frame, pos.game, pos.state, board_h)


def test_quagmire_picture_draws_pieces_and_water_where_the_position_says():
    pos = random_position("quagmire_v0", 12, seed=3)
    board = pos.game.board
    lines = pos.to_text().split("board:\n")[1].splitlines()
    chars = [ch for line in lines for ch in line.split()[1:]]
    assert len(chars) == board.num_cells and "~" in chars
    frame = pos.render("rgb_array")
    hexes = HexPicture(board)
    off = (frame.shape[1] - hexes.image.size[0]) // 2  # the board is centred over the panel
    for i, ch in enumerate(chars):
        x, y = hexes.centre(i)
        colour = pixel(frame, (x + off, y))
        want = {"x": seat_colour(0), "o": seat_colour(1), "~": PALETTE["water"]}.get(ch)
        if want is None:
            assert colour not in (seat_colour(0), seat_colour(1), PALETTE["water"]), board.name(i)
        else:
            assert colour == want, (board.name(i), ch)
    legend_checks(frame, pos.game, pos.state, hexes.image.size[1])


def test_toy_game_picture_draws_each_pawn_on_its_square():
    import contract_game as C

    pos = random_position("contract_race_v0", 15, seed=2, num_players=4)
    pawns = pos.to_text().split("pawns:")[1].splitlines()[0].split()
    frame = pos.render("rgb_array")
    grid = GridPicture(rows=1, cols=int(pos.game.params[C.P_GOAL]) + 1, cell=48)
    off = (frame.shape[1] - grid.image.size[0]) // 2
    for sq in range(int(pos.game.params[C.P_GOAL]) + 1):
        here = [s for s, p in enumerate(pawns) if p == str(sq)]
        for k, s in enumerate(here):
            x, y = C.ContractRaceGame.pawn_centre(grid, sq, k, len(here))
            assert pixel(frame, (x + off, y)) == seat_colour(s)
        if not here:
            x, y = grid.centre(0, sq)
            assert pixel(frame, (x + off, y)) not in [seat_colour(s) for s in range(4)]
    legend_checks(frame, pos.game, pos.state, grid.image.size[1])


def _all_cases():
    from boardenvs.registry import game_class, registered_ids

    for env_id in registered_ids():
        for variant in game_class(env_id).variants[:2]:
            yield pytest.param(env_id, variant, id=f"{env_id}-{'-'.join(f'{k}={v}' for k, v in variant.items())}")


@pytest.mark.parametrize("env_id, variant", list(_all_cases()))
def test_every_game_explains_its_pictures(env_id, variant):
    """Every registered game (new ones too): the text and the picture carry the
    legend, whose turn it is, the last move and the result, and the picture
    keeps one size through a game."""
    game = boardenvs.make_game(env_id, **variant)
    rng = np.random.default_rng(0)
    pos = boardenvs.position(env_id, **variant)
    shapes = set()
    for k in range(400):
        text = str(pos)
        assert all(f"player_{s}" in text for s in range(game.num_players))
        to_act = "to move" in text or "chance to play" in text or "to roll" in text  # a seat, chance, a seat's die
        assert (f"turn {pos.turn}:" in text) and (to_act != pos.is_terminal)
        if pos.decisions and not pos.is_terminal:
            assert "last move " in text
        if "rgb_array" in game.render_modes and (k < 3 or pos.is_terminal):
            frame = pos.render("rgb_array")
            shapes.add(frame.shape)
            board_h = np.asarray(game.render_rgb(pos.state)).shape[0]
            legend_checks(frame, game, pos.state, board_h)
        if pos.is_terminal:
            assert "game over (" in text
            break
        if pos.is_chance:
            probs = game.chance_probs(pos.state)
            pos = pos.play(int(rng.choice(len(probs), p=probs)))
        else:
            pos = pos.play(int(rng.choice(pos.legal_actions())))
    assert len(shapes) <= 1


def test_frames_keep_one_size_and_show_the_result():
    pos = random_position("quagmire_v0", 200, seed=0, radius=2)
    assert pos.is_terminal
    start = boardenvs.position("quagmire_v0", radius=2)
    assert pos.render("rgb_array").shape == start.render("rgb_array").shape
    text = str(pos)
    winner = pos.returns.index(1.0)
    assert f"game over (no_legal_move): player_{winner} ({'xo'[winner]}) wins" in text
    assert "> player_" not in text  # nobody to act once it is over


def test_ansi_shows_legend_roll_last_move_and_eliminations():
    env = boardenvs.make("contract_race_v0", render_mode="ansi", num_players=3)
    env.reset(seed=5)
    text = env.render()
    assert "> player_0 = A" in text and "  player_1 = B" in text
    import contract_game as C

    roll = int(env.unwrapped.state_snapshot()[C.T_ROLL])
    assert f"roll {roll}, 2 decision(s) left" in text and f"last move roll {roll}" in text


def test_the_turn_indicator_at_a_chance_node_names_whose_die_it_is():
    """Game.chance_status: 'chance to play' by default; Tryasina's roll is the
    roller's (TR-7), so its indicator names the roller."""
    toy = boardenvs.position("contract_race_v0", num_players=3)
    assert toy.is_chance and f"turn {toy.turn}: chance to play" in str(toy)
    pos = boardenvs.position("tryasina_v0", num_players=3, first_player=1)
    assert pos.is_chance and "turn 0: player_1 (B, left) to roll" in str(pos) and "chance" not in str(pos)


# --- human mode ---------------------------------------------------------------------------


def test_human_mode_runs_ten_steps_headless(monkeypatch):
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    env = boardenvs.make("quess_v0", render_mode="human", first_player=0)
    assert "human" in env.metadata["render_modes"] and env.metadata["render_fps"] > 0
    raw = env.unwrapped
    assert raw._window is None  # opened lazily
    env.reset(seed=0)
    raw._window.fps = 0  # no frame-rate pause in tests
    rng = np.random.default_rng(0)
    for _ in range(10):
        env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))
    screen = raw._window.screen
    frame = rgb_frame(raw.game, raw.state_snapshot())
    assert screen.get_size() == (frame.shape[1], frame.shape[0])
    import pygame

    shown = pygame.surfarray.array3d(screen).swapaxes(0, 1)
    np.testing.assert_array_equal(shown, frame)  # the window shows the current picture
    env.close()
    assert raw._window is None and not pygame.display.get_init()


def test_human_mode_without_pygame_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "pygame", None)
    with pytest.raises(ImportError, match=r"pip install '\.\[render\]' in a clone"):
        boardenvs.make("quess_v0", render_mode="human")
    with pytest.raises(ValueError, match="render_mode"):
        boardenvs.make("quess_v0", render_mode="window")


# --- recordings ---------------------------------------------------------------------------


def test_recorded_gif_has_one_frame_per_decision(tmp_path):
    env = Recorder(boardenvs.make("contract_race_v0", num_players=3))
    env.reset(seed=1)
    rng = np.random.default_rng(1)
    decisions = 0
    for _agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        decisions += 1
    path = env.save(tmp_path / "game.gif", fps=4, end_pause=1.5)
    frames = iio.imread(path, index=None)
    assert frames.shape[0] == decisions + 1 == len(env.frames)
    diff = np.abs(frames[-1].astype(int) - env.frames[-1].astype(int))
    assert diff.max() <= 24 and (diff > 0).mean() < 0.05  # the last picture (a palette: text edges round)
    from PIL import Image

    with Image.open(path) as im:
        durations = []
        for k in range(im.n_frames):
            im.seek(k)
            durations.append(im.info["duration"])
    assert durations[0] == 250 and durations[-1] == 250 + 1500  # the pause at the end
    mp4 = env.save(tmp_path / "game.mp4", fps=4, end_pause=1.5)
    assert (
        iio.imread(
            mp4,
            index=None,
        ).shape[0]
        == decisions + 1 + 6
    )


def test_record_from_moves_and_from_a_vec_row(tmp_path):
    pos = boardenvs.position("quagmire_v0", radius=2)
    moves = []
    rng = np.random.default_rng(4)
    while not pos.is_terminal:
        move = str(rng.choice(pos.legal_moves()))
        moves.append(move)
        pos = pos.play(move)
    path = record_game("quagmire_v0", moves, tmp_path / "q.gif", radius=2)
    assert iio.imread(path, index=None).shape[0] == len(moves) + 1
    with pytest.raises(ValueError, match="gif"):
        record_game("quagmire_v0", moves, tmp_path / "q.avi", radius=2)
    vec = boardenvs.make_vec("quagmire_v0", num_envs=3, radius=2)
    path = record_vec_row(vec, 2, tmp_path / "row.gif", seed=0)
    frames = iio.imread(path, index=None)
    assert 6 <= frames.shape[0] <= 20  # a radius-2 game: 4 placements and a few moves
    with pytest.raises(ValueError, match="row"):
        record_vec_row(vec, 3, tmp_path / "bad.gif")


# --- the CLI ------------------------------------------------------------------------------


def scripted_match(env_id, seat, seed, options):
    """The moves a player who always types the first legal move makes against
    the random opponent of ``boardenvs play`` with this seed (the opponent
    draws from the same seeded generator, the dice from the game's row), and
    the final position."""
    from boardenvs.matches import play_turn
    from boardenvs.opponents import load_opponent
    from boardenvs.records import new_game

    pos, rng = new_game(env_id, options, seed)
    opponent = load_opponent("random")
    mine = []
    while not pos.is_terminal:
        if pos.is_chance:
            pos = pos.roll()  # the seeded die of the game's row, as ``boardenvs play`` rolls it
        elif pos.to_move != seat:
            pos, _ = play_turn(opponent, pos, rng)
        else:
            move = pos.legal_moves()[0]
            mine.append(move)
            pos = pos.play(move)
    return mine, pos


@pytest.mark.parametrize(
    "env_id, seat, options", [("quagmire_v0", 1, {"radius": 2}), ("contract_race_v0", 2, {"num_players": 3})]
)
def test_cli_plays_a_full_game_by_notation_and_the_record_replays(env_id, seat, options, tmp_path, monkeypatch, capsys):
    from boardenvs.cli import main
    from boardenvs.records import load_record, replay_moves

    mine, final = scripted_match(env_id, seat, 7, options)
    typed = ["help", "Z9^Z9", "moves", mine[0]] + mine[1:]  # a bad move on the way, then the game
    monkeypatch.setattr(sys, "stdin", io.StringIO("\n".join(typed) + "\n"))
    save = tmp_path / "game.json"
    args = ["play", env_id, "--seat", str(seat), "--seed", "7", "--out", str(save)]
    args += [a for k, v in options.items() for a in ("--option", f"{k}={v}")]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "not a legal move" in out and "Traceback" not in out
    assert "legal: " in out and "game saved to" in out and "game over" in out
    record = json.loads(save.read_text())
    assert record["game"] == env_id and record["seed"] == 7 and record["result"]["over"]
    start, moves, _ = load_record(save)
    assert replay_moves(start, moves)[-1] == final  # the same final position, exactly
    assert main(["replay", str(save), "--gif", str(tmp_path / "r.gif")]) == 0
    assert f"{len(moves)} moves replayed: game over" in capsys.readouterr().out
    assert iio.imread(tmp_path / "r.gif", index=None).shape[0] >= len(mine) + 1


def test_cli_undo_quit_and_bad_input_never_trace(tmp_path, monkeypatch, capsys):
    from boardenvs.cli import main

    monkeypatch.setattr(sys, "stdin", io.StringIO("undo\nF3-E3\nundo\nF3-F4\nquit\n"))
    save = tmp_path / "g.json"
    assert main(["play", "quess_v0", "--seed", "3", "--out", str(save), "--option", "first_player=0"]) == 0
    out = capsys.readouterr().out
    assert "nothing to undo" in out and "took back your last turn" in out and "stopped before the end" in out
    moves = json.loads(save.read_text())["moves"]
    assert moves[0] == "F3-F4" and len(moves) == 2  # the undone F3-E3 and its reply are gone
    for bad in (
        ["play", "quess_v0", "--vs", "nosuchmodel"],
        ["play", "quess_v0", "--option", "max_turns=0"],
        ["play", "quess_v0", "--seat", "2"],
        ["replay", str(tmp_path / "missing.json")],
    ):
        assert main(bad) == 2
        err = capsys.readouterr().err
        assert err.startswith("error: ") and "Traceback" not in err
    (tmp_path / "bad.json").write_text(json.dumps({"game": "quess_v0", "options": {}, "moves": ["F3-E3", "F3-E3"]}))
    assert main(["replay", str(tmp_path / "bad.json")]) == 2
    assert "move 2 ('F3-E3')" in capsys.readouterr().err


def test_cli_list_shows_ids_players_and_options(capsys):
    from boardenvs.cli import main

    assert main(["list", "--all"]) == 0
    out = capsys.readouterr().out
    assert "quess_v0  Quess (boardenvs/Quess-v0): 2 players" in out and "superko_memory=4096" in out
    assert "contract_race_v0  Contract race (boardenvs/ContractRace-v0): 2, 3, 4, 5, 6 players" in out
    assert "teams=0" in out


def test_cli_window_mode_picks_a_clicked_move(tmp_path, monkeypatch, capsys):
    """--window: the legal moves are buttons beside the board; a click picks one."""
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    from boardenvs.interactive import Match

    match = Match("quess_v0", {"first_player": 0, "max_turns": 2}, seed=0, save=str(tmp_path / "w.json"), window=True)
    clicks = []

    def click(timeout_s=None):
        # press the button of the first legal move (the hit boxes of the last drawing)
        buttons = [(b, n) for b, n in match._hits if n not in ("undo", "quit", "more", "clear")]
        if not buttons:
            return None  # the final picture: the window is closed
        box, name = buttons[0]
        clicks.append(name)
        return ((box[0] + box[2]) // 2, (box[1] + box[3]) // 2)

    match.window.show = lambda frame: None  # headless: nothing to see
    monkeypatch.setattr(match.window, "wait_click", click)
    assert match.run() == 0
    moves = json.loads((tmp_path / "w.json").read_text())["moves"]
    assert moves[0] == clicks[0] == match.start.legal_moves()[0]


# --- the chess clock ----------------------------------------------------------------------


class FakeTime:
    def __init__(self):
        self.t = 50.0

    def __call__(self):
        return self.t


def first_legal(env):
    return int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0])


def test_clock_two_players_increment_flag_and_picture():
    clock = FakeTime()
    env = ChessClock(boardenvs.make("quagmire_v0", render_mode="ansi"), 10, increment=2, time_source=clock)
    env.reset(seed=0)
    assert env.infos["player_0"]["time_left"] == 10.0
    clock.t += 3
    env.step(first_legal(env))  # player_0: 10 - 3 + 2
    assert env.remaining == {"player_0": 9.0, "player_1": 10.0}
    assert env.infos["player_1"]["time_left"] == 10.0 and env.infos["player_0"]["time_left"] == 9.0
    clock.t += 4.5
    assert "[5.5 s]" in env.render() and "[9.0 s]" in env.render()  # player_1's clock is running
    clock.t += 8  # 12.5 s > 10 s: player_1's flag has fallen
    board_before = env.unwrapped.position().to_text()
    env.step(first_legal(env))
    assert env.unwrapped.position().to_text() != board_before  # the game ended ...
    assert env.unwrapped.position().turn == 1  # ... but the late move was not played
    assert env.unwrapped.end_reason == "timeout"
    assert env.rewards == {"player_0": 1.0, "player_1": -1.0}
    assert env.remaining["player_1"] == 0.0
    assert "game over (timeout): player_0 (x) wins" in env.render()


def test_clock_four_players_flag_eliminates_and_the_others_play_on():
    clock = FakeTime()
    env = boardenvs.make("contract_race_v0", num_players=4, clock_seconds=5, time_source=clock)
    env.reset(seed=2)
    assert env.agent_selection == "player_0"
    # player_0's turn is two decisions (CR-3): both are charged to its clock
    clock.t += 1
    env.step(first_legal(env))
    assert env.agent_selection == "player_0"
    clock.t += 1.5
    env.step(first_legal(env))
    assert env.remaining["player_0"] == pytest.approx(2.5)
    assert env.agent_selection == "player_1"
    clock.t += 6  # player_1 flags
    env.step(first_legal(env))
    assert env.terminations["player_1"] and env.rewards["player_1"] == -1.0
    assert not any(env.terminations[a] for a in ("player_0", "player_2", "player_3"))
    assert not env.unwrapped.position().alive(1) and env.unwrapped.end_reason is None
    env.step(None)  # player_1's dead step
    assert env.agent_selection == "player_2"  # play goes on without it
    clock.t += 1
    env.step(first_legal(env))
    assert env.remaining["player_2"] == pytest.approx(4.0)
    # the rest flag one by one: the last one left wins
    for loser in ("player_2", "player_3", "player_0"):
        while env.agent_selection != loser:
            env.step(None if env.unwrapped.is_done(env.agent_selection) else first_legal(env))
        clock.t += 10
        env.step(first_legal(env))
        if env.unwrapped.end_reason is not None:
            break
    pos = env.unwrapped.position()
    assert pos.is_terminal and pos.end_reason == "timeout"
    winners = [s for s in range(4) if pos.returns[s] == 1.0]
    assert len(winners) == 1 and pos.returns.count(-1.0) == 3
    assert boardenvs.Position.from_text(pos.to_text()) == pos  # a flag-decided ending round-trips


def test_clock_rejects_bad_settings():
    env = boardenvs.make("quess_v0")
    for bad in (0, -1, float("nan"), "5", {"player_0": 5}):
        with pytest.raises(ValueError):
            ChessClock(env, bad)
    with pytest.raises(ValueError, match="increment"):
        ChessClock(env, 5, increment=-1)


def test_cli_watch_records_and_picture_saves(tmp_path, capsys):
    from PIL import Image

    from boardenvs.cli import main

    save, gif = tmp_path / "w.json", tmp_path / "w.gif"
    assert (
        main(
            [
                "watch",
                "quagmire_v0",
                "--option",
                "radius=2",
                "--seed",
                "4",
                "--quiet",
                "--out",
                str(save),
                "--gif",
                str(gif),
            ]
        )
        == 0
    )
    record = json.loads(save.read_text())
    assert record["result"]["over"] and "game over" in capsys.readouterr().out
    assert iio.imread(gif, index=None).shape[0] == len(record["moves"]) + 1  # one decision per Quagmire turn
    png = tmp_path / "p.png"
    assert main(["picture", "quess_v0", "F3-E3", "--option", "first_player=0", "--out", str(png)]) == 0
    picture = np.asarray(Image.open(png).convert("RGB"))
    expected = boardenvs.position("quess_v0", first_player=0).play("F3-E3").render("rgb_array")
    np.testing.assert_array_equal(picture, expected)


@pytest.mark.parametrize("flatten", [False, True])
def test_cli_plays_against_a_saved_sb3_model(flatten, tmp_path, monkeypatch, capsys):
    """--vs MODEL: an SB3 MaskablePPO saved to a zip (untrained here: the
    point is loading it and asking it for masked actions)."""
    import gymnasium
    from sb3_contrib import MaskablePPO

    from boardenvs.cli import main
    from boardenvs.opponents import Batch, load_opponent

    env = gymnasium.make("boardenvs/Quagmire-v0", radius=2, flatten=flatten)
    MaskablePPO("MlpPolicy", env, seed=0, n_steps=64).save(tmp_path / "model")
    opponent = load_opponent(str(tmp_path / "model.zip"), trust=True)  # a zip runs code when loaded
    pos = boardenvs.position("quagmire_v0", radius=2)
    rng = np.random.default_rng(0)
    assert pos.action_mask()[opponent.act(Batch.of_position(pos, rng))[0]]
    monkeypatch.setattr(sys, "stdin", io.StringIO("@a1\n@e1\nquit\n"))
    save = tmp_path / "g.json"
    args = ["play", "quagmire_v0", "--option", "radius=2", "--vs", str(tmp_path / "model"), "--out", str(save)]
    assert main(args) == 2 and "--trust-files" in capsys.readouterr().err  # the zip is refused without trust
    assert main([*args, "--trust-files"]) == 0
    moves = json.loads(save.read_text())["moves"]
    assert moves[0] == "@a1" and moves[3] == "@e1" and len(moves) == 4  # QM-2: the model placed twice between
    assert "player_1 (o) plays" in capsys.readouterr().out


def test_single_agent_view_human_mode_headless(monkeypatch):
    import gymnasium

    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    env = gymnasium.make("boardenvs/Quess-v0", render_mode="human", seat=0)
    env.unwrapped.metadata["render_fps"] = 1000
    env.reset(seed=0)
    for _ in range(3):
        env.step(int(np.flatnonzero(env.unwrapped.action_masks())[0]))
    assert env.unwrapped._window.is_open
    env.close()
    assert env.unwrapped._window is None


def test_clock_shows_the_next_agent_fresh_in_a_picture_drawn_during_the_step():
    clock = FakeTime()
    env = boardenvs.make("quess_v0", render_mode="ansi", first_player=0, clock_seconds=10, time_source=clock)
    env.reset(seed=0)
    seen = []
    raw = env.unwrapped
    original = raw.step

    def step_and_look(action):
        original(action)
        seen.append(raw.render())  # what a human-mode window draws inside the step

    raw.step = step_and_look
    clock.t += 4
    env.step(first_legal(env))
    assert "player_0 = Light (T C S)  [6.0 s]" in seen[-1] and "player_1 = Dark (t c s)  [10.0 s]" in seen[-1]


def test_cli_window_mode_plays_by_clicking_cells(tmp_path, monkeypatch):
    """--window in games that map pixels to cells: F3 then E3 plays F3-E3
    (Quess); one click on d4 places there (Quagmire)."""
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    from boardenvs.interactive import Match

    def run(env_id, options, cells, centre):
        match = Match(env_id, options, seed=0, save=str(tmp_path / f"{env_id}.json"), window=True)
        match.window.show = lambda frame: None
        queue = [centre(match.pos.game, c) for c in cells]

        def click(timeout_s=None):
            if not queue:
                return None  # then the window closes: the game so far is saved
            x, y = queue.pop(0)
            return (x + match._board_x, y)

        monkeypatch.setattr(match.window, "wait_click", click)
        assert match.run() == 0
        return json.loads((tmp_path / f"{env_id}.json").read_text())["moves"]

    grid = GridPicture(rows=6, cols=6)
    quess = run(
        "quess_v0",
        {"first_player": 0},
        ["A1", "F3", "E3"],  # A1 fits no move: ignored
        lambda game, c: grid.centre("ABCDEF".index(c[0]), int(c[1]) - 1),
    )
    assert quess[0] == "F3-E3" and len(quess) == 2
    assert quess[0] == boardenvs.position("quess_v0", first_player=0).game.cell_at(*grid.centre(5, 2)) + "-E3"
    board = boardenvs.position("quagmire_v0").game.board
    quag = run("quagmire_v0", {}, ["d4", "a1"], lambda game, c: HexPicture(board).centre(board.cell(c)))
    assert quag[0] == "@d4" and quag[3] == "@a1"


@pytest.mark.parametrize("env_id", boardenvs.ENV_IDS)
def test_cli_replay_records_a_game_of_no_moves_as_one_frame(env_id, tmp_path, capsys):
    """A saved game of 0 moves replays and records: a one-frame GIF (Pillow
    takes a list of durations for animations only)."""
    from boardenvs.cli import main
    from boardenvs.records import game_record, new_game, save_record

    start, _ = new_game(env_id, {}, 0)
    record = tmp_path / "empty.json"
    save_record(game_record(start, 0, [], start), record)
    gif = tmp_path / "empty.gif"
    assert main(["replay", str(record), "--gif", str(gif)]) == 0
    assert "0 moves replayed: game not over" in capsys.readouterr().out
    frames = iio.imread(gif, index=None)
    assert frames.shape[0] == 1
    expected = rgb_frame(start.game, start.state)
    assert frames[0].shape[:2] == expected.shape[:2]  # the start position (GIF colours are a palette: close, not equal)
    assert np.abs(frames[0][..., :3].astype(int) - expected).mean() < 1.0


def test_a_game_of_no_moves_records_a_still_mp4(tmp_path):
    path = record_game("quagmire_v0", [], tmp_path / "empty.mp4", fps=2, end_pause=1.0, radius=2)
    assert iio.imread(path, index=None).shape[0] >= 1
    assert [p.name for p in tmp_path.iterdir()] == ["empty.mp4"]  # no temporary file left behind


def test_a_recording_that_fails_writes_nothing(tmp_path, monkeypatch):
    """Files are written whole or not at all: a writer that fails midway
    leaves neither a half-written GIF nor its temporary file."""
    import imageio.v3

    target = tmp_path / "g.gif"
    target.write_bytes(b"the old file")

    def broken(path, *args, **kwargs):
        with open(path, "wb") as f:
            f.write(b"GIF89a half")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(imageio.v3, "imwrite", broken)
    with pytest.raises(ValueError, match="cannot write animation .*g.gif.*No space left on device"):
        record_game("quagmire_v0", ["@a1"], target, radius=2)
    assert [p.name for p in tmp_path.iterdir()] == ["g.gif"] and target.read_bytes() == b"the old file"
    with pytest.raises(ValueError, match="the folder .*nope.* does not exist"):
        record_game("quagmire_v0", ["@a1"], tmp_path / "nope" / "g.gif", radius=2)


def test_record_game_refuses_a_float_action_like_position_play(tmp_path):
    """C-6: 1.5 is no action id, for Position.play and record_game alike
    (it was played as action 1)."""
    pos = boardenvs.position("quagmire_v0", radius=2)
    with pytest.raises(boardenvs.NotationError) as played:
        pos.play(1.5)
    for bad in (1.5, np.float64(1.0), True):
        with pytest.raises(boardenvs.NotationError) as recorded:
            record_game("quagmire_v0", [bad], tmp_path / "never.gif", radius=2)
        assert "a move is a notation string or an action id" in str(recorded.value)
    assert str(recorded.value).replace("True", "1.5") == str(played.value)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -float("inf"), "52", None, 49.0, np.float64(44.5)])
def test_clock_refuses_a_bad_time_reading_and_changes_nothing(bad):
    """A time source that returns NaN, an infinity, no number, or runs
    backwards (the last reading was 52.0) is refused at the reading with a
    ValueError naming the source and the reading; the clock and the game are
    as they were, and the game goes on once the source reads well again."""
    clock = FakeTime()
    env = ChessClock(boardenvs.make("quagmire_v0"), 10, increment=1, time_source=clock)
    env.reset(seed=0)
    clock.t += 2
    env.step(first_legal(env))  # player_0: 10 - 2 + 1
    before = (env.remaining.copy(), env._started, env.agent_selection, env.unwrapped.position(), dict(env.infos))
    good = clock.t
    clock.t = bad
    for call in (lambda: env.step(first_legal(env)), env.time_left, lambda: env.reset(seed=1)):
        with pytest.raises(ValueError) as info:
            call()
        message = str(info.value)
        assert "time source" in message and repr(clock) in message and repr(bad) in message
        if bad in (49.0, 44.5):
            assert "went backwards" in message and "after 52.0" in message
        assert (env.remaining, env._started, env.agent_selection, env.unwrapped.position(), env.infos) == before
    clock.t = good + 3
    env.step(first_legal(env))  # player_1: charged from the good reading before (3 s)
    assert env.remaining == {"player_0": 9.0, "player_1": 8.0}


def test_every_command_names_the_game_the_same_way(capsys):
    """The game is the env id, first, in every command that takes
    one; ``boardenvs train`` and ``boardenvs demo`` are the baselines'
    trainer and demo under the same command line, their --help included."""
    from boardenvs.cli import main

    for command in ("random-games", "demo", "play", "watch", "picture", "rules", "train", "rate"):
        with pytest.raises(SystemExit) as done:
            main([command, "--help"])
        assert done.value.code == 0
        usage = capsys.readouterr().out.split("\n\n")[0]
        assert f"boardenvs {command}" in usage and not re.search(r"--env\b|--game\b", usage), usage
        assert "{" in usage or "env" in usage or "game" in usage, usage  # the positional game
    assert main(["random-games", "tryasina_v0", "--games", "1"]) == 0 and "tryasina_v0" in capsys.readouterr().out
    with pytest.raises(SystemExit) as done:
        main(["train", "no_such_game"])
    assert done.value.code == 2 and "unknown game 'no_such_game'" in capsys.readouterr().err
