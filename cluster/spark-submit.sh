#!/usr/bin/env bash
# spark-submit from the project's Spark environment (.build-spark/venv, made by
# scripts/spark-setup.sh, which this runs first: it does nothing when all is there).
#   cluster/spark-submit.sh --master 'local[2]' cluster/seedforge_spark.py PIPELINE --shards 8 ...
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
python="$("$root/scripts/spark-setup.sh" | tail -n 1)"
venv="$(dirname "$(dirname "$python")")"
export PATH="$venv/bin:$PATH" PYSPARK_PYTHON="$python" PYSPARK_DRIVER_PYTHON="$python"
exec "$venv/bin/spark-submit" "$@"
