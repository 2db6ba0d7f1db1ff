"""Native Worker over onnxruntime: CPU, CUDA or DirectML, always with CPU as the fallback, reported."""
from __future__ import annotations

import logging
import os

import numpy as np

from retto.errors import BACKEND_UNAVAILABLE, INVALID_CONFIG, RettoError
from retto.models import sets as model_sets
from retto.models.files import load_source, read_charset, read_metadata
from retto.models.sets import LINE_ROLE, ROLES


log = logging.getLogger("retto")

# What to install when the requested device is missing from the installed onnxruntime build.
_INSTALL_HINT = {
    "cuda": "pip uninstall onnxruntime && pip install onnxruntime-gpu (and a matching CUDA/cuDNN)",
    "directml": "pip uninstall onnxruntime && pip install onnxruntime-directml (Windows only)",
}
_PROVIDER = {"cuda": "CUDAExecutionProvider", "directml": "DmlExecutionProvider"}

_shared_arena = []   # [True] once this process's CPU arena is registered with onnxruntime


def share_cpu_arena(ort, opts) -> None:
    """Every session of the process allocates its CPU tensors from one onnxruntime arena (registered once).

    With an arena per session (onnxruntime's default), each of det, cls, rec, the page-orientation model and the
    re-reading recogniser keeps the most it ever needed, grown by powers of two with every larger input: over a
    batch of varied pages their sum reached 1.2 GB in one process. One arena serves them in turn, since a page runs
    one model at a time. onnxruntime's memory pattern is off: it asks for each input shape's buffers as one block,
    and in one shared arena a page's 340 MB det block stopped fitting the space earlier pages left (200-page mix:
    1.17 GB with the pattern; 38 pages read twice: 0.65 GB without, flat over the second pass, no slower in CPU
    seconds). Turning the arena off
    costs 16 % more CPU (every run's buffers come fresh from the kernel) (docs/measurements/memory.md)."""
    if not _shared_arena:
        info = ort.OrtMemoryInfo("Cpu", ort.OrtAllocatorType.ORT_ARENA_ALLOCATOR, 0, ort.OrtMemType.DEFAULT)
        ort.create_and_register_allocator(info, ort.OrtArenaCfg({"arena_extend_strategy": 0}))   # powers of two
        _shared_arena.append(True)
    opts.add_session_config_entry("session.use_env_allocators", "1")
    opts.enable_mem_pattern = False


def parse_device(device: str, device_id: int | None = None):
    """'cpu' | 'cuda' | 'cuda:1' | 'directml[:id]' -> (kind, id)."""
    kind, _, ident = (device or "cpu").strip().lower().partition(":")
    if kind == "dml":
        kind = "directml"
    if kind not in ("cpu", "cuda", "directml"):
        raise RettoError(BACKEND_UNAVAILABLE, f"unknown device {device!r}: use cpu, cuda[:id] or directml[:id]")
    if ident:
        if not ident.isdigit():
            raise RettoError(BACKEND_UNAVAILABLE, f"device id in {device!r} must be a number")
        device_id = int(ident)
    return kind, int(device_id or 0)


def provider_list(kind: str, device_id: int, available: list) -> tuple:
    """The providers to request (CPU always last) and any warning about a device this build lacks."""
    cpu = "CPUExecutionProvider"
    if kind == "cpu":
        return [cpu], []
    name = _PROVIDER[kind]
    if name not in available:
        return [cpu], [f"{kind} requested but this onnxruntime has no {name} (it has {', '.join(available)}); "
                       f"running on CPU. To use {kind}: {_INSTALL_HINT[kind]}"]
    if kind == "cuda":
        opts = {"device_id": device_id, "arena_extend_strategy": "kNextPowerOfTwo",
                "cudnn_conv_algo_search": "EXHAUSTIVE", "do_copy_in_default_stream": True}
    else:
        opts = {"device_id": device_id}
    return [(name, opts), cpu], []


def threads_from_env() -> int | None:
    """$RETTO_THREADS: the intra-op thread count when none is given (unset: onnxruntime's, one per core). Several
    processes on one machine (a test run in two processes, a shared server) set it to 1, so their pools do not
    spin against each other."""
    value = os.environ.get("RETTO_THREADS", "").strip()
    if not value:
        return None
    if not value.isdigit() or int(value) < 1:
        raise RettoError(INVALID_CONFIG, f"RETTO_THREADS must be a whole number of threads (1 or more), not {value!r}")
    return int(value)


class OrtWorker:
    """det/cls/rec over three onnxruntime sessions, created once and reused.

    models: a model set name (`retto --list-models`; None = the default set). det/cls/rec: a path or bytes that
    replaces that role of the set (its dictionary still comes from the set, unless the rec model carries one)."""

    def __init__(self, det=None, cls=None, rec=None, device: str = "cpu", device_id: int | None = None,
                 threads: int | None = None, strict_device: bool = False, models_dir=None, models: str | None = None):
        try:
            import onnxruntime as ort
        except ImportError as exc:  # the pipeline itself never needs it
            raise RettoError(BACKEND_UNAVAILABLE,
                             "onnxruntime is not installed: pip install 'retto[native]'") from exc
        self.model_set = model_sets.load(models, models_dir)
        kind, dev_id = parse_device(device, device_id)
        providers, self.warnings = provider_list(kind, dev_id, ort.get_available_providers())
        if self.warnings and strict_device:
            raise RettoError(BACKEND_UNAVAILABLE, self.warnings[0])
        opts = ort.SessionOptions()
        opts.log_severity_level = 3
        threads = threads or threads_from_env()
        if threads:
            opts.intra_op_num_threads = int(threads)
        opts.inter_op_num_threads = 1
        share_cpu_arena(ort, opts)
        self.threads = threads
        self._opts, self._providers, self._strict = opts, providers, strict_device
        self._models_dir, self._ort_version = models_dir, ort.__version__
        self.versions, self.backend, self._sessions = {}, {}, {}
        custom = {"det": det, "cls": cls, "rec": rec}
        model_bytes = {}
        # A set that reads lines whole (line_rec, Tesseract) has no "rec" model.
        for role in [r for r in ROLES if r in self.model_set.files or custom[r] is not None]:
            if custom[role] is None:
                data, version = model_sets.read_file(self.model_set, role, models_dir), self.model_set.version(role)
            else:
                data, version = load_source(role, custom[role])
            model_bytes[role] = data
            self._open(role, data, version)
        # The set's optional models (page orientation, the re-reading recogniser) open on first use: a config
        # that leaves their stage off never pays for them.
        self.roles = set(model_bytes) | set(self.model_set.model_roles)
        self._line_reader = self._open_line_reader() if LINE_ROLE in self.roles else None
        first = providers[0][0] if isinstance(providers[0], tuple) else providers[0]
        # The optional models are reported before they open, as every result must say what ran (line_rec: above).
        for role in self.roles - set(ROLES) - {LINE_ROLE}:
            self.backend[role] = f"onnxruntime {ort.__version__} {first}"
            self.versions[role] = self.model_set.version(role)
        self.charset = (self._charset(model_bytes["rec"], custom["rec"] is not None, models_dir)
                        if "rec" in model_bytes else [])
        for w in self.warnings:
            log.warning(w)
        log.info("retto providers: %s", self.backend)

    def _open_line_reader(self):
        """Tesseract over the set's traineddata, each file checked against its sha256 first (native/
        tesseract_lines.py)."""
        from retto.native.tesseract_lines import TesseractLines
        for role in self.model_set.traineddata_roles:
            model_sets.read_file(self.model_set, role, self._models_dir)
        reader = TesseractLines(model_sets.set_dir(self.model_set, self._models_dir) / "tessdata",
                                self.model_set.line_rec["languages"])
        self.backend[LINE_ROLE] = reader.backend
        self.versions[LINE_ROLE] = self.model_set.version(LINE_ROLE)
        return reader

    def _open(self, role: str, data: bytes, version: str) -> None:
        import onnxruntime as ort
        sess = ort.InferenceSession(data, sess_options=self._opts, providers=self._providers)
        used = sess.get_providers()
        first = self._providers[0]
        wanted = first[0] if isinstance(first, tuple) else first
        if used[0] != wanted:
            msg = f"{role}: {wanted} could not start, onnxruntime fell back to {used[0]}"
            if self._strict:
                raise RettoError(BACKEND_UNAVAILABLE, msg)
            self.warnings.append(msg)
        self._sessions[role] = (sess, sess.get_inputs()[0].name)
        self.versions[role] = version
        self.backend[role] = f"onnxruntime {self._ort_version} {used[0]}"

    def _charset(self, rec_bytes: bytes, custom_rec: bool, models_dir) -> list:
        """A custom rec model that carries its own dictionary uses it; otherwise the set says where it is."""
        if custom_rec and "character" in read_metadata(rec_bytes):
            return read_charset(rec_bytes)
        return self._set_charset("rec", rec_bytes)

    def _set_charset(self, role: str, model: bytes) -> list:
        spec = self.model_set.dictionary_of(role)
        dictionary = None
        if spec.get("from") == "file":
            dictionary = model_sets.read_file(self.model_set, spec["role"], self._models_dir)
        return self.model_set.charset(model, dictionary, role=role)

    def extra_charsets(self) -> dict:
        """role -> dictionary for the set's other recognisers (the re-reading one), read without opening it."""
        if "reread" not in self.model_set.files:
            return {}
        spec = self.model_set.dictionary_of("reread") or {}
        model = (model_sets.read_file(self.model_set, "reread", self._models_dir)
                 if spec.get("from") == "rec-metadata" else b"")
        return {"reread": self._set_charset("reread", model)}

    def run(self, role: str, x: np.ndarray):
        if role == LINE_ROLE and self._line_reader is not None:   # (a grey line, mode) in, text and words out
            grey, mode = x
            return self._line_reader.read(grey, mode)
        return self._session_run(role, x)   # very long rec lines come in windows (Pipeline.infer_best)

    def run_all(self, role: str, x: np.ndarray) -> list:
        """Every output of the model, in its order (the layout model has 8, the table model 2)."""
        return self._session_run(role, x, every=True)

    def _session_run(self, role: str, x: np.ndarray, every: bool = False):
        if role not in self._sessions:
            if role not in self.roles:
                raise RettoError(BACKEND_UNAVAILABLE, f"model set {self.model_set.name} has no {role} model")
            self._open(role, model_sets.read_file(self.model_set, role, self._models_dir),
                       self.model_set.version(role))
        sess, name = self._sessions[role]
        out = sess.run(None, {name: np.ascontiguousarray(x, dtype=np.float32)})
        return out if every else out[0]

    def det(self, x):
        return self.run("det", x)

    def cls(self, x):
        return self.run("cls", x)

    def rec(self, x):
        return self.run("rec", x)

    def session(self, config=None):
        """A pipeline Session over this worker, with the set's settings unless `config` (a Config, or a partial
        dict applied over the set's settings) says otherwise; it reports providers, versions and warnings."""
        from retto.config import Config
        from retto.pipeline.session import Session
        if not isinstance(config, Config):
            config = self.model_set.make_config(config)
        return Session(self, self.charset, config=config, backend=self.backend, versions=self.versions,
                       warnings=self.warnings, model_set=self.model_set.name, extra_charsets=self.extra_charsets())
