"""Front ends on other harnesses than sciwrite's own command line: the Inspect AI tasks (`inspect_tasks`), registered
through the ``inspect_ai`` entry point (`inspect_registry`). Nothing in the core imports this package; it needs the
``inspect`` extra (``pip install sciwrite[inspect]``)."""
