"""Installs the test network guard in a Python process that a test started (see sciwrite_netguard)."""

import os

import sciwrite_netguard

if os.environ.get(sciwrite_netguard.LOG_ENV):
    sciwrite_netguard.install(child_log=os.environ[sciwrite_netguard.LOG_ENV])
