"""Kernels for the denoising hot path (imported as decider.kernels).

Only the torch implementation exists so far; `backend_name()` reports what runs."""


def backend_name() -> str:
    return "torch"
