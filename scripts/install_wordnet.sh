#!/usr/bin/env bash
# WordNet 3.0 for METEOR's synonym matching, from Debian's wordnet-base (nltk's own download needs the internet).
# Called by `make install` (so both README commands get it) and by .ci/run. Never fails the install: without
# WordNet, METEOR reports itself not computed and the tests that need it skip with the reason.
if [ -f /usr/share/wordnet/data.noun ]; then exit 0; fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "note: no apt-get here; install WordNet 3.0 (Debian/Ubuntu: wordnet-base) for METEOR" >&2; exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then SUDO="sudo -n"; else
    echo "note: not root and no password-less sudo; run 'sudo apt-get install wordnet-base' for METEOR" >&2; exit 0
  fi
fi
($SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends wordnet-base) \
  || echo "warning: could not install wordnet-base; METEOR will be reported as not computed" >&2
exit 0
