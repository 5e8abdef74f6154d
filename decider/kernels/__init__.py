"""Kernels for the denoising hot path (imported as decider.kernels): each op has a torch
reference (`<op>/naive.py`) and a Triton implementation (`<op>/triton.py`);
`dispatch` picks one per device."""
