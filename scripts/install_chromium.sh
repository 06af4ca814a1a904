#!/usr/bin/env bash
# Debian's Chromium for the leaderboard's browser test (tests/leaderboard/test_browser.py drives /usr/bin/chromium
# through Playwright; Playwright's own browser download needs the internet). Called by .ci/run. Never fails the
# run: without Chromium the browser test skips with the reason.
if [ -x /usr/bin/chromium ]; then exit 0; fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "note: no apt-get here; install Chromium at /usr/bin/chromium (Debian: chromium) or the browser test skips" >&2
  exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then SUDO="sudo -n"; else
    echo "note: not root and no password-less sudo; run 'sudo apt-get install chromium' or the browser test skips" >&2
    exit 0
  fi
fi
($SUDO apt-get update -qq \
  && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends chromium) \
  || echo "warning: could not install chromium; the leaderboard's browser test will skip" >&2
exit 0
