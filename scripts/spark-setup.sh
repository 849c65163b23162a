#!/usr/bin/env bash
# Installs what running seedforge on Apache Spark needs, into git-ignored folders: Java 17
# (Debian's openjdk-17-jre-headless, when no java is on PATH) and pyspark 4.3.0 from PyPI
# in a virtual environment at .build-spark/venv. Called by `make test` (the Spark test) and
# `make bench`; safe to run again: it does nothing when both are present.
# Prints the venv's python on its last line.
set -euo pipefail
cd "$(dirname "$0")/.."

venv=.build-spark/venv
pyspark_version=4.3.0

if ! command -v java >/dev/null 2>&1; then
    if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null 2>&1; then
        echo "spark-setup: installing openjdk-17-jre-headless" >&2
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq
        apt-get install -y -qq --no-install-recommends openjdk-17-jre-headless >/dev/null
    else
        echo "spark-setup: Java 17 is missing; install it with:  sudo apt-get install openjdk-17-jre-headless" >&2
        exit 1
    fi
fi

if ! "$venv/bin/python" -c "import pyspark, sys; sys.exit(pyspark.__version__ != '$pyspark_version')" 2>/dev/null; then
    echo "spark-setup: installing pyspark $pyspark_version into $venv (about 500 MB, once)" >&2
    python3 -m venv "$venv"
    "$venv/bin/python" -m pip install -q "pyspark==$pyspark_version"
fi
echo "$PWD/$venv/bin/python"
