"""Writing hand-built positions in the text form (``Position.from_text``)."""

from __future__ import annotations


def header(
    env_id: str, options: str, to_move="player_0", turn=0, status="playing", reason="-", alive="1 1", returns="0 0"
) -> list[str]:
    """The generic header lines of a position text (see ``Game.to_text``)."""
    return [
        f"game: {env_id}",
        f"options: {options}",
        f"to_move: {to_move}",
        f"turn: {turn}",
        f"status: {status}",
        f"reason: {reason}",
        f"alive: {alive}",
        f"returns: {returns}",
    ]
