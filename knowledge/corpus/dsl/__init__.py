"""Package data: the Markdown here ships in wheels only because setup.py packages folders with an __init__.py."""
