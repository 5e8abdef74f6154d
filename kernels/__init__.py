"""Kernels for the denoising hot path (imported as `decider.kernels`)."""
