"""How many actors, with how many onnxruntime threads each, on which device.

Rules (the traps seen in a prototype, see docs/guides/scale.md):
- actors × threads ≤ the cluster's CPUs: onnxruntime spins a thread per core it is given (it ignores
  OMP_NUM_THREADS, so the count is passed explicitly), and oversubscribed cores run slower than fewer threads;
- each actor reserves as many Ray CPUs as it runs threads, so Ray never packs more threads on a node than it has;
- nothing else in the job reserves a CPU (inputs are read inside the actors; rows are written by the driver), so
  the actors taking every CPU cannot starve another task into a silent hang;
- with `num_gpus` > 0 each actor reserves that share of a GPU; Ray then sets CUDA_VISIBLE_DEVICES for it, so the
  actor's onnxruntime asks for CUDA device 0 (the first it can see) and keeps one CPU thread for the rest.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ActorPlan:
    actors: int
    threads: int        # onnxruntime intra-op threads per actor
    num_cpus: float     # Ray CPUs reserved per actor
    num_gpus: float     # Ray GPUs reserved per actor (0: CPU only)
    device: str         # what the actor's OrtWorker asks for

    def remote_args(self) -> dict:
        args = {"num_cpus": self.num_cpus}
        if self.num_gpus:
            args["num_gpus"] = self.num_gpus
        return args


def plan(cpus: int, actors: int | None = None, threads: int | None = None, num_gpus: float = 0.0,
         gpus: int = 0) -> ActorPlan:
    """cpus / gpus: what the cluster has. actors / threads: what was asked (None: decided here). Raises
    ValueError for a plan that cannot run (it would hang waiting for resources that never come)."""
    cpus = int(cpus)
    if cpus < 1:
        raise ValueError("the Ray cluster has no CPU")
    if num_gpus < 0 or (actors is not None and actors < 1) or (threads is not None and threads < 1):
        raise ValueError("actors, threads and num_gpus must be positive")
    if num_gpus:
        if gpus < 1:
            raise ValueError(f"num_gpus={num_gpus} asked, but the Ray cluster has no GPU")
        fit = int(gpus / num_gpus + 1e-9)   # 0.5 GPU each: two actors share a GPU
        actors = actors or fit
        if actors > fit:
            raise ValueError(f"{actors} actors × {num_gpus} GPU is more than the cluster's {gpus} GPU")
        threads = threads or 1
        if actors * threads > cpus:
            raise ValueError(f"{actors} actors × {threads} threads is more than the cluster's {cpus} CPUs")
        return ActorPlan(actors, threads, float(threads), float(num_gpus), "cuda:0")
    if actors is None and threads is None:
        actors, threads = cpus, 1   # measured: single-thread workers beat multi-thread ones (docs/measurements/scale.md)
    elif actors is None:
        actors = max(1, cpus // threads)
    elif threads is None:
        threads = max(1, cpus // actors)
    if actors * threads > cpus:
        raise ValueError(f"{actors} actors × {threads} threads is more than the cluster's {cpus} CPUs: "
                         "Ray would wait for CPUs that never free up")
    return ActorPlan(actors, threads, float(threads), 0.0, "cpu")
