"""sciwrite's `evaluate` modules, one folder each (``<name>/<name>.py`` and its card ``<name>/README.md``).

Installed as the package `sciwrite.evaluate_modules`; `sciwrite.load_metric(name)` finds them there."""
