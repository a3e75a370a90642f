"""Training side of scoresheet: synthetic and real cell data, the CRNN-CTC cell
reader, its evaluation and its export to ONNX (`models/`).

Run from the repository root: `python -m training.run` does everything; the steps
run alone as `python -m training.<step>` (split, corpus, hcs, render, train,
evaluate, export, fixtures, sheets).
"""
