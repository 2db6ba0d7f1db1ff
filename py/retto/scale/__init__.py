"""Scale out: the native pipeline over many inputs.

- `retto batch` on Ray Data (`pipeline`, `predictor`, `cluster`, `batch_cli`): one row per page (`rows`), written
  by the driver in part files that only ever hold whole inputs (`output`), so a re-run skips what is done.
- `retto --jobs N` on one machine (`jobs`): N single-thread worker processes, the CLI's exact output.

Ray and pyarrow are optional (`pip install 'retto[ray]'`); `jobs` and `resources` need neither.
"""
