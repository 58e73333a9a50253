"""``boardenvs play``: a person against an opponent, in the terminal or a window.

In the terminal the board is printed before each of your turns (ANSI text:
coordinates, legend, whose turn, last move); you type a whole turn in the
rules' notation, or a command:

``help``   what you can type      ``moves``  the legal moves
``undo``   take back your last turn (and the replies to it)
``board``  print the board again  ``quit``   stop (the game so far is saved)

A move that is malformed or illegal gets a message and you try again.  With
``--window`` the picture is shown in a pygame window with the legal moves as
buttons beside it (click one; ``undo`` / ``quit`` are buttons too).  In games
whose picture maps pixels to cells (``Game.cell_at``: Quess, Quagmire) you
can click cells instead: each click narrows the buttons to the moves whose
notation names the clicked cells in that order, and the move is played as
soon as only one is left and complete (``F3`` then ``E3``; ``@d4`` in one
click; a Quagmire walk that a run could extend is then picked from the
buttons or by clicking the run's last cell).

Chance outcomes are drawn from the seeded generator (``--seed``), and every
game is saved as JSON (game, options, seed, moves: every turn in notation,
chance outcomes included) that ``boardenvs replay`` plays back exactly.
"""

from __future__ import annotations

import secrets
import sys
import time

from .spec import check_seat

HELP = """Type a move in the rules' notation (legal now: {example}), or:
  moves  list the legal moves      undo   take back your last turn
  board  show the board again      help   this text
  quit   stop here (the game so far is saved)"""


class Match:
    def __init__(
        self,
        env_id,
        options,
        seed=None,
        seat=0,
        opponent="random",
        save=None,
        window=False,
        opening=(),
        stdin=None,
        stdout=None,
        trust=False,
    ):
        from .files import output_path
        from .opponents import Opponent, load_opponent
        from .records import new_game

        # where the game will be saved: refused now (a folder that does not exist), not after the game
        self.save_path = str(output_path(save or f"{env_id}-{time.strftime('%Y%m%d-%H%M%S')}.json", "--out"))
        self.seed = int(secrets.randbits(32)) if seed is None else int(seed)
        self.pos, self.rng = new_game(env_id, options, self.seed)
        self.start = self.pos
        check_seat(seat, self.pos.game.num_players, "--seat", f"{env_id}: ", allow_random=False)
        self.seat = seat
        # a name or a path (trust: --trust-files), or an Opponent already loaded
        self.opponent = opponent if isinstance(opponent, Opponent) else load_opponent(opponent, env_id, trust=trust)
        self.env_id = env_id
        self.stdin = stdin or sys.stdin
        self.out = stdout or sys.stdout
        self.moves: list[str] = []
        for move in opening:
            self.pos = self.pos.play(move)
            self.moves.append(move)
        self.window = None
        if window:
            from .render import Window

            self.window = Window(f"boardenvs play: {self.pos.game.title}", fps=0)
        self._page = 0
        self._clicked: list[str] = []

    # -- output -----------------------------------------------------------------
    def say(self, text: str = "") -> None:
        print(text, file=self.out, flush=True)

    def who(self, seat: int) -> str:
        from .render import _who

        return _who(self.pos.game, seat)

    # -- the loop -----------------------------------------------------------------
    def run(self) -> int:
        from .matches import play_turn

        game = self.pos.game
        self.say(
            f"{game.title} ({self.env_id}), seed {self.seed}: you are {self.who(self.seat)}. "
            "Type a move in notation, or help, moves, undo, quit."
        )
        stack = []  # (position, moves so far) at each of your turns: what undo goes back to
        quit_early = False
        while not self.pos.is_terminal:
            pos = self.pos
            if pos.is_chance:  # the seeded die: the position's own generator (seeded by the game's seed)
                self.pos = pos.roll()
                move = pos.action_to_move(self.pos.last_action)
                self.moves.append(move)
                self.say(f"chance: {move}")
                continue
            if pos.to_move != self.seat:
                self.pos, move = play_turn(self.opponent, pos, self.rng)
                self.moves.append(move)
                self.say(f"{self.who(pos.to_move)} plays {move}")
                continue
            if not stack or stack[-1][0] is not pos:
                stack.append((pos, len(self.moves)))
                self.show()
            line = self.read()
            if line is None or line in ("quit", "exit", "q"):
                quit_early = True
                break
            if not line:
                continue
            if line in ("help", "?", "h"):
                self.say(HELP.format(example=", ".join(pos.legal_moves()[:3])))
            elif line in ("moves", "legal", "m"):
                self.say("legal: " + ", ".join(pos.legal_moves()))  # a whole turn may hold spaces (Quicksand)
            elif line == "board":
                self.show()
            elif line == "undo":
                if len(stack) < 2:
                    self.say("nothing to undo: this is your first turn")
                else:
                    stack.pop()
                    self.pos, n = stack[-1]
                    del self.moves[n:]
                    self.say("took back your last turn")
                    self.show()
            else:
                try:
                    after = pos.play(line)
                except ValueError as exc:  # NotationError / IllegalMoveError: say why, try again
                    self.say(f"not a legal move: {exc}")
                    self.say("type 'moves' for the legal moves, 'help' for the commands")
                    continue
                move = game.actions_to_move(pos.state, pos.move_to_actions(line))
                self.moves.append(move)
                self.pos = after
        self.show(final=True)
        if self.pos.is_terminal:
            from .render import result_text

            mine = self.pos.returns[self.seat]
            verdict = "you won" if mine > 0 else "you lost" if mine < 0 else "no winner"
            self.say(f"{result_text(game, self.pos.state)}: {verdict}")
        elif quit_early:
            self.say("stopped before the end")
        self.finish()
        return 0

    def finish(self) -> None:
        from .records import game_record, save_record

        path = save_record(game_record(self.start, self.seed, self.moves, self.pos), self.save_path)
        self.say(f"game saved to {path} ({len(self.moves)} moves); play it back with: boardenvs replay {path}")
        if self.window is not None:
            self.window.close()

    def show(self, final: bool = False) -> None:
        if self.window is not None:
            self._draw_window([] if final else self.pos.legal_moves())
            if final:
                self.window.wait_click(timeout_s=120)  # the end stays on screen until a click
            return
        self.say(str(self.pos))

    def read(self):
        """Your next input, stripped; None at the end of input."""
        if self.window is not None:
            return self._click()
        self.out.write("your move> ")
        self.out.flush()
        line = self.stdin.readline()
        if not line:
            self.say()
            return None
        if not getattr(self.stdin, "isatty", lambda: False)():
            self.say(line.strip())  # echo piped input, so the transcript reads as a dialogue
        return line.strip()

    # -- the window: click cells or a legal move -------------------------------
    BUTTON_W, BUTTON_H, COLUMNS = 118, 24, 3

    def _buttons(self, moves, height):
        """[(box, command)] of the panel right of the board."""
        per_column = max(1, (height - 3 * self.BUTTON_H - 16) // self.BUTTON_H)
        per_page = per_column * self.COLUMNS
        pages = max(1, -(-len(moves) // per_page))
        self._page %= pages
        shown = moves[self._page * per_page : (self._page + 1) * per_page]
        out = []
        for k, move in enumerate(shown):
            col, row = divmod(k, per_column)
            x, y = 8 + col * self.BUTTON_W, 8 + row * self.BUTTON_H
            out.append(((x, y, x + self.BUTTON_W - 6, y + self.BUTTON_H - 4), move))
        y = height - self.BUTTON_H - 8
        controls = ["undo", "quit"] + (["more"] if pages > 1 else []) + (["clear"] if self._clicked else [])
        for k, name in enumerate(controls):
            x = 8 + k * (self.BUTTON_W * 3 // 4)
            out.append(((x, y, x + self.BUTTON_W * 3 // 4 - 6, y + self.BUTTON_H - 4), name))
        return out

    def _candidates(self):
        """The legal moves whose notation names the clicked cells, in order."""
        import re

        picked = [c.lower() for c in self._clicked]
        return [m for m in self.pos.legal_moves() if re.findall(r"[a-z]+[0-9]+", m.lower())[: len(picked)] == picked]

    def _draw_window(self, moves) -> None:
        import numpy as np
        from PIL import Image, ImageDraw

        from .render import PALETTE, font, rgb_frame

        game = self.pos.game
        frame = rgb_frame(game, self.pos.state)
        h, w = frame.shape[:2]
        self._board_x = (w - np.asarray(game.render_rgb(self.pos.state)).shape[1]) // 2
        panel_w = 16 + self.COLUMNS * self.BUTTON_W
        image = Image.new("RGB", (w + panel_w, h), PALETTE["panel"])
        image.paste(Image.fromarray(frame), (0, 0))
        draw = ImageDraw.Draw(image)
        self._hits = []
        for (x0, y0, x1, y1), name in self._buttons(moves, h):
            box = (x0 + w, y0, x1 + w, y1)
            draw.rectangle(box, fill=PALETTE["cell"], outline=PALETTE["edge"])
            draw.text((box[0] + 6, box[1] + 3), name, fill=PALETTE["text"], font=font(13))
            self._hits.append((box, name))
        hint = f"clicked: {' '.join(self._clicked)}" if self._clicked else "click cells on the board, or a move"
        if moves:
            draw.text((w + 8, h - 2 * self.BUTTON_H - 8), hint, fill=PALETTE["text"], font=font(13))
        self.window.show(np.asarray(image, dtype=np.uint8))

    def _click(self):
        """The next command from the window: a move (a button, or the one
        move the clicked cells complete), ``undo`` or ``quit``; None if the
        window was closed."""
        game = self.pos.game
        while True:
            moves = self._candidates()
            self._draw_window(moves)
            at = self.window.wait_click()
            if at is None:
                return None
            hit = next((name for (x0, y0, x1, y1), name in self._hits if x0 <= at[0] <= x1 and y0 <= at[1] <= y1), None)
            if hit == "more":
                self._page += 1
                continue
            if hit is not None:
                self._page, self._clicked = 0, []
                if hit == "clear":
                    continue
                return hit
            cell = game.cell_at(at[0] - self._board_x, at[1])
            if cell is None:
                continue
            self._page = 0
            self._clicked.append(cell)
            if not self._candidates():  # a click that fits no move starts again from that cell
                self._clicked = [cell]
                if not self._candidates():
                    self._clicked = []
                    continue
            moves = self._candidates()
            import re

            complete = [m for m in moves if len(re.findall(r"[a-z]+[0-9]+", m.lower())) == len(self._clicked)]
            if len(moves) == 1 and complete:
                self._clicked = []
                return moves[0]
