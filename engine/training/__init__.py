"""Training, never imported by the runtime: the corpus generator (v1 patterns and the
v2 families), team datasets, the trainer, evaluation, temperature calibration and the
model card."""
