"""The repository root is the `kernelwright` package; its top-level folders are its subpackages."""
from setuptools import find_packages, setup

SUBPACKAGES = find_packages(include=["agent*", "tools*", "knowledge*", "prompts*", "evals*"])

setup(
    packages=["kernelwright"] + [f"kernelwright.{p}" for p in SUBPACKAGES],
    package_dir={"kernelwright": "."},
)
