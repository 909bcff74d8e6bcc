#!/bin/sh
# The conformance driver is harness/conformance.py (--help); this name is kept for older command lines.
exec python3 "$(dirname "$0")/conformance.py" "$@"
