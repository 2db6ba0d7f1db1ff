"""Model sets: one data file per set (py/retto/sets/<name>.json, package data) is the single source of every model fact.

A set file holds, per role (det, cls, rec and an optional dictionary file), where the file comes from (a registry
package, pinned by sha256), its own sha256 and size; where the recognition dictionary comes from (the rec model's
ONNX metadata or a shipped file); the input constraints; whether WebGL can run it; and the pipeline settings that
differ from the reference defaults. Python derives its Config from it; the browser gets the same facts through
the asset manifest (scripts/build/assemble_web_assets.py) and hands the set back to Python as JSON.

Pure Python (no onnxruntime), so it also runs in Pyodide. The fetched files live in <models dir>/<name>/ (see
models.default_models_dir; `retto models fetch` puts them there).
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from retto.config import Config
from retto.errors import INVALID_CONFIG, MODEL_INTEGRITY, MODEL_MISSING, RettoError
from retto.models.files import default_models_dir, read_charset, verify

ROLES = ("det", "cls", "rec")           # the models every set has
OPTIONAL_ROLES = ("orient", "reread", "layout", "table")   # page orientation (4 classes), the re-reading
# recogniser, page regions (PicoDet CDLA) and table structure (SLANet): stages/
DICT_ROLE = "dict"                      # the rec dictionary file; a re-reading recogniser's is "reread_dict"
LINE_ROLE = "line_rec"                  # a whole-line recogniser (Tesseract LSTM) in place of the CTC "rec" model:
# grey line image in, text and word boxes out (pipeline/worker.py). Its files are one traineddata per language.
TRAINEDDATA_PREFIX = "traineddata_"     # files role "traineddata_rus" -> tessdata/rus.traineddata


@dataclass
class ModelSet:
    name: str
    label: str                 # in words a person understands ("Chinese & English"), shown in every chooser
    summary: str
    languages: list
    order: int                 # position in lists (smaller first)
    default: bool
    sources: dict              # source name -> {registry, package, version, file, sha256, license}
    files: dict                # role -> {from, path (inside the package), size, sha256, version}
    dictionary: dict           # {"from": "rec-metadata", "key"} or {"from": "file", "role": "dict"}
    inputs: dict               # role -> shape constraints (cls/rec height and width)
    webgl: dict                # {"supported": bool, "reason"?}
    config: dict = field(default_factory=dict)   # overrides of the reference Config, by section
    reread_dictionary: dict | None = None        # where the "reread" recogniser's dictionary is (like dictionary)
    line_rec: dict | None = None   # {"engine": "tesseract", "languages": "rus+eng"}: lines read whole (LINE_ROLE)
    browser: dict | None = None    # {"supported": false, "reason"}: a set the browser cannot run yet (None: it can)

    @classmethod
    def from_dict(cls, data: dict) -> "ModelSet":
        try:
            return cls(name=data["name"], label=data["label"], summary=data.get("summary", ""),
                       languages=list(data.get("languages", [])), order=int(data.get("order", 100)),
                       default=bool(data.get("default", False)), sources=data["sources"], files=data["files"],
                       dictionary=data["dictionary"] if "line_rec" not in data else data.get("dictionary"),
                       inputs=data.get("inputs", {}),
                       webgl=data.get("webgl", {"supported": False}), config=data.get("config", {}),
                       reread_dictionary=data.get("reread_dictionary"), line_rec=data.get("line_rec"),
                       browser=data.get("browser"))
        except (KeyError, TypeError, ValueError) as exc:
            raise RettoError(INVALID_CONFIG, f"model set file is incomplete: {exc}") from exc

    def to_dict(self) -> dict:
        return {"name": self.name, "label": self.label, "summary": self.summary, "languages": self.languages,
                "order": self.order, "default": self.default, "sources": self.sources, "files": self.files,
                "dictionary": self.dictionary, "inputs": self.inputs, "webgl": self.webgl, "config": self.config,
                **({"reread_dictionary": self.reread_dictionary} if self.reread_dictionary else {}),
                **({"line_rec": self.line_rec} if self.line_rec else {}),
                **({"browser": self.browser} if self.browser else {})}

    @property
    def roles(self) -> list:
        """Every file the set needs: the models, then its dictionary files, then its traineddata."""
        return ([r for r in self.model_roles if r in self.files] + [r for r in self.files if is_dictionary(r)]
                + self.traineddata_roles)

    @property
    def model_roles(self) -> list:
        """det, cls, rec (or line_rec), then the optional models the set has (orient, reread, layout, table)."""
        return [r for r in (*ROLES, *OPTIONAL_ROLES) if r in self.files] + ([LINE_ROLE] if self.line_rec else [])

    @property
    def line_languages(self) -> list:
        """The line recogniser's languages in Tesseract's codes, first the main one ("rus+eng" -> [rus, eng])."""
        return self.line_rec["languages"].split("+") if self.line_rec else []

    @property
    def tesseract_codes(self) -> list:
        """The languages the line recogniser reads, in Tesseract's codes: line_rec's "codes" when its "languages"
        name a script model ("Cyrillic+eng" reads rus, ukr, ... eng), else its languages."""
        return self.line_rec.get("codes", self.line_rec["languages"]).split("+") if self.line_rec else []

    @property
    def traineddata_roles(self) -> list:
        return [TRAINEDDATA_PREFIX + lang for lang in self.line_languages]

    @property
    def browser_supported(self) -> bool:
        return (self.browser or {}).get("supported", True)

    def dictionary_of(self, role: str) -> dict | None:
        """Where a recogniser's dictionary comes from: "rec" -> dictionary, "reread" -> reread_dictionary."""
        return self.dictionary if role == "rec" else self.reread_dictionary if role == "reread" else None

    @property
    def download_bytes(self) -> int:
        return sum(int(f["size"]) for f in self.files.values())

    def local_name(self, role: str) -> str:
        """File name inside models/<set>/ (and assets/models/<set>/ in the browser)."""
        if role.startswith(TRAINEDDATA_PREFIX):   # Tesseract finds <lang>.traineddata in one tessdata folder
            return f"tessdata/{role[len(TRAINEDDATA_PREFIX):]}.traineddata"
        return f"{role}.txt" if is_dictionary(role) else f"{role}.onnx"

    def version(self, role: str) -> str:
        if role == LINE_ROLE:   # one traineddata per language: name them all
            return ", ".join(self.version(r) for r in self.traineddata_roles)
        f = self.files[role]
        return f"{f['version']} sha256:{f['sha256'][:12]}"

    def make_config(self, overrides: dict | None = None) -> Config:
        """The reference defaults, then this set's settings, then the caller's overrides (a partial dict)."""
        return Config.from_dict(merge(self.config, overrides or {}))

    def charset(self, rec_model: bytes, dictionary: bytes | None = None, role: str = "rec") -> list:
        """A recogniser's dictionary (role "rec" or "reread"), from wherever the set says it lives, checked
        against its entry count (a miscount shifts every class by one: garbage text, not an error, unless it is
        caught here)."""
        spec = self.dictionary_of(role)
        if spec is None:
            raise RettoError(INVALID_CONFIG, f"model set {self.name}: no dictionary for {role!r}")
        chars = self._read_charset(spec, rec_model, dictionary)
        want = spec.get("entries")
        if want is not None and len(chars) != int(want):
            raise RettoError(MODEL_INTEGRITY, f"model set {self.name}: the {role} dictionary has {len(chars)} "
                                              f"entries, the set file says {want}")
        return chars

    def _read_charset(self, spec: dict, rec_model: bytes, dictionary: bytes | None) -> list:
        src = spec.get("from")
        if src == "rec-metadata":
            return read_charset(rec_model)
        if src == "file":
            if dictionary is None:
                raise RettoError(MODEL_MISSING, f"model set {self.name}: its dictionary file was not loaded")
            # One entry per line, LF or CRLF (the v6 files use CRLF); only the line break is stripped, since an
            # entry may itself be a space.
            lines = dictionary.decode("utf-8").split("\n")
            if lines and lines[-1] == "":
                lines.pop()
            return [line[:-1] if line.endswith("\r") else line for line in lines]
        raise RettoError(INVALID_CONFIG, f"model set {self.name}: unknown dictionary source {src!r}")


def is_dictionary(role: str) -> bool:
    return role == DICT_ROLE or role.endswith("_" + DICT_ROLE)


def merge(base: dict, over: dict) -> dict:
    """Section-wise merge of two partial config dicts (`over` wins key by key)."""
    out = {k: dict(v) for k, v in base.items()}
    for section, values in over.items():
        if not isinstance(values, dict):
            raise RettoError(INVALID_CONFIG, f"config section {section!r} must be an object")
        out.setdefault(section, {}).update(values)
    return out


PACKAGED_SETS = Path(__file__).resolve().parent.parent / "sets"


def sets_dir(models_dir: Path | None = None) -> Path:
    """The set files: the models folder's own sets/*.json when it has some (sets of your own), else the package's."""
    own = Path(models_dir or default_models_dir()) / "sets"
    return own if any(own.glob("*.json")) else PACKAGED_SETS


def available(models_dir: Path | None = None) -> list:
    """Every set file, in display order; exactly one is the default."""
    folder = sets_dir(models_dir)
    files = sorted(folder.glob("*.json")) if folder.is_dir() else []
    if not files:
        raise RettoError(MODEL_MISSING, f"no model set files in {folder}")
    sets = sorted((ModelSet.from_dict(json.loads(p.read_text(encoding="utf-8"))) for p in files),
                  key=lambda s: (s.order, s.name))
    defaults = [s.name for s in sets if s.default]
    if len(defaults) != 1:
        raise RettoError(INVALID_CONFIG, f"exactly one model set must be the default, found {defaults or 'none'}")
    return sets


def default_name(models_dir: Path | None = None) -> str:
    return next(s.name for s in available(models_dir) if s.default)


def load(name: str | None = None, models_dir: Path | None = None) -> ModelSet:
    """The set called `name` (None: the default set)."""
    sets = available(models_dir)
    if name is None:
        return next(s for s in sets if s.default)
    for s in sets:
        if s.name == name:
            return s
    raise RettoError(INVALID_CONFIG, f"unknown model set {name!r}; choose one of: {', '.join(s.name for s in sets)}")


def for_language(code: str, models_dir: Path | None = None) -> ModelSet:
    """The set that reads a language, by its code as the set files list it ("ru", "uk", "ar") or Tesseract's
    ("rus"): the first in display order, so a language several sets read ("en") goes to the earlier one."""
    sets = available(models_dir)
    want = code.strip()
    for s in sets:
        if want in s.languages or want in s.tesseract_codes:
            return s
    known = sorted({lang for s in sets for lang in s.languages})
    raise RettoError(INVALID_CONFIG, f"no model set reads language {code!r}; the sets read: {', '.join(known)}")


def languages_of(name: str | None) -> list:
    """The languages of a set we ship, by name (none for models given by hand or a set not found)."""
    if not name:
        return []
    try:
        return list(load(name).languages)
    except (RettoError, OSError, ValueError):
        return []


def set_dir(model_set: ModelSet, models_dir: Path | None = None) -> Path:
    return Path(models_dir or default_models_dir()) / model_set.name


def read_file(model_set: ModelSet, role: str, models_dir: Path | None = None) -> bytes:
    """One of the set's fetched files, refused unless its sha256 matches the set file."""
    path = set_dir(model_set, models_dir) / model_set.local_name(role)
    if not path.exists():
        raise RettoError(MODEL_MISSING, f"{model_set.name} {role} file {path} is missing: run "
                                        f"`retto models fetch {model_set.name}` to download the model set.")
    data = path.read_bytes()
    verify(role, data, model_set.files[role]["sha256"], str(path))
    return data
