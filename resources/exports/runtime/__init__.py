"""The SPADE Workbench's runtime for an exported environment: see ``game.py`` and ``process.py``."""

from .game import GameLoadError, SpadeGame, first_boxed_content, text_action
from .process import ProcessGame, ProcessGameError

__all__ = ["GameLoadError", "ProcessGame", "ProcessGameError", "SpadeGame", "first_boxed_content", "text_action"]
