"""Recordings: a whole game as an animated GIF or an MP4.

Three sources, one picture per decision (the pictures of
``boardenvs/render.py``: board, legend, turn, last move, result), the last one
held ``end_pause`` seconds:

* a live AEC env: wrap it in :class:`Recorder` (it keeps the frame after
  ``reset`` and after every decision; chance outcomes are resolved inside the
  env and show in the next frame) and call :meth:`Recorder.save`;
* a list of moves: :func:`record_game` (``"quess_v0"`` or a Position, the
  moves in notation or as action ids; whole turns are split into their
  decisions);
* a ``make_vec`` row: :func:`record_vec_row` steps the vector env (random
  legal actions, or your ``policy(obs, masks) -> actions``) until that row's
  game ends.

Files are written by imageio (``boardenvs[render]``: imageio for GIF through
Pillow, imageio-ffmpeg for MP4), chosen by the file's extension.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from pettingzoo.utils.wrappers import BaseWrapper

from .. import engine as E
from ..errors import install_line
from ..files import output_path, write_atomically
from ..render import player_notes, rgb_frame
from ..spec import is_action_int

FORMATS = (".gif", ".mp4")


def _imageio():
    try:
        import imageio.v3 as iio
    except ImportError as exc:
        raise ImportError(f"saving animations needs imageio: {install_line('render')}") from exc
    return iio


def save_animation(frames, path, fps: float = 2.0, end_pause: float = 2.0) -> Path:
    """Write ``frames`` (``uint8 (H, W, 3)`` arrays of one size) to ``path``:
    an animated GIF (looping, each frame ``1/fps`` s, the last held
    ``end_pause`` s more) or an MP4 (H.264 at ``fps``, the last frame repeated
    for the pause; sizes padded to multiples of 16).  A single frame (a
    game of no moves) makes a one-frame GIF / a still MP4.  The file is
    written whole or not at all; a folder that does not exist is a
    ValueError naming the file."""
    path = Path(path)
    ext = path.suffix.lower()
    if ext not in FORMATS:
        raise ValueError(f"an animation is saved as {' or '.join(FORMATS)}, got {path.name!r}")
    output_path(path, "animation")
    frames = [np.asarray(f, dtype=np.uint8) for f in frames]
    if not frames:
        raise ValueError("no frames to save")
    if any(f.shape != frames[0].shape or f.ndim != 3 or f.shape[2] != 3 for f in frames):
        raise ValueError("every frame must be uint8 (H, W, 3) of the same size")
    if not fps > 0 or not end_pause >= 0:
        raise ValueError(f"fps must be > 0 and end_pause >= 0, got {fps!r}, {end_pause!r}")
    iio = _imageio()
    if ext == ".gif":
        step_ms = 1000.0 / fps
        durations = [step_ms] * (len(frames) - 1) + [step_ms + 1000.0 * end_pause]
        # Pillow takes a list of durations for an animation only: one frame gets a number
        duration = durations if len(frames) > 1 else durations[0]
        write_atomically(
            path,
            lambda tmp: iio.imwrite(
                tmp, np.stack(frames), extension=".gif", plugin="pillow", duration=duration, loop=0
            ),
            "animation",
        )
        return path
    try:
        import imageio_ffmpeg  # noqa: F401
    except ImportError as exc:
        raise ImportError(f"saving MP4 needs imageio-ffmpeg: {install_line('render')}") from exc
    import imageio.v2 as iio2

    h, w = frames[0].shape[:2]
    ph, pw = -h % 16, -w % 16
    padded = [np.pad(f, ((0, ph), (0, pw), (0, 0)), constant_values=255) for f in frames]
    padded += [padded[-1]] * int(round(end_pause * fps))

    def write(tmp):
        with iio2.get_writer(
            tmp,
            format="FFMPEG",
            mode="I",
            fps=fps,
            codec="libx264",
            quality=7,
            pixelformat="yuv420p",
            macro_block_size=16,
        ) as writer:
            for f in padded:
                writer.append_data(f)

    write_atomically(path, write, "animation")
    return path


class Recorder(BaseWrapper):
    """Keeps the picture after ``reset`` and after every decision of an AEC
    env (any render mode; pictures of the raw env's game, with its notes such
    as a chess clock); :meth:`save` writes them.  ``frames`` holds the
    current game's pictures (a reset starts a new list), ``steps`` its
    positions with the decision before each (what an HTML page shows)."""

    def __init__(self, env):
        super().__init__(env)
        if "rgb_array" not in self.unwrapped.game.render_modes:
            raise ValueError(f"{self.unwrapped.game.env_id} has no picture to record")
        self.frames: list[np.ndarray] = []

    def _snap(self):
        raw = self.unwrapped
        self.frames.append(rgb_frame(raw.game, raw.state_snapshot(), raw.seat_notes()))

    def reset(self, seed=None, options=None):
        super().reset(seed=seed, options=options)
        self.frames = []
        self.steps = [(self.unwrapped.position(), None)]  # (what .save("x.html") shows)
        self._snap()

    def step(self, action):
        raw = self.unwrapped
        done = raw.is_done(self.agent_selection)
        before = None if done else raw.position()
        super().step(action)
        if not done:  # a dead agent's None step changes nothing
            decision = None
            if before.to_move >= 0 and is_action_int(action) and 0 <= int(action) < before.game.num_actions:
                decision = (before.game.seat_name(before.to_move), before.action_to_move(int(action)), int(action))
            self.steps.append((raw.position(), decision))
            self._snap()

    def save(self, path, fps: float = 2.0, end_pause: float = 2.0) -> Path:
        """Write the current game's frames to ``path`` (``.gif`` or ``.mp4``, see :func:`save_animation`),
        or, for ``.html``, the page of the game to step through
        (:mod:`boardenvs.wrappers.html_replay`: the game played from the
        start of this episode, its decisions in notation)."""
        if _is_html(path):
            from .html_replay import steps_page, write_page

            output_path(path, "replay page", (".html", ".htm"))
            return write_page(steps_page(self.steps), path)
        return save_animation(self.frames, path, fps=fps, end_pause=end_pause)

    def __str__(self):
        return str(self.env)


def _is_html(path) -> bool:
    return isinstance(path, (str, Path)) and Path(path).suffix.lower() in (".html", ".htm")


def position_frames(start, moves, roll: bool = False, players=None) -> list[np.ndarray]:
    """The pictures of a game from Position ``start``: the start, then one
    after every decision of ``moves`` (notation, whole turns, or action ids;
    :func:`boardenvs.records.replay_decisions`).
    Chance outcomes listed in ``moves`` are played without a frame of their
    own (they show in the next one); with ``roll``, chance nodes left open
    are rolled by the positions' own seeded die.  ``players``: who plays
    each seat (names, one per seat), shown beside the seats in the legend."""
    from ..records import replay_decisions

    notes = player_notes(start.game, players)
    return [rgb_frame(pos.game, pos.state, notes) for pos, _ in replay_decisions(start, moves, roll)]


def record_game(game, moves, path, *, fps: float = 2.0, end_pause: float = 2.0, players=None, **options) -> Path:
    """Save the game of ``moves`` from the start of ``game`` (an env id, with
    ``options``, or a Position) as a GIF, an MP4 or a page to step through
    in a browser (``.html``; :mod:`boardenvs.wrappers.html_replay`), by
    ``path``'s extension.
    ``players``: who played each seat (one name per seat), shown in the
    pictures' legend."""
    from ..api import position
    from ..position import Position

    start = game if isinstance(game, Position) else position(game, **options)
    if _is_html(path):  # a page to step through (boardenvs.wrappers.html_replay)
        from .html_replay import save_replay_html

        return save_replay_html(start, moves, path, players=players)
    ext = Path(path).suffix.lower() if isinstance(path, (str, Path)) else ""
    if ext not in FORMATS:
        raise ValueError(f"a recording is saved as {', '.join(FORMATS)} or .html, got {path!r}")
    output_path(path, "animation")  # before the frames are drawn
    frames = position_frames(start, moves, players=players)
    return save_animation(frames, path, fps=fps, end_pause=end_pause)


def record_vec_row(
    vec, row: int, path, *, policy=None, seed=None, max_steps: int = 100_000, fps: float = 2.0, end_pause: float = 2.0
) -> Path:
    """Step the ``make_vec`` env ``vec`` from a reset (``seed``) until row
    ``row``'s first game ends, and save that game (a frame per decision).
    Actions: ``policy(obs, masks) -> actions`` on the whole batch, or the
    vector env's random legal actions."""
    if not 0 <= row < vec.num_envs:
        raise ValueError(f"row must be 0..{vec.num_envs - 1}, got {row!r}")
    obs, _ = vec.reset(seed=seed)
    frames = []
    for _ in range(max_steps):
        before = vec.position(row)
        frames.append(rgb_frame(before.game, before.state))
        actions = vec.random_actions() if policy is None else np.asarray(policy(obs["observation"], obs["action_mask"]))
        obs, _, term, trunc, _ = vec.step(actions)
        if term[row] or trunc[row]:
            after = before.play(int(actions[row]))  # the row itself was reset in place
            while after.is_chance:  # cannot happen at an end, kept for safety
                after = after.play(int(E.sample_probs(after.state, after.game.chance_probs(after.state))))
            frames.append(rgb_frame(after.game, after.state))
            return save_animation(frames, path, fps=fps, end_pause=end_pause)
    raise RuntimeError(f"row {row}'s game did not end within {max_steps} steps")
