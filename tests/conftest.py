"""The tests' toy game is registered like a real one (one line), so every
generic face and the parametrised suite (test_all_envs.py) reach it by id."""
import contract_game

from boardenvs import register

register(contract_game.ContractRaceGame)
