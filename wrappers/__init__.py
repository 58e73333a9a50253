"""Wrappers over the envs (installed as ``boardenvs.wrappers``)."""
from .clock import ChessClock
from .recording import Recorder, record_game, save_animation

__all__ = ["ChessClock", "Recorder", "record_game", "save_animation"]
