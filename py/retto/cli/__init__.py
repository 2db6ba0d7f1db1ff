"""The `retto` command (cli.main), its flags (cli.args), where results go (cli.sink), progress and interrupts
(cli.progress), and `retto models` (cli.models_command)."""
from retto.cli.main import main

__all__ = ["main"]
