"""Files that several set files name with the same sha256 (a shared detector, line classifier or layout model)
are one file on disk after `scripts/setup/fetch_models.py` (retto.models.fetch links them), and each set's copy
still verifies against its own set file."""
from __future__ import annotations

import os
from collections import defaultdict

from refkit import ROOT

from retto.models import fetch, sets


def test_identical_model_files_are_stored_once():
    models_dir = ROOT / "models"
    by_sha = defaultdict(list)
    for model_set in sets.available(models_dir):
        folder = sets.set_dir(model_set, models_dir)
        for role in model_set.roles:
            by_sha[model_set.files[role]["sha256"]].append(folder / model_set.local_name(role))
    shared = {sha: paths for sha, paths in by_sha.items() if len(paths) > 1}
    assert len(shared) >= 2, "the sets share at least a detector and a line classifier"
    for sha, paths in shared.items():
        assert len({os.stat(p).st_ino for p in paths}) == 1, f"{sha[:12]} is stored more than once: {paths}"
        assert fetch.sha256_file(paths[0]) == sha
