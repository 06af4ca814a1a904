"""Shared by the SciIG metric modules."""

SCIIG_CITATION = """\
@article{garg2025sciig,
  title   = {Let's Use {ChatGPT} To Write Our Paper! Benchmarking {LLMs} To Write the Introduction of a Research Paper},
  author  = {Garg, Krishna and Shaik, Firoz and Bandyopadhyay, Sambaran and Caragea, Cornelia},
  journal = {arXiv preprint arXiv:2508.14273},
  year    = {2025},
  url     = {https://arxiv.org/abs/2508.14273}
}
"""
