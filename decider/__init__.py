"""decider: joint decisions over up to eight related questions, denoised in one block."""

__version__ = "0.1.0"
