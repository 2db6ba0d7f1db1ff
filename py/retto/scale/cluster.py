"""Connecting to Ray: an existing cluster (`--ray ADDRESS`), or a local one started for this run and stopped after.

A local Ray keeps everything in a temporary folder of ours (never Ray's default one or ~/.ray), has no dashboard
and no usage reporting (nothing leaves the machine), and is shut down and its folder removed at the end.
"""
from __future__ import annotations

import os
import secrets
import shutil
import tempfile
from pathlib import Path

# Ray puts Unix sockets at <temp>/session_<date>_<time>_<us>_<pid>/sockets/plasma_store; a socket path may not be
# longer than 107 bytes, and the session part takes up to about 70 of them.
MAX_TEMP_DIR_CHARS = 36


class RayUnavailable(Exception):
    """Ray cannot be used; the message says why in words."""


class RayConnection:
    def __init__(self, address: str | None = None, temp_dir: str | None = None, cpus: int | None = None,
                 object_store_mb: int = 256):
        os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")   # Ray would otherwise report usage online
        if not address and not any(k in os.environ for k in ("RAY_AUTH_MODE", "RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH")):
            # A local Ray turns token auth on and saves a new token in ~/.ray/auth_token; give it one in the
            # environment instead (the raylet, the workers and any driver started from here inherit it).
            os.environ["RAY_AUTH_MODE"], os.environ["RAY_AUTH_TOKEN"] = "token", secrets.token_hex(32)
        try:
            import ray
        except ImportError as exc:
            raise RayUnavailable("Ray is not installed: pip install 'retto[ray]'") from exc
        self.ray, self.owned, self.temp_dir, self.remove_temp = ray, False, None, False
        if ray.is_initialized():   # a caller (a test, a notebook) already connected: use it, leave it running
            return
        if address:
            try:
                ray.init(address=address, log_to_driver=True, logging_level="WARNING")
            except Exception as exc:
                raise RayUnavailable(f"cannot connect to the Ray cluster at {address}: {exc}") from exc
            self.owned = True
            return
        self.temp_dir, self.remove_temp = self._temp(temp_dir)
        try:
            ray.init(num_cpus=cpus or os.cpu_count() or 1, _temp_dir=self.temp_dir, include_dashboard=False,
                     object_store_memory=object_store_mb * 1024 * 1024, log_to_driver=True,
                     logging_level="WARNING")
        except Exception as exc:
            self._drop_temp()
            raise RayUnavailable(f"a local Ray could not start ({type(exc).__name__}: {exc}); use --ray ADDRESS "
                                 "for a running cluster, or `retto --jobs N` on this machine without Ray") from exc
        self.owned = True

    @staticmethod
    def _temp(temp_dir: str | None) -> tuple[str, bool]:
        if temp_dir:
            path = Path(temp_dir).resolve()
            if len(str(path)) > MAX_TEMP_DIR_CHARS:
                raise RayUnavailable(f"--ray-temp {path} is {len(str(path))} characters long; Ray's socket paths "
                                     f"inside it would exceed the 107-byte limit: use a folder of at most "
                                     f"{MAX_TEMP_DIR_CHARS} characters")
            path.mkdir(parents=True, exist_ok=True)
            return str(path), False
        return tempfile.mkdtemp(prefix="retto-ray-"), True

    def cpus(self) -> int:
        return int(self.ray.cluster_resources().get("CPU", 0))

    def gpus(self) -> int:
        return int(self.ray.cluster_resources().get("GPU", 0))

    def close(self) -> None:
        if self.owned:
            self.ray.shutdown()
            self.owned = False
        self._drop_temp()

    def _drop_temp(self) -> None:
        if self.temp_dir and self.remove_temp:
            shutil.rmtree(self.temp_dir, ignore_errors=True)
